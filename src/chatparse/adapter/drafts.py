"""A message while its records are still being read, frozen into the model's when complete.

Sources spread one message over several records: an answer's text, its reasoning and its tool
calls arrive apart, a usage total comes at the end, a time from another log. Adapters collect
them in a :class:`MessageDraft` (mutable, cheap to change) and freeze it into a
:class:`~chatparse.model.Message` once. An adapter that needs more (a turn index, the id a
usage is keyed by) subclasses it with its own fields, keyword-only like these.
"""

from __future__ import annotations

from datetime import datetime

from attrs import define, field

from chatparse.adapter.build import new_message
from chatparse.adapter.tools import PendingCall
from chatparse.model import ImageRef, Message, MessageKind, Role, Usage

__all__ = ["MessageDraft"]


@define(kw_only=True, eq=False)
class MessageDraft:
    """The fields of a :class:`~chatparse.model.Message` being put together.

    Attributes:
        id: The message id (make it unique with :class:`~chatparse.adapter.UniqueIds`).
        role: Who wrote it.
        kind: What it is (see :data:`~chatparse.model.MESSAGE_KINDS`).
        text: The visible text so far.
        thinking: The reasoning so far; ``None`` when there is none.
        images: Images, as references.
        calls: The tool calls it made, paired as their results arrive.
        timestamp: When it was written, if the source says.
        model: The model that wrote it.
        request_id: The source's request id.
        usage: Its token counts, once known.
        parent_id: The message it answers, in sources that keep a tree.
        is_sidechain: Whether it is off the conversation's main line.
    """

    id: str
    role: Role
    kind: MessageKind = "message"
    text: str = ""
    thinking: str | None = None
    images: list[ImageRef] = field(factory=list)
    calls: list[PendingCall] = field(factory=list)
    timestamp: datetime | None = None
    model: str | None = None
    request_id: str | None = None
    usage: Usage | None = None
    parent_id: str | None = None
    is_sidechain: bool = False

    def freeze(self) -> Message:
        """The :class:`~chatparse.model.Message` as it stands."""
        return new_message(
            id=self.id,
            parent_id=self.parent_id,
            role=self.role,
            kind=self.kind,
            text=self.text,
            thinking=self.thinking,
            images=self.images,
            tool_calls=[call.freeze() for call in self.calls],
            timestamp=self.timestamp,
            model=self.model,
            usage=self.usage,
            request_id=self.request_id,
            is_sidechain=self.is_sidechain,
        )
