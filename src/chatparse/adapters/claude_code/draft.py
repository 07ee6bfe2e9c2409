"""A message while its lines are still being read, and the model's message it becomes."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any

from attrs import define, field

from chatparse.adapter import PendingCall, new_message
from chatparse.model import ImageRef, Message, MessageKind, Role, Usage

__all__ = ["Draft", "freeze"]


@define
class Draft:
    """A message while its lines are still being read."""

    id: str
    role: Role
    kind: MessageKind
    raw_parent: str | None
    timestamp: datetime | None
    is_sidechain: bool
    texts: list[str] = field(factory=list)
    thinking: list[str] | None = None
    calls: list[PendingCall] = field(factory=list)
    images: list[ImageRef] = field(factory=list)
    model: str | None = None
    request_id: str | None = None
    api_id: str | None = None
    usage_raw: Mapping[str, Any] | None = None
    problems: list[str] = field(factory=list)
    """Where to note a usage count that is no count (its transcript's list)."""
    usage: Usage | None = None

    def think(self, text: str) -> None:
        """Add a thinking block (``thinking`` stays ``None`` for a message that has none)."""
        if self.thinking is None:
            self.thinking = [text]
        else:
            self.thinking.append(text)


def freeze(draft: Draft, parent: str | None) -> Message:
    """The model's message of a draft whose lines are all read, under its parent's id."""
    strip = str.rstrip if draft.kind == "tool_result" else str.strip
    thinking = None if draft.thinking is None else _paragraphs(draft.thinking, str.strip)
    return new_message(
        id=draft.id,
        role=draft.role,
        parent_id=parent,
        text=_paragraphs(draft.texts, strip),
        thinking=thinking,
        tool_calls=[call.freeze() for call in draft.calls],
        images=draft.images,
        timestamp=draft.timestamp,
        model=draft.model,
        usage=draft.usage,
        request_id=draft.request_id,
        is_sidechain=draft.is_sidechain,
        kind=draft.kind,
    )


def _paragraphs(parts: list[str], strip: Callable[[str], str]) -> str:
    """The parts, each stripped, that are not blank, joined by blank lines.

    Stripped once: a part with nothing to strip is the same object, so a message of one part
    keeps the very string that was decoded.
    """
    return "\n\n".join([part for part in map(strip, parts) if part])
