"""The Kiro samples of ../shared/corpus-next/kiro parse, every record accounted for.

No real Kiro file is public. The corpus holds two third-party hand-made Kiro IDE 0.x session
files (yigitkonur/cli-continues test fixtures); they are copied into a temporary home laid out as
the IDE lays it out (never into the repo). The facts checked were read off the raw files.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from corpus_home import parse_home

from chatparse.adapters.kiro import KiroAdapter
from chatparse.model import ParsedConversation

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus-next" / "kiro"
SESSIONS = CORPUS / "yigitkonur__cli-continues/test-fixtures/kiro/workspace-sessions"

pytestmark = pytest.mark.skipif(not SESSIONS.is_dir(), reason=f"no corpus at {CORPUS}")


@pytest.fixture
def parsed(tmp_path: Path) -> dict[str, ParsedConversation]:
    storage = tmp_path / ".config/Kiro/User/globalStorage/kiro.kiroagent"
    shutil.copytree(SESSIONS, storage / "workspace-sessions")
    return parse_home(KiroAdapter(), tmp_path)


def test_both_sample_sessions_are_listed(parsed: dict[str, ParsedConversation]) -> None:
    assert sorted(parsed) == ["test-session-1", "test-session-edge"]


def test_the_plain_session(parsed: dict[str, ParsedConversation]) -> None:
    session = parsed["test-session-1"]
    assert session.title == "Add dark mode toggle"
    assert session.project_path == "/Users/dev/my-app"
    assert [(m.id, m.role) for m in session.messages] == [
        ("msg-1", "user"),
        ("msg-2", "assistant"),
        ("msg-3", "user"),
        ("msg-4", "assistant"),
    ]
    assert session.messages[0].text == "Add a dark mode toggle to the app header"
    assert session.messages[1].model == "claude-sonnet-4-20250514"
    assert session.diagnostics.records_seen == 5  # the document and its four history items


def test_the_edge_session(parsed: dict[str, ParsedConversation]) -> None:
    """Parts content, an empty prompt, no title and no model."""
    session = parsed["test-session-edge"]
    assert session.title == "Refactor the database connection pool"  # the first prompt
    assert session.project_path == "/Users/dev/edge-project"
    first, answer, empty, last = session.messages
    assert first.text == "Refactor the database connection pool"
    assert answer.text.startswith("I'll refactor the database connection pool")
    assert (empty.role, empty.text) == ("user", "")
    assert last.model is None
