"""The real OpenCode samples of ../shared/corpus-next/opencode, parsed from copies in a home."""

from __future__ import annotations

import json
import shutil
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from chatparse.adapters.opencode import OpenCodeAdapter
from chatparse.host import Host
from chatparse.model import ParsedConversation
from chatparse.testing import check_conversation

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus-next" / "opencode"
LANTERN_DB = CORPUS / "WildChildForLife__lantern" / "fixtures" / "opencode-sqlite" / "opencode.db"
GIT_AI_TREE = CORPUS / "git-ai-project__git-ai" / "tests" / "fixtures" / "opencode-storage"
DATA = Path(".local") / "share" / "opencode"

pytestmark = pytest.mark.skipif(not CORPUS.is_dir(), reason=f"no corpus at {CORPUS}")


def sample(path: Path) -> Path:
    if not path.exists():
        pytest.skip(f"sample {path.name} is not here")
    return path


def parse_home(home: Path) -> list[ParsedConversation]:
    adapter = OpenCodeAdapter()
    found = adapter.detect(Host(home=home, env={}, platform="linux"))
    assert found is not None
    parsed = [adapter.parse(meta) for meta in adapter.scan(found)]
    for conversation in parsed:
        assert check_conversation(conversation) == []
        assert conversation.diagnostics.balanced
        assert conversation.diagnostics.malformed == 0
        assert conversation.diagnostics.unknown == ()
    return parsed


@pytest.fixture
def lantern(tmp_path: Path) -> tuple[Path, list[ParsedConversation]]:
    """The real 1.18.13 database, copied into a fake home, and what it parses to."""
    db = tmp_path / DATA / "opencode.db"
    db.parent.mkdir(parents=True)
    shutil.copyfile(sample(LANTERN_DB), db)
    return db, parse_home(tmp_path)


def test_corpus_lantern_sessions(lantern: tuple[Path, list[ParsedConversation]]) -> None:
    """Three sessions of OpenCode 1.18.13 in /work, with their stored titles and records."""
    _, parsed = lantern
    summary = [
        (c.title, c.producer_version, c.project_path, c.diagnostics.records_seen, len(c.messages))
        for c in parsed
    ]
    assert summary == [
        ("Fix average_item_price returns 0 when cart has no items", "1.18.13", "/work", 14, 3),
        ('"Function to Validate Division on Empty Cart: Orders.py"', "1.18.13", "/work", 7, 2),
        ("What does average_item_price do?", "1.18.13", "/work", 8, 2),
    ]
    skipped: dict[str, int] = {}
    for conversation in parsed:
        for reason, count in conversation.diagnostics.skipped.items():
            skipped[reason] = skipped.get(reason, 0) + count
    assert skipped == {"part step-start": 4, "part patch": 1}
    assert all(c.subagents == () for c in parsed)


def test_corpus_lantern_tool_call_and_thinking(
    lantern: tuple[Path, list[ParsedConversation]],
) -> None:
    """The write call carries its input and result in one part; every answer has reasoning."""
    _, parsed = lantern
    fix = parsed[0]
    roles = [m.role for m in fix.messages]
    assert roles == ["user", "assistant", "assistant"]
    (call,) = fix.messages[1].tool_calls
    assert (call.name, call.id, call.output, call.is_error) == (
        "write",
        "call_caq8bm6j",
        "Wrote file successfully.",
        False,
    )
    assert call.input["filePath"] == "src/orders.py"
    assert call.result["metadata"]["filepath"] == "/work/src/orders.py"
    answers = [m for c in parsed for m in c.messages if m.role == "assistant"]
    assert len(answers) == 4
    assert all(m.thinking and m.thinking.startswith("Okay") for m in answers)
    assert {m.model for m in answers} == {"qwen3:0.6b"}


def test_corpus_lantern_usage_matches_the_sessions_own_totals(
    lantern: tuple[Path, list[ParsedConversation]],
) -> None:
    """Per-message usage adds up to the session rows' rolled-up tokens, per session."""
    db, parsed = lantern
    with closing(sqlite3.connect(f"{db.as_uri()}?mode=ro", uri=True)) as connection:
        rolled = {
            ident: (fresh + read + write, output + reasoning)
            for ident, fresh, output, reasoning, read, write in connection.execute(
                "SELECT id, tokens_input, tokens_output, tokens_reasoning, "
                "tokens_cache_read, tokens_cache_write FROM session"
            )
        }
    ours = {
        c.id: (
            sum(m.usage.input_tokens or 0 for m in c.messages if m.usage),
            sum(m.usage.output_tokens or 0 for m in c.messages if m.usage),
        )
        for c in parsed
    }
    assert ours == rolled
    assert sum(pair[0] for pair in ours.values()) == 8200
    assert sum(pair[1] for pair in ours.values()) == 1985


def test_corpus_git_ai_json_tree(tmp_path: Path) -> None:
    """The hand-made legacy message and part files, under a session file this test writes.

    The sample has no session file (its ``storage/session/`` is missing), and OpenCode lists
    sessions by those files, so the test adds the one session file they need.
    """
    storage = tmp_path / DATA / "storage"
    shutil.copytree(sample(GIT_AI_TREE), storage)
    session = storage / "session" / "global" / "test-session-123.json"
    session.parent.mkdir(parents=True)
    session.write_text(
        json.dumps({"id": "test-session-123", "title": "Update the comment", "version": "0.15.0"}),
        encoding="utf-8",
    )
    (conversation,) = parse_home(tmp_path)
    user, answer = conversation.messages
    assert user.text == "Update the comment in index.ts to say 'Hello World'"
    assert answer.text == (
        "I'll update the comment in index.ts for you.\n\n"
        "Done! I've updated the comment to 'Hello World'."
    )
    (call,) = answer.tool_calls
    assert (call.name, call.id, call.output) == ("edit", "call-001", "Edit applied successfully.")
    assert answer.model == "claude-3-5-sonnet-20241022"
    assert answer.usage is None  # the sample's assistant message records no tokens
    assert conversation.diagnostics.skipped == {"part text (empty)": 1}
    assert conversation.diagnostics.records_seen == 8
