"""The pieces a thread is put together from: copies of one content, messages being built, turns."""

from __future__ import annotations

from collections import deque
from datetime import datetime
from typing import Final, Literal, TypeAlias

from attrs import Factory, define

from chatparse.adapter import PendingCall, new_message
from chatparse.adapters.codex.content import visible
from chatparse.model import ImageRef, Message, MessageKind, Role, Usage

__all__ = [
    "CALLS",
    "EVENT",
    "ITEM",
    "REASONING",
    "TEXT",
    "UNKNOWN",
    "Copies",
    "Draft",
    "Outcome",
    "Replay",
    "Shape",
    "Turn",
    "Waiting",
    "owner",
]

Shape: TypeAlias = Literal["event", "item"]
"""Which of its two copies a record is: ``event_msg`` (what the person saw) or ``response_item``
(what the model saw)."""
EVENT: Final = "event"
ITEM: Final = "item"

# Within one model response items come in this order; going back starts the next response.
REASONING, TEXT, CALLS = 1, 2, 3


class _Unknown:
    """The outcome of a record of a shape we do not know."""


UNKNOWN: Final = _Unknown()


@define(eq=False)
class Copies:
    """One piece of content written in up to two shapes; the event copy's text wins.

    Only the winning text is kept: the other copy would be held, unused, until the end.
    """

    text: str = ""
    from_event: bool = False
    owner: Draft | None = None
    """The response the copies belong to, set on those that wait for their partner."""

    def put(self, shape: Shape, text: str) -> None:
        """The text of one copy: kept unless the event copy's is already in."""
        if shape == EVENT:
            self.text, self.from_event = text, True
        elif not self.from_event:
            self.text = text


def owner(copies: Copies) -> Draft:
    """The response waiting ``copies`` belong to."""
    if copies.owner is None:
        raise AssertionError("a waiting copy always belongs to a response of its turn")
    return copies.owner


@define
class Waiting:
    """Copies of one kind of content still waiting for their other shape, oldest first."""

    event: deque[Copies] = Factory(deque)
    item: deque[Copies] = Factory(deque)

    def partner(self, shape: Shape) -> Copies | None:
        """The oldest copy of the other shape still waiting, taken off the queue."""
        other = self.item if shape == EVENT else self.event
        return other.popleft() if other else None

    def wait(self, shape: Shape, copies: Copies) -> None:
        """``copies`` came in ``shape``: they wait for their other shape."""
        (self.event if shape == EVENT else self.item).append(copies)


@define(eq=False)
class Draft:
    """A message being put together from one or more records."""

    line: int
    """The line number (or item index) of the record that opened it: the message's id."""
    role: Role
    timestamp: datetime | None
    kind: MessageKind = "message"
    text: Copies | None = None
    thinking: list[Copies] = Factory(list)
    calls: list[PendingCall] = Factory(list)
    event_images: tuple[ImageRef, ...] = ()
    item_images: tuple[ImageRef, ...] = ()
    model: str | None = None
    usage: Usage | None = None
    stage: int = 0
    closed: bool = False
    sidechain: bool = False
    records: int = 0
    """How many records went into it: used if it becomes a message, else skipped."""

    def message(self, id_prefix: str) -> Message | None:
        """The finished message; ``None`` when it has nothing to show (no text, no call, ...)."""
        text = visible(self.text.text) if self.text is not None else ""
        thinking = "\n\n".join(filter(None, [c.text.strip() for c in self.thinking]))
        if not (
            text
            or thinking
            or self.calls
            or self.usage is not None
            or self.event_images
            or self.item_images
            or self.kind != "message"
        ):
            return None
        return new_message(
            id=f"{id_prefix}{self.line}",
            role=self.role,
            text=text,
            thinking=thinking or None,
            tool_calls=[call.freeze() for call in self.calls],
            images=self.item_images or self.event_images,
            timestamp=self.timestamp,
            model=self.model,
            usage=self.usage,
            is_sidechain=self.sidechain,
            kind=self.kind,
        )


@define
class Turn:
    """One user turn: the prompt and every model response up to the next prompt."""

    user: Waiting = Factory(Waiting)
    texts: Waiting = Factory(Waiting)
    thinking: Waiting = Factory(Waiting)
    responses: list[Draft] = Factory(list)
    current: Draft | None = None
    start: int = 0
    """Where the turn starts in the thread's list of drafts."""


@define
class Replay:
    """The parent's history a fork or sub-agent rollout replays after its own session_meta."""

    owner: str
    last: datetime


Outcome: TypeAlias = "Draft | str | _Unknown | None"
"""What reading a record came to: the draft it went into, ``None`` (used otherwise: metadata,
a paired tool output), a skip reason (known noise), or :data:`UNKNOWN`."""
