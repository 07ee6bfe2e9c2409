"""Messages and tool calls while they are assembled from the records that tell of them."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from attrs import define, field

from chatparse.adapter import new_message, new_tool_call, strip_images
from chatparse.model import ImageRef, Message, MessageKind, Role, ToolCall, Usage

__all__ = ["MessageDraft", "ToolCallDraft"]


@define
class ToolCallDraft:
    """A tool call being assembled from the parts, rounds and transcript that tell of it."""

    id: str | None
    name: str
    input: Any = None
    output: str | None = None
    is_error: bool | None = None
    keys: set[str] = field(factory=set)
    """Every id the call is known by: its own, and a round's id with and without its suffix."""
    announced: bool = False
    """Told of by a ``prepareToolInvocation``."""
    invoked: bool = False
    """Told of by a ``toolInvocationSerialized``."""

    def fill(self, other: ToolCallDraft) -> bool:
        """Take what ``other`` knows and this call lacks; return whether anything was taken."""
        took = False
        if self.input is None and other.input is not None:
            self.input, took = other.input, True
        if self.output is None and other.output is not None:
            self.output, took = other.output, True
        if self.is_error is None and other.is_error is not None:
            self.is_error, took = other.is_error, True
        self.keys |= other.keys
        return took

    def freeze(self) -> ToolCall:
        """The model's :class:`~chatparse.model.ToolCall`; images in the output are measured out."""
        output = strip_images(self.output)[0] if self.output is not None else None
        return new_tool_call(
            id=self.id, name=self.name, input=self.input, output=output, is_error=self.is_error
        )


@define
class MessageDraft:
    """A message being assembled."""

    id: str
    role: Role
    kind: MessageKind = "message"
    pieces: list[str] = field(factory=list)
    thinking: list[str] = field(factory=list)
    calls: list[ToolCallDraft] = field(factory=list)
    images: list[ImageRef] = field(factory=list)
    timestamp: datetime | None = None
    synthesized: bool = False
    model: str | None = None
    usage: Usage | None = None
    request_id: str | None = None
    broken: bool = False
    """A part that is not text came after the last text."""

    def write(self, markdown: str) -> None:
        """Add a markdown chunk: it continues the text, unless a block part came between."""
        follows_text = self.pieces and not self.pieces[-1].endswith("\n")
        if self.broken and follows_text and not markdown.startswith("\n"):
            self.pieces.append("\n\n")
        self.broken = False
        self.pieces.append(markdown)

    def paragraph(self, text: str) -> None:
        """Add text that stands apart from what comes before it."""
        if text:
            if self.pieces and not self.pieces[-1].endswith("\n"):
                self.pieces.append("\n\n")
            self.pieces.append(text)

    def has_content(self) -> bool:
        """Whether the message says anything: text, thinking or a tool call."""
        return bool(self.thinking or self.calls) or any(map(str.strip, self.pieces))

    def freeze(self) -> Message:
        """The model's :class:`~chatparse.model.Message`; inline images are measured out."""
        text, inline_images = strip_images("".join(self.pieces).strip())
        return new_message(
            id=self.id,
            role=self.role,
            kind=self.kind,
            text=text,
            thinking="\n\n".join(self.thinking) if self.thinking else None,
            tool_calls=[call.freeze() for call in self.calls] if self.calls else (),
            images=[*self.images, *inline_images] if inline_images else self.images,
            timestamp=self.timestamp,
            timestamp_synthesized=self.synthesized,
            model=self.model,
            usage=self.usage,
            request_id=self.request_id,
        )
