"""The SQLite text form: what it materializes, and what it refuses."""

from __future__ import annotations

import shutil
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from chatparse.testing import FixtureFormatError, materialize, materialize_sqlite

ITEM_TABLE = """
[[tables]]
name = "ItemTable"
sql = "CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)"
"""


def write(directory: Path, text: str, name: str = "state.vscdb") -> Path:
    """Write ``<name>.sqlite.toml`` into ``directory``."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{name}.sqlite.toml"
    path.write_text(text, encoding="utf-8")
    return path


def read(
    db: Path, sql: str = "SELECT key, typeof(value), value FROM ItemTable ORDER BY key"
) -> list[tuple[object, ...]]:
    """Read rows through a read-only connection that sees bytes for TEXT too."""
    with closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as connection:
        connection.text_factory = bytes
        return connection.execute(sql).fetchall()


def test_value_kinds(tmp_path: Path) -> None:
    """Strings are TEXT, numbers INTEGER/REAL; inline tables give BLOBs, raw TEXT and NULL."""
    text = (
        ITEM_TABLE
        + """
[[tables.rows]]
key = "1-text"
value = "héllo"
[[tables.rows]]
key = "2-int"
value = 42
[[tables.rows]]
key = "3-real"
value = 1.5
[[tables.rows]]
key = "4-blob"
value = { blob = '{"a": 1}' }
[[tables.rows]]
key = "5-hex"
value = { hex = "00 ff 10" }
[[tables.rows]]
key = "6-base64"
value = { base64 = "AAEC" }
[[tables.rows]]
key = "7-bad-utf8"
value = { text_hex = "ff41" }
[[tables.rows]]
key = "8-null"
value = { null = true }
"""
    )
    write(tmp_path, text)
    with materialize(tmp_path) as dbs:
        assert dbs == (tmp_path / "state.vscdb",)
        rows = read(dbs[0])
    assert rows == [
        (b"1-text", b"text", "héllo".encode()),
        (b"2-int", b"integer", 42),
        (b"3-real", b"real", 1.5),
        (b"4-blob", b"blob", b'{"a": 1}'),
        (b"5-hex", b"blob", b"\x00\xff\x10"),
        (b"6-base64", b"blob", b"\x00\x01\x02"),
        (b"7-bad-utf8", b"text", b"\xffA"),
        (b"8-null", b"null", None),
    ]


def test_text_file_is_replaced_by_the_database(tmp_path: Path) -> None:
    """Materializing removes the text file, so the tree looks as the tool left it."""
    write(tmp_path / "User" / "globalStorage", ITEM_TABLE)
    with materialize(tmp_path):
        names = sorted(p.name for p in (tmp_path / "User" / "globalStorage").iterdir())
    assert names == ["state.vscdb"]


def test_rollback_journal_mode_is_the_default(tmp_path: Path) -> None:
    """Without journal_mode the database uses a rollback journal (header bytes 18-19 are 1)."""
    write(tmp_path, ITEM_TABLE + '[[tables.rows]]\nkey = "k"\nvalue = "v"\n')
    with materialize(tmp_path) as [db]:
        header = db.read_bytes()[18:20]
        files = sorted(p.name for p in tmp_path.iterdir())
    assert header == b"\x01\x01"
    assert files == ["state.vscdb"]


def test_wal_mode_without_open_writer(tmp_path: Path) -> None:
    """journal_mode wal without wal_rows gives a WAL database whose writer has closed."""
    write(tmp_path, 'journal_mode = "wal"\nuser_version = 3\n' + ITEM_TABLE)
    with materialize(tmp_path) as [db]:
        header = db.read_bytes()[18:20]
        files = sorted(p.name for p in tmp_path.iterdir())
        with closing(sqlite3.connect(db)) as connection:
            assert connection.execute("PRAGMA user_version").fetchone() == (3,)
    assert header == b"\x02\x02"
    assert files == ["state.vscdb"]


def test_wal_rows_stay_uncheckpointed_while_the_block_runs(tmp_path: Path) -> None:
    """wal_rows are committed into -wal by a writer held open; the main file lacks them."""
    # Top-level keys such as wal_sql must come before the first [[tables]] in TOML.
    text = """
journal_mode = "wal"
wal_sql = ["UPDATE ItemTable SET value = 'changed' WHERE key = 'old'"]

[[tables]]
name = "ItemTable"
sql = "CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)"

[[tables.rows]]
key = "old"
value = "in the database file"

[[tables.wal_rows]]
key = "new"
value = "only in the WAL"
"""
    write(tmp_path, text)
    with materialize(tmp_path) as [db]:
        wal = Path(f"{db}-wal")
        assert wal.stat().st_size > 0
        assert Path(f"{db}-shm").exists()
        assert read(db, "SELECT key, value FROM ItemTable ORDER BY key") == [
            (b"new", b"only in the WAL"),
            (b"old", b"changed"),
        ]
        main_only = tmp_path / "copy" / "state.vscdb"
        main_only.parent.mkdir()
        shutil.copyfile(db, main_only)
        with closing(
            sqlite3.connect(f"file:{main_only}?mode=ro&immutable=1", uri=True)
        ) as connection:
            rows = connection.execute("SELECT key, value FROM ItemTable").fetchall()
        assert rows == [("old", "in the database file")]
    assert not wal.exists()


def test_materialize_sqlite_returns_the_open_writer(tmp_path: Path) -> None:
    """The single-file function hands the still-open writer to the caller."""
    text_path = write(
        tmp_path,
        'journal_mode = "wal"\n' + ITEM_TABLE + '[[tables.wal_rows]]\nkey = "k"\nvalue = 1\n',
    )
    writer = materialize_sqlite(text_path, tmp_path / "out.db")
    assert writer is not None
    try:
        assert Path(f"{tmp_path / 'out.db'}-wal").stat().st_size > 0
    finally:
        writer.close()
    plain = write(tmp_path, ITEM_TABLE, name="plain.db")
    assert materialize_sqlite(plain, tmp_path / "plain.db") is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("tables = 3\n", "at least one [[tables]] entry"),
        ("format = 2\n" + ITEM_TABLE, "format 2 is not supported"),
        ('journal_mode = "memory"\n' + ITEM_TABLE, "journal_mode must be one of"),
        ("user_version = -1\n" + ITEM_TABLE, "user_version must be"),
        ("extra = 1\n" + ITEM_TABLE, "unknown key(s) extra"),
        ('[[tables]]\nname = "t"\n', "needs a 'name' and the 'sql'"),
        (ITEM_TABLE + "[[tables.rows]]\nkey = true\n", "booleans are not SQLite values"),
        (ITEM_TABLE + '[[tables.rows]]\nkey = { hex = "zz" }\n', "bad hex value"),
        (ITEM_TABLE + '[[tables.rows]]\nkey = { base64 = "!!" }\n', "bad base64 value"),
        (ITEM_TABLE + '[[tables.rows]]\nkey = { json = "x" }\n', "a value is a string"),
        (ITEM_TABLE + '[[tables.rows]]\nnope = "x"\n', "SQLite rejected the fixture"),
        (ITEM_TABLE + '[[tables.wal_rows]]\nkey = "x"\n', 'need journal_mode = "wal"'),
        ("wal_sql = [1]\n" + ITEM_TABLE, "wal_sql must be an array of SQL strings"),
        ("not toml = = 1", "not TOML"),
    ],
)
def test_bad_text_is_refused(tmp_path: Path, text: str, expected: str) -> None:
    """Every mistake raises FixtureFormatError naming the file and the problem."""
    write(tmp_path, text)
    with pytest.raises(FixtureFormatError, match=r"state\.vscdb") as excinfo, materialize(tmp_path):
        pass
    assert expected in str(excinfo.value)


def test_existing_database_is_not_overwritten(tmp_path: Path) -> None:
    """A text file next to a database of the same name is an error, not a silent replace."""
    write(tmp_path, ITEM_TABLE)
    (tmp_path / "state.vscdb").write_bytes(b"x")
    with pytest.raises(FileExistsError, match="already exists"), materialize(tmp_path):
        pass


def test_writers_close_even_when_a_later_file_fails(tmp_path: Path) -> None:
    """A failure after a writer was left open still closes it (its -wal file goes away)."""
    write(
        tmp_path / "a", 'journal_mode = "wal"\n' + ITEM_TABLE + '[[tables.wal_rows]]\nkey = "k"\n'
    )
    write(tmp_path / "b", "tables = 3\n")
    with pytest.raises(FixtureFormatError), materialize(tmp_path):
        pass
    assert not (tmp_path / "a" / "state.vscdb-wal").exists()


@pytest.mark.parametrize(
    "default", ["CURRENT_TIMESTAMP", "(datetime('now'))", "(strftime('%s','now'))"]
)
def test_a_row_left_to_a_default_read_off_the_clock_is_refused(
    tmp_path: Path, default: str
) -> None:
    """Such a row would make every build a different database: the demo and goldens would drift."""
    table = f'[[tables]]\nname = "t"\nsql = "CREATE TABLE t (k TEXT, at TEXT DEFAULT {default})"\n'
    write(tmp_path, table + '[[tables.rows]]\nk = "a"\nat = "2026-01-01"\n')
    with materialize(tmp_path) as [db]:
        assert db.is_file()  # given, the value is used: accepted
    (tmp_path / "state.vscdb").unlink()
    write(tmp_path, table + '[[tables.rows]]\nk = "a"\n')
    refused = pytest.raises(FixtureFormatError, match="leaves at to a default read off the clock")
    with refused, materialize(tmp_path):
        pass
