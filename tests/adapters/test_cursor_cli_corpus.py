"""The Cursor CLI samples parse, every record accounted for.

../shared/corpus-next/cursor-cli holds hand-made transcripts and a meta-only store.db built by
agent-sessions from real shapes; ../shared/corpus/cursor holds one real transcript (git-ai).
They are copied into a temporary home laid out as the CLI lays it out (never into the repo);
the facts checked were read off the raw files.
"""

from __future__ import annotations

import hashlib
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest
from corpus_home import parse_home

from chatparse.adapters.cursor_cli import CursorCliAdapter
from chatparse.model import ParsedConversation

SHARED = Path(__file__).resolve().parents[3] / "shared"
CORPUS = SHARED / "corpus-next" / "cursor-cli" / "jazzyalex__agent-sessions"
TESTS = CORPUS / "AgentSessionsTests/Fixtures/Cursor"
STAGE0 = CORPUS / "Resources/Fixtures/stage0/agents/cursor"
REAL = SHARED / "corpus" / "cursor" / "gitai_cursor-agent-transcript.jsonl"
STORE_AGENT = "a1b2c3d4-e5f6-7890-abcd-ef1234567890"  # the agentId in the store's meta row

pytestmark = pytest.mark.skipif(not CORPUS.is_dir(), reason=f"no corpus at {CORPUS}")


def nested(projects: Path, ident: str, source: Path) -> Path:
    folder = projects / "agent-transcripts" / ident
    folder.mkdir(parents=True)
    return Path(shutil.copy(source, folder / f"{ident}.jsonl"))


@pytest.fixture(scope="module")
def parsed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, ParsedConversation]:
    """Every sample, each where the CLI would have written it, parsed and checked."""
    home = tmp_path_factory.mktemp("home")
    projects = home / ".cursor" / "projects" / "Users-me-Desktop-app"
    session = nested(projects, "test-session", TESTS / "test-session.jsonl")
    (session.parent / "subagents").mkdir()
    shutil.copy(TESTS / "subagent-session.jsonl", session.parent / "subagents" / "sub-1.jsonl")
    parent = nested(projects, "parent", STAGE0 / "subagent/parent.jsonl")
    (parent.parent / "subagents").mkdir()
    shutil.copy(STAGE0 / "subagent/subagents/child.jsonl", parent.parent / "subagents")
    shutil.copy(STAGE0 / "small.jsonl", projects / "agent-transcripts" / "small.jsonl")
    if REAL.is_file():
        nested(projects, "gitai", REAL)
    bucket = hashlib.md5(b"/Users/me/Desktop/app").hexdigest()  # noqa: S324 -- Cursor's own key
    store = home / ".cursor" / "chats" / bucket / STORE_AGENT / "store.db"
    store.parent.mkdir(parents=True)
    shutil.copy(TESTS / "test-store.db", store)
    return parse_home(CursorCliAdapter(), home, "darwin")


def test_every_sample_is_listed(parsed: dict[str, ParsedConversation]) -> None:
    """Three nested transcripts (four with the real one), a flat one and the store."""
    expected = {"test-session", "parent", "small", STORE_AGENT} | (
        {"gitai"} if REAL.is_file() else set()
    )
    assert set(parsed) == expected


def test_calls_without_ids_or_results(parsed: dict[str, ParsedConversation]) -> None:
    """Two Shell calls, no ids, no output; the [REDACTED] reasoning is out of the text."""
    conversation = parsed["test-session"]
    assert conversation.messages[0].text == "run ls command"
    calls = [c for m in conversation.messages for c in m.tool_calls]
    assert [(c.name, c.id, c.output) for c in calls] == [("Shell", None, None)] * 2
    assert calls[1].input == {"command": "git status", "description": "Check git status"}
    assert not any("[REDACTED]" in m.text for m in conversation.messages)
    assert conversation.messages[-1].text == "The repository is clean — no uncommitted changes."
    (child,) = conversation.subagents
    assert child.id == "test-session/sub-1"
    assert child.messages[-1].text == "Done. The directory has 12 entries."


def test_sub_agent_folder_and_turn_ended(parsed: dict[str, ParsedConversation]) -> None:
    """parent.jsonl's sub-agent is read from subagents/; small.jsonl's turn_ended is skipped."""
    (child,) = parsed["parent"].subagents
    assert [m.text for m in child.messages] == ["List files", "file1.txt\nfile2.txt"]
    small = parsed["small"]
    assert small.meta.locator["layout"] == "flat"
    assert dict(small.diagnostics.skipped) == {"turn ended": 1}
    assert [c.name for m in small.messages for c in m.tool_calls] == ["Bash"]


def test_the_meta_only_store(parsed: dict[str, ParsedConversation]) -> None:
    """The hex-encoded agent record gives the name and time; the blobs table is empty."""
    store = parsed[STORE_AGENT]
    assert store.title == "Test Session"
    assert store.created_at == datetime(2026, 4, 7, 0, 43, 10, 321000, tzinfo=UTC)
    assert store.messages == ()
    assert store.diagnostics.records_used == 1


@pytest.mark.skipif(not REAL.is_file(), reason=f"no real transcript at {REAL}")
def test_the_real_transcript(parsed: dict[str, ParsedConversation]) -> None:
    """git-ai's transcript: one prompt, eleven lines, tools without results, no [REDACTED]."""
    conversation = parsed["gitai"]
    assert conversation.title == "Generate a file with all the HBO shows from the 90's in it"
    assert conversation.diagnostics.records_seen == 21
    names = [c.name for m in conversation.messages for c in m.tool_calls]
    assert names[:3] == ["Read", "WebSearch", "WebFetch"]
    assert "Write" in names
    assert all(c.output is None for m in conversation.messages for c in m.tool_calls)
    assert not any("[REDACTED]" in m.text for m in conversation.messages)
