"""What the lines of one Droid session file have given so far, in either dialect."""

from __future__ import annotations

from typing import Any, Final

from attrs import define, field

from chatparse.adapter import (
    Ledger,
    MessageDraft,
    ToolCallPairing,
    UniqueIds,
    as_text,
    dig,
    drop_payloads,
    image_ref,
    strip_images,
)
from chatparse.decoders.value import encode
from chatparse.model import MessageKind, Role

__all__ = ["Session", "output_text"]


@define
class Session:
    """Messages, tool calls and the session's own fields, as the lines give them."""

    ledger: Ledger = field(factory=Ledger)
    ids: UniqueIds = field(factory=UniqueIds)
    tools: ToolCallPairing = field(factory=ToolCallPairing)
    drafts: list[MessageDraft] = field(factory=list)
    aliases: dict[str, str | None] = field(factory=dict)
    """A line's ``id`` to the message that stands for it: its own, or, for a line that made no
    message (tool results only), the one its parent stands for."""
    title: str | None = None
    cwd: str | None = None
    version: str | None = None
    model: str | None = None
    """The model a stream-json run names in its ``system`` line, for all its answers."""

    def add(
        self,
        wanted: str,
        role: Role,
        kind: MessageKind = "message",
        *,
        line_id: str | None = None,
        parent: str | None = None,
        **fields: Any,
    ) -> MessageDraft:
        """A new message named ``wanted`` (made unique), answering the line ``parent``."""
        draft = MessageDraft(
            id=self.ids.take(wanted),
            role=role,
            kind=kind,
            parent_id=self.stand_in(parent),
            **fields,
        )
        self.drafts.append(draft)
        if line_id is not None:
            self.aliases[line_id] = draft.id
        return draft

    def stand_in(self, line_id: str | None) -> str | None:
        """The message that stands for the line ``line_id``, when one does."""
        return self.aliases.get(line_id) if line_id is not None else None

    def last(self, role: Role) -> MessageDraft | None:
        """The latest message, when it is of ``role``."""
        return self.drafts[-1] if self.drafts and self.drafts[-1].role == role else None


_RESULT_BLOCKS: Final = ("text", "image")  # a tuple: a type that is a list must not raise


def _block_text(block: dict[str, Any]) -> str:
    """A text block's text, or an image block's placeholder (its payload measured, not kept)."""
    if block.get("type") == "text":
        return strip_images(as_text(block.get("text")) or "")[0]
    image = image_ref(dig(block, "source", "media_type"), dig(block, "source", "data"))
    return f"[image: {image.media_type}, {image.byte_size} bytes]"


def output_text(value: object) -> tuple[str | None, Any]:
    """A tool result as text, and its structure when it is more than text.

    A string is the text (inline images replaced by placeholders); a list of content blocks is
    the text of its ``text`` blocks (an image block is a placeholder); any other value is kept as
    structure, payloads dropped, and given as JSON text.
    """
    if value is None:
        return None, None
    if isinstance(value, str):
        return strip_images(value)[0], None
    if isinstance(value, list) and all(
        isinstance(block, dict) and block.get("type") in _RESULT_BLOCKS for block in value
    ):
        return "\n".join(_block_text(block) for block in value), None
    structure, _images = drop_payloads(value)
    return encode(structure), structure
