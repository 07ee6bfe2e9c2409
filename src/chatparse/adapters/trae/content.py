"""What a message entry says: its text and images, its id, and its place in the turn order."""

from __future__ import annotations

from typing import Any

from chatparse.adapter import as_text, new_image, strip_images
from chatparse.adapters.trae.jsontext import json_array, whole_number
from chatparse.model import ImageRef, Role

__all__ = ["clean", "content_of", "in_turn_order", "media", "message_id", "prompt"]


def prompt(entry: dict[str, Any]) -> tuple[str, tuple[ImageRef, ...]]:
    """A prompt's text and images.

    ``parsedQuery`` (the prompt without file references) wins over ``content`` when present;
    ``multiMedia`` adds images.
    """
    content = content_of(entry)
    query = _query_text(entry.get("parsedQuery"))
    if query and not query.isspace():
        text, images = clean(query)
        if not images and content != query:
            # An image pasted into the prompt is in both texts: counted once. Only the query's
            # text is kept, so ``content`` is cleaned only for an image the query lacks (often
            # it is the query itself: comparing is cheaper than searching it again).
            images = clean(content)[1]
    else:
        text, images = clean(content)
    attached = entry.get("multiMedia")
    if attached:  # usually "" or [] (none)
        images = (*images, *media(attached))
    return text, images


def content_of(entry: dict[str, Any]) -> str:
    """An entry's ``content`` when it is a string, else ``""``."""
    content = entry.get("content")
    return content if isinstance(content, str) else ""


def clean(text: str) -> tuple[str, tuple[ImageRef, ...]]:
    """``text`` trimmed, with inline base64 images taken out (measured, not kept)."""
    cleaned, images = strip_images(text)
    return cleaned.strip(), images


def _query_text(query: object) -> str | None:
    """``parsedQuery`` as text: a string, or the text pieces of an array of pieces."""
    if isinstance(query, str):
        return query
    if isinstance(query, list):
        pieces = [
            p if isinstance(p, str) else p.get("text") if isinstance(p, dict) else None
            for p in query
        ]
        if pieces and all(isinstance(p, str) for p in pieces):
            return "".join(p for p in pieces if isinstance(p, str))
    return None


def media(value: object) -> list[ImageRef]:
    """One image per entry of a ``multiMedia`` array (or array in a JSON string; ``""`` is none)."""
    images = []
    for item in json_array(value):
        media_type = None
        if isinstance(item, dict):
            declared = next(
                (t for k in ("mimeType", "mediaType", "type") if (t := as_text(item.get(k)))), None
            )
            media_type = declared if declared and declared.startswith("image/") else None
        images.append(new_image(media_type=media_type))
    return images


def message_id(entry: dict[str, Any], role: Role, position: int, turn_id: str | None) -> str:
    """A message's own id, else one made from its turn; never the same for prompt and answer.

    A user message carries the ``agentMessageId`` of the answer it got, so only its own
    ``userMessageId`` names it.
    """
    own = as_text(entry.get("userMessageId" if role == "user" else "agentMessageId"))
    if own and role != "system":
        return own
    if turn_id:
        return f"{turn_id}:{role}"
    index = whole_number(entry.get("turnIndex"))
    if index is not None:
        return f"turn-{index}:{role}"
    return f"message-{position}"


def in_turn_order(entries: list[Any]) -> list[int]:
    """The entries' positions, stably sorted by turn, the user's prompt first in a turn.

    A turn is ``turnIndex``; an entry without one takes the ``turnIndex`` of an entry with the
    same ``turnId``, else stays right after the entry before it.
    """
    turns: dict[str, int] | None = None  # by turnId: looked up only for an entry without a turn
    # One int per entry, 2 * turn + rank (0 for the user's prompt, else 1): it orders as the pair
    # does, and sorting positions by it (a stable sort) costs far less than sorting tuples.
    keys: list[int] = []
    key = -1
    for entry in entries:
        if isinstance(entry, dict):
            index = whole_number(entry.get("turnIndex"))
            if index is None and (turn_id := as_text(entry.get("turnId"))):
                turns = _turns_by_id(entries) if turns is None else turns
                index = turns.get(turn_id)
            if index is not None:
                key = 2 * index + (entry.get("role") != "user")
        # Otherwise the key of the entry before: right after it.
        keys.append(key)
    return sorted(range(len(entries)), key=keys.__getitem__)


def _turns_by_id(entries: list[Any]) -> dict[str, int]:
    """The ``turnIndex`` of each ``turnId``, from the first entry that has both."""
    turns: dict[str, int] = {}
    for entry in entries:
        if isinstance(entry, dict):
            index, turn_id = whole_number(entry.get("turnIndex")), as_text(entry.get("turnId"))
            if index is not None and turn_id:
                turns.setdefault(turn_id, index)
    return turns
