"""The Zed sample of ../shared/corpus-next/zed parses, every record accounted for.

The sample is an SQL script (hand-made rows, one holding a real zstd frame) that builds a
``threads.db`` in a temporary home (never in the repo). Its zstd row is read where this Python
has a zstd decoder (3.14+, or backports.zstd) and explained where it has none.
"""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

import pytest
from corpus_home import parse_home

from chatparse.adapters.zed import ZedAdapter
from chatparse.adapters.zed.codec import NO_ZSTD, zstd_decoder
from chatparse.model import ParsedConversation

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus-next" / "zed"
SCRIPT = CORPUS / "vshulcz__deja-vu/fixtures/registry/zed/zed.sql"

pytestmark = pytest.mark.skipif(not SCRIPT.is_file(), reason=f"no corpus sample at {SCRIPT}")


def parse_all(home: Path) -> dict[str, ParsedConversation]:
    folder = home / ".local" / "share" / "zed" / "threads"
    folder.mkdir(parents=True)
    with closing(sqlite3.connect(folder / "threads.db")) as connection:
        connection.executescript(SCRIPT.read_text(encoding="utf-8"))
    conversations = parse_home(ZedAdapter(), home)
    for conversation in conversations.values():
        assert conversation.project_path == "/workspace/registry-demo"
    return conversations


def test_the_plain_json_row_of_the_first_agent(tmp_path: Path) -> None:
    """Version 0.2.0: summary as title, role/segments messages with a thinking segment."""
    legacy = parse_all(tmp_path)["registry-zed-legacy"]
    assert legacy.title == "legacy zed thread"
    assert legacy.diagnostics.records_seen == 3
    user, answer = legacy.messages
    assert (user.role, user.text) == ("user", "does the pre-compression thread shape still load?")
    assert (answer.text, answer.thinking) == (
        "agent-1 threads still parse",
        "reasoning is not indexed",
    )
    assert legacy.created_at is not None
    assert legacy.created_at.isoformat() == "2026-07-19T08:00:00+00:00"


def test_the_zstd_row(tmp_path: Path) -> None:
    """Version 0.3.0 in a real zstd frame: read with a decoder, explained without one."""
    modern = parse_all(tmp_path)["registry-zed-modern"]
    assert modern.title == "read the zed thread store"
    if zstd_decoder() is None:
        assert modern.messages == ()
        assert modern.diagnostics.skipped == {"zstd thread data not read": 1}
        assert modern.diagnostics.warnings == (f"messages not read: {NO_ZSTD}",)
        return
    user, answer, resume = modern.messages
    assert (user.id, user.text) == ("registry-user-1", "where does zed keep its agent threads?")
    assert (answer.text, answer.thinking) == (
        "in threads.db under the data dir",
        "reasoning is not indexed",
    )
    assert (resume.role, resume.kind) == ("user", "notice")
    assert modern.diagnostics.records_seen == 4
