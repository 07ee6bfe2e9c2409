"""The CLI's ``data.sqlite3``, read through a read-only snapshot: its conversation rows.

Two tables hold conversations, each row one ``ConversationState`` JSON document: the original
``conversations (key = working directory, value)``, one conversation per directory, and
``conversations_v2 (key, conversation_id, value, created_at, updated_at)`` (milliseconds), several
per directory. The migration that made ``conversations_v2`` copied every ``conversations`` row
into it, with the migration's time as both times. The other tables (settings, auth, history
of shell commands) are not read.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

from attrs import frozen

from chatparse.adapter import as_nonempty_text, digest_fingerprint
from chatparse.decoders.sqlite import Snapshot
from chatparse.decoders.value import Invalid, decode

__all__ = ["TABLES", "Row", "database_name", "find_row", "rows"]

V2: Final = "conversations_v2"
V1: Final = "conversations"
TABLES: Final = (V2, V1)
"""The tables read, the newer first: of one conversation in both, its ``conversations_v2`` row
wins."""
_COLUMNS: Final = {
    V2: ("key", "conversation_id", "value", "created_at", "updated_at"),
    V1: ("key", "value"),
}


@frozen
class Row:
    """One conversation row."""

    table: str
    key: str
    ident: str
    raw: str
    """The ``value`` column: the document as text, decoded when the row is parsed."""
    created_at: object = None
    updated_at: object = None
    stamp: str = ""
    """A change key: the row's values, digested."""

    def document(self) -> dict[str, Any] | str:
        """The decoded ``ConversationState``, or why it cannot be read."""
        value = decode(self.raw)
        if isinstance(value, Invalid):
            return value.reason
        return value if isinstance(value, dict) else "not a JSON object"


def _row(table: str, values: tuple[Any, ...]) -> Row | None:
    fields = dict(zip(_COLUMNS[table], values, strict=True))
    key = as_nonempty_text(fields.get("key"))
    raw = fields.get("value")
    if key is None or not isinstance(raw, str):
        return None
    ident = as_nonempty_text(fields.get("conversation_id"))
    if ident is None:  # the old table: the id is inside the document
        value = decode(raw)
        ident = as_nonempty_text(value.get("conversation_id")) if isinstance(value, dict) else None
    return Row(
        table=table,
        key=key,
        ident=ident or key,
        raw=raw,
        created_at=fields.get("created_at"),
        updated_at=fields.get("updated_at"),
        stamp=digest_fingerprint(table, *(repr(v) for v in values)),
    )


def rows(snapshot: Snapshot) -> Iterator[Row]:
    """Every conversation row of both tables, ``conversations_v2`` first, in ``rowid`` order."""
    present = snapshot.tables()
    for table in TABLES:
        if table not in present:
            continue
        for found in snapshot.iter_rows(table, _COLUMNS[table]):
            row = _row(table, found.values)
            if row is not None:
                yield row


def find_row(snapshot: Snapshot, table: str, key: str, ident: str) -> Row | None:
    """The row of conversation ``ident`` under ``key`` in ``table``, or ``None``."""
    if table not in _COLUMNS or table not in snapshot.tables():
        return None
    for found in snapshot.iter_rows(table, _COLUMNS[table], where="key = ?", params=(key,)):
        row = _row(table, found.values)
        if row is not None and row.ident == ident:
            return row
    return None


def database_name(path: Path) -> str:
    """``kiro-cli`` or ``amazon-q``: the folder that says which CLI wrote the database."""
    return path.parent.name
