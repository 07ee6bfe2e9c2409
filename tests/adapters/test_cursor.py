"""The Cursor adapter: conformance cases, and its rules one by one on databases built here."""

from __future__ import annotations

import base64
import json
import shutil
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import closing, contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

import chatparse
from chatparse.adapter import Ledger
from chatparse.adapters.cursor import CursorAdapter
from chatparse.adapters.cursor import adapter as cursor_adapter
from chatparse.adapters.cursor.adapter import OPEN_DATABASES
from chatparse.adapters.cursor.composer import Bubble, match_headers
from chatparse.adapters.cursor.store import LEGACY_CHATS, split_bubble_key
from chatparse.decoders import sqlite as sqlite_decoder
from chatparse.errors import SkippedSourceWarning, SourceUnavailableError, UnavailableCause
from chatparse.host import Host
from chatparse.model import ConversationMeta, ParsedConversation
from chatparse.testing import AdapterConformance, check_conversation

REPO = Path(__file__).resolve().parents[2]
T0 = 1767348000000  # 2026-01-02T10:00:00Z in epoch milliseconds
SCHEMA = "CREATE TABLE {} (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)"
TOKEN = "SECRET-TOKEN-that-must-never-leak"  # noqa: S105 -- a fake token the output must not show


class TestCursorConformance(AdapterConformance):
    adapter = "cursor"
    fixtures = REPO / "fixtures"


# --- helpers ---


def user_dir(home: Path) -> Path:
    return home / ".config" / "Cursor" / "User"


def write_db(path: Path, tables: dict[str, Iterable[tuple[str, object]]]) -> Path:
    """Write a state.vscdb with the given tables; dict and list values are stored as JSON."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with closing(sqlite3.connect(path)) as connection:
        for table, rows in tables.items():
            connection.execute(SCHEMA.format(table))
            for key, value in rows:
                stored = json.dumps(value) if isinstance(value, (dict, list)) else value
                connection.execute(f"INSERT INTO {table} VALUES (?, ?)", (key, stored))  # noqa: S608 -- test table names
        connection.commit()
    return path


def put(path: Path, table: str, key: str, value: object) -> None:
    """Write one row the way Cursor does: INSERT, replacing the old row with that key."""
    with closing(sqlite3.connect(path)) as connection:
        stored = json.dumps(value) if isinstance(value, (dict, list)) else value
        connection.execute(f"INSERT INTO {table} VALUES (?, ?)", (key, stored))  # noqa: S608 -- test table names
        connection.commit()


def document(cid: str, bubbles: Iterable[str], **extra: Any) -> tuple[str, dict[str, Any]]:
    headers = [{"bubbleId": bid, "type": 1} for bid in bubbles]
    return f"composerData:{cid}", {
        "_v": 10,
        "composerId": cid,
        "createdAt": T0,
        "fullConversationHeadersOnly": headers,
        **extra,
    }


def bubble(cid: str, bid: str, kind: int = 1, text: str = "hi", **extra: Any) -> tuple[str, Any]:
    return f"bubbleId:{cid}:{bid}", {"type": kind, "bubbleId": bid, "text": text, **extra}


def global_db(home: Path, rows: Iterable[tuple[str, object]], items: Iterable[Any] = ()) -> Path:
    return write_db(
        user_dir(home) / "globalStorage" / "state.vscdb",
        {"ItemTable": list(items), "cursorDiskKV": list(rows)},
    )


def workspace_db(
    home: Path, name: str, uri: str | None, rows: Iterable[tuple[str, object]]
) -> Path:
    folder = user_dir(home) / "workspaceStorage" / name
    folder.mkdir(parents=True, exist_ok=True)
    if uri is not None:
        (folder / "workspace.json").write_text(json.dumps({"folder": uri}), encoding="utf-8")
    return write_db(folder / "state.vscdb", {"ItemTable": list(rows)})


def heads(*ids: str) -> tuple[str, dict[str, Any]]:
    entries = [{"type": "head", "composerId": cid, "name": f"head {cid}"} for cid in ids]
    return "composer.composerData", {"allComposers": entries, "composerDataVersion": 1}


def host(home: Path) -> Host:
    return Host(home=home, env={}, platform="linux")


def scan(home: Path, adapter: CursorAdapter | None = None) -> dict[str, ConversationMeta]:
    adapter = adapter or CursorAdapter()
    source = adapter.detect(host(home))
    assert source is not None
    return {meta.id: meta for meta in adapter.scan(source)}


def parse(meta: ConversationMeta, adapter: CursorAdapter | None = None) -> ParsedConversation:
    conversation = (adapter or CursorAdapter()).parse(meta)
    assert check_conversation(conversation) == []
    assert conversation.diagnostics.balanced
    return conversation


# --- finding and listing ---


def test_registry_loads_the_cursor_adapter() -> None:
    """The registry name ``cursor`` gives this adapter."""
    assert isinstance(chatparse.get_adapter("cursor"), CursorAdapter)


def test_detect_finds_nothing_without_a_database(tmp_path: Path) -> None:
    """A Cursor user dir without any state.vscdb is not a source."""
    (user_dir(tmp_path) / "workspaceStorage" / "abc").mkdir(parents=True)
    assert CursorAdapter().detect(host(tmp_path)) is None


def test_detect_uses_the_platform_user_dir(tmp_path: Path) -> None:
    """On Windows the user dir is under %APPDATA%, on macOS under Library/Application Support."""
    appdata = tmp_path / "roaming"
    write_db(appdata / "Cursor" / "User" / "globalStorage" / "state.vscdb", {"cursorDiskKV": []})
    found = CursorAdapter().detect(
        Host(home=tmp_path, env={"APPDATA": str(appdata)}, platform="win32")
    )
    assert found is not None
    assert found.roots == (str(appdata / "Cursor" / "User"),)
    assert CursorAdapter().detect(Host(home=tmp_path, env={}, platform="darwin")) is None


def test_scan_opens_each_database_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Scan opens the global DB and each workspace DB once, however many composers they hold."""
    ids = [f"c{n}" for n in range(5)]
    global_db(tmp_path, [row for cid in ids for row in (document(cid, ["b"]), bubble(cid, "b"))])
    workspace_db(tmp_path, "w1", "file:///w1", [heads(*ids[:3])])
    workspace_db(tmp_path, "w2", "file:///w2", [heads(*ids[2:])])
    opened: list[str] = []
    real = sqlite_decoder.open_snapshot

    def counting(path: str | Path, **kwargs: Any) -> sqlite_decoder.Snapshot:
        opened.append(Path(path).parent.name)
        return real(path, **kwargs)

    monkeypatch.setattr(cursor_adapter, "open_snapshot", counting)
    metas = scan(tmp_path)
    assert sorted(metas) == ids
    assert sorted(opened) == ["globalStorage", "w1", "w2"]
    assert metas["c2"].project_path == "/w1"  # the first workspace listing it names it


def test_secret_keys_are_never_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The global ItemTable (auth tokens) is never queried, and no token reaches the output."""
    global_db(
        tmp_path,
        [document("c1", ["b"]), bubble("c1", "b", text="question")],
        items=[("cursorAuth/accessToken", TOKEN), ("cursorAuth/refreshToken", TOKEN)],
    )
    queried: list[tuple[str, str]] = []
    real_batch = sqlite_decoder.Snapshot._batch

    # Every read of every kind (get, iter_prefix, iter_prefix_raw, iter_rows) is one or more
    # batches: watching them watches every query.
    def batch(self: sqlite_decoder.Snapshot, table: str, *args: Any, **kwargs: Any) -> Any:
        queried.append((self.path.parent.name, table))
        return real_batch(self, table, *args, **kwargs)

    monkeypatch.setattr(sqlite_decoder.Snapshot, "_batch", batch)
    conversations = [parse(meta) for meta in scan(tmp_path).values()]
    assert ("globalStorage", "ItemTable") not in queried
    assert ("globalStorage", "cursorDiskKV") in queried
    assert TOKEN not in chatparse.to_json(conversations[0])


def test_fingerprint_follows_only_the_composers_own_rows(tmp_path: Path) -> None:
    """Writes to one composer change its fingerprint and leave every other composer's alone."""
    db = global_db(
        tmp_path,
        [document("a", ["a1"]), bubble("a", "a1"), document("b", ["b1"]), bubble("b", "b1")],
    )
    before = scan(tmp_path)
    put(db, "cursorDiskKV", *document("b", ["b1", "b2"], lastUpdatedAt=T0 + 5))
    put(db, "cursorDiskKV", *bubble("b", "b2", text="new turn"))
    after = scan(tmp_path)
    assert after["a"].fingerprint == before["a"].fingerprint
    assert after["b"].fingerprint != before["b"].fingerprint
    put(db, "cursorDiskKV", *bubble("a", "a1", text="rewritten while streaming"))
    assert scan(tmp_path)["a"].fingerprint != after["a"].fingerprint
    assert after["a"].fingerprint.startswith("cursor:")


def test_fingerprint_follows_a_removed_bubble_and_a_sub_agents_rows(tmp_path: Path) -> None:
    """A bubble row removed changes its composer's fingerprint.

    A sub-agent's new row changes the fingerprint of its root and of its own parsed meta.
    """
    db = global_db(
        tmp_path,
        [
            document("p", ["p1"]),
            bubble("p", "p1", 2, toolFormerData={"name": "task", "toolCallId": "t1"}),
            bubble("p", "p2"),
            document("task-t1", ["s1"]),
            bubble("task-t1", "s1"),
        ],
    )
    before = scan(tmp_path)
    child_before = parse(before["p"]).subagents[0].meta.fingerprint
    with closing(sqlite3.connect(db)) as connection, connection:
        connection.execute("DELETE FROM cursorDiskKV WHERE key = 'bubbleId:p:p2'")
    removed = scan(tmp_path)
    assert removed["p"].fingerprint != before["p"].fingerprint
    put(db, "cursorDiskKV", *bubble("task-t1", "s2"))
    after = scan(tmp_path)
    assert after["p"].fingerprint != removed["p"].fingerprint
    assert parse(after["p"]).subagents[0].meta.fingerprint != child_before


def test_a_bubble_key_naming_no_composer_lists_nothing(tmp_path: Path) -> None:
    """``bubbleId:<x>`` without a second colon is no bubble of any composer.

    Parse reads ``bubbleId:<id>:`` only, so it does not make an empty conversation ``x``.
    """
    global_db(
        tmp_path,
        [("bubbleId:x", {"type": 1, "text": "stray"}), document("c1", ["b"]), bubble("c1", "b")],
    )
    assert list(scan(tmp_path)) == ["c1"]


def test_composer_ids_that_decode_alike_share_one_fingerprint(tmp_path: Path) -> None:
    """Ids 0xFE and 0xFF (invalid UTF-8) both read as U+FFFD: a write to either one counts."""
    db = global_db(tmp_path, [])

    def add(key: bytes) -> None:
        with closing(sqlite3.connect(db)) as connection, connection:
            row = (key, json.dumps({"type": 1, "text": "hi"}))
            connection.execute("INSERT INTO cursorDiskKV VALUES (CAST(? AS TEXT), ?)", row)

    add(b"bubbleId:\xfe:1")
    add(b"bubbleId:\xff:1")
    before = scan(tmp_path)["\ufffd"].fingerprint
    add(b"bubbleId:\xfe:2")
    assert scan(tmp_path)["\ufffd"].fingerprint != before


def test_fingerprint_is_stable_across_scans(tmp_path: Path) -> None:
    """Scanning an unchanged store twice gives the same fingerprints."""
    global_db(tmp_path, [document("a", ["a1"]), bubble("a", "a1")])
    assert scan(tmp_path)["a"].fingerprint == scan(tmp_path)["a"].fingerprint


def test_a_composer_listed_by_two_workspaces_is_one_conversation(tmp_path: Path) -> None:
    """The same composer id under two workspaces gives one meta, named by the first workspace."""
    global_db(tmp_path, [document("c1", ["b"]), bubble("c1", "b")])
    workspace_db(tmp_path, "aaa", "file:///home/a%20b", [heads("c1")])
    workspace_db(tmp_path, "bbb", "file:///home/other", [heads("c1")])
    metas = scan(tmp_path)
    assert list(metas) == ["c1"]
    assert metas["c1"].project_path == "/home/a b"
    assert metas["c1"].title == "head c1"


# --- parsing ---


def test_header_order_wins_over_key_order_and_edits_are_skipped(tmp_path: Path) -> None:
    """Bubbles come in header order; a bubble the headers leave out is a skipped discarded edit."""
    global_db(
        tmp_path,
        [
            document("c1", ["zz", "aa", "mm"]),
            bubble("c1", "aa", 2, "second"),
            bubble("c1", "mm", 1, "third"),
            bubble("c1", "zz", 1, "first"),
            bubble("c1", "bb", 1, "edited away"),
        ],
    )
    conversation = parse(scan(tmp_path)["c1"])
    assert [m.text for m in conversation.messages] == ["first", "second", "third"]
    assert [m.role for m in conversation.messages] == ["user", "assistant", "user"]
    skipped = conversation.diagnostics.skipped
    assert skipped == {"bubble not in fullConversationHeadersOnly (discarded edit)": 1}


def test_null_composer_document_orders_bubbles_by_time(tmp_path: Path) -> None:
    """A NULL composer document is malformed; its bubbles still parse, ordered by their times."""
    global_db(
        tmp_path,
        [
            ("composerData:c1", None),
            bubble("c1", "a", 2, "later", createdAt=T0 + 2000),
            bubble("c1", "b", 1, "earlier", createdAt="2026-01-02T10:00:01Z"),
        ],
    )
    conversation = parse(scan(tmp_path)["c1"])
    assert [m.text for m in conversation.messages] == ["earlier", "later"]
    assert conversation.diagnostics.malformed == 1
    assert any("ordered by their timestamps" in w for w in conversation.diagnostics.warnings)


def test_timestamps_are_never_invented(tmp_path: Path) -> None:
    """A bubble's createdAt (ISO or ms) wins, then timingInfo from 1e12 ms; else no time at all."""
    global_db(
        tmp_path,
        [
            document("c1", ["iso", "ms", "timing", "small", "none"]),
            bubble("c1", "iso", createdAt="2026-01-02T10:00:00.500Z"),
            bubble("c1", "ms", createdAt=T0 + 1000),
            bubble(
                "c1", "timing", timingInfo={"clientStartTime": 12, "clientSettleTime": T0 + 3000}
            ),
            bubble("c1", "small", timingInfo={"clientRpcSendTime": 999_999_999_999}),
            bubble("c1", "none"),
        ],
    )
    stamps = {m.id: m.timestamp for m in parse(scan(tmp_path)["c1"]).messages}
    assert stamps == {
        "iso": datetime(2026, 1, 2, 10, 0, 0, 500000, tzinfo=UTC),
        "ms": datetime(2026, 1, 2, 10, 0, 1, tzinfo=UTC),
        "timing": datetime(2026, 1, 2, 10, 0, 3, tzinfo=UTC),
        "small": None,
        "none": None,
    }


def test_a_time_without_a_zone_is_no_time(tmp_path: Path) -> None:
    """Zone-less ISO text is not taken as UTC: the bubble falls back to timingInfo, else None.

    A document's zone-less ``createdAt`` leaves the conversation's start to its messages.
    """
    global_db(
        tmp_path,
        [
            document("c1", ["bare", "timed"], createdAt="2026-01-01T09:00:00"),
            bubble("c1", "bare", createdAt="2026-01-02T10:00:00"),
            bubble(
                "c1", "timed", createdAt="2026-01-02T10:00:00", timingInfo={"clientEndTime": T0}
            ),
        ],
    )
    meta = scan(tmp_path)["c1"]
    assert meta.created_at is None
    conversation = parse(meta)
    stamps = {m.id: m.timestamp for m in conversation.messages}
    assert stamps == {"bare": None, "timed": datetime(2026, 1, 2, 10, 0, tzinfo=UTC)}
    assert conversation.created_at == datetime(2026, 1, 2, 10, 0, tzinfo=UTC)


def test_titles_follow_the_one_title_rule(tmp_path: Path) -> None:
    """A stored name and a first prompt alike: first line with text, spaces folded, 100 chars."""
    long_name = "word " * 40
    global_db(
        tmp_path,
        [
            document("named", ["b"], name="\n  Fix   the\tbuild \nand more"),
            bubble("named", "b"),
            document("long", ["b"], name=long_name),
            bubble("long", "b"),
            document("prompted", ["b"]),
            bubble("prompted", "b", text="\n\n  first   line\nsecond line"),
        ],
    )
    metas = scan(tmp_path)
    titles = {cid: parse(meta).title for cid, meta in metas.items()}
    assert titles["named"] == "Fix the build"
    assert titles["long"] == long_name.strip()[:99].rstrip() + "…"
    assert len(titles["long"]) <= 100
    assert titles["prompted"] == "first line"


def test_bubble_ids_with_colons_and_duplicates_stay_unique(tmp_path: Path) -> None:
    """A bubble key is split on its first two colons; repeated inline ids get a suffix."""
    assert split_bubble_key("bubbleId:c1:b:with:colons") == ("c1", "b:with:colons")
    tab = {
        "tabId": "t1",
        "bubbles": [
            {"type": "user", "id": "x", "text": "one"},
            {"type": "ai", "id": "x", "text": "two"},
            {"type": "ai", "text": "three"},
        ],
    }
    workspace_db(tmp_path, "w", None, [(LEGACY_CHATS[0], {"tabs": [tab]})])
    conversation = parse(scan(tmp_path)["t1"])
    assert [m.id for m in conversation.messages] == ["x", "x#2", "#2"]


def test_rich_text_that_is_not_lexical_is_kept_as_text(tmp_path: Path) -> None:
    """A richText that is plain text rather than Lexical JSON is the message text."""
    global_db(tmp_path, [document("c1", ["b"]), bubble("c1", "b", text="", richText="plain")])
    assert parse(scan(tmp_path)["c1"]).messages[0].text == "plain"


def test_data_uri_images_are_counted_not_kept(tmp_path: Path) -> None:
    """A pasted data: URI image becomes an ImageRef and a placeholder, never base64 text."""
    payload = "iVBORw0KGgo" + "A" * 200
    text = f"look ![x](data:image/png;base64,{payload}) here"
    global_db(tmp_path, [document("c1", ["b"]), bubble("c1", "b", text=text)])
    message = parse(scan(tmp_path)["c1"]).messages[0]
    assert payload not in message.text
    assert [image.media_type for image in message.images] == ["image/png"]


PNG = base64.b64encode(bytes(range(256)) * 2).decode()  # 512 bytes


def test_payloads_in_tool_arguments_and_results_are_dropped(tmp_path: Path) -> None:
    """An MCP tool's screenshot in its JSON result, an image in its arguments: type and size."""
    screenshot = {"type": "image", "data": PNG, "mimeType": "image/png"}
    tool = {
        "name": "mcp_browser_screenshot",
        "toolCallId": "t1",
        "status": "completed",
        "params": json.dumps({"compare_with": f"data:image/png;base64,{PNG}"}),
        "result": json.dumps({"content": [{"type": "text", "text": "shot"}, screenshot]}),
    }
    global_db(
        tmp_path,
        [document("c1", ["b"]), bubble("c1", "b", kind=2, text="", toolFormerData=tool)],
    )
    (call,) = parse(scan(tmp_path)["c1"]).messages[0].tool_calls  # no payload in any field
    assert call.input == {"compare_with": "[image: image/png, 512 bytes]"}
    assert call.output is not None
    assert PNG not in call.output
    assert json.loads(call.output)["content"][1]["mimeType"] == "image/png"


def test_bubble_values_are_decoded_from_their_stored_bytes(tmp_path: Path) -> None:
    """Values handed to the JSON decoder as bytes read as they did decoded to ``str`` first.

    Invalid UTF-8 becomes U+FFFD, in a message and in a bubble kept raw; a number is no JSON
    text, so it counts as NULL.
    """
    rows = [
        document("c1", ["text", "kept", "number", "broken"]),
        ("bubbleId:c1:text", b'{"type": 1, "text": "caf\xe9 ok"}'),
        ("bubbleId:c1:kept", b'{"type": 9, "text": "\xff"}'),
        ("bubbleId:c1:number", 42),
        ("bubbleId:c1:broken", b'{"type": 1, "text": '),
    ]
    global_db(tmp_path, rows)
    conversation = parse(scan(tmp_path)["c1"])
    assert [m.text for m in conversation.messages] == ["caf\ufffd ok"]
    diagnostics = conversation.diagnostics
    assert [(u.where, u.type, u.raw) for u in diagnostics.unknown] == [
        ("row bubbleId:c1:kept", "bubble type 9", '{"type": 9, "text": "\ufffd"}')
    ]
    assert diagnostics.skipped == {"bubble row with a NULL value": 1}
    assert diagnostics.malformed == 1
    assert "row bubbleId:c1:broken: not valid JSON" in diagnostics.warnings


def test_parse_reads_a_composer_in_two_statements(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One read of the document and one of the bubbles: no table list, no empty last batch."""
    global_db(tmp_path, [document("c1", ["a", "b"]), bubble("c1", "a"), bubble("c1", "b")])
    meta = scan(tmp_path)["c1"]
    reads: list[str] = []
    real_read = sqlite_decoder.Snapshot._read

    def read(self: sqlite_decoder.Snapshot, sql: str, *args: Any) -> Any:
        reads.append(sql)
        return real_read(self, sql, *args)

    monkeypatch.setattr(sqlite_decoder.Snapshot, "_read", read)
    assert len(parse(meta).messages) == 2
    assert len(reads) == 2


def test_a_database_without_the_table_says_so_at_parse(tmp_path: Path) -> None:
    """A global DB that lost ``cursorDiskKV`` after the scan is unavailable, naming the table."""
    db = global_db(tmp_path, [document("c1", ["b"]), bubble("c1", "b")])
    meta = scan(tmp_path)["c1"]
    with closing(sqlite3.connect(db)) as connection:
        connection.execute("DROP TABLE cursorDiskKV")
        connection.commit()
    with pytest.raises(SourceUnavailableError, match="no cursorDiskKV table") as raised:
        CursorAdapter().parse(meta)
    assert raised.value.cause is UnavailableCause.MISSING


def test_parse_of_a_deleted_composer_raises(tmp_path: Path) -> None:
    """A composer removed between scan and parse is an unavailable source, not an empty chat."""
    db = global_db(tmp_path, [document("c1", ["b"]), bubble("c1", "b")])
    meta = scan(tmp_path)["c1"]
    with closing(sqlite3.connect(db)) as connection:
        connection.execute("DELETE FROM cursorDiskKV WHERE key = 'composerData:c1'")
        connection.commit()
    with pytest.raises(SourceUnavailableError, match="no longer in the database") as raised:
        CursorAdapter().parse(meta)
    assert raised.value.cause is UnavailableCause.MISSING


def test_parse_of_a_deleted_tab_raises_as_missing(tmp_path: Path) -> None:
    """A legacy tab removed between scan and parse is missing: scan again."""
    tab = {"tabId": "t1", "bubbles": [{"type": "user", "id": "u", "text": "hello"}]}
    db = workspace_db(tmp_path, "w", None, [(LEGACY_CHATS[0], {"tabs": [tab]})])
    meta = scan(tmp_path)["t1"]
    put(db, "ItemTable", LEGACY_CHATS[0], {"tabs": []})
    with pytest.raises(SourceUnavailableError, match="no longer in") as raised:
        CursorAdapter().parse(meta)
    assert raised.value.cause is UnavailableCause.MISSING


def test_unknown_composer_version_is_noted(tmp_path: Path) -> None:
    """A composer _v newer than known is read best-effort and named in the warnings."""
    global_db(tmp_path, [document("c1", ["b"], _v=42), bubble("c1", "b")])
    conversation = parse(scan(tmp_path)["c1"])
    assert len(conversation.messages) == 1
    assert any("_v 42" in warning for warning in conversation.diagnostics.warnings)


def test_inline_conversation_in_a_global_document(tmp_path: Path) -> None:
    """A composer document with an inline conversation and no headers uses the array's order."""
    inline = [{"type": 1, "bubbleId": "q", "text": "q"}, {"type": 2, "bubbleId": "a", "text": "a"}]
    global_db(tmp_path, [document("c1", [], conversation=inline), bubble("c1", "q", text="copy")])
    conversation = parse(scan(tmp_path)["c1"])
    assert [m.text for m in conversation.messages] == ["q", "a"]
    assert conversation.diagnostics.skipped == {"bubble row repeats an inline bubble": 1}


def test_an_inline_bubble_with_a_list_for_an_id_is_still_read(tmp_path: Path) -> None:
    """An unhashable ``bubbleId`` once made the whole composer fail with TypeError."""
    inline = [
        {"type": 1, "bubbleId": ["q"], "text": "q"},
        {"type": 2, "bubbleId": "a", "text": "a"},
    ]
    global_db(tmp_path, [document("c1", [], conversation=inline), bubble("c1", "a", text="copy")])
    conversation = parse(scan(tmp_path)["c1"])
    assert [m.text for m in conversation.messages] == ["q", "a"]
    assert conversation.diagnostics.skipped == {"bubble row repeats an inline bubble": 1}
    assert conversation.diagnostics.balanced


# --- damaged and busy databases ---


@contextmanager
def exclusive_lock(path: Path) -> Iterator[None]:
    """Hold an EXCLUSIVE lock on a rollback-journal database, as a committing writer does."""
    with closing(sqlite3.connect(path, isolation_level=None)) as connection:
        connection.execute("BEGIN EXCLUSIVE")
        try:
            yield
        finally:
            connection.execute("ROLLBACK")


def test_a_locked_global_database_never_crashes_the_scan(tmp_path: Path) -> None:
    """With the global DB locked, scan passes it over, the heads it holds too; explain says so."""
    db = global_db(tmp_path, [document("c1", ["b"]), bubble("c1", "b")])
    workspace_db(tmp_path, "w", "file:///proj", [heads("c1")])
    adapter = CursorAdapter(busy_timeout=0.05)
    with exclusive_lock(db):
        with pytest.warns(SkippedSourceWarning, match=r"passed over .*state\.vscdb: .*locked"):
            assert scan(tmp_path, adapter) == {}
        assert any("cannot be read" in line for line in adapter.explain(host(tmp_path)))
    assert len(parse(scan(tmp_path)["c1"]).messages) == 1


LOCKER = """
import sqlite3, sys
connection = sqlite3.connect(sys.argv[1], timeout=0, isolation_level=None)
connection.execute("BEGIN EXCLUSIVE")
print("locked", flush=True)
sys.stdin.readline()
connection.execute("ROLLBACK")
"""
BUSY = 0.5  # seconds: the adapter's busy timeout in the tests below


@contextmanager
def locked_by_another_process(path: Path) -> Iterator[None]:
    """Another program holds an EXCLUSIVE lock on the database for the block."""
    with subprocess.Popen(
        [sys.executable, "-c", LOCKER, str(path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    ) as process:
        assert process.stdin is not None
        assert process.stdout is not None
        try:
            assert process.stdout.readline() == "locked\n"
            yield
        finally:
            process.stdin.close()
            process.wait(timeout=30)


def parse_all_unavailable(
    adapter: CursorAdapter, metas: list[ConversationMeta]
) -> list[UnavailableCause]:
    """Parse every meta in one parsing() block, each raising; the causes, in order."""
    causes = []
    with adapter.parsing() as parse_one:
        for meta in metas:
            with pytest.raises(SourceUnavailableError) as raised:
                parse_one(meta)
            causes.append(raised.value.cause)
    return causes


def two_heads_in_one_store(home: Path) -> Path:
    rows = [document("c1", ["b"]), bubble("c1", "b"), document("c2", ["b"]), bubble("c2", "b")]
    db = global_db(home, rows)
    workspace_db(home, "w", "file:///proj", [heads("c1", "c2")])
    return db


def test_a_store_locked_at_scan_costs_one_busy_wait(tmp_path: Path) -> None:
    """Scan waits once for the lock and passes the store over: nothing listed waits again."""
    db = two_heads_in_one_store(tmp_path)
    adapter = CursorAdapter(busy_timeout=BUSY)
    found = adapter.detect(host(tmp_path))
    assert found is not None
    with locked_by_another_process(db):
        started = time.monotonic()
        with pytest.warns(SkippedSourceWarning, match="locked by another program"):
            metas = list(adapter.scan(found))
        causes = parse_all_unavailable(adapter, metas)
        waited = time.monotonic() - started
    assert (metas, causes) == ([], [])
    assert BUSY <= waited < 1.5 * BUSY


def test_a_store_locked_after_scan_costs_one_busy_wait_per_parsing_block(tmp_path: Path) -> None:
    """Listed before the lock, parsed under it: the first parse waits, the next one does not."""
    db = two_heads_in_one_store(tmp_path)
    adapter = CursorAdapter(busy_timeout=BUSY)
    metas = list(scan(tmp_path, adapter).values())
    assert len(metas) == 2
    with locked_by_another_process(db):
        started = time.monotonic()
        causes = parse_all_unavailable(adapter, metas)
        waited = time.monotonic() - started
    assert causes == [UnavailableCause.LOCKED] * 2
    assert BUSY <= waited < 1.5 * BUSY


def test_a_file_that_is_not_sqlite_is_skipped_by_scan(tmp_path: Path) -> None:
    """A global state.vscdb that is not SQLite does not stop the workspace's chats being listed."""
    path = user_dir(tmp_path) / "globalStorage" / "state.vscdb"
    path.parent.mkdir(parents=True)
    path.write_text("not a database at all, just text that is long enough" * 3, encoding="utf-8")
    tab = {"tabId": "t1", "bubbles": [{"type": "user", "id": "u", "text": "hello"}]}
    workspace_db(tmp_path, "w", None, [(LEGACY_CHATS[0], {"tabs": [tab]})])
    with pytest.warns(SkippedSourceWarning, match="not a SQLite database"):
        assert list(scan(tmp_path)) == ["t1"]
    assert CursorAdapter().sniff(path) == 0.0
    with pytest.raises(SourceUnavailableError, match="not a SQLite database"):
        chatparse.parse_path(path, source="cursor")


def test_missing_tables_and_keys_give_no_conversations(tmp_path: Path) -> None:
    """Databases without cursorDiskKV or without the chat keys are read without error."""
    write_db(user_dir(tmp_path) / "globalStorage" / "state.vscdb", {"ItemTable": []})
    workspace_db(tmp_path, "w", None, [("composer.composerData", "not json"), ("other", "x")])
    assert scan(tmp_path) == {}


def test_parse_path_reads_one_database_in_place(tmp_path: Path) -> None:
    """parse_path on a global state.vscdb lists and parses its composers."""
    db = global_db(tmp_path, [document("c1", ["b"]), bubble("c1", "b", text="hello")])
    assert CursorAdapter().sniff(db) == 0.9
    (conversation,) = chatparse.parse_path(db)
    assert conversation.source == "cursor"
    assert conversation.messages[0].text == "hello"


def test_explain_names_the_places_looked_at(tmp_path: Path) -> None:
    """Doctor output names the user dir, the global DB and the workspace count."""
    global_db(tmp_path, [])
    lines = list(CursorAdapter().explain(host(tmp_path)))
    assert lines[0].endswith("exists")
    assert any(line.endswith("globalStorage/state.vscdb: readable") for line in lines)
    assert any("0 workspace(s)" in line for line in lines)
    assert next(CursorAdapter().explain(host(tmp_path / "nobody"))).endswith("missing")


def test_fixture_auth_tokens_never_reach_a_golden() -> None:
    """The cursorAuth/* rows planted in the fixtures' global DBs appear in no golden."""
    root = REPO / "fixtures" / "cursor"
    planted = [p for p in root.rglob("*.sqlite.toml") if "cursorAuth/" in p.read_text("utf-8")]
    assert planted, "no fixture plants an auth token any more"
    for golden in root.glob("*/expected.json"):
        text = golden.read_text("utf-8")
        assert "cursorAuth" not in text
        assert "SECRET-" not in text


# --- many conversations through one connection (BatchParser) ---


def test_parsing_gives_what_parse_gives_on_every_fixture(tmp_path: Path) -> None:
    """parsing()'s function, holding each database open, returns exactly parse()'s results."""
    from chatparse.testing import load_cases, materialize  # noqa: PLC0415 -- only here

    adapter = CursorAdapter()
    compared = 0
    for case in load_cases(REPO / "fixtures" / "cursor"):
        home = tmp_path / case.path.name
        shutil.copytree(case.home_dir, home)
        with materialize(home):
            found = adapter.detect(Host(home=home, env=case.host_env(home), platform=case.platform))
            metas = [] if found is None else list(adapter.scan(found))
            with adapter.parsing() as parse_one:
                batched = [parse_one(meta) for meta in metas]
            assert batched == [adapter.parse(meta) for meta in metas], case.name
            compared += len(metas)
    assert compared >= 10


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch) -> list[sqlite_decoder.Snapshot]:
    """Every snapshot the Cursor adapter opens from now on, in order."""
    snapshots: list[sqlite_decoder.Snapshot] = []
    real = sqlite_decoder.open_snapshot

    def recording(path: str | Path, **kwargs: Any) -> sqlite_decoder.Snapshot:
        snapshots.append(real(path, **kwargs))
        return snapshots[-1]

    monkeypatch.setattr(cursor_adapter, "open_snapshot", recording)
    return snapshots


def test_parsing_opens_each_database_once(
    tmp_path: Path, opened: list[sqlite_decoder.Snapshot]
) -> None:
    """Many composers of one global DB are parsed through one snapshot, closed at the end."""
    ids = [f"c{n}" for n in range(5)]
    global_db(tmp_path, [row for cid in ids for row in (document(cid, ["b"]), bubble(cid, "b"))])
    metas = scan(tmp_path)
    opened.clear()  # the scan's own snapshots, closed already
    with CursorAdapter().parsing() as parse_one:
        assert [len(parse_one(metas[cid]).messages) for cid in ids] == [1] * 5
        assert len(opened) == 1
        assert_open(opened[0])
    assert_closed(opened[0])


def test_stopping_iter_conversations_early_closes_the_database(
    tmp_path: Path, opened: list[sqlite_decoder.Snapshot]
) -> None:
    """A caller that stops after the first conversation leaves no connection open."""
    ids = [f"c{n}" for n in range(3)]
    global_db(tmp_path, [row for cid in ids for row in (document(cid, ["b"]), bubble(cid, "b"))])
    for conversation in chatparse.iter_conversations(host(tmp_path), sources=["cursor"]):
        assert conversation.id == "c0"
        parsing = [s for s in opened if s is not opened[0]]  # the scan's own is closed already
        assert len(parsing) == 1
        assert_open(parsing[0])
        break
    # CPython closes the abandoned generator at once, which ends its parsing() block.
    assert all(is_closed(snapshot) for snapshot in opened)


def test_a_database_that_cannot_be_opened_is_tried_again(tmp_path: Path) -> None:
    """A failed open is not remembered: the next conversation in that database tries again."""
    db = global_db(tmp_path, [document("c1", ["b"]), bubble("c1", "b")])
    meta = scan(tmp_path)["c1"]
    content = db.read_bytes()
    db.write_bytes(b"not a database")
    with CursorAdapter().parsing() as parse_one:
        with pytest.raises(SourceUnavailableError, match="not a SQLite database"):
            parse_one(meta)
        db.write_bytes(content)
        assert len(parse_one(meta).messages) == 1


def is_closed(snapshot: sqlite_decoder.Snapshot) -> bool:
    try:
        snapshot.tables()
    except SourceUnavailableError as exc:
        return "closed database" in exc.reason  # sqlite3: "Cannot operate on a closed database."
    return False


def assert_open(snapshot: sqlite_decoder.Snapshot) -> None:
    assert not is_closed(snapshot)


def assert_closed(snapshot: sqlite_decoder.Snapshot) -> None:
    assert is_closed(snapshot)


def test_parsing_keeps_only_a_few_databases_open(
    tmp_path: Path, opened: list[sqlite_decoder.Snapshot]
) -> None:
    """Hundreds of workspace databases must not exhaust file handles: the oldest is closed."""
    for n in range(OPEN_DATABASES + 4):
        tab = {"tabId": f"t{n}", "bubbles": [{"type": "user", "text": f"q{n}"}]}
        workspace_db(tmp_path, f"w{n:02}", None, [(LEGACY_CHATS[0], {"tabs": [tab]})])
    metas = scan(tmp_path)
    opened.clear()  # the scan's own snapshots, closed already
    with CursorAdapter().parsing() as parse_one:
        for meta in metas.values():
            assert len(parse_one(meta).messages) == 1
            still_open = [snapshot for snapshot in opened if not is_closed(snapshot)]
            assert len(still_open) <= OPEN_DATABASES
    assert len(opened) == len(metas)
    assert all(is_closed(snapshot) for snapshot in opened)


def test_iter_conversations_may_be_advanced_from_other_threads(tmp_path: Path) -> None:
    """next() from a thread pool, one call at a time, as asyncio.to_thread(next, it) does."""
    ids = [f"c{n}" for n in range(3)]
    global_db(tmp_path, [row for cid in ids for row in (document(cid, ["b"]), bubble(cid, "b"))])
    conversations = chatparse.iter_conversations(host(tmp_path), sources="cursor", errors="raise")
    parsed = []
    # Two threads alive together, taking turns: a thread's id is not reused while it lives.
    with ThreadPoolExecutor(max_workers=1) as one, ThreadPoolExecutor(max_workers=1) as other:
        for turn in range(len(ids) + 1):  # the last next() ends the iteration
            pool = (one, other)[turn % 2]
            parsed.append(pool.submit(next, conversations, None).result())
    assert [c.id for c in parsed if c is not None] == ids
    assert parsed[-1] is None


def test_an_empty_inline_bubble_id_is_still_recognised_in_a_row(tmp_path: Path) -> None:
    """An empty id is an id: its row repeats the inline bubble (the skip reason says so)."""
    inline = [{"type": 1, "bubbleId": "", "text": "q"}]
    global_db(tmp_path, [document("c1", [], conversation=inline), bubble("c1", "", text="copy")])
    conversation = parse(scan(tmp_path)["c1"])
    assert conversation.diagnostics.skipped == {"bubble row repeats an inline bubble": 1}


def test_headers_name_rows_by_key_then_by_inner_id_each_row_once() -> None:
    """Every way a header can name a row, or fail to: each row is listed at most once."""

    def row(key_id: str, inner_id: str) -> Any:
        data = json.dumps({"type": 1, "bubbleId": inner_id, "text": key_id}).encode()
        return Bubble(key_id, f"bubbleId:c:{key_id}".encode(), data)

    rows = [row("a", "a"), row("b", "x"), row("c", "a")]
    headers = [
        {"bubbleId": "a"},  # by key
        {"bubbleId": "x"},  # by the id inside b
        {"bubbleId": "a"},  # a again: by key it was listed, so it repeats
        {"bubbleId": 7},  # no id
        "not a header",
        {"bubbleId": "gone"},  # no row
        {"bubbleId": "b"},  # b by key, after b was listed by its inner id
    ]
    ledger = Ledger()
    listed = match_headers(headers, rows, ledger)
    assert [bubble.id for bubble in listed] == ["a", "b"]
    assert ledger.warnings == [
        "fullConversationHeadersOnly[2] repeats 'a'",
        "fullConversationHeadersOnly[3] names no bubble",
        "fullConversationHeadersOnly[4] names no bubble",
        "fullConversationHeadersOnly[5] names bubble 'gone', which has no row",
        "fullConversationHeadersOnly[6] repeats 'b'",
    ]


def test_a_list_where_a_status_or_node_type_is_expected_is_no_crash() -> None:
    """Any JSON value is looked up in the status and node tables; a list must not raise."""
    from chatparse.adapters.cursor import content  # noqa: PLC0415 -- the module under test

    call = content._tool_call({"name": "run", "status": ["error"], "toolCallId": "t1"})
    assert call is not None
    assert call.is_error is None
    rich = {"root": {"children": [{"type": ["paragraph"], "children": [{"text": "hi"}]}]}}
    assert content._lexical_text(rich["root"]) == "hi"
