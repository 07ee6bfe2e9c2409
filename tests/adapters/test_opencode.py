"""The OpenCode adapter: what the conformance cases don't show."""

from __future__ import annotations

import json
import os
import sqlite3
import warnings
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

import chatparse
from chatparse import registry
from chatparse.adapters._opencode.content import (
    clean_text,
    clean_value,
    file_placeholder,
    strip_text,
)
from chatparse.adapters._opencode.usage import (
    message_usage,
    reasoning_apart_by_version,
    step_counts,
)
from chatparse.adapters.opencode import OpenCodeAdapter
from chatparse.adapters.opencode.locate import configured_db, data_dir, database_files, stores_on
from chatparse.decoders import sqlite
from chatparse.errors import SkippedSourceWarning, SourceUnavailableError, UnavailableCause
from chatparse.host import Host
from chatparse.model import ConversationMeta, ImageRef, ParsedConversation
from chatparse.testing import AdapterConformance, check_conversation

REPO = Path(__file__).resolve().parents[2]
PNG = "iVBORw0KGgo" + "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVphYmNkZWZnaGlqa2xtbm9w" * 4
T0 = 1772445600000


class TestOpenCodeConformance(AdapterConformance):
    adapter = "opencode"
    fixtures = REPO / "fixtures" / "opencode"

    def make_adapter(self) -> chatparse.SourceAdapter:
        return OpenCodeAdapter()


@pytest.fixture
def registered(fresh_registry: registry.Registry) -> registry.Registry:
    """A fresh registry, in which the built-in adapter is found for the public API."""
    assert "opencode" in chatparse.adapter_names()
    return fresh_registry


# --- a database written as OpenCode writes it ------------------------------------------------

_SCHEMA = (
    (
        "CREATE TABLE session (id text PRIMARY KEY, project_id text NOT NULL, parent_id text, "
        "slug text NOT NULL, directory text NOT NULL, title text NOT NULL, version text NOT NULL, "
        "revert text, time_created integer NOT NULL, time_updated integer NOT NULL)"
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
    "CREATE INDEX part_session_idx ON part (session_id)",
)


class Store:
    """Writes an ``opencode.db`` into a fake home, row by row."""

    def __init__(
        self, home: Path, name: str = "opencode.db", schema: tuple[str, ...] = _SCHEMA
    ) -> None:
        self.path = home / ".local" / "share" / "opencode" / name
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.clock = T0
        with self.connect() as connection:
            for statement in schema:
                connection.execute(statement)

    def connect(self) -> sqlite3.Connection:
        return closing(sqlite3.connect(self.path, isolation_level=None))  # type: ignore[return-value]

    def session(self, ident: str, **fields: Any) -> None:
        row = {
            "id": ident,
            "project_id": "global",
            "slug": "s",
            "directory": "/home/dev/p",
            "title": f"Session {ident}",
            "version": "1.18.13",
            "time_created": T0,
            "time_updated": T0 + 1000,
            **fields,
        }
        with self.connect() as connection:
            names = ", ".join(row)
            marks = ", ".join("?" * len(row))
            sql = f"INSERT INTO session ({names}) VALUES ({marks})"  # noqa: S608 -- our own columns
            connection.execute(sql, list(row.values()))

    def message(self, session: str, ident: str, role: str, **data: Any) -> None:
        self.clock += 1000
        body = {"role": role, "time": {"created": self.clock}, **data}
        with self.connect() as connection:
            connection.execute(
                "INSERT INTO message VALUES (?, ?, ?, ?, ?)",
                (ident, session, self.clock, self.clock, json.dumps(body)),
            )

    def part(
        self, session: str, message: str, ident: str, data: Any, *, blob: bool = False
    ) -> None:
        text = data if isinstance(data, str) else json.dumps(data)
        value: str | bytes = text.encode() if blob else text
        with self.connect() as connection:
            connection.execute(
                "INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)",
                (ident, message, session, self.clock, self.clock, value),
            )

    def turn(self, session: str, number: int, *, answer: str = "ok", **assistant: Any) -> None:
        """A prompt and its answer, with ids that sort in order."""
        prompt, reply = f"msg_{number:03d}a", f"msg_{number:03d}b"
        self.message(session, prompt, "user")
        self.part(
            session, prompt, f"prt_{number:03d}a", {"type": "text", "text": f"prompt {number}"}
        )
        self.message(session, reply, "assistant", modelID="m", providerID="p", **assistant)
        self.part(session, reply, f"prt_{number:03d}b", {"type": "text", "text": answer})


def host_of(home: Path, **env: str) -> Host:
    return Host(home=home, env=env, platform="linux")


def conversations(home: Path, **env: str) -> list[ParsedConversation]:
    adapter = OpenCodeAdapter()
    found = adapter.detect(host_of(home, **env))
    assert found is not None
    parsed = [adapter.parse(meta) for meta in adapter.scan(found)]
    for conversation in parsed:
        assert check_conversation(conversation) == []
    return parsed


def metas(home: Path) -> list[ConversationMeta]:
    adapter = OpenCodeAdapter()
    found = adapter.detect(host_of(home))
    assert found is not None
    return list(adapter.scan(found))


# --- usage ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("version", "apart"),
    [
        ("1.3.15", False),
        ("1.3.16", True),
        ("1.18.13", True),
        ("0.15.8", False),
        ("1.2.11-dev.4", False),
        ("0.0.0-dev-202603021000", True),
        ("local", True),
        (None, True),
    ],
)
def test_which_versions_write_reasoning_apart_from_output(
    version: str | None,
    apart: bool,  # noqa: FBT001 -- a parameter of the test
) -> None:
    """v1.3.16 moved reasoning out of output; builds from a checkout count as current."""
    assert reasoning_apart_by_version(version) is apart


def tokens(fresh: int, output: int, reasoning: int, read: int, **extra: Any) -> dict[str, Any]:
    return {
        "input": fresh,
        "output": output,
        "reasoning": reasoning,
        "cache": {"read": read, "write": 0},
    } | extra


@pytest.mark.parametrize("apart", [True, False])
def test_a_total_says_how_reasoning_was_counted_whatever_the_version(
    apart: bool,  # noqa: FBT001 -- a parameter of the test
) -> None:
    """A total of input, cache, output and reasoning says apart; without reasoning, included."""
    separate = tokens(100, 50, 30, 1000, total=1180)
    included = tokens(100, 50, 30, 1000, total=1150)
    assert step_counts(separate, apart=apart) == (1100, 80, 1000, 0, 30)
    assert step_counts(included, apart=apart) == (1100, 50, 1000, 0, 30)


def test_without_a_total_reasoning_above_output_can_only_be_apart() -> None:
    """A reasoning count over the output cannot be part of it; otherwise the version decides."""
    assert step_counts(tokens(10, 5, 30, 0), apart=False) == (10, 35, 0, 0, 30)
    assert step_counts(tokens(10, 50, 30, 0), apart=False) == (10, 50, 0, 0, 30)
    assert step_counts(tokens(10, 50, 30, 0), apart=True) == (10, 80, 0, 0, 30)


@pytest.mark.parametrize("value", [tokens(0, 0, 0, 0), {}, None, "12", {"input": -1}])
def test_counts_that_record_nothing_are_no_usage(value: object) -> None:
    """All-zero counts (an aborted call), and no counts at all, are no usage, never zeros."""
    assert step_counts(value, apart=True) is None
    assert message_usage({"tokens": value}, [], apart=True, source="opencode") is None


def test_a_message_of_several_steps_counts_every_step() -> None:
    """Old messages hold their last step's tokens only; their steps' sum is their usage."""
    info = {"tokens": tokens(5, 5, 0, 0), "providerID": "p", "modelID": "m", "time": {"created": 7}}
    steps = [tokens(100, 10, 0, 50), tokens(5, 5, 0, 0)]
    usage = message_usage(info, steps, apart=True, source="opencode")
    assert usage is not None
    assert (usage.input_tokens, usage.output_tokens, usage.cache_read_tokens) == (155, 15, 50)
    assert usage.dedup_key == "opencode:p/m:7"


def test_a_forked_copy_of_a_response_is_counted_once(tmp_path: Path, registered: object) -> None:
    """A fork copies messages under new ids with their times: the usage report counts one."""
    del registered
    store = Store(tmp_path)
    spent = {"tokens": tokens(100, 20, 0, 0), "time": {"created": T0 + 5000}}
    for session, message in (("ses_a", "msg_a"), ("ses_fork", "msg_copy")):
        store.session(session)
        store.message(session, "msg_0" + session, "user")
        with store.connect() as connection:
            body = {"role": "assistant", "modelID": "m", "providerID": "p", **spent}
            connection.execute(
                "INSERT INTO message VALUES (?, ?, ?, ?, ?)",
                (message, session, T0 + 5000, T0 + 5000, json.dumps(body)),
            )
    parsed = conversations(tmp_path)
    assert [sum(1 for m in c.messages if m.usage) for c in parsed] == [1, 1]
    (row,) = chatparse.usage_report(parsed, by="source")
    assert (row.responses, row.input_tokens) == (1, 100)


# --- content ----------------------------------------------------------------------------------


def test_payloads_in_text_become_placeholders() -> None:
    """An image becomes an ImageRef; any other base64 a placeholder; no payload stays."""
    images: list[ImageRef] = []
    pdf = "JVBERi0xLjQK" + "QUJD" * 40
    text = f"see data:image/png;base64,{PNG} and data:application/pdf;base64,{pdf}!"
    assert clean_text(text, images) == (
        "see [image: image/png, 176 bytes] and data:application/pdf;base64,[base64: 129 bytes]!"
    )
    assert images == [ImageRef(media_type="image/png", byte_size=176)]
    assert (
        strip_text(text, [])
        == f"see [image: image/png, 176 bytes] and data:application/pdf;base64,{pdf}!"
    )


def test_payloads_in_structured_data_are_dropped_wherever_they_are() -> None:
    """Shapes the toolkit knows, and data URLs of any type in any string, leave placeholders."""
    plain = {"a": [1, "two", {"b": None}]}
    assert clean_value(plain, []) is plain
    images: list[ImageRef] = []
    mixed = {
        "keep": plain,
        "file": {"url": f"data:image/jpeg;base64,{PNG}"},
        "mcp": {"type": "image", "mimeType": "image/png", "data": PNG},
        "doc": [f"data:application/pdf;base64,{PNG}"],
    }
    cleaned = clean_value(mixed, images)
    assert cleaned == {
        "keep": plain,
        "file": {"url": "[image: image/jpeg, 176 bytes]"},
        "mcp": {"type": "image", "mimeType": "image/png", "data": "[image: image/png, 176 bytes]"},
        "doc": ["data:application/pdf;base64,[base64: 176 bytes]"],
    }
    assert [image.media_type for image in images] == ["image/jpeg", "image/png"]


def test_a_value_nested_past_python_recursion_is_cleaned_too() -> None:
    """Tool data as deep as the decoders accept loses its payload like any other, found once."""
    deep: Any = f"data:image/png;base64,{PNG}"
    for _ in range(1010):
        deep = [deep]
    images: list[ImageRef] = []
    cleaned = clean_value(deep, images)
    for _ in range(1010):
        cleaned = cleaned[0]
    assert cleaned == "[image: image/png, 176 bytes]"
    assert images == [ImageRef(media_type="image/png", byte_size=176)]


@pytest.mark.parametrize(
    ("part", "text"),
    [
        (
            {"mime": "text/plain", "url": "file:///home/dev/a%20b.py?start=3&end=9"},
            "[file: /home/dev/a b.py]",
        ),
        (
            {"mime": "text/plain", "filename": "n.txt", "url": "data:text/plain,hi%20there"},
            "[file: n.txt, 8 bytes]",
        ),
        (
            {
                "mime": "application/pdf",
                "filename": "s.pdf",
                "url": "data:application/pdf;base64,QUJD",
            },
            "[file: s.pdf, 3 bytes]",
        ),
        (
            {"mime": "application/x-directory", "url": "file:///home/dev/src"},
            "[file: /home/dev/src]",
        ),
        ({"url": "https://example.invalid/x.png", "filename": "x.png"}, "[file: x.png]"),
    ],
)
def test_file_parts_are_named_not_kept(part: dict[str, Any], text: str) -> None:
    """A file part leaves its name or path (and size), never its content."""
    images: list[ImageRef] = []
    assert file_placeholder(part, images) == text
    assert images == []


# --- where ------------------------------------------------------------------------------------


def test_the_data_folder_follows_xdg_data_home_when_absolute(tmp_path: Path) -> None:
    """XDG_DATA_HOME moves it (on every platform); a relative value is ignored, as XDG says."""
    assert data_dir(host_of(tmp_path)) == tmp_path / ".local" / "share" / "opencode"
    moved = host_of(tmp_path, XDG_DATA_HOME=str(tmp_path / "x"))
    assert data_dir(moved) == tmp_path / "x" / "opencode"
    assert data_dir(host_of(tmp_path, XDG_DATA_HOME="rel")) == data_dir(host_of(tmp_path))
    windows = Host(home=tmp_path, env={}, platform="win32")
    assert data_dir(windows) == tmp_path / ".local" / "share" / "opencode"


def test_opencode_db_names_a_file_absolute_or_in_the_data_folder(tmp_path: Path) -> None:
    """OPENCODE_DB: an absolute path, a name under the data folder, or nothing for :memory:."""
    assert configured_db(host_of(tmp_path)) is None
    assert configured_db(host_of(tmp_path, OPENCODE_DB=":memory:")) is None
    assert configured_db(host_of(tmp_path, OPENCODE_DB=str(tmp_path / "a.db"))) == tmp_path / "a.db"
    named = configured_db(host_of(tmp_path, OPENCODE_DB="b.db"))
    assert named == data_dir(host_of(tmp_path)) / "b.db"


def test_stores_are_listed_configured_first_then_default_then_channels_then_trees(
    tmp_path: Path,
) -> None:
    """The order breaks ties between copies of a session; side files are never stores."""
    data = data_dir(host_of(tmp_path))
    for name in ("opencode-beta2.db", "opencode.db", "opencode-dev.db", "opencode.db-wal", "x.db"):
        (data / name).parent.mkdir(parents=True, exist_ok=True)
        (data / name).write_bytes(b"")
    (data / "storage" / "session").mkdir(parents=True)
    (data / "project" / "global" / "storage" / "session" / "info").mkdir(parents=True)
    (tmp_path / "mine.db").write_bytes(b"")
    assert [p.name for p in database_files(data)] == [
        "opencode.db",
        "opencode-beta2.db",
        "opencode-dev.db",
    ]
    found = stores_on(host_of(tmp_path, OPENCODE_DB=str(tmp_path / "mine.db")))
    assert [p.relative_to(tmp_path).as_posix() for p in found] == [
        "mine.db",
        ".local/share/opencode/opencode.db",
        ".local/share/opencode/opencode-beta2.db",
        ".local/share/opencode/opencode-dev.db",
        ".local/share/opencode/storage",
        ".local/share/opencode/project/global/storage/session",
    ]


def test_explain_names_what_it_read_and_what_it_could_not(tmp_path: Path) -> None:
    """doctor: the data folder, OPENCODE_DB, each store, and the tables never read."""
    store = Store(tmp_path)
    store.session("ses_1")
    data = store.path.parent
    (data / "opencode-dev.db").write_bytes(b"not a database at all" * 10)
    with closing(sqlite3.connect(data / "opencode-old.db")) as connection:
        connection.execute("CREATE TABLE other (x)")
    lines = list(OpenCodeAdapter().explain(host_of(tmp_path, OPENCODE_DB=":memory:")))
    text = "\n".join(lines)
    assert f"data folder (the default): {data}: exists" in text
    assert "OPENCODE_DB=:memory:: an in-memory database leaves nothing to read" in text
    assert f"{data / 'opencode.db'}: database, 1 session(s)" in text
    assert f"{data / 'opencode-dev.db'}: cannot be read (not a SQLite database)" in text
    assert f"{data / 'opencode-old.db'}: no session, message, part table" in text
    assert "credential tables are never read" in lines[-1]
    relative = list(OpenCodeAdapter().explain(host_of(tmp_path, XDG_DATA_HOME="rel")))
    assert relative[:2] == [
        "XDG_DATA_HOME=rel is not an absolute path: ignored, as XDG says",
        f"data folder (the default): {data}: exists",
    ]


# --- scan -------------------------------------------------------------------------------------


def test_a_store_that_cannot_be_read_is_passed_over_with_a_warning(tmp_path: Path) -> None:
    """A damaged or foreign database is named in a SkippedSourceWarning; the others are read."""
    store = Store(tmp_path)
    store.session("ses_1")
    store.turn("ses_1", 1)
    data = store.path.parent
    (data / "opencode-dev.db").write_bytes(b"{" + b"x" * 200)
    with closing(sqlite3.connect(data / "opencode-old.db")) as connection:
        connection.execute("CREATE TABLE session (x)")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        found = metas(tmp_path)
    said = sorted(str(w.message) for w in caught if w.category is SkippedSourceWarning)
    tail = "; the conversations in it are not listed"
    assert said == [
        f"passed over {data / 'opencode-dev.db'}: not a SQLite database{tail}",
        f"passed over {data / 'opencode-old.db'}: no session, message, part table{tail}",
    ]
    assert [m.id for m in found] == ["ses_1"]


def test_fingerprints_change_with_their_own_sessions_only(tmp_path: Path) -> None:
    """A new message in one session changes its fingerprint (and its parent's), no other."""
    store = Store(tmp_path)
    store.session("ses_a")
    store.session("ses_b")
    store.session("ses_c", parent_id="ses_b")
    for number, session in enumerate(("ses_a", "ses_b", "ses_c")):
        store.turn(session, number)
    before = {m.id: m.fingerprint for m in metas(tmp_path)}
    assert sorted(before) == ["ses_a", "ses_b"]
    assert before == {m.id: m.fingerprint for m in metas(tmp_path)}
    store.turn("ses_c", 7)
    after = {m.id: m.fingerprint for m in metas(tmp_path)}
    assert after["ses_a"] == before["ses_a"]
    assert after["ses_b"] != before["ses_b"]


def test_a_loop_of_parents_is_read_once(tmp_path: Path) -> None:
    """Two sessions naming each other as parent: one conversation, the other nested once."""
    store = Store(tmp_path)
    store.session("ses_a", parent_id="ses_b")
    store.session("ses_b", parent_id="ses_a")
    store.turn("ses_a", 1)
    store.turn("ses_b", 2)
    (conversation,) = conversations(tmp_path)
    assert conversation.id == "ses_a"
    assert [s.id for s in conversation.subagents] == ["ses_b"]
    assert conversation.subagents[0].subagents == ()


# --- parse ------------------------------------------------------------------------------------


def test_parse_of_a_session_gone_since_the_scan_says_so(tmp_path: Path) -> None:
    """A session deleted after the scan is unavailable (missing), named with its database."""
    store = Store(tmp_path)
    store.session("ses_1")
    (meta,) = metas(tmp_path)
    with store.connect() as connection:
        connection.execute("DELETE FROM session")
    with pytest.raises(SourceUnavailableError, match="session ses_1 is no longer there") as info:
        OpenCodeAdapter().parse(meta)
    assert info.value.cause is UnavailableCause.MISSING
    assert info.value.path == str(store.path)


def test_parsing_opens_each_database_once_and_matches_parse(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The batch parse gives what parse gives, through one snapshot per database."""
    store = Store(tmp_path)
    for number in range(4):
        store.session(f"ses_{number}")
        store.turn(f"ses_{number}", number)
    adapter = OpenCodeAdapter()
    found = metas(tmp_path)
    one_by_one = [adapter.parse(meta) for meta in found]
    opened: list[str] = []
    real = sqlite.open_snapshot

    def counting(path: str | os.PathLike[str], **options: Any) -> Any:
        opened.append(os.fspath(path))
        return real(path, **options)

    monkeypatch.setattr("chatparse.adapters._opencode.family.open_snapshot", counting)
    with adapter.parsing() as parse:
        together = [parse(meta) for meta in found]
    assert together == one_by_one
    assert opened == [str(store.path)]


def test_a_partial_revert_keeps_the_message_it_starts_in(tmp_path: Path) -> None:
    """A revert from a part leaves its message on the main line and undoes what follows."""
    store = Store(tmp_path)
    store.session("ses_1", revert=json.dumps({"messageID": "msg_001b", "partID": "prt_001b"}))
    store.turn("ses_1", 1)
    store.turn("ses_1", 2)
    (conversation,) = conversations(tmp_path)
    assert [m.is_sidechain for m in conversation.messages] == [False, False, True, True]
    assert conversation.diagnostics.warnings == (
        "a revert is pending: 2 message(s) it undid are marked as side chains",
    )


def test_injected_text_is_a_notice_not_the_prompt(tmp_path: Path) -> None:
    """Synthetic and ignored text go to a notice; a prompt of injected text only is that notice."""
    store = Store(tmp_path)
    store.session("ses_1", title="New session - 2026-03-02T10:00:00.000Z")
    store.message("ses_1", "msg_1", "user")
    store.part("ses_1", "msg_1", "prt_1", {"type": "text", "text": "Fix the bug"})
    store.part("ses_1", "msg_1", "prt_2", {"type": "text", "text": "file body", "synthetic": True})
    store.message("ses_1", "msg_2", "user")
    store.part("ses_1", "msg_2", "prt_3", {"type": "text", "text": "plan mode", "ignored": True})
    (conversation,) = conversations(tmp_path)
    shown = [(m.id, m.role, m.kind, m.text) for m in conversation.messages]
    assert shown == [
        ("msg_1", "user", "message", "Fix the bug"),
        ("msg_1/injected", "user", "notice", "file body"),
        ("msg_2", "user", "notice", "plan mode"),
    ]
    assert conversation.title == "Fix the bug"


def test_data_stored_as_a_blob_reads_like_text(tmp_path: Path) -> None:
    """SQLite hands TEXT and BLOB values alike; a part written as a BLOB is read the same."""
    store = Store(tmp_path)
    store.session("ses_1")
    store.message("ses_1", "msg_1", "user")
    store.part("ses_1", "msg_1", "prt_1", {"type": "text", "text": "as a blob"}, blob=True)
    (conversation,) = conversations(tmp_path)
    assert conversation.messages[0].text == "as a blob"


def test_columns_missing_from_an_older_schema_are_not_asked_for(tmp_path: Path) -> None:
    """A session table without revert (or any later column) is read by the columns it has."""
    schema = (_SCHEMA[0].replace("revert text, ", ""), *_SCHEMA[1:])
    store = Store(tmp_path, schema=schema)
    store.session("ses_1")
    store.turn("ses_1", 1)
    (conversation,) = conversations(tmp_path)
    assert [m.text for m in conversation.messages] == ["prompt 1", "ok"]


def test_parse_path_reads_a_database_or_one_session_file(
    tmp_path: Path, registered: object
) -> None:
    """A database gives its sessions; a JSON session file its own session, sub-agents nested."""
    del registered
    store = Store(tmp_path)
    store.session("ses_1")
    store.turn("ses_1", 1)
    assert [c.id for c in chatparse.parse_path(store.path)] == ["ses_1"]
    storage = store.path.parent / "storage"
    for ident, parent in (("ses_p", None), ("ses_c", "ses_p")):
        info = {
            "id": ident,
            "title": ident,
            "parentID": parent,
            "time": {"created": T0, "updated": T0},
        }
        folder = storage / "session" / "global"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{ident}.json").write_text(json.dumps(info), encoding="utf-8")
    (parsed,) = chatparse.parse_path(storage / "session" / "global" / "ses_p.json")
    assert (parsed.id, [s.id for s in parsed.subagents]) == ("ses_p", ["ses_c"])
    adapter = OpenCodeAdapter()
    assert adapter.sniff(store.path) == 0.9
    assert adapter.sniff(storage / "session" / "global" / "ses_c.json") == 0.8
    (tmp_path / "notes.db").write_bytes(store.path.read_bytes())
    assert adapter.sniff(tmp_path / "notes.db") == 0.0
    assert adapter.sniff(tmp_path / "x.json") == 0.0


def test_parse_path_refuses_a_database_of_another_program(tmp_path: Path) -> None:
    """A SQLite file without OpenCode's tables is not an OpenCode database."""
    path = tmp_path / "opencode.db"
    with closing(sqlite3.connect(path)) as connection:
        connection.execute("CREATE TABLE sessions (id)")
    with pytest.raises(SourceUnavailableError, match="not an OpenCode database"):
        list(OpenCodeAdapter().scan_path(path))


def test_fields_of_the_wrong_type_are_kept_raw_not_fatal(tmp_path: Path) -> None:
    """A role or a tool status that is a list (any JSON) keeps its record raw; parsing goes on."""
    store = Store(tmp_path)
    store.session("ses_1")
    store.message("ses_1", "msg_1", "user")
    store.part("ses_1", "msg_1", "prt_1", {"type": "text", "text": "hi"})
    store.message("ses_1", "msg_2", ["assistant"])  # type: ignore[arg-type]
    store.message("ses_1", "msg_3", "assistant")
    tool = {"type": "tool", "tool": "bash", "callID": "c", "state": {"status": ["completed"]}}
    store.part("ses_1", "msg_3", "prt_3", tool)
    (conversation,) = conversations(tmp_path)
    assert [m.id for m in conversation.messages] == ["msg_1", "msg_3"]
    assert [u.type for u in conversation.diagnostics.unknown] == ["message", "part tool"]


def test_sniff_checks_the_schema_not_only_the_name(tmp_path: Path) -> None:
    """OpenCode-Go's .opencode/opencode.db (Crush's schema) is not an sst OpenCode database."""
    go = tmp_path / "project" / ".opencode" / "opencode.db"
    go.parent.mkdir(parents=True)
    with closing(sqlite3.connect(go)) as connection:
        connection.execute("CREATE TABLE goose_db_version (id, version_id)")
        connection.execute("CREATE TABLE sessions (id, parent_session_id, title)")
        connection.execute("CREATE TABLE messages (id, session_id, role, parts TEXT)")
    assert OpenCodeAdapter().sniff(go) == 0.0
    store = Store(tmp_path)
    store.session("ses_1")
    assert OpenCodeAdapter().sniff(store.path) == 0.9
