"""The Cursor CLI adapter: what the conformance cases do not show."""

from __future__ import annotations

import json
import shutil
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

import chatparse
from chatparse.adapters.cursor_cli import CursorCliAdapter
from chatparse.errors import SourceUnavailableError
from chatparse.host import Host
from chatparse.testing import AdapterConformance, check_conversation, materialize

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "fixtures" / "cursor-cli"
SESSION = "11111111-2222-4333-8444-555555555555"


class TestCursorCliConformance(AdapterConformance):
    adapter = "cursor-cli"
    fixtures = FIXTURES

    def make_adapter(self) -> chatparse.SourceAdapter:
        return CursorCliAdapter()


def transcript(home: Path, *records: object) -> Path:
    folder = home / ".cursor" / "projects" / "home-me-app" / "agent-transcripts" / SESSION
    folder.mkdir(parents=True)
    path = folder / f"{SESSION}.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def prompt(text: str) -> dict[str, object]:
    return {"role": "user", "message": {"content": [{"type": "text", "text": text}]}}


def test_a_timestamp_tag_without_a_zone_is_no_time(tmp_path: Path) -> None:
    """Only a zoned <timestamp> gives the prompt a time; the tag never reaches the text."""
    path = transcript(
        tmp_path,
        prompt("<timestamp>2026-03-02 09:15</timestamp>\n<user_query>\nhi\n</user_query>"),
        prompt("<timestamp>2026-03-02T09:16:00+01:00</timestamp><user_query>again</user_query>"),
    )
    (meta,) = CursorCliAdapter().scan_path(path)
    first, second = CursorCliAdapter().parse(meta).messages
    assert (first.text, first.timestamp) == ("hi", None)
    assert second.text == "again"
    assert second.timestamp is not None
    assert second.timestamp.isoformat() == "2026-03-02T08:16:00+00:00"


def test_sniff_and_scan_path(tmp_path: Path) -> None:
    """Surest in agent-transcripts; a store by its SQLite header; other JSONL is not ours."""
    adapter = CursorCliAdapter()
    path = transcript(tmp_path, prompt("hi"))
    assert adapter.sniff(path) == 0.95
    loose = tmp_path / "copy.jsonl"
    shutil.copy(path, loose)
    assert adapter.sniff(loose) == 0.6
    other = tmp_path / "other.jsonl"
    other.write_text('{"type": "message"}\n', encoding="utf-8")
    assert adapter.sniff(other) == 0.0
    assert [(m.id, m.locator["layout"]) for m in adapter.scan_path(path)] == [(SESSION, "nested")]
    assert [m.locator["layout"] for m in adapter.scan_path(loose)] == ["flat"]


def test_a_store_without_its_tables_falls_back_to_the_transcript(tmp_path: Path) -> None:
    """A store.db of another shape is said; the session's transcript is read instead."""
    transcript(tmp_path, prompt("<user_query>from the transcript</user_query>"))
    store = tmp_path / ".cursor" / "chats" / ("0" * 32) / SESSION / "store.db"
    store.parent.mkdir(parents=True)
    with closing(sqlite3.connect(store)) as db:
        db.execute("CREATE TABLE other (x)")
        db.commit()
    adapter = CursorCliAdapter()
    found = adapter.detect(Host(home=tmp_path, env={}))
    assert found is not None
    (meta,) = adapter.scan(found)
    conversation = adapter.parse(meta)
    assert check_conversation(conversation) == []
    assert [m.text for m in conversation.messages] == ["from the transcript"]
    assert conversation.diagnostics.warnings == (
        "store.db: no meta and blobs tables; not a store this adapter knows",
        "the store holds no readable message: read its transcript",
    )


@pytest.mark.parametrize(
    ("case", "said"),
    [
        ("chat-store-wins-over-transcript", "4 readable message(s), 2 turn-graph blob(s)"),
        ("damage-encrypted-store-and-torn-lines", "0 readable message(s), encrypted"),
    ],
)
def test_explain_surveys_each_store(tmp_path: Path, case: str, said: str) -> None:
    """Doctor opens each store and says what can be read, and what is protobuf or encrypted."""
    home = tmp_path / "home"
    shutil.copytree(FIXTURES / case / "home", home)
    env = {"CURSOR_CONFIG_DIR": str(home / "cursor-data")} if "damage" in case else {}
    with materialize(home):
        lines = list(CursorCliAdapter().explain(Host(home=home, env=env)))
    assert any(said in line for line in lines), lines
    assert not any("never-shown" in line for line in lines)  # the key is never told


def test_a_session_gone_since_the_scan(tmp_path: Path) -> None:
    """Parse says the file is missing instead of giving an empty conversation."""
    path = transcript(tmp_path, prompt("hi"))
    (meta,) = CursorCliAdapter().scan_path(path)
    path.unlink()
    with pytest.raises(SourceUnavailableError):
        CursorCliAdapter().parse(meta)


def test_a_plain_transcript_loses_to_the_jsonl_one_and_keeps_its_preamble(tmp_path: Path) -> None:
    """The oldest layout is read last; text before its first turn is kept raw."""
    path = transcript(tmp_path, prompt("<user_query>newer</user_query>"))
    plain = path.parent.parent / f"{SESSION}.txt"
    plain.write_text("Exported transcript\nuser:\nolder\n\nA:\nHi.\n", encoding="utf-8")
    adapter = CursorCliAdapter()
    assert adapter.sniff(plain) == 0.8
    found = adapter.detect(Host(home=tmp_path, env={}))
    assert found is not None
    assert [m.locator["layout"] for m in adapter.scan(found)] == ["nested"]
    (meta,) = adapter.scan_path(plain)
    conversation = adapter.parse(meta)
    assert check_conversation(conversation) == []
    assert [(m.role, m.text) for m in conversation.messages] == [
        ("user", "older"),
        ("assistant", "Hi."),
    ]
    (kept,) = conversation.diagnostics.unknown
    assert (kept.where, kept.raw) == ("before the first turn", "Exported transcript")
