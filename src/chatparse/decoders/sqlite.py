"""Read-only, consistent snapshots of SQLite databases that an editor may be writing right now.

VS Code, Cursor and Trae keep chat history in ``state.vscdb`` files that stay open while the editor
runs. Reading them must not disturb the editor or the user's data, so a :class:`Snapshot`:

- never writes to the database, never creates a ``-journal``, ``-wal`` or ``-shm`` file beside
  it, and never copies it to disk (Cursor's database also holds the user's auth tokens);
- sees every committed row, including rows still only in the ``-wal`` file of a WAL database;
- reads in short transactions: each batch of rows is one ``SELECT``, which SQLite runs inside a
  read transaction of its own that ends before the batch is yielded, so the editor can commit
  while an adapter works through the rows. Each batch is a consistent view; two batches may see
  different commits. A query whose rows fit in one batch costs one transaction;
- waits at most about two seconds for a lock (``busy_timeout``), then raises
  :class:`~chatparse.errors.SourceUnavailableError` saying the file is locked. It waits once:
  a snapshot that gave up on a lock raises at once on every later read, so a job that reads a
  locked store through one snapshot (a scan, a ``parsing()`` block) waits once, not once per
  read. Open a new snapshot to try again.

How a database is opened depends on what is beside it:

- a rollback-journal database (VS Code's default): ``mode=ro``. A writer that holds RESERVED
  does not stop us from reading the last committed state; one that is committing (PENDING or
  EXCLUSIVE) makes us wait.
- a WAL database whose ``-wal`` and ``-shm`` exist: ``mode=ro``, which uses them as they are.
- a WAL database with neither file: ``mode=ro`` would create both, so we open it
  ``immutable=1``, which cannot miss anything because every commit is in the main file. As a
  writer could appear, each batch is checked afterwards: if a ``-wal`` file appeared or the main
  file changed, the batch is read again, the normal way.
- a WAL database with a ``-wal`` but no ``-shm`` file (left by a crash, or a copy): reading the
  ``-wal`` would create the ``-shm``, and ignoring it would miss commits, so this is reported as
  unavailable until the owning program has opened the database again.

TEXT and BLOB values are decoded alike, as UTF-8 with invalid bytes replaced by U+FFFD: the
editors store JSON in either, depending on the version. :meth:`Snapshot.iter_prefix_raw` hands
them over undecoded instead, to a caller that passes them straight to a decoder taking bytes.
Databases are taken to be in UTF-8, as the editors' are: keys are looked up as UTF-8 text, and
a blob read gives TEXT as stored.
"""

from __future__ import annotations

import operator
import os
import sqlite3
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import closing
from pathlib import Path
from types import TracebackType
from typing import Any, Final, Self, TypeAlias, TypeVar

from attrs import frozen

from chatparse.errors import SourceUnavailableError, UnavailableCause

__all__ = [
    "BUSY_TIMEOUT",
    "KeyRun",
    "RawRow",
    "Row",
    "Snapshot",
    "Value",
    "backend_name",
    "open_snapshot",
    "prefix_range",
]

BUSY_TIMEOUT = 2.0
"""The longest, in seconds, that one read waits for another program's lock."""

Value = str | int | float | None
"""A decoded column value: TEXT and BLOB both become ``str``."""

RawRow: TypeAlias = tuple[Any, ...]
"""A row as SQLite returns it: the ``rowid``, then the columns asked for, TEXT and BLOB as
``bytes`` (undecoded), INTEGER as ``int``, REAL as ``float``, NULL as ``None``."""

_HEADER = b"SQLite format 3\x00"
_WAL_FORMAT = 2

# A batch ends at whichever limit comes first. Together they bound how long a read transaction
# lasts (so how long a writer committing to a rollback-journal database can be made to wait) and
# how much memory a batch holds, whatever the size of the table.
_BATCH_ROWS = 1000
_BATCH_BYTES = 8 * 1024 * 1024
"""Counted over the last column asked for, which is the value wherever values are read."""
_BATCH_SECONDS = 0.005
# The limits are checked after every chunk of this many rows, not after every row: a size sum and
# a clock read per row cost more than SQLite's own work on small rows. A batch may so overrun its
# byte limit by at most a chunk's rows.
_CHUNK_ROWS = 32

_BUSY_CODES = frozenset({sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED})

_T = TypeVar("_T")

_Params: TypeAlias = Sequence[object] | Mapping[str, object]
"""Values for a statement's ``?`` (a sequence) or ``:name`` (a mapping) parameters."""

_LAST = operator.itemgetter(-1)
_ALL_BUT_LAST = operator.itemgetter(slice(None, -1))


@frozen
class Row:
    """One row read from a table.

    Attributes:
        table: The table it was read from.
        rowid: Its ``rowid``, to name it in diagnostics.
        values: The columns asked for, in that order.
    """

    table: str
    rowid: int
    values: tuple[Value, ...]


@frozen
class KeyRun:
    """The rows whose keys start with ``prefix + name + separator``, counted but not read.

    Made to tell cheaply whether a group of rows changed: SQLite gives a row that is inserted,
    or replaced (``INSERT OR REPLACE``, or a key declared ``UNIQUE ON CONFLICT REPLACE``), a
    ``rowid`` above every other in the table, so adding, removing or replacing a row of the run
    changes ``rows``, ``max_rowid`` or ``rowid_sum``. An ``UPDATE`` in place changes none of
    them, and neither does deleting the table's last row and inserting another into the run,
    which may reuse its ``rowid``.

    Attributes:
        name: What the keys hold between the prefix and the first separator after it.
        rows: How many rows the run has (at least one).
        max_rowid: The largest ``rowid`` among them.
        rowid_sum: The sum of their ``rowid`` values.
    """

    name: str
    rows: int
    max_rowid: int
    rowid_sum: int


def backend_name() -> str:
    """Return the SQLite library in use, such as ``"sqlite 3.40.1"``."""
    return f"sqlite {sqlite3.sqlite_version}"


def prefix_range(prefix: str | bytes) -> tuple[bytes, bytes | None]:
    """Return the byte range ``[low, high)`` that holds exactly the keys starting with ``prefix``.

    SQLite compares TEXT with ``memcmp`` on the UTF-8 bytes, so the bound is computed on bytes:
    the prefix with its last byte below 0xFF incremented and everything after that byte dropped.
    This is right for a prefix ending in U+10FFFF (``F4 8F BF BF`` becomes ``F4 8F BF C0``) and for
    keys that are not valid UTF-8. ``high`` is ``None`` when no bound exists (an empty prefix, or
    one made only of 0xFF bytes). ``LIKE`` is never used: ``_`` and ``%`` in ids are wildcards.
    """
    low = prefix.encode() if isinstance(prefix, str) else bytes(prefix)
    stem = low.rstrip(b"\xff")
    if not stem:
        return low, None
    return low, stem[:-1] + bytes([stem[-1] + 1])


def open_snapshot(path: str | os.PathLike[str], *, busy_timeout: float = BUSY_TIMEOUT) -> Snapshot:
    """Open the database at ``path`` for consistent read-only access; use it in a ``with`` block.

    Open it once per scan and read every conversation through it: opening checks the file and
    its neighbours, which is cheap but not free.

    Raises:
        chatparse.errors.SourceUnavailableError: The file is missing, unreadable, not a SQLite
            database, or a WAL database whose ``-wal`` file has no ``-shm`` file beside it.
    """
    return Snapshot(Path(path), busy_timeout)


class Snapshot:
    """A read-only view of one database, read in short transactions. See :func:`open_snapshot`."""

    def __init__(self, path: Path, busy_timeout: float) -> None:
        """Check ``path`` and connect; use :func:`open_snapshot` rather than this."""
        self.path = path
        self._name = os.fsdecode(path)
        self._busy_timeout = busy_timeout
        self._wal = _read_header(path, self._name)[19] == _WAL_FORMAT
        self._immutable = False
        self._stamp: tuple[int, int, int] | None = None
        self._gave_up = False  # on a lock, once: every later read says so at once
        self._connection = self._connect()

    def __enter__(self) -> Self:
        """Return the snapshot itself."""
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        """Close the connection."""
        self.close()

    def close(self) -> None:
        """Close the connection; the snapshot cannot be used afterwards."""
        self._connection.close()

    def tables(self) -> frozenset[str]:
        """Return the names of the tables, to tell which version of a format this database has."""
        # Read in batches like any table: one _batch stops at the batch limits, and under load
        # the 5 ms limit cut the list after its first name, so a table that was there looked
        # missing (Cursor then raised "no cursorDiskKV table" for a sound database).
        rows = self.iter_rows("sqlite_master", ("name",), where="type = 'table'")
        return frozenset(str(row.values[0]) for row in rows)

    def get(
        self,
        table: str,
        key: str | bytes,
        *,
        columns: Sequence[str] = ("value",),
        key_column: str = "key",
    ) -> Row | None:
        """Return the row whose ``key_column`` equals ``key``, or ``None``."""
        sql = (
            f"SELECT rowid, {_columns(columns)} FROM {_quote(table)} "  # noqa: S608 -- identifiers quoted
            f"WHERE {_quote(key_column)} = CAST(? AS TEXT) LIMIT 1"
        )
        rows, _ = self._batch(table, sql, (_utf8(key),))
        return _row(table, rows[0]) if rows else None

    def get_raw(
        self, table: str, key: str | bytes, *, column: str = "value", key_column: str = "key"
    ) -> RawRow | None:
        """The ``rowid`` and ``column`` of the row whose ``key_column`` is ``key``, or ``None``.

        For one large value handed to a decoder that takes UTF-8 bytes, as for
        :meth:`iter_prefix_raw`: the value comes as SQLite holds it (:data:`RawRow`), and the
        caller replaces invalid UTF-8 by U+FFFD itself.

        A TEXT or BLOB value is read through SQLite's incremental blob I/O, straight into one
        ``bytes``: a ``SELECT`` first assembles the value in SQLite's memory, then copies it
        (``docs/benchmarks.md`` has the figures). For a value of a few KB, :meth:`get` is
        cheaper: opening the blob handle then costs more than the copy saves.
        """
        return self._retrying(table, lambda: self._read_value(table, key, column, key_column))

    def iter_prefix(
        self,
        table: str,
        prefix: str | bytes,
        *,
        columns: Sequence[str] = ("key", "value"),
        key_column: str = "key",
    ) -> Iterator[Row]:
        """Yield the rows whose ``key_column`` starts with ``prefix``, in key order.

        The key column must be unique (``ItemTable`` and ``cursorDiskKV`` declare it so): each
        batch continues after the last key of the one before.
        """
        raw = self.iter_prefix_raw(table, prefix, columns=columns, key_column=key_column)
        return (_row(table, row) for row in raw)

    def iter_prefix_raw(
        self,
        table: str,
        prefix: str | bytes,
        *,
        columns: Sequence[str] = ("key", "value"),
        key_column: str = "key",
    ) -> Iterator[RawRow]:
        """:meth:`iter_prefix`, with each row as SQLite returns it (:data:`RawRow`).

        For a caller that hands the values to a decoder taking UTF-8 bytes
        (:func:`chatparse.decoders.value.decode`): decoding them to ``str`` here would only
        have them encoded back. Such a caller replaces invalid UTF-8 by U+FFFD itself.
        """
        low, high = prefix_range(prefix)
        key = _quote(key_column)
        # Each batch continues after the last key of the one before: read from the row when the
        # key is one of the columns, else selected once more, last, and dropped from the rows.
        extra = key_column not in columns
        selected = [*columns, key_column] if extra else list(columns)
        at = len(selected) if extra else 1 + selected.index(key_column)
        select = f"SELECT rowid, {_columns(selected)} FROM {_quote(table)}"  # noqa: S608 -- identifiers quoted
        bound = "" if high is None else f" AND {key} < CAST(? AS TEXT)"
        order = f" ORDER BY {key} LIMIT {_BATCH_ROWS}"
        upper = () if high is None else (high,)
        rows = self._rows(
            table,
            f"{select} WHERE {key} >= CAST(? AS TEXT){bound}{order}",
            (low, *upper),
            f"{select} WHERE {key} > CAST(? AS TEXT){bound}{order}",
            lambda last: (last[at], *upper),
        )
        return map(_ALL_BUT_LAST, rows) if extra else rows

    def key_runs(self, table: str, prefix: str, *, separator: str = ":") -> Iterator[KeyRun]:
        """Yield a :class:`KeyRun` per name ``N`` such that keys ``prefix + N + separator…`` exist.

        In key order. The keys are walked by SQLite alone, from one run to the next through the
        key index, and never reach Python: for 100,000 keys in 1,000 runs this takes a quarter
        of the time of reading the keys. A key with no ``separator`` after ``prefix`` is in no
        run, nor is a BLOB key. Names are decoded as UTF-8 with invalid bytes replaced, so two
        runs may come out under one name. The key column is ``key``, and must be indexed
        (unique, as in ``cursorDiskKV``): without an index every step would scan the table.

        The batch limits are checked after every key the walk steps to (the first of a run, or
        one in no run), so a statement lasts about as long as the walk of its last run. Two
        batches may see different commits.

        Raises:
            ValueError: ``separator`` is empty.
        """
        if not separator:
            msg = "separator must not be empty"
            raise ValueError(msg)
        return self._key_runs(table, prefix, separator)

    def _key_runs(self, table: str, prefix: str, separator: str) -> Iterator[KeyRun]:
        low, high = prefix_range(prefix)
        mark, stop = prefix_range(separator)
        assert stop is not None  # noqa: S101 -- UTF-8 text holds no 0xFF byte
        # An unbounded prefix ends below the smallest BLOB: every TEXT key sorts before any BLOB.
        params = {"prefix": low, "mark": mark, "stop": stop, "end": b"" if high is None else high}
        sql = _key_runs_sql(table, text_end=high is not None)

        def resume(last: RawRow) -> dict[str, bytes]:
            _, first, name, _ = last
            # After a run, its end; after a key in no run, the smallest key above it.
            return {**params, "start": first + b"\x00" if name is None else low + name + stop}

        rows = self._rows(table, sql, {**params, "start": low}, sql, resume, chunk_rows=1)
        for _, _, name, stats in rows:
            if name is not None:
                yield _key_run(name.decode("utf-8", "replace"), stats)

    def key_run(self, table: str, prefix: str, name: str, *, separator: str = ":") -> KeyRun | None:
        """The run that :meth:`key_runs` yields for ``name``, or ``None`` when it has no rows.

        ``name`` should hold no ``separator``: its run would be that of its part before the
        first one.
        """
        low, high = prefix_range(f"{prefix}{name}{separator}")
        bound = "" if high is None else " AND key < CAST(? AS TEXT)"
        sql = (
            f"SELECT {_RUN_COUNTS} "  # noqa: S608 -- the table name is quoted
            f"FROM {_quote(table)} WHERE key >= CAST(? AS TEXT){bound}"
        )
        params = (low,) if high is None else (low, high)
        (stats,), *_ = self._batch(table, sql, params)[0]
        if stats is None:
            return None
        return _key_run(name, stats)

    def iter_rows(
        self,
        table: str,
        columns: Sequence[str],
        *,
        where: str = "",
        params: Sequence[Value | bytes] = (),
    ) -> Iterator[Row]:
        """Yield the rows of ``table`` in ``rowid`` order, optionally filtered.

        Args:
            table: The table to read; it must have a ``rowid``.
            columns: The columns to return, in order.
            where: An SQL condition written by the adapter (never from user input), such as
                ``"type = ?"``.
            params: The values for the ``?`` in ``where``.
        """
        raw = self.iter_rows_raw(table, columns, where=where, params=params)
        return (_row(table, row) for row in raw)

    def iter_rows_raw(
        self,
        table: str,
        columns: Sequence[str],
        *,
        where: str = "",
        params: Sequence[Value | bytes] = (),
    ) -> Iterator[RawRow]:
        """:meth:`iter_rows`, with each row as SQLite returns it (:data:`RawRow`).

        For a caller that hands the values to a decoder taking UTF-8 bytes, as for
        :meth:`iter_prefix_raw`: decoding them to ``str`` here would only have them encoded
        back (orjson reads ``bytes`` without the copy a ``str`` holding non-ASCII costs). Such
        a caller replaces invalid UTF-8 by U+FFFD itself.
        """
        condition = f" AND ({where})" if where else ""
        select = f"SELECT rowid, {_columns(columns)} FROM {_quote(table)}"  # noqa: S608 -- identifiers quoted
        order = f"{condition} ORDER BY rowid LIMIT {_BATCH_ROWS}"
        return self._rows(
            table,
            f"{select} WHERE 1{order}",
            params,
            f"{select} WHERE rowid > ?{order}",
            lambda last: (last[0], *params),
        )

    def _rows(  # noqa: PLR0913 -- the two statements and how to go from one to the next
        self,
        table: str,
        first: str,
        params: _Params,
        following: str,
        resume: Callable[[RawRow], _Params],
        *,
        chunk_rows: int | None = None,
    ) -> Iterator[RawRow]:
        """Yield the rows of ``first``, then of ``following`` with ``resume(last row)``, and so on.

        A batch that ran to its end with fewer rows than the ``LIMIT`` is the last one: no query
        is spent to find the next one empty. ``chunk_rows`` is how many rows are fetched between
        two checks of the batch limits (:data:`_CHUNK_ROWS` when ``None``).
        """
        rows, more = self._batch(table, first, params, chunk_rows=chunk_rows)
        while True:
            yield from rows
            if not (more and rows):
                return
            rows, more = self._batch(
                table, following, resume(rows[-1]), rows[-1][0], chunk_rows=chunk_rows
            )

    def _connect(self) -> sqlite3.Connection:
        wal_file = _exists(self.path, "-wal")
        shm_file = _exists(self.path, "-shm")
        if self._wal and wal_file and not shm_file:
            raise SourceUnavailableError(
                self._name,
                "a WAL database with a -wal file but no -shm file; reading it would create one",
                "Open it once in the program that owns it, which rebuilds the -shm file.",
                UnavailableCause.UNREADABLE,
            )
        self._immutable = self._wal and not wal_file
        self._stamp = _stamp(self.path) if self._immutable else None
        query = "mode=ro&immutable=1" if self._immutable else "mode=ro"
        try:
            connection = sqlite3.connect(
                f"{self.path.absolute().as_uri()}?{query}",
                uri=True,
                timeout=self._busy_timeout,
                isolation_level=None,
                # A snapshot may be used from one thread after another (a generator's next()
                # from a thread pool), never from two at once; SQLite serializes anyway.
                check_same_thread=False,
            )
        except sqlite3.Error as exc:  # pragma: no cover -- the header was just read
            raise _unavailable(self._name, exc, "") from exc
        # TEXT arrives as bytes, so that TEXT and BLOB are decoded by the same, tolerant code.
        connection.text_factory = bytes
        return connection

    def _batch(
        self,
        table: str,
        sql: str,
        params: _Params,
        after: int | None = None,
        *,
        chunk_rows: int | None = None,
    ) -> tuple[list[RawRow], bool]:
        """Read one batch, retrying while busy; return its rows and whether more may follow.

        ``after`` is the rowid of the row read last by the batch before, for error messages.
        """
        return self._retrying(table, lambda: self._read(sql, params, after, chunk_rows))

    def _retrying(self, table: str, read: Callable[[], _T]) -> _T:
        """``read()``, again while the database is busy or an unlocked read met a writer."""
        if self._gave_up:
            raise _locked(self._name, f" (table {table}; it was locked at an earlier read)")
        deadline = time.monotonic() + self._busy_timeout
        while True:
            try:
                batch = read()
            except sqlite3.DatabaseError as exc:
                busy = getattr(exc, "sqlite_errorcode", 0) & 0xFF in _BUSY_CODES
                if not (busy or self._moved()) or time.monotonic() >= deadline:
                    self._gave_up = busy
                    raise _unavailable(self._name, exc, table) from exc
                if busy:
                    time.sleep(0.01)
                    continue
            else:
                if not self._moved():
                    return batch
            # A writer appeared while we read the file without locks: read again, with them.
            self._connection.close()
            self._connection = self._connect()

    def _read(
        self, sql: str, params: _Params, after: int | None, chunk_rows: int | None = None
    ) -> tuple[list[RawRow], bool]:
        """Run the ``SELECT`` ``sql`` up to its ``LIMIT`` or the batch limits; return raw rows.

        The statement is its own read transaction (the connection is in autocommit mode): it
        ends when the statement is reset, at its last row or when the cursor is closed, before
        the rows are returned. Rows are only collected here; decoding happens after that. The
        flag says whether more rows may follow: a limit stopped the batch, or the ``LIMIT`` did.
        """
        rows: list[RawRow] = []
        try:
            with closing(self._connection.execute(sql, params)) as cursor:
                size = 0
                started = time.monotonic()
                fetch = _CHUNK_ROWS if chunk_rows is None else chunk_rows
                while chunk := cursor.fetchmany(fetch):
                    rows += chunk
                    try:  # summed in C rather than by a Python loop per row
                        size += sum(map(len, map(_LAST, chunk)))
                    except TypeError:  # a NULL, INTEGER or REAL among them
                        size += sum([len(v) for v in map(_LAST, chunk) if type(v) is bytes])
                    if size >= _BATCH_BYTES or time.monotonic() - started >= _BATCH_SECONDS:
                        return rows, True
        except sqlite3.Error as exc:
            where = rows[-1][0] if rows else after
            if where is not None:
                exc.add_note(f"after rowid {where}")
            raise
        return rows, len(rows) >= _BATCH_ROWS

    def _read_value(
        self, table: str, key: str | bytes, column: str, key_column: str
    ) -> RawRow | None:
        """Read one value, as :meth:`get_raw` says, in one read transaction."""
        connection = self._connection
        find = (
            f"SELECT rowid, typeof({_quote(column)}) FROM {_quote(table)} "  # noqa: S608 -- identifiers quoted
            f"WHERE {_quote(key_column)} = CAST(? AS TEXT) LIMIT 1"
        )
        connection.execute("BEGIN")
        try:
            # typeof() does not load the value: a long one lies on overflow pages, unread.
            found = connection.execute(find, (_utf8(key),)).fetchone()
            if found is None:
                return None
            rowid, kind = found
            if kind in {b"text", b"blob"}:
                with connection.blobopen(table, column, rowid, readonly=True) as blob:
                    return rowid, blob.read()
            select = f"SELECT rowid, {_quote(column)} FROM {_quote(table)} WHERE rowid = ?"  # noqa: S608 -- identifiers quoted
            row: RawRow = connection.execute(select, (rowid,)).fetchone()
            return row
        finally:
            # Not after an error that SQLite answered by rolling back already.
            if connection.in_transaction:
                connection.execute("COMMIT")

    def _moved(self) -> bool:
        """Tell whether an unlocked (immutable) read may have overlapped a writer."""
        if not self._immutable:
            return False
        return _exists(self.path, "-wal") or _stamp(self.path) != self._stamp


_RUN_COUNTS: Final = (
    "count(*) || ' ' || max(rowid) || ' ' || sum(rowid >> 32) || ' ' || sum(rowid & 4294967295)"
)
"""A run's rows, largest rowid and rowid sum, as text; NULL when it has no rows. The sum is
taken in two halves: SQLite's ``sum`` raises on overflow, and one run whose rowids add up past
2**63 would fail the whole read."""


def _key_run(name: str, stats: bytes) -> KeyRun:
    count, max_rowid, high, low = map(int, stats.split())
    return KeyRun(name, count, max_rowid, (high << 32) + low)


def _key_runs_sql(table: str, *, text_end: bool) -> str:
    """The statement behind :meth:`Snapshot.key_runs`: one row per key it steps to.

    Named parameters, all UTF-8 bytes (numbered ones warn on Python 3.12.0-3.12.3): ``start``
    where to start, ``prefix``, ``mark`` the separator, ``stop`` the separator's
    :func:`prefix_range` bound, ``end`` the end of the prefix's range (a BLOB, below which every
    TEXT key lies, when ``text_end`` is false). A recursive query steps from the first key of one
    run to the first key at or after the end of that run (``prefix + name`` and ``stop``), so
    each step is one index search. Keys are cut as bytes (``CAST … AS BLOB``): as text,
    SQLite's ``length`` and ``instr`` stop at a NUL character.

    Rows are ``(rowid of the key, the key, name, counts)``; a key with no separator after the
    prefix has NULL name and counts, and is returned all the same so that the batch's time limit
    is checked after it too.
    """
    kv = _quote(table)
    end = "CAST(:end AS TEXT)" if text_end else ":end"
    at = "length(:prefix)"  # where the name starts, less one
    key = "CAST(first AS BLOB)"
    cut = f"instr(substr({key}, {at} + 1), :mark)"  # where the separator is, from there on
    run = f"CAST(substr({key}, 1, {at} + {cut} - 1) || :mark AS TEXT)"
    stop = f"CAST(substr({key}, 1, {at} + {cut} - 1) || :stop AS TEXT)"
    after = f"CASE WHEN {cut} > 0 THEN {stop} ELSE first END"
    return f"""
        WITH RECURSIVE walk(first) AS (
            SELECT (
                SELECT key FROM {kv} WHERE key >= CAST(:start AS TEXT) AND key < {end}
                ORDER BY key LIMIT 1
            )
            UNION ALL
            SELECT (
                SELECT key FROM {kv} WHERE key >= {after} AND key > first AND key < {end}
                ORDER BY key LIMIT 1
            )
            FROM walk WHERE first IS NOT NULL
        )
        SELECT
            (SELECT rowid FROM {kv} WHERE key = first),
            CAST(first AS BLOB),
            CASE WHEN {cut} > 0 THEN substr({key}, {at} + 1, {cut} - 1) END,
            CASE WHEN {cut} > 0 THEN (
                SELECT {_RUN_COUNTS} FROM {kv} WHERE key >= {run} AND key < {stop}
            ) END
        FROM walk WHERE first IS NOT NULL LIMIT {_BATCH_ROWS}
    """  # noqa: S608 -- the table name is quoted


def _read_header(path: Path, name: str) -> bytes:
    try:
        with path.open("rb") as stream:
            header = stream.read(100)
    except FileNotFoundError as exc:
        raise SourceUnavailableError(
            name, "no such file", "Check the path.", UnavailableCause.MISSING
        ) from exc
    except OSError as exc:
        raise SourceUnavailableError(
            name,
            f"cannot read: {exc.strerror or exc}",
            "Check the file's permissions.",
            UnavailableCause.UNREADABLE,
        ) from exc
    if len(header) < 100 or not header.startswith(_HEADER):
        raise SourceUnavailableError(
            name,
            "not a SQLite database",
            "Check that the path names the right file.",
            UnavailableCause.NOT_A_DATABASE,
        )
    return header


def _exists(path: Path, suffix: str) -> bool:
    return os.path.exists(f"{path}{suffix}")  # noqa: PTH110 -- one stat, no Path built


def _stamp(path: Path) -> tuple[int, int, int]:
    stat = path.stat()
    return stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns


def _row(table: str, raw: tuple[Any, ...]) -> Row:
    return Row(table, raw[0], tuple(_decode(value) for value in raw[1:]))


def _decode(value: object) -> Value:
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return value  # type: ignore[return-value]  # sqlite3 gives only int, float, None besides


def _utf8(key: str | bytes) -> bytes:
    return key.encode() if isinstance(key, str) else key


def _quote(identifier: str) -> str:
    return '"' + identifier.replace('"', '""') + '"'


def _columns(columns: Sequence[str]) -> str:
    return ", ".join(_quote(column) for column in columns)


def _locked(name: str, where: str) -> SourceUnavailableError:
    return SourceUnavailableError(
        name,
        f"the database is locked by another program{where}",
        "Retry in a moment, or close the program that is writing it.",
        UnavailableCause.LOCKED,
    )


def _unavailable(name: str, exc: sqlite3.Error, table: str) -> SourceUnavailableError:
    notes = "; ".join(getattr(exc, "__notes__", ()))
    where = f" (table {table}{', ' + notes if notes else ''})" if table else ""
    code = getattr(exc, "sqlite_errorcode", 0) & 0xFF
    if code in _BUSY_CODES:
        return _locked(name, where)
    if code in {sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB}:
        return SourceUnavailableError(
            name,
            f"the database is corrupt: {exc}{where}",
            "Let the program that owns it repair it.",
            UnavailableCause.DAMAGED,
        )
    return SourceUnavailableError(name, f"cannot read the database: {exc}{where}")
