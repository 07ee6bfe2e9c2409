"""The Hermes Agent adapter: what the conformance cases do not show."""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

import chatparse
from chatparse.adapter import Ledger
from chatparse.adapters import hermes as hermes_package
from chatparse.adapters.hermes import HermesAdapter
from chatparse.adapters.hermes.lineage import Lineage, relation
from chatparse.adapters.hermes.session import session_usage
from chatparse.decoders import sqlite as sqlite_decoder
from chatparse.errors import SkippedSourceWarning, SourceUnavailableError
from chatparse.host import Host
from chatparse.model import ConversationMeta, ParsedConversation
from chatparse.testing import AdapterConformance, check_conversation

REPO = Path(__file__).resolve().parents[2]
T0 = 1_780_000_000.0
_SCHEMA = """
CREATE TABLE sessions (
    id TEXT PRIMARY KEY, source TEXT NOT NULL, model TEXT, model_config TEXT,
    parent_session_id TEXT, session_key TEXT, started_at REAL NOT NULL, ended_at REAL,
    end_reason TEXT, message_count INTEGER DEFAULT 0, input_tokens INTEGER DEFAULT 0,
    output_tokens INTEGER DEFAULT 0, title TEXT
);
CREATE TABLE messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL, role TEXT NOT NULL,
    content TEXT, tool_call_id TEXT, tool_calls TEXT, timestamp REAL NOT NULL
);
"""


class TestHermesConformance(AdapterConformance):
    adapter = "hermes"
    fixtures = REPO / "fixtures" / "hermes"

    def make_adapter(self) -> chatparse.SourceAdapter:
        return HermesAdapter()


# --- helpers ---


def make_db(home: Path, sessions: list[dict[str, Any]], messages: list[dict[str, Any]]) -> Path:
    """A small state.db (the columns the adapter reads) at ``home/state.db``."""
    home.mkdir(parents=True, exist_ok=True)
    path = home / "state.db"
    with closing(sqlite3.connect(path)) as connection:
        connection.executescript(_SCHEMA)
        for given in sessions:
            row = {"source": "cli", "started_at": T0, "message_count": 2, **given}
            names, marks = ", ".join(row), ", ".join("?" for _ in row)
            insert = f"INSERT INTO sessions ({names}) VALUES ({marks})"  # noqa: S608 -- test data
            connection.execute(insert, list(row.values()))
        for row in messages:
            connection.execute(
                "INSERT INTO messages (session_id, role, content, timestamp) VALUES (?, ?, ?, ?)",
                (row["session_id"], row["role"], row["content"], row.get("timestamp", T0)),
            )
        connection.commit()
    return path


def turn(session_id: str) -> list[dict[str, Any]]:
    return [
        {"session_id": session_id, "role": "user", "content": f"prompt of {session_id}"},
        {"session_id": session_id, "role": "assistant", "content": f"answer of {session_id}"},
    ]


def scan(home: Path, **env: str) -> list[ConversationMeta]:
    adapter = HermesAdapter()
    found = adapter.detect(Host(home=home, env=env, platform="linux"))
    assert found is not None
    return list(adapter.scan(found))


def parse_all(home: Path, **env: str) -> list[ParsedConversation]:
    adapter = HermesAdapter()
    with adapter.parsing() as parse:
        conversations = [parse(meta) for meta in scan(home, **env)]
    for conversation in conversations:
        assert check_conversation(conversation) == []
    return conversations


# --- where it looks ---


def test_hermes_home_replaces_the_default_and_the_suffix_moves_the_default(
    tmp_path: Path,
) -> None:
    """HERMES_HOME is read instead of ~/.hermes; HERMES_DATA_DIR_SUFFIX renames the default."""
    make_db(tmp_path / ".hermes", [{"id": "a"}], turn("a"))
    make_db(tmp_path / "elsewhere", [{"id": "b"}], turn("b"))
    make_db(tmp_path / ".hermes-dev", [{"id": "c"}], turn("c"))
    assert [m.id for m in scan(tmp_path)] == ["a"]
    assert [m.id for m in scan(tmp_path, HERMES_HOME=str(tmp_path / "elsewhere"))] == ["b"]
    assert [m.id for m in scan(tmp_path, HERMES_DATA_DIR_SUFFIX="-dev")] == ["c"]


def test_a_session_id_in_two_homes_is_listed_once_from_the_first(tmp_path: Path) -> None:
    """The default home is read before its profiles: its copy of a shared id wins."""
    make_db(tmp_path / ".hermes", [{"id": "same", "title": "home"}], turn("same"))
    make_db(tmp_path / ".hermes" / "profiles" / "p", [{"id": "same", "title": "profile"}], [])
    (meta,) = scan(tmp_path)
    assert (meta.title, meta.path) == ("home", str(tmp_path / ".hermes" / "state.db"))


def test_a_database_of_another_program_is_passed_over_loudly(tmp_path: Path) -> None:
    """A state.db without Hermes's tables lists nothing and says why; transcripts still count."""
    (tmp_path / ".hermes").mkdir()
    with closing(sqlite3.connect(tmp_path / ".hermes" / "state.db")) as connection:
        connection.execute("CREATE TABLE kv (key TEXT, value TEXT)")
        connection.commit()
    with pytest.warns(SkippedSourceWarning, match="not a Hermes state database"):
        assert scan(tmp_path) == []


# --- which copy wins ---


def test_a_transcript_wins_over_a_database_row_that_holds_no_messages(tmp_path: Path) -> None:
    """A pruned row (message_count 0) leaves the gateway transcript as the only copy."""
    home = tmp_path / ".hermes"
    make_db(home, [{"id": "s1", "message_count": 0}, {"id": "s2"}], turn("s2"))
    (home / "sessions").mkdir()
    for ident in ("s1", "s2"):
        line = {"role": "user", "content": f"transcript of {ident}"}
        (home / "sessions" / f"{ident}.jsonl").write_text(json.dumps(line) + "\n")
    metas = {m.id: m for m in scan(tmp_path)}
    assert metas["s1"].locator == {"format": "jsonl"}
    assert metas["s2"].locator["superseded"].endswith("s2.jsonl")
    texts = {c.id: c.messages[0].text for c in parse_all(tmp_path)}
    assert texts == {"s1": "transcript of s1", "s2": "prompt of s2"}


# --- lineage ---


def test_relations_follow_hermes_own_rules() -> None:
    """Markers naming the parent win over end reasons; a compression child is a continuation."""
    parent = {"id": "p", "end_reason": "compression", "ended_at": T0, "session_key": "k"}
    assert relation({"id": "c"}, parent) == "continuation"
    assert relation({"id": "c", "source": "tool"}, parent) == "subagent"
    branched = json.dumps({"_branched_from": "p"})
    assert relation({"id": "c", "model_config": branched}, parent) == "branch"
    inherited = json.dumps({"_branched_from": "grandparent"})
    assert relation({"id": "c", "model_config": inherited}, parent) == "continuation"
    daily = {**parent, "end_reason": "daily"}
    assert relation({"id": "c", "session_key": "k"}, daily) == "reset"
    assert relation({"id": "c", "session_key": "other"}, daily) == "subagent"


def test_a_loop_of_parents_and_a_second_continuation_lose_no_session() -> None:
    """Damaged lineage: every session is still read, in some conversation."""
    rows = [
        {"id": "a", "parent_session_id": "b", "end_reason": "compression", "started_at": 1.0},
        {"id": "b", "parent_session_id": "a", "end_reason": "compression", "started_at": 2.0},
        {"id": "p", "end_reason": "compression", "started_at": 3.0},
        {"id": "c1", "parent_session_id": "p", "started_at": 4.0},
        {"id": "c2", "parent_session_id": "p", "started_at": 5.0},
    ]
    lineage = Lineage.of(rows)
    roots = lineage.roots()
    covered = [ident for root in roots for ident in lineage.chain(root)]
    assert sorted(covered) == ["a", "b", "c1", "c2", "p"]
    assert lineage.chain("p") == ["p", "c1"]


# --- usage ---


def test_session_totals_in_the_shared_meaning() -> None:
    """Cached tokens are added to Hermes's uncached input; zeros everywhere are no usage."""
    ledger = Ledger()
    row = {"id": "s", "input_tokens": 10, "cache_read_tokens": 90, "cache_write_tokens": 5}
    usage = session_usage({**row, "output_tokens": 7, "reasoning_tokens": 9}, ledger)
    assert usage is not None
    assert (usage.input_tokens, usage.cache_read_tokens, usage.output_tokens) == (105, 90, 7)
    assert usage.reasoning_tokens is None  # more than the output: dropped
    assert ledger.warnings == ["session s: reasoning_tokens (9) exceed output_tokens (7); left out"]
    assert session_usage({"id": "z", "input_tokens": 0, "output_tokens": 0}, Ledger()) is None


# --- parsing ---


def test_parsing_opens_the_database_once_for_every_conversation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The batch parser reads every conversation of a home through one snapshot."""
    make_db(tmp_path / ".hermes", [{"id": "a"}, {"id": "b"}], turn("a") + turn("b"))
    metas = scan(tmp_path)
    opened: list[object] = []
    real = sqlite_decoder.open_snapshot

    def counting(path: Any, **kwargs: Any) -> sqlite_decoder.Snapshot:
        opened.append(path)
        return real(path, **kwargs)

    monkeypatch.setattr(hermes_package.adapter, "open_snapshot", counting)
    with HermesAdapter().parsing() as parse:
        assert [parse(meta).id for meta in metas] == ["a", "b"]
    assert len(opened) == 1


def test_a_session_deleted_since_the_scan_cannot_be_parsed(tmp_path: Path) -> None:
    """A pruned session is an unavailable source, not an empty conversation."""
    db = make_db(tmp_path / ".hermes", [{"id": "a"}], turn("a"))
    (meta,) = scan(tmp_path)
    with closing(sqlite3.connect(db)) as connection:
        connection.execute("DELETE FROM sessions")
        connection.commit()
    with pytest.raises(SourceUnavailableError, match="no longer in the database"):
        HermesAdapter().parse(meta)


def test_a_new_message_changes_the_fingerprint(tmp_path: Path) -> None:
    """The change key follows the session's own row, not the shared file."""
    db = make_db(tmp_path / ".hermes", [{"id": "a"}, {"id": "b"}], turn("a") + turn("b"))
    before = {m.id: m.fingerprint for m in scan(tmp_path)}
    with closing(sqlite3.connect(db)) as connection:
        connection.execute("UPDATE sessions SET message_count = 3 WHERE id = 'b'")
        connection.commit()
    after = {m.id: m.fingerprint for m in scan(tmp_path)}
    assert before["a"] == after["a"]
    assert before["b"] != after["b"]


# --- parse_path and doctor ---


def test_sniff_and_scan_path(tmp_path: Path) -> None:
    """A state.db in a Hermes home and a gateway transcript are recognised; other files not."""
    home = tmp_path / ".hermes"
    db = make_db(home, [{"id": "a"}], turn("a"))
    (home / "sessions").mkdir()
    transcript = home / "sessions" / "t1.jsonl"
    transcript.write_text(json.dumps({"role": "session_meta", "model": "m"}) + "\n")
    adapter = HermesAdapter()
    assert adapter.sniff(db) == pytest.approx(0.9)
    assert adapter.sniff(transcript) == pytest.approx(0.9)
    assert adapter.sniff(home / "sessions") == 0.0
    (other := tmp_path / "state.db").write_text("not sqlite")
    assert adapter.sniff(other) == 0.0
    assert [m.id for m in adapter.scan_path(db)] == ["a"]
    assert [m.locator for m in adapter.scan_path(transcript)] == [{"format": "jsonl"}]


def test_explain_names_the_homes_and_what_is_in_them(tmp_path: Path) -> None:
    """Doctor says which variable decided the home and what each store holds."""
    adapter = HermesAdapter()
    lines = list(adapter.explain(Host(home=tmp_path, env={}, platform="win32")))
    assert lines == [
        f"HERMES_HOME is not set: using {tmp_path / 'AppData' / 'Local' / 'hermes'}",
        "no Hermes home found",
    ]
    make_db(tmp_path / ".hermes", [{"id": "a"}], turn("a"))
    lines = list(adapter.explain(Host(home=tmp_path, env={}, platform="linux")))
    assert lines[1] == f"{tmp_path / '.hermes' / 'state.db'}: 1 session(s)"
    assert lines[2].endswith("0 transcript file(s)")
