"""SQLite session stores opened, listed and described the same way (``goose`` and ``crush``).

Both tools keep every session of a store in one database, read through a read-only snapshot:
a scan opens it once and lists its sessions, ``parsing()`` keeps each database open for the
whole block, ``explain`` says how many sessions it holds or why it cannot be read.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Generic, Protocol, Self, TypeVar

from chatparse.adapter import digest_fingerprint, is_file, passed_over
from chatparse.adapters.goose.schema import Tables, row_dicts
from chatparse.decoders.sqlite import Snapshot, open_snapshot
from chatparse.errors import SourceUnavailableError, UnavailableCause

__all__ = [
    "OpenStores",
    "SessionStore",
    "SessionTables",
    "describe",
    "file_facts",
    "read_store",
    "rows_stamp",
    "session_gone",
]

_T = TypeVar("_T")


class SessionStore(Protocol):
    """A database read as a store of sessions."""

    @property
    def readable(self) -> bool:
        """Whether it has the tables sessions are read from."""
        ...

    def sessions(self) -> list[dict[str, Any]]:
        """Every session row."""
        ...


_S = TypeVar("_S", bound=SessionStore)


class SessionTables:
    """A ``sessions`` table and a ``messages`` table keyed by ``session_id``, columns by name.

    Subclasses name the columns they want (``SESSION_COLUMNS``, ``MESSAGE_COLUMNS``) and the one
    message column without which a row says nothing (``CONTENT``).
    """

    SESSION_COLUMNS: tuple[str, ...] = ("id",)
    MESSAGE_COLUMNS: tuple[str, ...] = ("role",)
    CONTENT: str = "content"

    def __init__(self, snapshot: Snapshot) -> None:
        self.snapshot = snapshot
        self.tables = Tables(snapshot)
        self.readable = self.tables.has("sessions", "id") and self.tables.has(
            "messages", "session_id", "role", self.CONTENT
        )
        self.session_columns = self.tables.present("sessions", self.SESSION_COLUMNS)
        self.message_columns = self.tables.present("messages", self.MESSAGE_COLUMNS)

    def sessions(self) -> list[dict[str, Any]]:
        """Every session row, in ``rowid`` order."""
        if not self.readable:
            return []
        return list(row_dicts(self.snapshot, "sessions", self.session_columns))

    def message_rows(self, session: str) -> list[dict[str, Any]]:
        """The message rows of ``session``, in ``rowid`` order."""
        return list(
            row_dicts(
                self.snapshot,
                "messages",
                self.message_columns,
                where="session_id = ?",
                params=(session,),
            )
        )


def read_store(
    db: Path, make: Callable[[Snapshot], _S], read: Callable[[_S], _T], not_ours: str
) -> _T | None:
    """``read`` of the store in ``db``; ``None`` and a warning when it cannot be read."""
    try:
        with open_snapshot(db) as snapshot:
            store = make(snapshot)
            if not store.readable:
                passed_over(db, not_ours)
                return None
            return read(store)
    except SourceUnavailableError as exc:
        passed_over(db, str(exc))
        return None


def describe(db: Path, make: Callable[[Snapshot], SessionStore], not_ours: str) -> str:
    """How many sessions the store in ``db`` holds, or why it cannot be read: for ``explain``."""
    if not is_file(db):
        return "missing"
    try:
        with open_snapshot(db) as snapshot:
            store = make(snapshot)
            return f"{len(store.sessions())} session(s)" if store.readable else not_ours
    except SourceUnavailableError as exc:
        return f"cannot be read: {exc}"


class OpenStores(Generic[_T]):
    """Each database opened at its first use and kept open until :meth:`close`."""

    def __init__(self, make: Callable[[Snapshot], _T]) -> None:
        self._make = make
        self._open: dict[str, tuple[Snapshot, _T]] = {}

    def __getitem__(self, path: str) -> _T:
        if path not in self._open:
            snapshot = open_snapshot(path)
            try:
                self._open[path] = (snapshot, self._make(snapshot))
            except BaseException:
                snapshot.close()
                raise
        return self._open[path][1]

    def __enter__(self) -> Self:
        """Return the stores themselves."""
        return self

    def __exit__(self, *exc: object) -> None:
        """Close every database opened."""
        self.close()

    def close(self) -> None:
        """Close every database opened."""
        for snapshot, _ in self._open.values():
            snapshot.close()
        self._open.clear()


def session_gone(path: str, session: str) -> SourceUnavailableError:
    """The error for a session listed by a scan and deleted from its database since."""
    return SourceUnavailableError(
        path,
        f"session {session} is no longer in the database",
        "Scan again: the session was deleted.",
        UnavailableCause.MISSING,
    )


def file_facts(path: Path) -> tuple[int | None, datetime | None]:
    """A store's size and modification time, for its metas; ``None`` when it cannot be read."""
    try:
        info = path.stat()
    except OSError:
        return None, None
    return info.st_size, datetime.fromtimestamp(info.st_mtime, UTC)


def rows_stamp(snapshot: Snapshot, table: str, column: str, session: str) -> str:
    """A change key of a session's rows of ``table``: their rowids and ``column``'s values."""
    rows = snapshot.iter_rows(table, (column,), where="session_id = ?", params=(session,))
    return digest_fingerprint(*(f"{row.rowid}:{row.values[0]}" for row in rows))
