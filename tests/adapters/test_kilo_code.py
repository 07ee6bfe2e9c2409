"""The Kilo Code adapter: where it looks and what the fixtures do not show."""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from datetime import UTC, datetime
from pathlib import Path

import pytest

import chatparse
from chatparse import registry
from chatparse.adapter import new_meta
from chatparse.adapters._opencode import stores_on
from chatparse.adapters.kilo_code import KiloCodeAdapter
from chatparse.adapters.kilo_code.adapter import MIGRATED_COPY, merged
from chatparse.adapters.kilo_code.locate import KILO, MIGRATED_FROM
from chatparse.adapters.opencode import OpenCodeAdapter
from chatparse.host import Host
from chatparse.model import ConversationMeta
from chatparse.testing import AdapterConformance

REPO = Path(__file__).resolve().parents[2]
T0 = 1775000000000
_SCHEMA = (
    (
        "CREATE TABLE session (id text PRIMARY KEY, project_id text NOT NULL, parent_id text, "
        "slug text NOT NULL, directory text NOT NULL, title text NOT NULL, version text NOT NULL, "
        "summary_diffs text, current_state text, recent_progress text, revert text, "
        "time_created integer NOT NULL, time_updated integer NOT NULL)"
    ),
    (
        "CREATE TABLE message (id text PRIMARY KEY, session_id text NOT NULL, "
        "time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL)"
    ),
    (
        "CREATE TABLE part (id text PRIMARY KEY, message_id text NOT NULL, "
        "session_id text NOT NULL, time_created integer NOT NULL, "
        "time_updated integer NOT NULL, data text NOT NULL)"
    ),
)


class TestKiloCodeConformance(AdapterConformance):
    adapter = "kilo-code"
    fixtures = REPO / "fixtures" / "kilo-code"

    def make_adapter(self) -> chatparse.SourceAdapter:
        return KiloCodeAdapter()


def host_of(home: Path, **env: str) -> Host:
    return Host(home=home, env=env, platform="linux")


def kilo_db(path: Path, session: str = "ses_k1", *, slug: str = "calm-owl") -> Path:
    """A Kilo 7.x database at ``path`` with one session of one prompt."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with closing(sqlite3.connect(path, isolation_level=None)) as connection:
        for statement in _SCHEMA:
            connection.execute(statement)
        connection.execute(
            "INSERT INTO session (id, project_id, slug, directory, title, version, time_created, "
            "time_updated) VALUES (?, 'p', ?, '/home/dev/x', 'A title', '7.4.23', ?, ?)",
            (session, slug, T0, T0 + 1000),
        )
        data = json.dumps({"role": "user", "time": {"created": T0 + 10}})
        connection.execute(
            "INSERT INTO message VALUES ('msg_1', ?, ?, ?, ?)", (session, T0, T0, data)
        )
        part = json.dumps({"type": "text", "text": "hello"})
        connection.execute(
            "INSERT INTO part VALUES ('prt_1', 'msg_1', ?, ?, ?, ?)", (session, T0, T0, part)
        )
    return path


def test_nothing_to_detect_without_a_tasks_folder_or_a_store(tmp_path: Path) -> None:
    (tmp_path / ".config/Code/User/globalStorage/kilocode.kilo-code").mkdir(parents=True)
    (tmp_path / ".local/share/kilo").mkdir(parents=True)
    assert KiloCodeAdapter().detect(host_of(tmp_path)) is None


def test_kilo_7_stores_are_found_where_kilo_keeps_them(tmp_path: Path) -> None:
    """kilo.db, then channel builds, then names from before the rename; KILO_DB first; trees."""
    data = tmp_path / "xdg" / "kilo"
    for name in ("kilo-dev.db", "opencode.db", "kilo.db", "opencode-beta.db", "notes.db"):
        data.mkdir(parents=True, exist_ok=True)
        (data / name).write_bytes(b"")
    (data / "storage" / "session").mkdir(parents=True)
    (data / "project" / "global" / "storage" / "session" / "info").mkdir(parents=True)
    (tmp_path / "mine.db").write_bytes(b"")
    host = host_of(tmp_path, XDG_DATA_HOME=str(tmp_path / "xdg"), KILO_DB=str(tmp_path / "mine.db"))
    found = [p.relative_to(tmp_path).as_posix() for p in stores_on(KILO, host)]
    assert found == [
        "mine.db",
        "xdg/kilo/kilo.db",
        "xdg/kilo/kilo-dev.db",
        "xdg/kilo/opencode.db",
        "xdg/kilo/opencode-beta.db",
        "xdg/kilo/storage",
    ]  # OpenCode's project/ layout predates Kilo: not looked for
    relative = host_of(tmp_path, KILO_DB="named.db", XDG_DATA_HOME="not-absolute")
    (tmp_path / ".local/share/kilo").mkdir(parents=True)
    (tmp_path / ".local/share/kilo/named.db").write_bytes(b"")
    assert stores_on(KILO, relative) == [tmp_path / ".local/share/kilo/named.db"]
    assert stores_on(KILO, host_of(tmp_path, KILO_DB=":memory:")) == []


def test_both_layouts_are_one_source(tmp_path: Path) -> None:
    """A task folder and a 7.x database: one detect, one scan, each parsed by its reader."""
    task = tmp_path / ".config/Code/User/globalStorage/kilocode.kilo-code/tasks/1758000000000"
    task.mkdir(parents=True)
    ui = [{"ts": 1758000000000, "type": "say", "say": "text", "text": "Fix the typo"}]
    (task / "ui_messages.json").write_text(json.dumps(ui), encoding="utf-8")
    kilo_db(tmp_path / ".local/share/kilo/kilo.db")
    adapter = KiloCodeAdapter()
    found = adapter.detect(host_of(tmp_path))
    assert found is not None
    assert [Path(root).name for root in found.roots] == ["kilocode.kilo-code", "kilo.db"]
    metas = list(adapter.scan(found))
    assert [meta.id for meta in metas] == ["1758000000000", "ses_k1"]
    one_by_one = [adapter.parse(meta) for meta in metas]
    with adapter.parsing() as parse:
        together = [parse(meta) for meta in metas]
    assert together == one_by_one
    assert [c.messages[0].text for c in together] == ["Fix the typo", "hello"]
    assert {c.source for c in together} == {"kilo-code"}
    lines = list(adapter.explain(host_of(tmp_path)))
    assert any(line.startswith("4.x-5.x: ") and "1 task folder(s)" in line for line in lines)
    assert any(
        line.startswith("7.x: ") and "kilo.db: database, 1 session(s)" in line for line in lines
    )
    assert any("KILO_DB is not set" in line for line in lines)


def _meta(ident: str, created: int, updated: int, **locator: str) -> ConversationMeta:
    return new_meta(
        source="kilo-code",
        id=ident,
        path=f"/x/{ident}",
        fingerprint=ident,
        created_at=datetime.fromtimestamp(created / 1000, UTC),
        updated_at=datetime.fromtimestamp(updated / 1000, UTC),
        locator=locator,
    )


def test_a_migrated_copy_of_a_task_is_one_conversation() -> None:
    """The task wins over its untouched migrated copy; a continued copy wins over the task."""
    tasks = [_meta("111", T0, T0), _meta("222", T0, T0), _meta("333", T0, T0)]
    sessions = [
        _meta("ses_a", T0, T0, **{MIGRATED_FROM: "111", "store": "sqlite"}),
        _meta("ses_b", T0, T0 + 5000, **{MIGRATED_FROM: "222", "store": "sqlite"}),
        _meta("ses_c", T0, T0 + 5000, **{MIGRATED_FROM: "brave-owl", "store": "sqlite"}),
    ]
    listed = {meta.id: meta for meta in merged(tasks, sessions)}
    assert sorted(listed) == ["111", "333", "ses_b", "ses_c"]
    assert listed["111"].locator[MIGRATED_COPY] == "/x/ses_a (ses_a)"
    assert listed["ses_b"].locator["copies"] == "/x/222"
    assert "copies" not in listed["ses_c"].locator
    assert MIGRATED_COPY not in listed["333"].locator


@pytest.fixture
def registered(fresh_registry: registry.Registry) -> registry.Registry:
    assert "kilo-code" in chatparse.adapter_names()
    return fresh_registry


def test_single_paths_go_to_the_adapter_of_their_folder(tmp_path: Path, registered: object) -> None:
    """kilo.db and a tree under kilo/ are Kilo's; the same schema under opencode/ is OpenCode's."""
    del registered
    kilo = kilo_db(tmp_path / ".local/share/kilo/kilo.db")
    opencode = kilo_db(tmp_path / ".local/share/opencode/opencode.db", "ses_o1")
    renamed = kilo_db(tmp_path / ".local/share/kilo/opencode.db", "ses_k2")
    adapter, other = KiloCodeAdapter(), OpenCodeAdapter()
    assert adapter.sniff(kilo) == 0.95
    assert adapter.sniff(renamed) > other.sniff(renamed) == 0.9
    assert adapter.sniff(opencode) == 0.0
    assert [c.source for c in chatparse.parse_path(kilo)] == ["kilo-code"]
    assert [c.source for c in chatparse.parse_path(opencode)] == ["opencode"]
    tree = tmp_path / ".local/share/kilo/storage/session/p"
    tree.mkdir(parents=True)
    info = {"id": "ses_t", "title": "From the tree", "time": {"created": T0, "updated": T0}}
    (tree / "ses_t.json").write_text(json.dumps(info), encoding="utf-8")
    assert adapter.sniff(tree / "ses_t.json") == 0.85 > other.sniff(tree / "ses_t.json")
    (parsed,) = chatparse.parse_path(tree / "ses_t.json")
    assert (parsed.source, parsed.title) == ("kilo-code", "From the tree")
    lone = tmp_path / "copy" / "kilo-x.db"
    lone.parent.mkdir()
    lone.write_bytes(kilo.read_bytes())
    assert adapter.sniff(lone) == 0.9


def test_a_database_of_another_schema_is_not_kilos(tmp_path: Path) -> None:
    """The name is not enough: kilo.db without OpenCode's tables is refused."""
    path = tmp_path / ".local/share/kilo/kilo.db"
    path.parent.mkdir(parents=True)
    with closing(sqlite3.connect(path)) as connection:
        connection.execute("CREATE TABLE sessions (id)")
    adapter = KiloCodeAdapter()
    assert adapter.sniff(path) == 0.0
    with pytest.raises(chatparse.SourceUnavailableError, match="not a Kilo database"):
        list(adapter.scan_path(path))
