"""Zed's text threads: the assistant panel's ``*.zed.json`` files (2024 to 2026-04).

A text thread is one buffer of text and the places where its messages start:
``{id, zed: "context", version, text, summary, messages, slash_command_output_sections,
thought_process_output_sections}``. Version ``0.4.0`` gives each message as ``{id, start,
metadata: {role, status, timestamp, cache}}``; versions ``0.1.0`` to ``0.3.0`` give ``{id,
start}`` and the roles apart, in ``message_metadata`` keyed by the id. A message's text is the
buffer from its ``start`` to the next message's (byte offsets into the UTF-8 text, each message
ending in a line break); the parts of an answer inside a ``thought_process_output_sections``
range are its thinking (without the ``<think>`` tags around it). The timestamps are Lamport
clocks, not times: a text thread has no time, no project and no usage.

Records: the document's own fields are one record; each message is one. A message without a
role (no metadata for its id: Zed drops those too) is kept raw; one whose ``start`` is not a
place in the text is malformed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Final

from chatparse.adapter import (
    Ledger,
    MessageDraft,
    UniqueIds,
    as_count,
    as_nonempty_text,
    dig,
    file_meta,
    require_file,
    strip_images,
    title_from,
)
from chatparse.decoders import bigjson
from chatparse.decoders.value import encode
from chatparse.model import ConversationMeta, Role

__all__ = ["FORMAT", "SUFFIX", "TextThread", "read_text_thread", "text_thread_meta"]

SUFFIX: Final = ".zed.json"
FORMAT: Final = "text-thread"
_OPEN: Final = "<think>"
_CLOSE: Final = "</think>"
_ROLES: Final[dict[str, Role]] = {"user": "user", "assistant": "assistant", "system": "system"}


def text_thread_meta(source: str, path: Path) -> ConversationMeta | None:
    """A text thread as a scan lists it: its file's name is its id, its stat its change key."""
    try:
        info = path.stat()
    except OSError:
        return None
    return file_meta(source, path.name.removesuffix(SUFFIX), path, info, locator={"format": FORMAT})


def _ranges(document: dict[str, Any]) -> list[tuple[int, int]]:
    sections = document.get("thought_process_output_sections")
    found = []
    for section in sections if isinstance(sections, list) else ():
        start, end = (
            as_count(dig(section, "range", "start")),
            as_count(dig(section, "range", "end")),
        )
        if start is not None and end is not None and start < end:
            found.append((start, end))
    return found


def _split(buffer: bytes, start: int, end: int, thoughts: list[tuple[int, int]]) -> tuple[str, str]:
    """The text of ``buffer[start:end]`` outside the thought ranges, and the text inside them."""
    inside = [(max(s, start), min(e, end)) for s, e in thoughts if s < end and e > start]
    outside: list[str] = []
    cursor = start
    for s, e in sorted(inside):
        outside.append(buffer[cursor:s].decode("utf-8", "replace"))
        cursor = max(cursor, e)
    outside.append(buffer[cursor:end].decode("utf-8", "replace"))
    thinking = [_unwrapped(buffer[s:e].decode("utf-8", "replace")) for s, e in sorted(inside)]
    return "".join(outside).strip("\n"), "\n\n".join(t for t in thinking if t)


def _unwrapped(thought: str) -> str:
    """A thought section's text without the ``<think>`` tags Zed writes around it."""
    return thought.strip().removeprefix(_OPEN).removesuffix(_CLOSE).strip()


def _role(message: object, metadata: object) -> Role | None:
    role = dig(message, "metadata", "role")
    if role is None and isinstance(metadata, dict):
        role = dig(metadata.get(str(dig(message, "id"))), "role")
    return _ROLES.get(role) if isinstance(role, str) else None


class TextThread:
    """The messages of one text thread, read."""

    def __init__(self) -> None:
        self.ledger = Ledger()
        self.drafts: list[MessageDraft] = []
        self.title: str | None = None
        self._ids = UniqueIds()
        self._buffer = b""
        self._thoughts: list[tuple[int, int]] = []
        self._metadata: object = None

    def read(self, document: dict[str, Any]) -> None:
        """Read a text thread's document."""
        self.ledger.use()  # the document's own fields
        self.title = title_from(as_nonempty_text(document.get("summary")))
        text = document.get("text")
        self._buffer = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else b""
        self._thoughts = _ranges(document)
        self._metadata = document.get("message_metadata")
        messages = document.get("messages")
        messages = messages if isinstance(messages, list) else []
        starts = [as_count(dig(m, "start")) for m in messages]
        for index, message in enumerate(messages):
            following = [s for s in starts[index + 1 :] if s is not None]
            self._message(message, index, starts[index], following[0] if following else None)

    def _message(self, message: object, index: int, start: int | None, end: int | None) -> None:
        where = f"messages[{index}]"
        size = len(self._buffer)
        if start is None or start > size:
            self.ledger.bad(where, "start is not a place in the text")
            return
        role = _role(message, self._metadata)
        if role is None:
            self.ledger.keep(where, None, encode(message))
            return
        stop = size if end is None or end < start else min(end, size)
        thoughts = self._thoughts if role == "assistant" else []
        text, thinking = _split(self._buffer, start, stop, thoughts)
        text, images = strip_images(text)
        ident = dig(message, "id")
        number = dig(ident, "value") if isinstance(ident, dict) else ident
        self.drafts.append(
            MessageDraft(
                id=self._ids.take(f"message-{number}" if number is not None else where),
                role=role,
                text=text,
                thinking=thinking or None,
                images=list(images),
            )
        )
        self.ledger.use()


def read_text_thread(meta: ConversationMeta) -> TextThread:
    """The text thread in the file ``meta`` names."""
    path = require_file(meta.path, "text thread")
    thread = TextThread()
    items = list(bigjson.iter_items(path, ""))
    document = items[0].value if items and isinstance(items[0], bigjson.Item) else None
    if isinstance(document, dict):
        thread.read(document)
    else:
        reason = (
            items[0].reason
            if items and isinstance(items[0], bigjson.Malformed)
            else "not an object"
        )
        thread.ledger.bad("document", f"not a text thread ({reason})")
    return thread
