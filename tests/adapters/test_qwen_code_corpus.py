"""Every Qwen Code sample in ../shared/corpus-next parses; usage matches Qwen's own roll-up."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from corpus_home import parse_home

from chatparse.adapters.qwen_code import QwenCodeAdapter
from chatparse.model import ParsedConversation

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus-next" / "qwen-code"
LANTERN = CORPUS / "WildChildForLife__lantern" / "fixtures" / "qwen-home"
HAND_MADE = (
    CORPUS / "jazzyalex__agent-sessions" / "Resources" / "Fixtures" / "stage0" / "agents" / "qwen"
)

pytestmark = pytest.mark.skipif(not CORPUS.is_dir(), reason=f"no corpus at {CORPUS}")


@pytest.fixture(scope="module")
def conversations(tmp_path_factory: pytest.TempPathFactory) -> dict[str, ParsedConversation]:
    """Every sample, copied into a home laid out as Qwen Code's (never into the repo), parsed."""
    if not LANTERN.is_dir() or not HAND_MADE.is_dir():
        pytest.skip("a corpus folder is not here")
    home = tmp_path_factory.mktemp("qwen-corpus")
    shutil.copytree(LANTERN, home / ".qwen")
    hand_made = home / ".qwen" / "projects" / "-tmp-as-qwen-fixture-project" / "chats"
    hand_made.mkdir(parents=True)
    for sample in HAND_MADE.glob("*.jsonl"):
        shutil.copyfile(sample, hand_made / sample.name)
    return parse_home(QwenCodeAdapter(), home)


def roll_up() -> dict[str, dict[str, int]]:
    """usage_record.jsonl: Qwen Code's own totals per session (every model summed)."""
    totals: dict[str, dict[str, int]] = {}
    for line in (LANTERN / "usage_record.jsonl").read_text().splitlines():
        record = json.loads(line)
        total = totals.setdefault(record["sessionId"], {})
        for model in record["models"].values():
            for key in (
                "requests",
                "inputTokens",
                "outputTokens",
                "thoughtsTokens",
                "cachedTokens",
            ):
                total[key] = total.get(key, 0) + model[key]
    return totals


def test_every_sample_is_a_conversation(conversations: dict[str, ParsedConversation]) -> None:
    """Four real sessions and two hand-made ones, by the id their file name gives."""
    assert len(conversations) == 6


def test_usage_equals_qwen_codes_own_roll_up(conversations: dict[str, ParsedConversation]) -> None:
    """Summed per session, the usage read from the telemetry is what usage_record.jsonl says.

    The assistant records alone under-report (a719...: 1 of 3 responses has one): the telemetry
    is read, each response once. The roll-up also lists three sessions whose files the sample
    does not include.
    """
    totals = roll_up()
    assert len(set(totals) & set(conversations)) == 4
    for session in set(totals) & set(conversations):
        expected, conversation = totals[session], conversations[session]
        usages = [m.usage for m in conversation.messages if m.usage is not None]
        assert len(usages) == expected["requests"], session
        assert sum(u.input_tokens or 0 for u in usages) == expected["inputTokens"], session
        assert sum(u.output_tokens or 0 for u in usages) == expected["outputTokens"], session
        assert sum(u.reasoning_tokens or 0 for u in usages) == expected["thoughtsTokens"], session
        assert sum(u.cache_read_tokens or 0 for u in usages) == expected["cachedTokens"], session


def test_the_under_reported_session(conversations: dict[str, ParsedConversation]) -> None:
    """a719...: the answer, then two responses of the memory-extractor sub-agent (side chains)."""
    conversation = conversations["a719f84a-209d-406a-8e6c-dc671c9c0192"]
    prompt, reply, extractor, follow_up = conversation.messages
    assert prompt.text == "What does average_item_price do? One sentence."
    assert reply.text.startswith("Average_item_price calculates the mean price")
    assert (reply.is_sidechain, extractor.is_sidechain, follow_up.is_sidechain) == (
        False,
        True,
        True,
    )
    names = [(c.name, c.is_error) for c in extractor.tool_calls]
    assert names == [("list_directory", True), ("read_file", False), ("list_directory", True)]
    assert follow_up.text.startswith("The parameter `path` is required.")
    assert conversation.project_path == "/work"
    assert conversation.producer_version == "0.21.6"


def test_tool_calls_are_paired_with_their_results(
    conversations: dict[str, ParsedConversation],
) -> None:
    """27d4...: a failed write_file, then read_file with the file's text; the retried reply."""
    conversation = conversations["27d495d1-de2d-449d-af11-d42d4d6ef80d"]
    calls = [c for m in conversation.messages for c in m.tool_calls]
    assert [(c.name, c.is_error) for c in calls] == [("write_file", True), ("read_file", False)]
    assert calls[0].output is not None
    assert calls[0].output.startswith("File /work/src/orders.py has not been read in this session.")
    assert calls[1].output is not None
    assert calls[1].output.startswith('"""Order totals.')
    retried = conversation.messages[3]  # chatcmpl-75: 767 thought tokens, no record of its own
    assert (retried.text, retried.usage is not None) == ("", True)
    assert retried.usage is not None
    assert retried.usage.output_tokens == 767


def test_the_hand_made_tree_keeps_the_rewound_branch(
    conversations: dict[str, ParsedConversation],
) -> None:
    """...0004: the rewound answer is a side chain; the last title and the active answer win."""
    conversation = conversations["019f0000-0000-7000-8000-000000000004"]
    assert conversation.title == "Active branch title"
    rewound = [m.text for m in conversation.messages if m.is_sidechain]
    assert rewound == ["Discarded branch answer."]
    assert [m.text for m in conversation.main_thread()] == [
        "Begin the active-chain fixture.",
        "Continue from the rewound branch.",
        "Active branch answer.",
    ]
    skipped = conversation.diagnostics.skipped
    assert skipped == {"rewind": 1, "session_artifact_snapshot": 1}


def test_the_hand_made_prompt_shows_its_display_text(
    conversations: dict[str, ParsedConversation],
) -> None:
    """...0001: the typed text, not the hook context; the branch and the notification."""
    conversation = conversations["019f0000-0000-7000-8000-000000000001"]
    first, *_, notification = conversation.messages
    assert first.text == "Inspect the synthetic fixture."
    assert conversation.git_branch == "fixture-branch"
    assert (notification.kind, notification.text) == (
        "notice",
        "Synthetic background notification.",
    )
