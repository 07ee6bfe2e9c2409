"""The SQLite text form: reviewable TOML that becomes a real database at test time.

A file ``<db name>.sqlite.toml`` sits in a case's ``home/`` exactly where the database belongs;
:func:`materialize` turns every such file under a directory into the database it describes and
removes the text file, so the adapter sees the tree as the tool left it. The format is documented
in ``docs/conformance.md``::

    format = 1
    journal_mode = "wal"          # "delete" (the default, a rollback journal) or "wal"
    user_version = 0              # optional PRAGMA user_version

    [[tables]]
    name = "ItemTable"
    sql = "CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)"

    [[tables.rows]]               # committed and checkpointed into the database file
    key = "plain text"
    value = { blob = '{"utf-8 text": "stored as a BLOB"}' }

    [[tables.wal_rows]]           # committed by a writer that is still open: only in -wal
    key = "newer"
    value = { hex = "00ff" }

A value is a TOML string (TEXT), integer (INTEGER), float (REAL) or a one-key inline table:
``{ blob = "text" }`` (its UTF-8 bytes as a BLOB), ``{ hex = "..." }`` or ``{ base64 = "..." }``
(a BLOB), ``{ text_hex = "..." }`` (these bytes stored as TEXT, unchecked, for broken encodings)
and ``{ null = true }``.

``wal_rows`` (and ``wal_sql``, statements run in the same transaction) need
``journal_mode = "wal"``: they are committed with automatic checkpoints off by a connection that
:func:`materialize` keeps open until the returned handle is closed, so their frames are in the
``-wal`` file beside the database and not in the database file, just as when an editor that is
still running has written them.
"""

from __future__ import annotations

import base64
import binascii
import re
import sqlite3
import tomllib
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Final

from attrs import frozen

__all__ = ["SQLITE_TEXT_SUFFIX", "FixtureFormatError", "materialize", "materialize_sqlite"]

SQLITE_TEXT_SUFFIX: Final = ".sqlite.toml"

_FORMAT: Final = 1
_TOP_KEYS: Final = frozenset({"format", "journal_mode", "user_version", "tables", "wal_sql"})
_TABLE_KEYS: Final = frozenset({"name", "sql", "rows", "wal_rows"})
_JOURNAL_MODES: Final = ("delete", "wal")
_BLOB_KINDS: Final = ("blob", "hex", "base64", "text_hex", "null")


class FixtureFormatError(ValueError):
    """A fixture file does not follow the documented format; the message names file and place.

    .. versionadded:: 0.1
    """


@frozen
class _Value:
    value: object
    placeholder: str = "?"


@frozen
class _Row:
    table: str
    values: tuple[tuple[str, _Value], ...]


@frozen
class _Spec:
    journal_mode: str
    user_version: int | None
    schema: tuple[str, ...]
    rows: tuple[_Row, ...]
    wal_rows: tuple[_Row, ...]
    wal_sql: tuple[str, ...]


def _fail(where: str, message: str) -> FixtureFormatError:
    return FixtureFormatError(f"{where}: {message}")


def _value(raw: object, where: str) -> _Value:
    if isinstance(raw, bool):
        raise _fail(where, "booleans are not SQLite values; write 0 or 1")
    if isinstance(raw, int | float | str):
        return _Value(raw)
    if isinstance(raw, dict) and len(raw) == 1:
        ((kind, payload),) = raw.items()
        if kind == "null" and payload is True:
            return _Value(None)
        if kind in _BLOB_KINDS and isinstance(payload, str):
            return _blob(kind, payload, where)
    raise _fail(
        where,
        "a value is a string, integer, float, or one of { blob = '...' }, { hex = '...' }, "
        "{ base64 = '...' }, { text_hex = '...' }, { null = true }",
    )


def _blob(kind: str, payload: str, where: str) -> _Value:
    try:
        if kind == "blob":
            return _Value(payload.encode("utf-8"))
        if kind == "base64":
            return _Value(base64.b64decode("".join(payload.split()), validate=True))
        data = bytes.fromhex(payload)
    except (ValueError, binascii.Error, UnicodeEncodeError) as exc:
        raise _fail(where, f"bad {kind} value: {exc}") from exc
    return _Value(data, "CAST(? AS TEXT)") if kind == "text_hex" else _Value(data)


def _check_keys(data: Mapping[str, Any], allowed: frozenset[str], where: str) -> None:
    unknown = sorted(set(data) - allowed)
    if unknown:
        raise _fail(
            where, f"unknown key(s) {', '.join(unknown)}; allowed: {', '.join(sorted(allowed))}"
        )


def _rows(table: str, raw: object, where: str) -> tuple[_Row, ...]:
    if not isinstance(raw, list) or not all(isinstance(row, dict) for row in raw):
        raise _fail(where, "must be an array of tables ([[tables.rows]])")
    rows = []
    for index, row in enumerate(raw):
        if not row:
            raise _fail(f"{where}[{index}]", "a row needs at least one column")
        values = tuple(
            (column, _value(value, f"{where}[{index}].{column}")) for column, value in row.items()
        )
        rows.append(_Row(table, values))
    return tuple(rows)


def _header(data: Mapping[str, Any], where: str) -> tuple[str, int | None]:
    _check_keys(data, _TOP_KEYS, where)
    if data.get("format", _FORMAT) != _FORMAT:
        raise _fail(where, f"format {data['format']!r} is not supported (this kit reads {_FORMAT})")
    mode = data.get("journal_mode", "delete")
    if mode not in _JOURNAL_MODES:
        raise _fail(where, f"journal_mode must be one of {', '.join(_JOURNAL_MODES)}, got {mode!r}")
    user_version = data.get("user_version")
    if user_version is not None and (type(user_version) is not int or user_version < 0):
        raise _fail(where, "user_version must be a non-negative integer")
    return mode, user_version


def _parse(text: str, where: str) -> _Spec:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise _fail(where, f"not TOML: {exc}") from exc
    mode, user_version = _header(data, where)
    tables = data.get("tables", [])
    if not isinstance(tables, list) or not tables:
        raise _fail(where, "at least one [[tables]] entry is needed")
    schema: list[str] = []
    rows: list[_Row] = []
    wal_rows: list[_Row] = []
    for index, table in enumerate(tables):
        at = f"{where}: tables[{index}]"
        if not isinstance(table, dict):
            raise _fail(at, "must be a table")
        _check_keys(table, _TABLE_KEYS, at)
        name, sql = table.get("name"), table.get("sql")
        if not isinstance(name, str) or not name or not isinstance(sql, str) or not sql.strip():
            raise _fail(at, "needs a 'name' and the 'sql' that creates it")
        schema.append(sql)
        rows.extend(_rows(name, table.get("rows", []), f"{at}.rows"))
        wal_rows.extend(_rows(name, table.get("wal_rows", []), f"{at}.wal_rows"))
    wal_sql = data.get("wal_sql", [])
    if not isinstance(wal_sql, list) or not all(isinstance(sql, str) for sql in wal_sql):
        raise _fail(where, "wal_sql must be an array of SQL strings")
    if (wal_rows or wal_sql) and mode != "wal":
        raise _fail(where, 'wal_rows and wal_sql need journal_mode = "wal"')
    return _Spec(mode, user_version, tuple(schema), tuple(rows), tuple(wal_rows), tuple(wal_sql))


def _quote(identifier: str) -> str:
    return '"' + identifier.replace('"', '""') + '"'


_CLOCK: Final = re.compile(r"CURRENT_(?:TIMESTAMP|DATE|TIME)|'now'|random\(", re.IGNORECASE)
"""A column default that is read off the clock (or dice) when a row is inserted."""


def _clock_columns(connection: sqlite3.Connection) -> dict[str, set[str]]:
    """Per table, the columns whose default depends on when the fixture is built."""
    found: dict[str, set[str]] = {}
    tables = connection.execute("SELECT name FROM sqlite_schema WHERE type = 'table'").fetchall()
    for (table,) in tables:
        for _cid, column, _type, _notnull, default, _pk in connection.execute(
            f"PRAGMA table_info({_quote(table)})"
        ):
            if default is not None and _CLOCK.search(str(default)):
                found.setdefault(table, set()).add(column)
    return found


def _check_no_clock(spec: _Spec, clock: dict[str, set[str]], db_path: Path) -> None:
    # A row left to such a default would differ at each build: goldens and the demo would drift.
    for row in (*spec.rows, *spec.wal_rows):
        left = sorted(clock.get(row.table, set()) - {column for column, _ in row.values})
        if left:
            msg = (
                f"{db_path}: a row of table {row.table} leaves {', '.join(left)} to a default "
                "read off the clock; give the value, so that every build writes the same database"
            )
            raise FixtureFormatError(msg)


def _insert(connection: sqlite3.Connection, row: _Row) -> None:
    columns = ", ".join(_quote(column) for column, _ in row.values)
    placeholders = ", ".join(value.placeholder for _, value in row.values)
    sql = f"INSERT INTO {_quote(row.table)} ({columns}) VALUES ({placeholders})"  # noqa: S608 -- identifiers are quoted, values are bound
    connection.execute(sql, [value.value for _, value in row.values])


def _build(spec: _Spec, db_path: Path) -> sqlite3.Connection | None:
    connection = sqlite3.connect(db_path, isolation_level=None)
    keep_open = False
    try:
        mode = connection.execute(f"PRAGMA journal_mode={spec.journal_mode}").fetchone()[0]
        if mode != spec.journal_mode:  # pragma: no cover -- only on a filesystem without WAL
            raise FixtureFormatError(f"{db_path}: SQLite refused journal_mode={spec.journal_mode}")
        for sql in spec.schema:
            connection.executescript(sql)
        _check_no_clock(spec, _clock_columns(connection), db_path)
        connection.execute("BEGIN")
        for row in spec.rows:
            _insert(connection, row)
        if spec.user_version is not None:
            connection.execute(f"PRAGMA user_version={spec.user_version}")
        connection.execute("COMMIT")
        if spec.wal_rows or spec.wal_sql:
            # Move everything so far into the database file, then commit the rest with
            # automatic checkpoints off, and keep this writer open: closing it would
            # checkpoint the frames and delete the -wal file.
            connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            connection.execute("PRAGMA wal_autocheckpoint=0")
            connection.execute("BEGIN")
            for row in spec.wal_rows:
                _insert(connection, row)
            for sql in spec.wal_sql:
                connection.execute(sql)
            connection.execute("COMMIT")
            keep_open = True
            return connection
    except sqlite3.Error as exc:
        raise FixtureFormatError(f"{db_path}: SQLite rejected the fixture: {exc}") from exc
    finally:
        if not keep_open:
            connection.close()
    return None


def materialize_sqlite(text_path: Path, db_path: Path) -> sqlite3.Connection | None:
    """Build the database ``text_path`` describes at ``db_path``.

    Returns:
        The writer connection, still open, when the text has ``wal_rows`` or ``wal_sql``: their
        frames stay in ``<db>-wal`` until the caller closes it. ``None`` otherwise.

    Raises:
        FixtureFormatError: the text is not in the documented form, or SQLite rejects it.
        FileExistsError: something is already at ``db_path``.

    .. versionadded:: 0.1
    """
    spec = _parse(text_path.read_text(encoding="utf-8"), str(text_path))
    for suffix in ("", "-wal", "-shm", "-journal"):
        existing = Path(f"{db_path}{suffix}")
        if existing.exists():
            raise FileExistsError(f"{existing} already exists; {text_path.name} would replace it")
    return _build(spec, db_path)


@contextmanager
def materialize(directory: Path) -> Iterator[tuple[Path, ...]]:
    """Materialize every ``*.sqlite.toml`` under ``directory`` in place, for a ``with`` block.

    Each text file is replaced by the database it describes. Writers holding uncheckpointed
    frames stay open until the block ends; then they are closed (which checkpoints and removes
    their ``-wal`` files). Only ever use this on a copy: it changes ``directory``.

    Yields:
        The databases created, sorted.

    .. versionadded:: 0.1
    """
    writers: list[sqlite3.Connection] = []
    created: list[Path] = []
    try:
        for text_path in sorted(directory.rglob(f"*{SQLITE_TEXT_SUFFIX}")):
            if not text_path.is_file():
                continue
            db_path = text_path.with_name(text_path.name.removesuffix(SQLITE_TEXT_SUFFIX))
            writer = materialize_sqlite(text_path, db_path)
            text_path.unlink()
            created.append(db_path)
            if writer is not None:
                writers.append(writer)
        yield tuple(created)
    finally:
        for writer in writers:
            writer.close()
