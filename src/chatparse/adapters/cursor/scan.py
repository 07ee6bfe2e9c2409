"""Reading one database into a :class:`~chatparse.adapters.cursor.catalog.Catalog` for a scan.

A workspace database gives its composer list and its legacy chat tabs; the global one gives the
composer documents and, counted by SQLite without being read, the bubble rows of each composer.
"""

from __future__ import annotations

from typing import Any

from chatparse.adapter import as_text, dig
from chatparse.adapters.cursor.catalog import Catalog, stat
from chatparse.adapters.cursor.store import (
    BUBBLE_PREFIX,
    COMPOSER_LIST,
    COMPOSER_PREFIX,
    DISK_KV,
    ITEM_TABLE,
    LEGACY_CHATS,
    SUBAGENT_PREFIX,
    WORKSPACE_KEYS,
    key_text,
    loads,
    split_bubble_key,
)
from chatparse.decoders.sqlite import Snapshot, prefix_range
from chatparse.errors import SourceUnavailableError, UnavailableCause


def read_workspace(catalog: Catalog, snapshot: Snapshot, project: str | None) -> None:
    """Read a workspace database's composer list and legacy chat tabs into ``catalog``."""
    values = _workspace_values(snapshot)
    if values is None:
        return
    db, st = snapshot.path, stat(snapshot.path)
    composers = values.get(COMPOSER_LIST)
    entries = composers.get("allComposers") if isinstance(composers, dict) else None
    for entry in entries if isinstance(entries, list) else ():
        if isinstance(entry, dict) and isinstance(entry.get("composerId"), str):
            catalog.add_workspace_entry(entry, db, st, project)
    for key in LEGACY_CHATS:
        chat = values.get(key)
        tabs = chat.get("tabs") if isinstance(chat, dict) else None
        for tab in tabs if isinstance(tabs, list) else ():
            if isinstance(tab, dict) and isinstance(tab.get("tabId"), str):
                catalog.add_tab(tab, key, db, st, project)


def _workspace_values(snapshot: Snapshot) -> dict[str, Any] | None:
    """The decoded values of the workspace keys present (``None`` for one not JSON), by key.

    One statement for every key: a scan opens every workspace database, and a statement costs a
    read transaction. ``None`` when there is no ``ItemTable``; the table is looked for only when
    the read fails.
    """
    marks = ", ".join("CAST(? AS TEXT)" for _ in WORKSPACE_KEYS)
    try:
        rows = list(
            snapshot.iter_rows(
                ITEM_TABLE,
                ("key", "value"),
                where=f"key IN ({marks})",
                params=[key.encode() for key in WORKSPACE_KEYS],
            )
        )
    except SourceUnavailableError as exc:
        # Locked: reported as it is, without waiting through a second busy window for tables.
        if exc.cause is not UnavailableCause.LOCKED and ITEM_TABLE not in snapshot.tables():
            return None
        raise
    values: dict[str, Any] = {}
    for row in rows:
        key, raw = row.values
        ok, value = loads(raw) if isinstance(raw, str) else (False, None)
        values[str(key)] = value if ok else None
    return values


def read_global(catalog: Catalog, snapshot: Snapshot) -> None:
    """Read the composer documents and the bubble keys (not values) of a global database."""
    if DISK_KV not in snapshot.tables():
        return
    db, st = snapshot.path, stat(snapshot.path)
    for rowid, key, stored in snapshot.iter_prefix_raw(DISK_KV, COMPOSER_PREFIX):
        composer_id = key_text(key)[len(COMPOSER_PREFIX) :]
        catalog.add_document(composer_id, rowid, stored, db, st)
    for bubbles in snapshot.key_runs(DISK_KV, BUBBLE_PREFIX):
        catalog.add_bubbles(bubbles, db, st)
    for child in catalog.unparented_tasks():
        parent = _task_parent(snapshot, child)
        if parent is not None:
            catalog.parents.setdefault(child, parent)


def _task_parent(snapshot: Snapshot, child: str) -> str | None:
    """The composer one of whose tool calls started the sub-agent composer ``child``.

    The bubble values are searched for the tool call id by SQLite itself (``instr``, an exact
    substring, not a pattern), and the one row found is decoded to confirm it.
    """
    tool_call_id = child[len(SUBAGENT_PREFIX) :]
    low, high = prefix_range(BUBBLE_PREFIX)
    where = "key >= CAST(? AS TEXT) AND key < CAST(? AS TEXT) AND instr(value, ?) > 0"
    for row in snapshot.iter_rows(
        DISK_KV, ("key", "value"), where=where, params=(low, high, tool_call_id)
    ):
        key, raw = row.values
        composer_id, _ = split_bubble_key(str(key))
        text = as_text(raw)
        ok, bubble = loads(text) if text is not None else (False, None)
        if (
            ok
            and composer_id != child
            and dig(bubble, "toolFormerData", "toolCallId") == tool_call_id
        ):
            return composer_id
    return None
