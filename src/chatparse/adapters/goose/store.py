"""Goose's ``sessions.db``, read through a read-only snapshot.

Tables read: ``sessions`` (one row per session: name, type, working folder, times, model,
parent, token totals) and ``messages`` (one row per message: ``role``, ``content_json``,
``created_timestamp`` in epoch seconds, ``metadata_json``). ``usage_ledger`` repeats the
per-request counts the messages' ``metadata_json.usage`` already carry and is not read;
``schema_version`` and the provider inventory tables are not conversations. The schema grows by
numbered migrations (5 in the first release of this store, 15 in goose 1.45): columns are
selected only when the database declares them.
"""

from __future__ import annotations

from typing import Any, Final

from chatparse.adapter import digest_fingerprint
from chatparse.adapters.goose.stores import SessionTables, rows_stamp

__all__ = ["Store", "session_stamp"]

SESSION_COLUMNS: Final = (
    "id",
    "name",
    "description",
    "session_type",
    "working_dir",
    "created_at",
    "updated_at",
    "input_tokens",
    "output_tokens",
    "accumulated_input_tokens",
    "accumulated_output_tokens",
    "accumulated_cache_read_tokens",
    "accumulated_cache_write_tokens",
    "provider_name",
    "model_config_json",
    "parent_session_id",
)
MESSAGE_COLUMNS: Final = (
    "message_id",
    "role",
    "content_json",
    "created_timestamp",
    "metadata_json",
)


class Store(SessionTables):
    """One ``sessions.db``, open as a snapshot."""

    SESSION_COLUMNS = SESSION_COLUMNS
    MESSAGE_COLUMNS = MESSAGE_COLUMNS
    CONTENT = "content_json"

    def messages(self, ident: str) -> list[dict[str, Any]]:
        """The message rows of session ``ident``, in the order they were written."""
        return self.message_rows(ident)

    def message_stamp(self, ident: str) -> str:
        """A change key of a session's message rows: their rowids and roles."""
        return rows_stamp(self.snapshot, "messages", "role", ident)


def session_stamp(row: dict[str, Any]) -> str:
    """A change key of one session row: every value read."""
    return digest_fingerprint(*(repr(row.get(c)) for c in ("rowid", *SESSION_COLUMNS)))
