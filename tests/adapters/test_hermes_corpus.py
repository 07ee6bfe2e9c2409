"""The Hermes samples of ../shared/corpus-next/hermes parse, every record accounted for.

Both samples are hand-made (no real transcript and no state.db was found under a permissive
licence). They are copied into a temporary home laid out as Hermes lays it out (never into the
repo); the facts checked were read off the raw files.
"""

from __future__ import annotations

import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest
from corpus_home import parse_home

from chatparse.adapters.hermes import HermesAdapter
from chatparse.model import ParsedConversation

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus-next" / "hermes"
GATEWAY = CORPUS / "hand-made/sessions/20260403_153620_5a3e2ff1.jsonl"
SNAPSHOT = CORPUS / "jazzyalex__agent-sessions/Resources/Fixtures/stage0/agents/hermes/small.json"

pytestmark = pytest.mark.skipif(not CORPUS.is_dir(), reason=f"no corpus at {CORPUS}")


def parse(tmp_path: Path, sample: Path, name: str) -> ParsedConversation:
    """Parse ``sample`` as the one transcript of a fake home, under Hermes's own file name."""
    if not sample.is_file():
        pytest.skip(f"{sample.name} is not in the corpus")
    folder = tmp_path / ".hermes" / "sessions"
    folder.mkdir(parents=True)
    shutil.copy(sample, folder / name)
    (conversation,) = parse_home(HermesAdapter(), tmp_path).values()
    return conversation


def test_the_gateway_transcript(tmp_path: Path) -> None:
    """session_meta, a prompt with the gateway's date prefix, a tool call, its JSON result."""
    conversation = parse(tmp_path, GATEWAY, GATEWAY.name)
    assert conversation.id == "20260403_153620_5a3e2ff1"
    assert conversation.diagnostics.records_seen == 5
    prompt, call, answer = conversation.messages
    assert prompt.text == "[Fri 2026-04-03 15:36 GMT+2] what is in my notes folder?"
    assert conversation.title == prompt.text
    assert (call.thinking, call.text) == ("I should list the folder.", "")
    (tool,) = call.tool_calls
    assert (tool.id, tool.name, tool.input) == ("call_7f3a", "terminal", {"command": "ls ~/notes"})
    assert tool.output == '{"output": "ideas.md\\ntodo.md\\n", "exit_code": 0, "error": null}'
    assert answer.text == "Two files: ideas.md and todo.md."
    assert {call.model, answer.model} == {"anthropic/claude-sonnet-4"}
    # Every time in the file is local time without a zone: none is guessed.
    assert all(m.timestamp is None for m in conversation.messages)
    assert (conversation.created_at, conversation.updated_at) == (None, None)
    assert all(m.usage is None for m in conversation.messages)


def test_the_session_snapshot(tmp_path: Path) -> None:
    """A whole-session JSON snapshot: zoned start and end, cwd, two messages."""
    conversation = parse(tmp_path, SNAPSHOT, "session_20260429_hermes_small.json")
    assert conversation.id == "20260429_hermes_small"
    assert conversation.project_path == "/tmp/hermes-small"  # noqa: S108 -- the sample's own
    assert conversation.created_at == datetime(2026, 4, 29, 20, 0, tzinfo=UTC)
    assert conversation.updated_at == datetime(2026, 4, 29, 20, 0, 4, tzinfo=UTC)
    assert conversation.diagnostics.records_seen == 3  # the document and its two messages
    assert [(m.role, m.text) for m in conversation.messages] == [
        ("user", "Summarize this directory."),
        ("assistant", "This directory contains a small Hermes fixture."),
    ]
    assert conversation.messages[1].model == "claude-sonnet-4-6"
