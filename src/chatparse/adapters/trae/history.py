"""The input history: past prompts of a workspace, read for sessions stored without messages.

Newer Trae CN builds leave a session's ``messages`` empty (the text is in the encrypted
database), but ``icube-ai-agent-storage-input-history`` still holds what was typed:
``[{"inputText", "parsedQuery", "multiMedia", "files", "sessionId"?}...]``. It is the
workspace's, not a session's: an entry is given to a session only when that is certain.
"""

from __future__ import annotations

from typing import Any

from attrs import define, field

from chatparse.adapters.trae.stores import (
    ABSENT,
    INPUT_HISTORY_KEY,
    STORE_KEY,
    Notes,
    array_items,
    value_of,
)
from chatparse.decoders import bigjson
from chatparse.decoders.sqlite import Snapshot

__all__ = ["History", "input_history", "inputs_of"]


@define
class History:
    """The input history of a workspace database, and the damage found reading it."""

    entries: list[Any] = field(factory=list)
    problems: list[str] = field(factory=list)

    @classmethod
    def read(cls, snapshot: Snapshot) -> History:
        """The history of the database ``snapshot`` is of."""
        notes = Notes()
        entries = input_history(snapshot, notes)
        return cls(entries, notes.problems)


def input_history(snapshot: Snapshot, notes: Notes) -> list[Any]:
    """The entries of ``icube-ai-agent-storage-input-history`` (an array), or none."""
    value = value_of(snapshot, INPUT_HISTORY_KEY)
    if value is ABSENT:
        return []
    if not isinstance(value, bytes):
        notes.remarks.append(f"key {INPUT_HISTORY_KEY} holds no JSON text; not read")
        return []
    entries: list[Any] = []
    for item in array_items(value, None, notes):
        if isinstance(item, bigjson.Malformed):
            notes.problems.append(
                f"the value of key {INPUT_HISTORY_KEY} is damaged at byte {item.offset} "
                f"({item.reason}); inputs stored after that point cannot be read"
            )
            break
        entries.append(item.value)
    return entries


def inputs_of(
    history: History, session_id: str, notes: Notes, key: str
) -> tuple[list[tuple[int, Any]], int]:
    """The input-history entries given to one session, and how many were given to no session.

    The entries come with their positions in the history. ``key`` is the store the session is
    in, and ``notes`` say how many sessions its database's main store holds.

    An entry that names its session (``sessionId``) belongs to it. Entries that name none (the
    usual case) are the workspace's, not a session's: they are given to a session only when it is
    the only session of the workspace's main store, where there is no doubt whose they are.
    """
    sole = notes.store_sessions == 1 and key == STORE_KEY
    used: list[tuple[int, Any]] = []
    unnamed = 0
    for index, entry in enumerate(history.entries):
        owner = _owner(entry)
        unnamed += owner is None
        if owner == session_id or (owner is None and sole):
            used.append((index, entry))
    return used, 0 if sole else unnamed


def _owner(entry: object) -> str | None:
    """The session an input-history entry names, if it names one."""
    owner = entry.get("sessionId") if isinstance(entry, dict) else None
    return owner if isinstance(owner, str) and owner else None
