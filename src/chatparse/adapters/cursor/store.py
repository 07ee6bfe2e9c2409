"""Where Cursor keeps its conversations: the tables and keys read, and how one value is read.

Only the keys named here are ever read (see the package's docstring): the global ``ItemTable``,
which holds the user's auth tokens, is never queried.
"""

from __future__ import annotations

from typing import Any, Final, Literal, TypeAlias

from chatparse.adapter import as_text
from chatparse.adapters._vscode import uri_platform, uri_to_project_path
from chatparse.decoders import value as jsonvalue
from chatparse.decoders.sqlite import Snapshot

PRODUCTS: Final = ("Cursor",)
ITEM_TABLE: Final = "ItemTable"
DISK_KV: Final = "cursorDiskKV"
COMPOSER_LIST: Final = "composer.composerData"
LEGACY_CHATS: Final = (
    "workbench.panel.aichat.view.aichat.chatdata",
    "workbench.panel.chat.view.chat.chatdata",
)
WORKSPACE_KEYS: Final = (COMPOSER_LIST, *LEGACY_CHATS)
"""Every ``ItemTable`` key read, from a workspace database; no other key is ever read."""
COMPOSER_PREFIX: Final = "composerData:"
BUBBLE_PREFIX: Final = "bubbleId:"
SUBAGENT_PREFIX: Final = "task-"
"""A sub-agent composer is named ``task-<toolCallId>`` after the parent's tool call."""

# What ``ConversationMeta.locator["kind"]`` says about where a conversation's content is.
Kind: TypeAlias = Literal["composer", "inline", "legacy", "bubbles"]
COMPOSER: Final = "composer"  # a composerData document in the global cursorDiskKV
INLINE: Final = "inline"  # an allComposers entry carrying its conversation (late 2024)
LEGACY: Final = "legacy"  # a tab of the legacy chat pane
BUBBLES: Final = "bubbles"  # bubble rows in the global cursorDiskKV with no composer document


def get_json(snapshot: Snapshot, table: str, key: str) -> Any:
    """The decoded value of one key, or ``None`` when it is missing, NULL or not JSON."""
    row = snapshot.get(table, key)
    raw = as_text(row.values[0]) if row is not None else None
    if raw is None:
        return None
    ok, value = loads(raw)
    return value if ok else None


def loads(text: str | bytes | None) -> tuple[bool, Any]:
    """Decode one JSON value held in a string or its UTF-8 bytes: ``(ok, value)``.

    SQL NULL is a JSON null. Invalid UTF-8 in bytes becomes U+FFFD, as when decoded first.
    """
    if text is None:
        return True, None
    decoded = jsonvalue.decode(text)
    return (False, None) if isinstance(decoded, jsonvalue.Invalid) else (True, decoded)


def key_text(key: object) -> str:
    """A key read raw, as :mod:`chatparse.decoders.sqlite` decodes TEXT (invalid UTF-8 replaced)."""
    return key.decode("utf-8", "replace") if isinstance(key, bytes) else str(key)


def split_bubble_key(key: str) -> tuple[str, str]:
    """``bubbleId:<composer>:<bubble>`` split on its first two colons only."""
    rest = key[len(BUBBLE_PREFIX) :]
    composer_id, _, bubble_id = rest.partition(":")
    return composer_id, bubble_id


def identifier_project(identifier: object) -> str | None:
    """The project of a composer's ``workspaceIdentifier``: its URI decoded, else its fsPath."""
    uri = identifier.get("uri") if isinstance(identifier, dict) else None
    if isinstance(uri, str) and uri:
        return uri_to_project_path(uri, uri_platform(uri))
    if isinstance(uri, dict):
        external = uri.get("external")
        if isinstance(external, str) and external:
            return uri_to_project_path(external, uri_platform(external))
        for name in ("fsPath", "path"):
            if isinstance(uri.get(name), str) and uri[name]:
                return str(uri[name])
    return None
