"""Hermes's ``state.db``, read through a read-only snapshot: its sessions and their messages.

Tables read, and only these (``system_prompts``, the FTS tables, ``state_meta``, routing and
lease tables are not): ``sessions`` (one row per session: source, model, lineage, times,
title, cwd, git branch and the session's token totals) and ``messages`` (one row per message,
OpenAI-shaped). The schema grows by migration (version 30 when written), so only the columns a
database declares are selected; the rest read as absent.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache
from typing import Any, Final

from chatparse.adapter import digest_fingerprint
from chatparse.decoders.sqlite import Snapshot

__all__ = ["MESSAGE_COLUMNS", "SESSION_COLUMNS", "Store", "session_stamp"]

SESSION_COLUMNS: Final = (
    "id",
    "source",
    "model",
    "model_config",
    "parent_session_id",
    "session_key",
    "started_at",
    "ended_at",
    "end_reason",
    "last_activity_at",
    "message_count",
    "input_tokens",
    "output_tokens",
    "cache_read_tokens",
    "cache_write_tokens",
    "reasoning_tokens",
    "cwd",
    "git_branch",
    "title",
)
MESSAGE_COLUMNS: Final = (
    "role",
    "content",
    "tool_call_id",
    "tool_calls",
    "tool_name",
    "timestamp",
    "finish_reason",
    "reasoning",
    "reasoning_content",
    "reasoning_details",
    "_compressed_summary",
    "active",
    "compacted",
    "display_kind",
)


@cache
def _declaration(column: str) -> re.Pattern[str]:
    # A column is declared at the start of the table body or after a comma, quoted or not.
    return re.compile(rf"[(,]\s*[\"`\[]?{re.escape(column)}[\"`\]]?\s", re.IGNORECASE)


class Store:
    """One ``state.db``, open as a snapshot."""

    def __init__(self, snapshot: Snapshot) -> None:
        self.snapshot = snapshot
        rows = snapshot.iter_rows("sqlite_master", ("name", "sql"), where="type = 'table'")
        tables = {str(r.values[0]): str(r.values[1] or "") + " " for r in rows}
        self.readable = "sessions" in tables and "messages" in tables
        self._sessions = self._present(tables.get("sessions", ""), SESSION_COLUMNS)
        self._messages = self._present(tables.get("messages", ""), MESSAGE_COLUMNS)

    @staticmethod
    def _present(create: str, wanted: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(c for c in wanted if _declaration(c).search(create))

    def sessions(self) -> Iterator[dict[str, Any]]:
        """Every session row, as ``{column: value}`` with a ``rowid``, in ``rowid`` order."""
        if not self.readable or "id" not in self._sessions:
            return
        for row in self.snapshot.iter_rows("sessions", self._sessions):
            yield {"rowid": row.rowid, **dict(zip(self._sessions, row.values, strict=True))}

    def session(self, ident: str) -> dict[str, Any] | None:
        """The row of session ``ident``, or ``None``."""
        if not self.readable or "id" not in self._sessions:
            return None
        rows = self.snapshot.iter_rows("sessions", self._sessions, where="id = ?", params=(ident,))
        for row in rows:
            return {"rowid": row.rowid, **dict(zip(self._sessions, row.values, strict=True))}
        return None

    def messages(self, ident: str) -> Iterator[dict[str, Any]]:
        """The message rows of session ``ident``, in the order they were written (``rowid``)."""
        if not self.readable or "role" not in self._messages:
            return
        rows = self.snapshot.iter_rows(
            "messages", self._messages, where="session_id = ?", params=(ident,)
        )
        for row in rows:
            yield {"rowid": row.rowid, **dict(zip(self._messages, row.values, strict=True))}


def session_stamp(row: dict[str, Any]) -> str:
    """A change key for one session row: every value read, digested."""
    return digest_fingerprint(*(repr(row.get(c)) for c in ("rowid", *SESSION_COLUMNS)))
