"""A Crush or OpenCode-Go database, read through a read-only snapshot.

Tables read: ``sessions`` (one row per session: parent, title, token counts, cost, times,
``summary_message_id``) and ``messages`` (one row per message: ``role``, ``parts`` JSON,
``model``, ``provider``, times, ``is_summary_message``). ``files`` holds a copy of every file
an edit touched, per version: its rows are counted as skipped, never read. The schema grows by
pressly/goose migrations (``goose_db_version``): columns are selected only when declared.

Times are Unix **seconds** (``strftime('%s', 'now')``) although the schema's comments say
milliseconds; a value too large for seconds (after the year 5000) is read as milliseconds.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Final

from chatparse.adapter import as_epoch
from chatparse.adapters.goose.stores import SessionTables, rows_stamp
from chatparse.decoders.sqlite import Snapshot

__all__ = ["Store", "epoch"]

SESSION_COLUMNS: Final = (
    "id",
    "parent_session_id",
    "title",
    "message_count",
    "prompt_tokens",
    "completion_tokens",
    "cost",
    "created_at",
    "updated_at",
    "summary_message_id",
)
MESSAGE_COLUMNS: Final = (
    "id",
    "role",
    "parts",
    "model",
    "provider",
    "created_at",
    "is_summary_message",
)
_LARGEST_SECONDS: Final = 10**11


def epoch(value: object) -> datetime | None:
    """A Crush time: seconds, or milliseconds when too large to be seconds."""
    if isinstance(value, int) and value >= _LARGEST_SECONDS:
        return as_epoch(value, "ms")
    return as_epoch(value, "s")


class Store(SessionTables):
    """One database, open as a snapshot."""

    SESSION_COLUMNS = SESSION_COLUMNS
    MESSAGE_COLUMNS = MESSAGE_COLUMNS
    CONTENT = "parts"

    def __init__(self, snapshot: Snapshot) -> None:
        super().__init__(snapshot)
        self._files = self.tables.has("files", "session_id")
        self._stamp = "updated_at" if self.tables.has("messages", "updated_at") else "role"

    def messages(self, ident: str) -> list[dict[str, Any]]:
        """The message rows of session ``ident``, oldest first (ties in ``rowid`` order)."""
        return sorted(self.message_rows(ident), key=lambda row: _sortable(row.get("created_at")))

    def stamp(self, ident: str) -> str:
        """A change key of a session's message rows (Crush rewrites a row as it streams)."""
        return rows_stamp(self.snapshot, "messages", self._stamp, ident)

    def file_snapshots(self, ident: str) -> int:
        """How many ``files`` rows the session has."""
        if not self._files:
            return 0
        rows = self.snapshot.iter_rows(
            "files", ("session_id",), where="session_id = ?", params=(ident,)
        )
        return sum(1 for _ in rows)


def _sortable(value: object) -> int:
    return value if isinstance(value, int) else 0
