"""The Zed adapter: what the conformance cases do not show (zstd above all)."""

from __future__ import annotations

import importlib
import json
import shutil
import sqlite3
import warnings
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

import chatparse
from chatparse.adapters.zed import ZedAdapter
from chatparse.adapters.zed.codec import (
    JSON,
    NO_ZSTD,
    ZSTD,
    ZSTD_MAGIC,
    blob_kind,
    open_blob,
    zstd_decoder,
)
from chatparse.adapters.zed.locate import data_dirs
from chatparse.errors import SkippedSourceWarning, SourceUnavailableError, UnavailableCause
from chatparse.host import Host
from chatparse.model import ParsedConversation
from chatparse.testing import AdapterConformance, Case, check_conversation, load_cases, materialize

REPO = Path(__file__).resolve().parents[2]
_TABLE = """CREATE TABLE threads (id TEXT PRIMARY KEY, summary TEXT NOT NULL,
    updated_at TEXT NOT NULL, data_type TEXT NOT NULL, data BLOB NOT NULL,
    parent_id TEXT, folder_paths TEXT, folder_paths_order TEXT, created_at TEXT)"""
THREAD = {
    "version": "0.3.0",
    "title": "t",
    "messages": [
        {"User": {"id": "u1", "content": [{"Text": "hello"}]}},
        {"Agent": {"content": [{"Text": "hi"}], "tool_results": {}}},
    ],
}


class TestZedConformance(AdapterConformance):
    adapter = "zed"
    fixtures = REPO / "fixtures" / "zed"

    def make_adapter(self) -> chatparse.SourceAdapter:
        return ZedAdapter()


def fake_frame(document: dict[str, Any]) -> bytes:
    """Bytes that look like a zstd frame to the blob sniffer; :func:`unwrap` reads them."""
    return ZSTD_MAGIC + json.dumps(document).encode()


def unwrap(blob: bytes) -> bytes:
    """A stand-in zstd decoder for :func:`fake_frame` (this Python may have no real one)."""
    if not blob.startswith(ZSTD_MAGIC + b"{"):
        msg = "bad frame"
        raise ValueError(msg)
    return blob[len(ZSTD_MAGIC) :]


def make_db(home: Path, rows: list[tuple[str, str, bytes, str | None]]) -> Path:
    """A threads.db at Zed's Linux place with rows ``(id, data_type, data, parent_id)``."""
    folder = home / ".local" / "share" / "zed" / "threads"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "threads.db"
    with closing(sqlite3.connect(path)) as connection:
        connection.execute(_TABLE)
        for ident, kind, data, parent in rows:
            connection.execute(
                "INSERT INTO threads (id, summary, updated_at, data_type, data, parent_id) "
                "VALUES (?, ?, '2026-07-01T10:00:00+00:00', ?, ?, ?)",
                (ident, f"summary of {ident}", kind, data, parent),
            )
        connection.commit()
    return path


def parse_all(home: Path, adapter: ZedAdapter) -> dict[str, ParsedConversation]:
    found = adapter.detect(Host(home=home, env={}, platform="linux"))
    assert found is not None
    with adapter.parsing() as parse:
        parsed = {meta.id: parse(meta) for meta in adapter.scan(found)}
    for conversation in parsed.values():
        assert check_conversation(conversation) == []
    return parsed


def test_zstd_threads_are_read_with_a_decoder(tmp_path: Path) -> None:
    """A zstd blob goes through the decoder; the row's data_type is not needed to tell."""
    make_db(
        tmp_path, [("a", ZSTD, fake_frame(THREAD), None), ("b", JSON, fake_frame(THREAD), None)]
    )
    parsed = parse_all(tmp_path, ZedAdapter(decompress=unwrap))
    for ident in "ab":
        assert [m.text for m in parsed[ident].messages] == ["hello", "hi"]
        assert parsed[ident].diagnostics.records_seen == 3


def test_zstd_threads_without_a_decoder_are_listed_and_explained(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No decoder: the thread is there with its row's fields, and doctor and diagnostics say why."""
    make_db(tmp_path, [("a", ZSTD, fake_frame(THREAD), None)])
    # As on a Python without zstd, whatever this one has.
    monkeypatch.setattr("chatparse.adapters.zed.adapter.zstd_decoder", lambda: None)
    adapter = ZedAdapter()
    conversation = parse_all(tmp_path, adapter)["a"]
    assert conversation.title == "summary of a"
    assert conversation.messages == ()
    assert conversation.diagnostics.skipped == {"zstd thread data not read": 1}
    assert conversation.diagnostics.warnings == (f"messages not read: {NO_ZSTD}",)
    assert "pip install 'chatparse[zstd]'" in NO_ZSTD
    lines = list(adapter.explain(Host(home=tmp_path, env={}, platform="linux")))
    assert any(
        "1 thread(s) (1 zstd); the 1 zstd thread(s) are listed but not read" in line
        for line in lines
    )


def test_a_damaged_frame_is_malformed(tmp_path: Path) -> None:
    """A frame the decoder refuses is one malformed record, not an exception."""
    make_db(tmp_path, [("a", ZSTD, ZSTD_MAGIC + b"\x00\x01", None)])
    conversation = parse_all(tmp_path, ZedAdapter(decompress=unwrap))["a"]
    assert conversation.diagnostics.malformed == 1
    assert conversation.diagnostics.warnings == ("thread: not a readable zstd frame (bad frame)",)


@pytest.mark.skipif(zstd_decoder() is None, reason="this Python has no zstd decoder")
def test_a_real_zstd_frame_is_read(tmp_path: Path) -> None:
    """The decoder this Python has (3.14's, or the zstd extra's) reads what zstd writes."""
    zstd = next(
        module
        for module in map(_importable, ("compression.zstd", "backports.zstd"))
        if module is not None
    )
    make_db(tmp_path, [("a", ZSTD, zstd.compress(json.dumps(THREAD).encode()), None)])
    conversation = parse_all(tmp_path, ZedAdapter())["a"]
    assert [m.text for m in conversation.messages] == ["hello", "hi"]
    assert conversation.diagnostics.malformed == 0


def _importable(name: str) -> Any:
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


@pytest.mark.skipif(zstd_decoder() is None, reason="this Python has no zstd decoder")
def test_the_real_decoder_refuses_a_cut_frame() -> None:
    """With compression.zstd (or backports.zstd), a frame cut short is damage, said plainly."""
    decoder = zstd_decoder()
    assert decoder is not None
    opened = open_blob(ZSTD_MAGIC + b"\x64\x83\x00", ZSTD, decoder)
    assert not hasattr(opened, "data")
    assert getattr(opened, "malformed", False)


@pytest.mark.parametrize(
    ("blob", "data_type", "kind"),
    [
        (ZSTD_MAGIC + b"xx", "json", ZSTD),
        (b'  {"messages": []}', "zstd", JSON),
        (b"[1]", "json", JSON),
        (b"\x0b\x0c", "brotli", "brotli"),
        (b"\x0b\x0c", None, "unknown"),
    ],
)
def test_blob_kind_goes_by_the_bytes_first(blob: bytes, data_type: object, kind: str) -> None:
    """The first bytes say what a blob is; data_type only when they say nothing."""
    assert blob_kind(blob, data_type) == kind


def test_sub_agent_threads_nest_and_are_not_listed(tmp_path: Path) -> None:
    """A row whose parent is in the database is read into its parent, to any depth."""
    blob = json.dumps(THREAD).encode()
    make_db(
        tmp_path,
        [
            ("root", JSON, blob, None),
            ("kid", JSON, blob, "root"),
            ("grandkid", JSON, blob, "kid"),
            ("orphan", JSON, blob, "nowhere"),
        ],
    )
    parsed = parse_all(tmp_path, ZedAdapter())
    assert sorted(parsed) == ["orphan", "root"]
    (kid,) = parsed["root"].subagents
    assert kid.id == "kid"
    assert [g.id for g in kid.subagents] == ["grandkid"]
    assert parsed["orphan"].meta.locator == {"parent": "nowhere"}


def test_a_thread_deleted_since_the_scan_is_missing(tmp_path: Path) -> None:
    """The parse says the thread is gone, with a cause programs can test."""
    db = make_db(tmp_path, [("a", JSON, json.dumps(THREAD).encode(), None)])
    adapter = ZedAdapter()
    found = adapter.detect(Host(home=tmp_path, env={}, platform="linux"))
    assert found is not None
    (meta,) = adapter.scan(found)
    with closing(sqlite3.connect(db)) as connection:
        connection.execute("DELETE FROM threads")
        connection.commit()
    with pytest.raises(SourceUnavailableError) as caught:
        adapter.parse(meta)
    assert caught.value.cause is UnavailableCause.MISSING


def test_the_fingerprint_follows_a_sub_agent(tmp_path: Path) -> None:
    """A change to a sub-agent's row changes its parent conversation's fingerprint."""
    blob = json.dumps(THREAD).encode()
    db = make_db(tmp_path, [("root", JSON, blob, None), ("kid", JSON, blob, "root")])
    adapter = ZedAdapter()
    found = adapter.detect(Host(home=tmp_path, env={}, platform="linux"))
    assert found is not None
    (before,) = adapter.scan(found)
    with closing(sqlite3.connect(db)) as connection:
        connection.execute(
            "UPDATE threads SET updated_at = '2026-07-02T00:00:00Z' WHERE id = 'kid'"
        )
        connection.commit()
    (after,) = adapter.scan(found)
    assert before.fingerprint != after.fingerprint


def test_a_store_of_only_the_legacy_lmdb_is_passed_over(tmp_path: Path) -> None:
    """The LMDB store cannot be read: the scan says so, and doctor explains it."""
    folder = tmp_path / ".local" / "share" / "zed" / "threads"
    folder.mkdir(parents=True)
    (folder / "threads-db.1.mdb").write_bytes(b"\x00" * 16)
    adapter = ZedAdapter()
    host = Host(home=tmp_path, env={}, platform="linux")
    found = adapter.detect(host)
    assert found is not None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert list(adapter.scan(found)) == []
    assert [w.category for w in caught] == [SkippedSourceWarning]
    assert "LMDB" in str(caught[0].message)
    lines = list(adapter.explain(host))
    assert any(line.endswith("threads.db: missing") for line in lines)
    assert any("threads-db.1.mdb: the agent's first thread store (LMDB" in line for line in lines)


def test_a_database_without_the_table_is_passed_over(tmp_path: Path) -> None:
    """Another program's threads.db is named in a warning, not read."""
    folder = tmp_path / ".local" / "share" / "zed" / "threads"
    folder.mkdir(parents=True)
    with closing(sqlite3.connect(folder / "threads.db")) as connection:
        connection.execute("CREATE TABLE other (x)")
    adapter = ZedAdapter()
    found = adapter.detect(Host(home=tmp_path, env={}, platform="linux"))
    assert found is not None
    with pytest.warns(SkippedSourceWarning, match="no threads table"):
        assert list(adapter.scan(found)) == []


@pytest.mark.parametrize(
    ("platform", "env", "expected"),
    [
        ("darwin", {}, ["Library/Application Support/Zed", ".config/zed"]),
        ("win32", {}, ["AppData/Local/Zed"]),
        ("linux", {}, [".local/share/zed", ".var/app/dev.zed.Zed/data/zed"]),
        ("linux", {"XDG_DATA_HOME": "/data"}, ["/data/zed", ".var/app/dev.zed.Zed/data/zed"]),
        ("linux", {"XDG_DATA_HOME": "rel"}, [".local/share/zed", ".var/app/dev.zed.Zed/data/zed"]),
        (
            "linux",
            {"FLATPAK_XDG_DATA_HOME": "/fp", "XDG_DATA_HOME": "/data"},
            ["/fp/zed", ".var/app/dev.zed.Zed/data/zed"],
        ),
    ],
)
def test_data_folders(
    tmp_path: Path, platform: str, env: dict[str, str], expected: list[str]
) -> None:
    """Zed's data folder on each platform, and the variables it honours."""
    found = data_dirs(Host(home=tmp_path, env=env, platform=platform))
    assert found == [tmp_path / path for path in expected]


def test_sniff_and_scan_path(tmp_path: Path) -> None:
    """A threads.db is recognised and listed on its own; other files are not."""
    db = make_db(tmp_path, [("a", JSON, json.dumps(THREAD).encode(), None)])
    other = tmp_path / "notes.db"
    other.write_bytes(b"not sqlite")
    adapter = ZedAdapter()
    assert adapter.sniff(db) == 0.9
    assert adapter.sniff(other) == 0.0
    assert [meta.id for meta in adapter.scan_path(db)] == ["a"]


def test_text_threads_are_sniffed_listed_and_explained(tmp_path: Path) -> None:
    """A .zed.json text thread is recognised, read on its own, and counted by doctor."""
    folder = tmp_path / ".local" / "share" / "zed" / "conversations"
    folder.mkdir(parents=True)
    document = {
        "id": "x",
        "zed": "context",
        "version": "0.4.0",
        "text": "hi\nhello\n",
        "messages": [
            {"id": {"replica_id": 0, "value": 0}, "start": 0, "metadata": {"role": "user"}},
            {"id": {"replica_id": 0, "value": 1}, "start": 3, "metadata": {"role": "assistant"}},
        ],
        "summary": "Greeting",
    }
    path = folder / "Greeting - 1.zed.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    adapter = ZedAdapter()
    assert adapter.sniff(path) == 0.9
    (meta,) = adapter.scan_path(path)
    conversation = adapter.parse(meta)
    assert check_conversation(conversation) == []
    assert (conversation.id, conversation.title) == ("Greeting - 1", "Greeting")
    assert [(m.role, m.text) for m in conversation.messages] == [
        ("user", "hi"),
        ("assistant", "hello"),
    ]
    lines = list(adapter.explain(Host(home=tmp_path, env={}, platform="linux")))
    assert any(line.endswith("conversations: 1 text thread(s)") for line in lines)


@pytest.mark.parametrize("case", load_cases(REPO / "fixtures" / "zed"), ids=lambda case: case.name)
def test_peek_agrees_with_parse_on_every_fixture(case: Case, tmp_path: Path) -> None:
    """A peek finds the title, project and last time that parse finds, and changes nothing."""
    home = tmp_path / "home"
    shutil.copytree(case.home_dir, home)
    with materialize(home):
        adapter = ZedAdapter()
        host = Host(home=home, env=case.host_env(home), platform=case.platform)
        found = adapter.detect(host)
        assert found is not None
        with warnings.catch_warnings():
            warnings.simplefilter(
                "ignore", SkippedSourceWarning
            )  # the LMDB store, as in its golden
            metas = list(adapter.scan(found))
        for meta in metas:
            peeked, parsed = adapter.peek(meta), adapter.parse(meta)
            fields = ("title", "project_path", "updated_at")
            assert [getattr(peeked, f) for f in fields] == [getattr(parsed, f) for f in fields]
