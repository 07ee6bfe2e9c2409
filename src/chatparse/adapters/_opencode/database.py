"""OpenCode's SQLite store (v1.2+, ``opencode.db``; Kilo's ``kilo.db``), read through a snapshot.

Tables read, and only these (the database also holds ``account``, ``credential`` and
``control_account`` rows with access tokens, which are never queried):

``session``
    One row per session: ``id, parent_id, title, directory, version, time_created,
    time_updated, revert`` (JSON), ``workspace_id`` and ``slug``; the rest (rolled-up tokens
    and cost, permissions, the model, Kilo's ``summary_diffs``, ``current_state`` and
    ``recent_progress``) is not needed.
``message`` / ``part``
    ``id``, ``session_id`` (and a part's ``message_id``), ``time_created``, ``time_updated``
    and ``data``: the same JSON the JSON tree held in a file, without the ids that moved into
    columns. Rows of one session are found through the ``session_id`` indexes.
``session_message`` (OpenCode) / ``session_entry`` (Kilo)
    Rows of the newer message projection (empty in the versions seen); any a session has are
    kept raw rather than dropped.
``workspace``
    The ``branch`` of a session's workspace.

Schemas grow by migration, so the columns present are read from ``sqlite_master`` and only
those asked for that exist are selected. The ``event`` table (an event-sourced log of the same
data) is not read.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Sequence
from typing import Final

from chatparse.adapter import as_nonempty_text, digest_fingerprint
from chatparse.adapters._opencode.content import may_hold_payload
from chatparse.adapters._opencode.records import SQLITE, Record, SessionHead, decoded
from chatparse.decoders.sqlite import RawRow, Row, Snapshot

__all__ = ["NEEDED_TABLES", "Database"]

NEEDED_TABLES: Final = ("session", "message", "part")
"""Without these, a database holds no conversations we can read."""

_SESSION_COLUMNS: Final = (
    "id",
    "parent_id",
    "title",
    "directory",
    "version",
    "time_created",
    "time_updated",
    "revert",
    "workspace_id",
)
_SLUG: Final = "slug"
"""Read besides, and left out of the session's stamp (a slug never changes)."""
_PROJECTIONS: Final = ("session_message", "session_entry")
"""The newer tables of a session's entries: OpenCode's, and Kilo's name for them."""
_SKIP_DEFINITIONS: Final = ("constraint", "primary", "foreign", "unique", "check")


def _columns(create: str) -> frozenset[str]:
    """The column names a ``CREATE TABLE`` statement declares."""
    body = create[create.find("(") + 1 : create.rfind(")")]
    names: set[str] = set()
    depth, start = 0, 0
    for index, char in enumerate(body + ","):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if char == "," and depth == 0:
            definition = body[start:index].strip()
            start = index + 1
            first = re.match(r"[`\"\[]?([^`\"\]\s]+)", definition)
            if first and not definition.lower().startswith(_SKIP_DEFINITIONS):
                names.add(first.group(1))
    return frozenset(names)


def _text(value: object) -> str:
    """A TEXT or BLOB id as text (invalid UTF-8 replaced), anything else as written."""
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


def _record(table: str, owner: str, ident: object, created: object, raw: object) -> Record:
    """A record from a row's id, creation time and ``data``, as SQLite returned them."""
    if not isinstance(raw, bytes):
        return Record(
            id=_text(ident), owner=owner, data=None, problem="no data", place=table, payload=False
        )
    data, problem = decoded(raw)
    return Record(
        id=_text(ident),
        owner=owner,
        data=data,
        problem=problem,
        place=table,
        created=created if isinstance(created, int) else None,
        payload=may_hold_payload(raw),
        raw=raw,
    )


class Database:
    """The sessions of one ``opencode.db``, read through an open snapshot.

    Every method reads in short transactions (see :mod:`chatparse.decoders.sqlite`); nothing
    is held between calls but the snapshot itself.
    """

    kind = SQLITE

    def __init__(self, snapshot: Snapshot) -> None:
        self.snapshot = snapshot
        self.path = os.fspath(snapshot.path)
        try:
            self._stat: os.stat_result | None = snapshot.path.stat()
        except OSError:
            self._stat = None
        rows = snapshot.iter_rows("sqlite_master", ("name", "sql"), where="type = 'table'")
        self.columns = {str(r.values[0]): _columns(str(r.values[1] or "")) for r in rows}
        present = self.columns.get("session", frozenset())
        stamped = tuple(c for c in _SESSION_COLUMNS if c in present)
        self._stamped = len(stamped)
        self._session_columns = stamped + ((_SLUG,) if _SLUG in present else ())

    def missing(self) -> list[str]:
        """The tables it needs and lacks (a database of another program, or mid-migration)."""
        return [table for table in NEEDED_TABLES if "id" not in self.columns.get(table, ())]

    def locator(self) -> dict[str, str]:
        """Nothing: a session's path is its database."""
        return {}

    def _head(self, row: Row) -> SessionHead:
        values = dict(zip(self._session_columns, row.values, strict=True))
        revert, _ = decoded(str(values["revert"])) if values.get("revert") else (None, None)
        created, updated = values.get("time_created"), values.get("time_updated")
        return SessionHead(
            id=str(values["id"]),
            parent_id=as_nonempty_text(values.get("parent_id")),
            title=as_nonempty_text(values.get("title")),
            directory=as_nonempty_text(values.get("directory")),
            version=as_nonempty_text(values.get("version")),
            created=created if isinstance(created, int) else None,
            updated=updated if isinstance(updated, int) else None,
            revert=revert,
            workspace=as_nonempty_text(values.get("workspace_id")),
            stamp=digest_fingerprint(str(row.rowid), *map(repr, row.values[: self._stamped])),
            path=self.path,
            where=f"session {values['id']}",
            size=None if self._stat is None else self._stat.st_size,
            mtime=None if self._stat is None else self._stat.st_mtime,
            slug=as_nonempty_text(values.get(_SLUG)),
        )

    def sessions(self) -> list[SessionHead]:
        """Every session row."""
        return [
            self._head(row) for row in self.snapshot.iter_rows("session", self._session_columns)
        ]

    def session(self, session_id: str) -> SessionHead | None:
        """One session row, or ``None``."""
        row = self.snapshot.get(
            "session", session_id, columns=self._session_columns, key_column="id"
        )
        return None if row is None else self._head(row)

    def changes(self, session_id: str) -> str:
        """How many message rows the session has, their latest update and their rowids' sum.

        OpenCode rewrites a message's row at the end of every step (its tokens, its finish), so
        this changes whenever a step's parts are final; a part rewritten alone is not seen.
        """
        rows = self.snapshot.iter_rows(
            "message", ("time_updated",), where="session_id = ?", params=(session_id,)
        )
        count = latest = total = 0
        for row in rows:
            count += 1
            total += row.rowid
            stamp = row.values[0]
            if isinstance(stamp, int) and stamp > latest:
                latest = stamp
        return f"{count}:{latest}:{total}"

    def _rows(self, table: str, columns: Sequence[str], session_id: str) -> Iterator[RawRow]:
        """The session's rows of ``table``: ``(rowid, *columns)``, TEXT as ``bytes``."""
        return self.snapshot.iter_rows_raw(
            table, columns, where="session_id = ?", params=(session_id,)
        )

    def messages(self, session_id: str) -> list[Record]:
        """The session's message rows."""
        rows = self._rows("message", ("id", "time_created", "data"), session_id)
        return [_record("message", session_id, *row[1:]) for row in rows]

    def parts(self, session_id: str, _messages: Sequence[Record]) -> list[Record]:
        """The session's part rows."""
        rows = self._rows("part", ("id", "message_id", "data"), session_id)
        return [_record("part", _text(owner), ident, None, raw) for _, ident, owner, raw in rows]

    def extras(self, session_id: str) -> list[Record]:
        """The session's rows of the projection tables that exist (kept raw)."""
        records = []
        for table in _PROJECTIONS:
            if not {"id", "type", "data", "session_id"} <= self.columns.get(table, set()):
                continue
            for _, ident, kind, raw in self._rows(table, ("id", "type", "data"), session_id):
                record = _record(table, session_id, ident, None, raw)
                record.kind = None if kind is None else _text(kind)
                records.append(record)
        return records

    def branch(self, head: SessionHead) -> str | None:
        """The ``branch`` of the session's workspace, when it has one."""
        if head.workspace is None or "branch" not in self.columns.get("workspace", ()):
            return None
        row = self.snapshot.get("workspace", head.workspace, columns=("branch",), key_column="id")
        return None if row is None else as_nonempty_text(row.values[0])
