"""Conversations held whole in a workspace database: late-2024 inline composers, legacy chat tabs.

Both are entries of a list inside one ``ItemTable`` value, with their bubbles inline: the entry
is one record, each of its bubbles another.
"""

from __future__ import annotations

from typing import Any

from chatparse.adapter import Ledger, SourceAdapter, as_text, as_time, title_from
from chatparse.adapters.cursor.messages import MessageBuilder
from chatparse.adapters.cursor.store import COMPOSER_LIST, ITEM_TABLE, LEGACY_CHATS, get_json
from chatparse.decoders.sqlite import Snapshot
from chatparse.errors import SourceUnavailableError, UnavailableCause
from chatparse.model import ConversationMeta, ParsedConversation


def read_inline(
    snapshot: Snapshot, meta: ConversationMeta, adapter: SourceAdapter
) -> ParsedConversation:
    """A late-2024 composer whose bubbles are inline in the workspace's composer list."""
    entry = _listed_entry(snapshot, meta, COMPOSER_LIST, ("allComposers", "composerId"), "composer")
    builder = _builder_of(
        meta, entry.get("conversation"), f"{COMPOSER_LIST} {meta.id} conversation"
    )
    return builder.conversation(
        meta,
        adapter,
        title=title_from(as_text(entry.get("name"))),
        created_at=as_time(entry.get("createdAt"), "ms"),
        updated_at=as_time(entry.get("lastUpdatedAt"), "ms"),
    )


def read_tab(
    snapshot: Snapshot, meta: ConversationMeta, adapter: SourceAdapter
) -> ParsedConversation:
    """A tab of the legacy chat pane: bubbles of type ``"user"`` and ``"ai"``, in array order."""
    key = meta.locator.get("key", LEGACY_CHATS[0])
    tab = _listed_entry(snapshot, meta, key, ("tabs", "tabId"), "chat tab")
    builder = _builder_of(meta, tab.get("bubbles"), f"{key} tab {meta.id} bubbles")
    return builder.conversation(
        meta,
        adapter,
        title=title_from(as_text(tab.get("chatTitle"))),
        updated_at=as_time(tab.get("lastSendTime"), "ms"),
    )


def _builder_of(meta: ConversationMeta, bubbles: object, where: str) -> MessageBuilder:
    """The messages of an entry (one record, used) from its inline ``bubbles`` at ``where``."""
    ledger = Ledger()
    ledger.use()
    builder = MessageBuilder(meta.id, ledger)
    for index, value in enumerate(bubbles if isinstance(bubbles, list) else ()):
        builder.add_inline(value, index, f"{where}[{index}]")
    return builder


def _listed_entry(
    snapshot: Snapshot, meta: ConversationMeta, key: str, fields: tuple[str, str], what: str
) -> dict[str, Any]:
    """The entry for ``meta.id`` in the list ``fields[0]`` of the JSON value at ``key``.

    ``fields[1]`` is the id field of each entry.

    Raises:
        SourceUnavailableError: The conversation listed by scan is gone by now; the caller
            should scan again.
    """
    holder = get_json(snapshot, ITEM_TABLE, key)
    entries = holder.get(fields[0]) if isinstance(holder, dict) else None
    for entry in entries if isinstance(entries, list) else ():
        if isinstance(entry, dict) and entry.get(fields[1]) == meta.id:
            return entry
    raise SourceUnavailableError(
        meta.path,
        f"{what} {meta.id} is no longer in {key}",
        "Scan again.",
        UnavailableCause.MISSING,
    )
