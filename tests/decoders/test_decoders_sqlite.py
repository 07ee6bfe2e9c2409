"""Tests for chatparse.decoders.sqlite: snapshots that never write, lock briefly, see the WAL."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping
from contextlib import closing, contextmanager
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from chatparse.decoders import sqlite
from chatparse.decoders.sqlite import KeyRun, Row, open_snapshot, prefix_range
from chatparse.errors import SourceUnavailableError, UnavailableCause

JOURNAL_MODES = ["delete", "wal"]


def make_db(path: Path, journal_mode: str, rows: Mapping[str, str | bytes]) -> None:
    """Create a VS Code style key-value database and close it cleanly."""
    with closing(sqlite3.connect(path, isolation_level=None)) as connection:
        connection.execute(f"PRAGMA journal_mode={journal_mode}")
        connection.execute("CREATE TABLE kv (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)")
        connection.execute("BEGIN")
        connection.executemany("INSERT INTO kv VALUES (?, ?)", rows.items())
        connection.execute("COMMIT")


def state(directory: Path) -> dict[str, bytes | None]:
    """Every file in ``directory`` with its bytes; a ``-shm`` file only by name (readers use it)."""
    return {
        child.name: None if child.name.endswith("-shm") else child.read_bytes()
        for child in sorted(directory.iterdir())
    }


@contextmanager
def unchanged(directory: Path) -> Iterator[None]:
    """Assert that the block creates, deletes and modifies no file in ``directory``."""
    before = state(directory)
    yield
    assert state(directory) == before


def keys(rows: Iterator[Row]) -> list[str]:
    return [str(row.values[0]) for row in rows]


@pytest.fixture
def small_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make every batch two rows long, so that a few rows span several transactions."""
    monkeypatch.setattr(sqlite, "_BATCH_ROWS", 2)


# -- reading --------------------------------------------------------------------------------------


@pytest.mark.parametrize("journal_mode", JOURNAL_MODES)
def test_rows_are_read_without_touching_the_directory(tmp_path: Path, journal_mode: str) -> None:
    """A closed database of either journal mode is read and nothing beside it appears or changes."""
    path = tmp_path / "state.vscdb"
    make_db(path, journal_mode, {"a": "1", "b": "2"})
    with unchanged(tmp_path), open_snapshot(path) as snapshot:
        assert keys(snapshot.iter_prefix("kv", "")) == ["a", "b"]
        assert snapshot.tables() == {"kv"}


def test_paths_with_uri_special_characters(tmp_path: Path) -> None:
    """A path containing ``?``, ``#``, ``%`` or spaces is opened as itself, not as URI syntax."""
    directory = tmp_path / "a ?b#c%20d"
    directory.mkdir()
    path = directory / "state.vscdb"
    make_db(path, "delete", {"a": "1"})
    with unchanged(directory), open_snapshot(path) as snapshot:
        assert keys(snapshot.iter_prefix("kv", "")) == ["a"]


def test_text_and_blob_values_decode_alike(tmp_path: Path) -> None:
    """The same JSON stored as TEXT and as BLOB reads back as the same str."""
    path = tmp_path / "db"
    make_db(path, "delete", {"text": '{"a": "é"}', "blob": '{"a": "é"}'.encode()})
    with open_snapshot(path) as snapshot:
        text, blob = snapshot.get("kv", "text"), snapshot.get("kv", "blob")
    assert text is not None
    assert blob is not None
    assert text.values == blob.values == ('{"a": "é"}',)


def test_invalid_utf8_in_text_is_replaced(tmp_path: Path) -> None:
    """TEXT holding invalid UTF-8, which sqlite3 itself refuses to decode, reads with U+FFFD."""
    path = tmp_path / "db"
    make_db(path, "delete", {})
    with closing(sqlite3.connect(path)) as connection, connection:
        connection.execute("INSERT INTO kv VALUES ('k', CAST(x'61ff62' AS TEXT))")
    with open_snapshot(path) as snapshot:
        assert snapshot.get("kv", "k") == Row("kv", 1, ("a\ufffdb",))


def test_get_returns_none_for_a_missing_key(tmp_path: Path) -> None:
    """A key that is not there gives None."""
    path = tmp_path / "db"
    make_db(path, "delete", {"a": "1"})
    with open_snapshot(path) as snapshot:
        assert snapshot.get("kv", "b") is None


def test_prefix_is_a_range_not_a_pattern(tmp_path: Path) -> None:
    """``_`` and ``%`` in a prefix match themselves only, as LIKE would not."""
    path = tmp_path / "db"
    make_db(path, "delete", dict.fromkeys(["a_1", "ab1", "a%2", "aX2", "a_", "b"], "v"))
    with open_snapshot(path) as snapshot:
        assert keys(snapshot.iter_prefix("kv", "a_")) == ["a_", "a_1"]
        assert keys(snapshot.iter_prefix("kv", "a%")) == ["a%2"]


def test_prefix_ending_in_the_last_code_point(tmp_path: Path) -> None:
    """A prefix ending in U+10FFFF still bounds the range correctly."""
    top = "\U0010ffff"
    path = tmp_path / "db"
    make_db(path, "delete", dict.fromkeys([f"a{top}", f"a{top}x", f"a{top}{top}", "b"], "v"))
    with open_snapshot(path) as snapshot:
        assert keys(snapshot.iter_prefix("kv", f"a{top}")) == [
            f"a{top}",
            f"a{top}x",
            f"a{top}{top}",
        ]


@pytest.mark.usefixtures("small_batches")
def test_iteration_spans_several_batches(tmp_path: Path) -> None:
    """Rows beyond one batch are read by later batches, each continuing after the last key."""
    path = tmp_path / "db"
    make_db(path, "delete", {f"k{i:02}": str(i) for i in range(7)} | {"z": "last"})
    with open_snapshot(path) as snapshot:
        assert keys(snapshot.iter_prefix("kv", "k")) == [f"k{i:02}" for i in range(7)]
        rows = list(snapshot.iter_rows("kv", ["key"], where="value != ?", params=("3",)))
    assert [row.values[0] for row in rows] == ["k00", "k01", "k02", "k04", "k05", "k06", "z"]
    assert [row.rowid for row in rows] == [1, 2, 3, 5, 6, 7, 8]


def test_iter_prefix_raw_gives_rows_as_sqlite_returns_them(tmp_path: Path) -> None:
    """Raw rows are ``(rowid, *columns)`` with TEXT and BLOB undecoded, in key order."""
    path = tmp_path / "db"
    make_db(path, "delete", {"k2": b"blob \xff", "k1": "text é", "x": "other"})
    with open_snapshot(path) as snapshot:
        assert list(snapshot.iter_prefix_raw("kv", "k")) == [
            (2, b"k1", "text é".encode()),
            (1, b"k2", b"blob \xff"),
        ]
        # Without the key among the columns, it is still read (to continue from) but not given.
        assert list(snapshot.iter_prefix_raw("kv", "k", columns=("value",))) == [
            (2, "text é".encode()),
            (1, b"blob \xff"),
        ]


def test_get_raw_gives_the_row_as_sqlite_returns_it(tmp_path: Path) -> None:
    """One row by key, TEXT and BLOB undecoded; ``get`` is the same row decoded."""
    path = tmp_path / "db"
    make_db(path, "delete", {"k2": b"blob \xff", "k1": "text é"})
    with open_snapshot(path) as snapshot:
        assert snapshot.get_raw("kv", "k1") == (2, "text é".encode())
        assert snapshot.get_raw("kv", "k2") == (1, b"blob \xff")
        assert snapshot.get_raw("kv", "k3") is None
        row = snapshot.get("kv", "k2")
        assert row is not None
        assert row.values == ("blob \ufffd",)


@pytest.mark.parametrize("journal_mode", JOURNAL_MODES)
def test_get_raw_reads_a_long_value_whole_and_other_types_as_selected(
    tmp_path: Path, journal_mode: str
) -> None:
    """Values over many overflow pages come whole; NULL, INTEGER and REAL as SQLite gives them."""
    path = tmp_path / "db"
    long_text = "é" * 300_000 + "end"
    long_blob = bytes(range(256)) * 2_000
    make_db(path, journal_mode, {"text": long_text, "blob": long_blob})
    with closing(sqlite3.connect(path, isolation_level=None)) as connection:
        connection.executemany(
            "INSERT INTO kv VALUES (?, ?)", [("null", None), ("int", 7), ("real", 1.5)]
        )
    with unchanged(tmp_path), open_snapshot(path) as snapshot:
        assert snapshot.get_raw("kv", "text") == (1, long_text.encode())
        assert snapshot.get_raw("kv", "blob") == (2, long_blob)
        assert snapshot.get_raw("kv", "null") == (3, None)
        assert snapshot.get_raw("kv", "int") == (4, 7)
        assert snapshot.get_raw("kv", "real") == (5, 1.5)
        assert snapshot.get_raw("kv", "blob", column="key") == (2, b"blob")
        assert snapshot.get_raw("kv", "text", column="key", key_column="value") is None


def test_get_raw_holds_no_transaction_afterwards(tmp_path: Path) -> None:
    """The read transaction ends with the read, found or not, so a writer can commit."""
    path = tmp_path / "db"
    make_db(path, "delete", {"k": "v" * 100_000})
    with open_snapshot(path) as snapshot:
        assert snapshot.get_raw("kv", "k") == (1, b"v" * 100_000)
        assert snapshot.get_raw("kv", "missing") is None
        with closing(sqlite3.connect(path, isolation_level=None, timeout=0)) as writer:
            writer.execute("BEGIN EXCLUSIVE")  # fails at once if a reader still held a lock
            writer.execute("UPDATE kv SET value = 'w'")
            writer.execute("COMMIT")
        assert snapshot.get_raw("kv", "k") == (1, b"w")


def count_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Record the SQL of every batch read from now on."""
    reads: list[str] = []
    read = sqlite.Snapshot._read

    def counting(self: sqlite.Snapshot, sql: str, *args: Any) -> object:
        reads.append(sql)
        return read(self, sql, *args)

    monkeypatch.setattr(sqlite.Snapshot, "_read", counting)
    return reads


@pytest.mark.usefixtures("small_batches")
def test_a_batch_shorter_than_the_limit_is_the_last(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No query is spent to find the batch after a short one empty; a full one is followed."""
    path = tmp_path / "db"
    make_db(path, "delete", {f"k{i}": str(i) for i in range(5)})
    with open_snapshot(path) as snapshot:
        reads = count_reads(monkeypatch)
        assert keys(snapshot.iter_prefix("kv", "k")) == [f"k{i}" for i in range(5)]
        assert len(reads) == 3  # 2 + 2 + 1 rows
        assert len(list(snapshot.iter_rows("kv", ["key"]))) == 5
        assert len(reads) == 6
        assert keys(snapshot.iter_prefix("kv", "k3")) == ["k3"]
        assert len(reads) == 7


def test_the_byte_limit_ends_a_batch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A batch that reaches the byte limit stops there; the next one continues after it."""
    monkeypatch.setattr(sqlite, "_BATCH_BYTES", 10)
    monkeypatch.setattr(sqlite, "_CHUNK_ROWS", 1)
    path = tmp_path / "db"
    make_db(path, "delete", {f"k{i}": "v" * 20 for i in range(3)})
    with open_snapshot(path) as snapshot:
        reads = count_reads(monkeypatch)
        assert keys(snapshot.iter_prefix("kv", "k")) == ["k0", "k1", "k2"]
        # One row each (each passes the limit), then one more query finds nothing after k2.
        assert len(reads) == 4


def test_backend_name_names_sqlite() -> None:
    """backend_name reports the SQLite library version."""
    assert sqlite.backend_name() == f"sqlite {sqlite3.sqlite_version}"


# -- key ranges -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("prefix", "expected"),
    [
        ("a", (b"a", b"b")),
        ("", (b"", None)),
        ("\U0010ffff", (b"\xf4\x8f\xbf\xbf", b"\xf4\x8f\xbf\xc0")),
        (b"a\xff", (b"a\xff", b"b")),
        (b"\xff\xff", (b"\xff\xff", None)),
    ],
)
def test_prefix_range_bounds(prefix: str | bytes, expected: tuple[bytes, bytes | None]) -> None:
    """The upper bound increments the last byte below 0xFF, or is absent."""
    assert prefix_range(prefix) == expected


@given(st.binary(max_size=6), st.binary(max_size=8))
def test_prefix_range_holds_exactly_the_keys_with_the_prefix(prefix: bytes, key: bytes) -> None:
    """A key lies in the range if and only if it starts with the prefix, byte for byte."""
    low, high = prefix_range(prefix)
    assert (low <= key and (high is None or key < high)) == key.startswith(prefix)


@settings(max_examples=25, deadline=None)
@given(
    st.lists(st.text("a_%\U0010ffff\x00é", max_size=4), unique=True, max_size=8),
    st.text("a_%\U0010ffff\x00é", max_size=3),
)
def test_iter_prefix_agrees_with_startswith(stored: list[str], prefix: str) -> None:
    """Querying a real table returns exactly the stored keys that start with the prefix."""
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "db"
        make_db(path, "delete", dict.fromkeys(stored, "v"))
        with open_snapshot(path) as snapshot:
            found = keys(snapshot.iter_prefix("kv", prefix))
    assert found == sorted((k for k in stored if k.startswith(prefix)), key=str.encode)


# -- errors ---------------------------------------------------------------------------------------


def runs_by_hand(rows: list[tuple[int, str]], prefix: str, separator: str) -> list[KeyRun]:
    """What :meth:`Snapshot.key_runs` should yield, worked out in Python from every key."""
    found: dict[str, list[int]] = {}
    for rowid, key in rows:
        name, cut, _ = key.removeprefix(prefix).partition(separator)
        if key.startswith(prefix) and cut:
            found.setdefault(name, []).append(rowid)
    return [
        KeyRun(name, len(rowids), max(rowids), sum(rowids))
        for name, rowids in sorted(found.items(), key=lambda item: (item[0] + separator).encode())
    ]


# "à" shares its first byte with "é", and "0" sorts below ":": keys between a separator's first
# byte and the rest of it, or right after a name.
_KEY_TEXT = "ab:;\x00éà0\U0010ffff"


@settings(max_examples=60, deadline=None)
@example(["p:ab:1", "p:ab", "z"], "p:", "b:", 1000, [])  # between a separator's bytes
@example(["p:aé1", "p:aà", "z"], "p:", "é", 1000, [])  # "à" and "é" share a first byte
@given(
    st.lists(st.text(_KEY_TEXT, max_size=6), unique=True, max_size=12),
    st.text(_KEY_TEXT, max_size=2),
    st.sampled_from([":", ";", "é", "\x00", "b:", "::"]),
    st.sampled_from([1, 2, 1000]),
    st.lists(st.integers(0, 11), max_size=4),
)
def test_key_runs_agree_with_grouping_every_key(
    stored: list[str], prefix: str, separator: str, batch_rows: int, rewritten: list[int]
) -> None:
    """Each run is the keys sharing ``prefix + name + separator``, counted as Python would.

    Also across batches, and after rows are replaced (new rowids) or removed.
    """
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "db"
        make_db(path, "delete", dict.fromkeys(stored, "v"))
        with closing(sqlite3.connect(path)) as connection, connection:
            for index in rewritten:
                if index < len(stored):
                    connection.execute("INSERT INTO kv VALUES (?, 'again')", (stored[index],))
            if len(stored) > 1:
                connection.execute("DELETE FROM kv WHERE key = ?", (stored[-1],))
            rows = connection.execute("SELECT rowid, key FROM kv").fetchall()
        with open_snapshot(path) as snapshot, mock.patch.object(sqlite, "_BATCH_ROWS", batch_rows):
            runs = list(snapshot.key_runs("kv", prefix, separator=separator))
            one_by_one = [
                snapshot.key_run("kv", prefix, run.name, separator=separator) for run in runs
            ]
    assert runs == runs_by_hand(rows, prefix, separator)
    assert one_by_one == runs


def test_key_runs_leave_out_keys_without_a_separator(tmp_path: Path) -> None:
    """``p:a`` has no separator after the prefix ``p:``: it is in no run, and hides none."""
    path = tmp_path / "db"
    make_db(path, "wal", dict.fromkeys(["p:a", "p:a-b:1", "p:a:1", "p:a:2", "p:ab", "q:a:1"], "v"))
    with open_snapshot(path) as snapshot:
        runs = list(snapshot.key_runs("kv", "p:"))
        assert snapshot.key_run("kv", "p:", "ab") is None
    assert runs == [KeyRun("a-b", 1, 2, 2), KeyRun("a", 2, 4, 7)]


def test_key_runs_refuse_an_empty_separator(tmp_path: Path) -> None:
    """Every key would be in no run: an empty separator is a mistake, said at the call."""
    path = tmp_path / "db"
    make_db(path, "delete", {"p:a:1": "v"})
    with open_snapshot(path) as snapshot, pytest.raises(ValueError, match="separator"):
        snapshot.key_runs("kv", "p:", separator="")


def test_key_runs_add_up_rowids_past_64_bits(tmp_path: Path) -> None:
    """SQLite's ``sum`` raises past 2**63; the rowids of a run are summed exactly all the same."""
    path = tmp_path / "db"
    make_db(path, "delete", {})
    big = [2**62 + 1, 2**62 + 2, 2**63 - 1]
    with closing(sqlite3.connect(path)) as connection, connection:
        for n, rowid in enumerate(big):
            connection.execute("INSERT INTO kv (rowid, key) VALUES (?, ?)", (rowid, f"p:a:{n}"))
        connection.execute("INSERT INTO kv (rowid, key) VALUES (-5, 'p:b:1')")
    with open_snapshot(path) as snapshot:
        runs = list(snapshot.key_runs("kv", "p:"))
        assert snapshot.key_run("kv", "p:", "a") == runs[0]
    assert runs == [KeyRun("a", 3, 2**63 - 1, sum(big)), KeyRun("b", 1, -5, -5)]


def test_key_runs_go_on_after_keys_in_no_run_at_every_batch_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With every batch cut after one key, the walk resumes after keys that are in no run.

    Each key it steps to is a row of its own, so a long stretch of such keys does not hold the
    read transaction past the batch's time limit.
    """
    path = tmp_path / "db"
    make_db(
        path, "delete", dict.fromkeys(["p:a", "p:a\x00", "p:a:1", "p:b", "p:c:1", "p:c:2"], "v")
    )
    monkeypatch.setattr(sqlite, "_BATCH_SECONDS", 0.0)
    reads = count_reads(monkeypatch)
    with open_snapshot(path) as snapshot:
        runs = list(snapshot.key_runs("kv", "p:"))
    assert runs == [KeyRun("a", 1, 3, 3), KeyRun("c", 2, 6, 11)]
    assert len(reads) == 6  # p:a, p:a\x00, p:a:1, p:b, p:c:1, and the empty batch after them


def test_key_runs_leave_blob_keys_alone(tmp_path: Path) -> None:
    """A BLOB key is no text to cut into a name; it is in no run, even with an empty prefix."""
    path = tmp_path / "db"
    make_db(path, "delete", {"a:1": "v"})
    with closing(sqlite3.connect(path)) as connection, connection:
        connection.execute("INSERT INTO kv VALUES (?, 'v')", (b"b:1",))
    with open_snapshot(path) as snapshot:
        assert list(snapshot.key_runs("kv", "")) == [KeyRun("a", 1, 1, 1)]


def test_a_missing_file_is_unavailable(tmp_path: Path) -> None:
    """A path that does not exist raises SourceUnavailableError and creates nothing."""
    with unchanged(tmp_path), pytest.raises(SourceUnavailableError, match="no such file") as caught:
        open_snapshot(tmp_path / "missing.vscdb")
    assert caught.value.cause is UnavailableCause.MISSING


@pytest.mark.parametrize("content", [b"", b"{}", b"not a database" * 20])
def test_a_file_that_is_not_a_database_is_unavailable(tmp_path: Path, content: bytes) -> None:
    """A file without SQLite's header is reported as not a database."""
    path = tmp_path / "state.vscdb"
    path.write_bytes(content)
    with (
        unchanged(tmp_path),
        pytest.raises(SourceUnavailableError, match="not a SQLite database") as caught,
    ):
        open_snapshot(path)
    assert caught.value.cause is UnavailableCause.NOT_A_DATABASE


def test_a_corrupt_database_is_unavailable_and_names_the_table(tmp_path: Path) -> None:
    """Damaged pages raise SourceUnavailableError saying the file is corrupt, where, and in what."""
    path = tmp_path / "db"
    make_db(path, "delete", {f"k{i:04}": "v" * 500 for i in range(200)})
    data = bytearray(path.read_bytes())
    # The table's last leaf pages: the first rows still read, then the damage is met.
    data[-4096 * 8 : -4096 * 4] = b"\xa5" * (4096 * 4)
    path.write_bytes(bytes(data))
    with open_snapshot(path) as snapshot, pytest.raises(SourceUnavailableError) as caught:
        list(snapshot.iter_rows("kv", ["key", "value"]))
    assert "corrupt" in caught.value.reason
    assert "table kv, after rowid" in caught.value.reason


def test_a_directory_is_unavailable(tmp_path: Path) -> None:
    """A path that cannot be read as a file raises SourceUnavailableError."""
    with pytest.raises(SourceUnavailableError, match="cannot read"):
        open_snapshot(tmp_path)


def busy_error() -> sqlite3.OperationalError:
    error = sqlite3.OperationalError("database is locked")
    error.sqlite_errorcode = sqlite3.SQLITE_BUSY
    return error


def test_busy_errors_that_sqlite_does_not_wait_for_are_retried(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A busy error returned at once (as WAL recovery can) is retried within the time budget."""
    path = tmp_path / "db"
    make_db(path, "delete", {"a": "1"})
    read = sqlite.Snapshot._read
    failures = iter([busy_error(), busy_error()])

    def flaky(self: sqlite.Snapshot, sql: str, *args: Any) -> object:
        error = next(failures, None)
        if error is not None:
            raise error
        return read(self, sql, *args)

    monkeypatch.setattr(sqlite.Snapshot, "_read", flaky)
    with open_snapshot(path) as snapshot:
        assert snapshot.get("kv", "a") == Row("kv", 1, ("1",))


def test_a_torn_unlocked_read_is_retried_not_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An error while reading a WAL database without locks, as a writer appears, is read again."""
    path = tmp_path / "db"
    make_db(path, "wal", {"a": "1"})
    read = sqlite.Snapshot._read
    calls: list[str] = []

    def torn_once(self: sqlite.Snapshot, sql: str, *args: Any) -> object:
        calls.append(sql)
        if len(calls) == 1:
            with closing(sqlite3.connect(path)) as writer, writer:  # a writer appears
                writer.execute("INSERT INTO kv VALUES ('b', '2')")
            raise sqlite3.DatabaseError("database disk image is malformed")
        return read(self, sql, *args)

    monkeypatch.setattr(sqlite.Snapshot, "_read", torn_once)
    with open_snapshot(path) as snapshot:
        assert keys(snapshot.iter_prefix("kv", "")) == ["a", "b"]
    assert len(calls) == 2  # the torn read and its retry; both rows fit in that one batch


def test_a_missing_table_is_unavailable(tmp_path: Path) -> None:
    """Asking for a table the database lacks raises SourceUnavailableError naming it."""
    path = tmp_path / "db"
    make_db(path, "delete", {})
    with (
        open_snapshot(path) as snapshot,
        pytest.raises(SourceUnavailableError, match="cursorDiskKV"),
    ):
        snapshot.get("cursorDiskKV", "x")


# -- WAL without its side files -------------------------------------------------------------------


def test_wal_database_with_wal_but_no_shm_is_unavailable(tmp_path: Path) -> None:
    """Reading a -wal without a -shm would create the -shm, so it is refused, not half-read."""
    live, copy = tmp_path / "live", tmp_path / "copy"
    live.mkdir()
    copy.mkdir()
    make_db(live / "db", "wal", {"a": "1"})
    with closing(sqlite3.connect(live / "db", isolation_level=None)) as writer:
        writer.execute("PRAGMA wal_autocheckpoint=0")
        writer.execute("INSERT INTO kv VALUES ('b', '2')")
        shutil.copy(live / "db", copy / "db")
        shutil.copy(live / "db-wal", copy / "db-wal")
    with unchanged(copy), pytest.raises(SourceUnavailableError, match="no -shm file"):
        open_snapshot(copy / "db")


@pytest.mark.usefixtures("small_batches")
def test_a_writer_appearing_during_an_unlocked_read_is_noticed(tmp_path: Path) -> None:
    """When a -wal appears mid-read of a WAL database opened without one, reading switches over."""
    path = tmp_path / "db"
    make_db(path, "wal", {"k1": "1", "k2": "2", "k3": "3"})
    with open_snapshot(path) as snapshot:
        rows = snapshot.iter_prefix("kv", "k")
        assert keys(iter([next(rows)])) == ["k1"]
        with closing(sqlite3.connect(path, isolation_level=None)) as writer:
            writer.execute("PRAGMA wal_autocheckpoint=0")
            writer.execute("INSERT INTO kv VALUES ('k4', '4')")
            assert keys(rows) == ["k2", "k3", "k4"]


# -- a second process writing ---------------------------------------------------------------------

WRITER = """
import sqlite3, sys
path, lock = sys.argv[1], sys.argv[2]
connection = sqlite3.connect(path, timeout=0, isolation_level=None)
connection.execute("PRAGMA wal_autocheckpoint=0")
connection.execute("INSERT INTO kv VALUES ('k3', 'committed, only in the -wal if WAL')")
connection.execute(lock)
connection.execute("INSERT INTO kv VALUES ('k4', 'uncommitted')")
print("ready", flush=True)
sys.stdin.readline()
try:
    connection.execute("COMMIT")
except sqlite3.OperationalError as error:
    print("commit failed:", error, flush=True)
else:
    print("committed", flush=True)
"""


@contextmanager
def writer_process(path: Path, lock: str) -> Iterator[subprocess.Popen[str]]:
    """Run a second process that commits one row, then holds a write transaction open."""
    with subprocess.Popen(
        [sys.executable, "-c", WRITER, str(path), lock],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    ) as process:
        assert process.stdout is not None
        assert process.stdin is not None
        try:
            assert process.stdout.readline() == "ready\n"
            yield process
        finally:
            process.stdin.close()
            process.wait(timeout=30)


def commit(process: subprocess.Popen[str]) -> str:
    assert process.stdin is not None
    assert process.stdout is not None
    process.stdin.write("commit\n")
    process.stdin.flush()
    return process.stdout.readline().strip()


@pytest.mark.usefixtures("small_batches")
@pytest.mark.parametrize("journal_mode", JOURNAL_MODES)
def test_reading_while_another_process_writes(tmp_path: Path, journal_mode: str) -> None:
    """We see the last committed state, and the writer commits (without waiting) mid-iteration."""
    path = tmp_path / "state.vscdb"
    make_db(path, journal_mode, {"k0": "0", "k1": "1", "k2": "2"})
    with writer_process(path, "BEGIN IMMEDIATE") as writer:
        before = state(tmp_path)
        with open_snapshot(path) as snapshot:
            assert snapshot.get("kv", "k4") is None
            rows = snapshot.iter_prefix("kv", "k")
            first_batch = [next(rows), next(rows)]
            assert state(tmp_path) == before
            # The writer uses no busy timeout: if we still held a lock, its commit would fail.
            assert commit(writer) == "committed"
            after_commit = state(tmp_path)
            rest = list(rows)
        assert state(tmp_path) == after_commit
    assert keys(iter(first_batch + rest)) == ["k0", "k1", "k2", "k3", "k4"]


def test_a_writer_committing_makes_us_report_locked(tmp_path: Path) -> None:
    """Held out by an exclusive lock past the busy timeout, we raise saying the file is locked."""
    path = tmp_path / "state.vscdb"
    make_db(path, "delete", {"k0": "0"})
    with writer_process(path, "BEGIN EXCLUSIVE") as writer:
        with open_snapshot(path, busy_timeout=0.2) as snapshot:
            with pytest.raises(SourceUnavailableError, match="locked") as caught:
                snapshot.get("kv", "k0")
            assert caught.value.path == str(path)
            assert caught.value.cause is UnavailableCause.LOCKED
        assert commit(writer) == "committed"


def test_a_snapshot_waits_for_a_lock_once(tmp_path: Path) -> None:
    """Once a read gave up on the lock, every later read through the snapshot raises at once."""
    path = tmp_path / "state.vscdb"
    make_db(path, "delete", {"k0": "0"})
    busy = 0.3
    with writer_process(path, "BEGIN EXCLUSIVE") as writer:
        with open_snapshot(path, busy_timeout=busy) as snapshot:
            waits = []
            for read in (lambda: snapshot.get("kv", "k0"), snapshot.tables, snapshot.tables):
                started = time.monotonic()
                with pytest.raises(SourceUnavailableError, match="locked") as caught:
                    read()
                waits.append(time.monotonic() - started)
                assert caught.value.cause is UnavailableCause.LOCKED
        assert waits[0] >= busy
        assert waits[1] + waits[2] < busy / 2  # the second and third waited for nothing
        assert commit(writer) == "committed"
    with open_snapshot(path, busy_timeout=busy) as snapshot:  # a new snapshot tries again
        assert snapshot.get("kv", "k0") is not None


def test_iter_rows_raw_gives_what_sqlite_returns_in_batches(tmp_path: Path) -> None:
    """``iter_rows_raw`` filters like ``iter_rows`` and keeps TEXT as bytes, past one batch."""
    path = tmp_path / "store.db"
    with closing(sqlite3.connect(path, isolation_level=None)) as connection:
        connection.execute("CREATE TABLE part (id TEXT, session_id TEXT, data TEXT)")
        connection.executemany(
            "INSERT INTO part VALUES (?, ?, ?)",
            [(f"p{n}", "s1" if n % 2 else "s2", f'{{"n":{n},"t":"é"}}') for n in range(2500)],
        )
    with open_snapshot(path) as snapshot:
        raw = list(
            snapshot.iter_rows_raw("part", ("id", "data"), where="session_id = ?", params=("s1",))
        )
        rows = list(
            snapshot.iter_rows("part", ("id", "data"), where="session_id = ?", params=("s1",))
        )
    assert len(raw) == len(rows) == 1250
    assert all(isinstance(row[2], bytes) for row in raw)
    assert [(row[0], row[1].decode(), row[2].decode()) for row in raw] == [
        (row.rowid, *row.values) for row in rows
    ]
