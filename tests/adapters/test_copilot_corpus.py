"""Every real Copilot Chat file in ../shared/corpus parses, replayed in full and fully accounted."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import chatparse
from chatparse.adapters.copilot import CopilotAdapter
from chatparse.model import ParsedConversation
from chatparse.testing import check_conversation

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus" / "copilot"

pytestmark = pytest.mark.skipif(not CORPUS.is_dir(), reason=f"no corpus at {CORPUS}")

# name fragment -> (requests, messages, tool calls, records seen)
EXPECTED = {
    "session_multiline": (2, 4, 3, 24),
    "empty_then_patched": (1, 2, 0, 5),
    "session_simple.jsonl": (3, 6, 2, 24),
    "session_simple.json": (3, 6, 2, 23),
}


def corpus_file(fragment: str) -> Path:
    found = sorted(p for p in CORPUS.glob("*.json*") if fragment in p.name)
    if not found:
        pytest.skip(f"corpus file *{fragment}* is not here")
    return found[0]


def parse(path: Path) -> ParsedConversation:
    (conversation,) = chatparse.parse_path(path, source="copilot")
    assert check_conversation(conversation) == []
    assert conversation.diagnostics.balanced
    return conversation


@pytest.mark.parametrize("fragment", sorted(EXPECTED))
def test_corpus_session_counts(fragment: str) -> None:
    """Each real session gives the number of turns, messages and tool calls its replay holds."""
    conversation = parse(corpus_file(fragment))
    requests, messages, calls, seen = EXPECTED[fragment]
    assert sum(1 for m in conversation.messages if m.role == "user") == requests
    assert len(conversation.messages) == messages
    assert sum(len(m.tool_calls) for m in conversation.messages) == calls
    assert conversation.diagnostics.records_seen == seen
    assert conversation.diagnostics.malformed == 0
    assert conversation.diagnostics.unknown == ()


def test_corpus_multiline_log_keeps_the_turn_added_after_line_one() -> None:
    """The real multi-line log yields both turns; reading only line 1 would give one."""
    conversation = parse(corpus_file("session_multiline"))
    prompts = [m.text for m in conversation.messages if m.role == "user"]
    assert prompts == ["Add a joke about 7sadfh32u23gdaWF to jokes.csv", "follow up message"]
    assert conversation.title == "Adding a joke to jokes.csv file"
    assert conversation.producer_version == "0.37.1"
    last = conversation.messages[-1]
    assert last.text.startswith('The joke about "7sadfh32u23gdaWF" has been successfully added')
    assert "`jokes.csv`" in last.text
    assert last.usage is not None
    assert (last.usage.input_tokens, last.usage.output_tokens) == (9948, 40)


def test_corpus_tool_inputs_come_from_tool_call_rounds() -> None:
    """The real agent turn's tool calls get their arguments from toolCallRounds, in order."""
    conversation = parse(corpus_file("session_multiline"))
    calls = conversation.messages[1].tool_calls
    assert [c.name for c in calls] == [
        "copilot_readFile",
        "copilot_insertEdit",
        "vscode_editFile_internal",
    ]
    assert calls[0].input["filePath"] == "/Users/svarlamov/projects/testing-git/jokes.csv"
    assert calls[1].input["filePath"] == "/Users/svarlamov/projects/testing-git/jokes.csv"
    assert calls[2].input is None


def test_corpus_json_and_its_one_line_log_give_the_same_messages() -> None:
    """The flat .json and the one-line .jsonl of the same session parse to the same messages."""
    document = parse(corpus_file("session_simple.json"))
    log = parse(corpus_file("session_simple.jsonl"))
    assert document.messages == log.messages
    assert document.title == log.title == "Assistance with TypeScript project tasks"


def test_corpus_transcript_stream() -> None:
    """The real transcript event stream gives its prompt, answers and tool requests."""
    conversation = parse(corpus_file("transcript_event_stream"))
    assert [(m.role, m.text) for m in conversation.messages] == [
        ("user", "Add a comment to the file"),
        ("assistant", "I'll read the file first."),
        ("assistant", "Now I'll apply the patch."),
    ]
    calls = [c for m in conversation.messages for c in m.tool_calls]
    assert [(c.name, c.is_error) for c in calls] == [("read_file", False), ("apply_patch", False)]
    assert calls[0].input == {
        "filePath": "/Users/test/project/src/main.ts",
        "startLine": 1,
        "endLine": 40,
    }
    assert conversation.producer_version == "0.47.0"


def test_corpus_laid_out_as_a_home_gives_one_conversation_per_session(tmp_path: Path) -> None:
    """As a home: a .json and .jsonl of one id are one conversation; every file is read."""
    sessions = tmp_path / ".config" / "Code" / "User" / "workspaceStorage" / "w1" / "chatSessions"
    sessions.mkdir(parents=True)
    for path in sorted(CORPUS.glob("gitai_copilot_session_*.json*")):
        stem = "simple" if "session_simple" in path.name else path.stem
        shutil.copyfile(path, sessions / f"{stem}{path.suffix}")
    adapter = CopilotAdapter()
    found = adapter.detect(chatparse.Host(home=tmp_path, env={}, platform="linux"))
    assert found is not None
    metas = list(adapter.scan(found))
    assert len(metas) == 3
    simple = next(m for m in metas if m.id == "simple")
    assert simple.path.endswith(".jsonl")
    assert simple.locator["superseded_json"].endswith("simple.json")
    for meta in metas:
        assert check_conversation(adapter.parse(meta)) == []
