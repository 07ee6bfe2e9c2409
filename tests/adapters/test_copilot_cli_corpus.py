"""The Copilot CLI samples of ../shared/corpus-next/copilot-cli parse, every record accounted for.

Four real sessions of Copilot CLI 1.0.78 (lantern) and a multi-type baseline built by its
publisher from real sessions (agent-sessions). They are copied into a temporary home laid out
as Copilot lays it out (never into the repo); the facts checked were read off the raw lines.
"""

from __future__ import annotations

import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest
from corpus_home import parse_home

from chatparse.adapters.copilot_cli import CopilotCliAdapter
from chatparse.model import ParsedConversation

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus-next" / "copilot-cli"
LANTERN = CORPUS / "WildChildForLife__lantern/fixtures/copilot-home/session-state"
SMALL = CORPUS / "jazzyalex__agent-sessions/Resources/Fixtures/stage0/agents/copilot/small.jsonl"
EDIT = "049410b4-c1df-44ee-87a5-caa1c349091e"
GREP = "f27af309-ccf3-41da-8f07-b3dcbffd4c90"

pytestmark = pytest.mark.skipif(not CORPUS.is_dir(), reason=f"no corpus at {CORPUS}")


@pytest.fixture(scope="module")
def parsed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, ParsedConversation]:
    """Every sample, each as the session Copilot would have written, parsed."""
    home = tmp_path_factory.mktemp("home")
    state = home / ".copilot" / "session-state"
    state.mkdir(parents=True)
    for log in sorted(LANTERN.glob("*/events.jsonl")):
        (state / log.parent.name).mkdir()
        shutil.copy(log, state / log.parent.name / "events.jsonl")
    if SMALL.is_file():
        shutil.copy(SMALL, state / "copilot_stage0_small.jsonl")  # the flat layout
    return parse_home(CopilotCliAdapter(), home)


def test_every_real_session_is_listed(parsed: dict[str, ParsedConversation]) -> None:
    """The four lantern sessions, by their folder names, and their common facts."""
    real = [c for c in parsed.values() if c.producer_version == "1.0.78"]
    assert len(real) == 4
    for conversation in real:
        assert (conversation.project_path, conversation.git_branch) == ("/work", "master")
        assert {m.model for m in conversation.messages if m.role == "assistant"} == {"qwen3:0.6b"}
        assert conversation.diagnostics.skipped["system.message: system prompt"] == 1
        # The prompt as typed, not transformedContent with the CLI's injected datetime.
        assert "<current_datetime>" not in conversation.messages[0].text


def test_failing_parallel_tool_requests_and_the_shutdown_totals(
    parsed: dict[str, ParsedConversation],
) -> None:
    """Two view requests fail with error.message; the shutdown's totals go to the last answer."""
    conversation = parsed[EDIT]
    assert conversation.created_at == datetime(2026, 8, 5, 20, 40, 13, 471000, tzinfo=UTC)
    assert conversation.diagnostics.records_seen == 15
    user, calls, final = conversation.messages
    assert user.text == (
        "In src/orders.py make average_item_price return 0 when the cart has no items."
    )
    assert [(c.id, c.name, c.is_error) for c in calls.tool_calls] == [
        ("call_fpjobf9a", "view", True),
        ("call_de798t9c", "view", True),
    ]
    assert {c.output for c in calls.tool_calls} == {'"path": Required'}
    assert calls.thinking is not None
    assert calls.thinking.startswith("Okay, let me try to figure out how to solve this problem.")
    assert calls.usage is not None
    assert (calls.usage.output_tokens, calls.usage.counted) == (470, False)
    assert final.usage is not None
    assert (final.usage.input_tokens, final.usage.output_tokens, final.usage.counted) == (
        4100,
        978,
        True,
    )
    total = conversation.usage_total()
    assert (total.input_tokens, total.output_tokens) == (4100, 978)  # 470 + 508, counted once


def test_a_successful_tool_result(parsed: dict[str, ParsedConversation]) -> None:
    """The grep request's result.content is its output."""
    (call,) = parsed[GREP].messages[1].tool_calls
    assert (call.name, call.output, call.is_error) == ("grep", "No matches found.", False)
    assert call.input == {
        "pattern": "function * . divide by zero on an empty cart",
        "output_mode": "content",
        "head_limit": 1,
    }


def test_the_multi_type_baseline(parsed: dict[str, ParsedConversation]) -> None:
    """Notices, a string of arguments, tokenDetails totals, a sub-agent run, resumes."""
    if "copilot_stage0_small" not in parsed:
        pytest.skip("small.jsonl is not in the corpus")
    conversation = parsed["copilot_stage0_small"]
    assert conversation.meta.locator == {"layout": "flat"}
    assert conversation.producer_version == "1.0.77"
    assert conversation.diagnostics.records_seen == 32
    notices = [m.text for m in conversation.messages if m.kind == "notice"]
    assert notices[:2] == [
        "Folder /tmp/repo has been added to trusted folders.",
        "Example model error",
    ]
    listing = next(m for m in conversation.messages if m.text == "Listing the files.")
    (shell,) = listing.tool_calls
    assert (shell.input, shell.output) == ({"command": "ls"}, "a.txt\nb.txt\n")
    done = next(m for m in conversation.messages if m.text == "Done")
    assert done.usage is not None
    assert (done.usage.input_tokens, done.usage.output_tokens, done.usage.cache_read_tokens) == (
        100,
        15,
        5,
    )
    (subagent,) = conversation.subagents
    assert [m.role for m in subagent.messages] == ["assistant"]
    assert conversation.diagnostics.skipped["session.resume: session resumed"] == 2
