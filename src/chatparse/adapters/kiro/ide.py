"""Kiro IDE 0.x session files: one JSON document per session, in Continue's session format.

``{sessionId, title, workspacePath, selectedModel, history: [{message: {role, content, id}}]}``,
each ``history`` item one record. ``content`` is text or ``text`` / ``imageUrl`` parts. Kiro
often wrote only a placeholder answer ("On it.") here, with an ``executionId``: the agent's
actions were kept in execution logs elsewhere, which are not read (their format is not known).
"""

from __future__ import annotations

from typing import Any, Final

from chatparse.adapter import (
    ImagePart,
    as_nonempty_text,
    as_text,
    content_text,
    dig,
    image_at,
)
from chatparse.adapters.kiro.common import Reading
from chatparse.model import ImageRef, Role

__all__ = ["read_ide_session"]

_ROLES: Final[dict[str, Role]] = {"user": "user", "assistant": "assistant", "system": "system"}


def _image_url(part: dict[str, Any]) -> list[tuple[str, ImageRef]]:
    return [image_at(as_text(dig(part, "imageUrl", "url")) or "")]


_IMAGES: Final[dict[str, ImagePart]] = {"imageUrl": _image_url}


def _item(reading: Reading, item: object, position: int, model: str | None) -> str | None:
    message = dig(item, "message")
    role = _ROLES.get(as_text(dig(message, "role")) or "")
    if role is None:
        return "an item whose message has no known role"
    read = content_text(dig(message, "content"), _IMAGES)
    if read is None:
        return "a message whose content is neither text nor parts"
    text, images = read
    reading.add(
        as_nonempty_text(dig(message, "id")) or f"item-{position}",
        role,
        text=text,
        images=images,
        model=model if role == "assistant" else None,
    )
    return None


def read_ide_session(document: dict[str, Any], reading: Reading) -> None:
    """Read one session document's ``history`` into ``reading``; each item is one record."""
    model = as_nonempty_text(document.get("selectedModel"))
    history = document.get("history")
    if not isinstance(history, list):
        reading.ledger.bad("history", "not a list")
        return
    for position, item in enumerate(history):
        problem = _item(reading, item, position, model)
        if problem is None:
            reading.ledger.use()
        else:
            reading.ledger.bad(f"history[{position}]", problem)
