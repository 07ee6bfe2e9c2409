"""Anthropic-style content blocks, as Amp and Factory Droid write them, sorted by what they become.

Both tools store a message's ``content`` as Anthropic Messages API blocks (or, now and then, a
lone string): ``text``, ``thinking`` (reasoning; ``redacted_thinking`` is encrypted and shows
nothing), ``image`` (``source.data`` in base64, measured and dropped; Amp spells the media type
``mediaType``, the API ``media_type``), ``tool_use`` and ``tool_result``. The two differ only in
how a ``tool_result`` names its call and holds its output, which each adapter reads itself.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from attrs import define, field

from chatparse.adapter import (
    Ledger,
    MessageDraft,
    ToolCallPairing,
    as_nonempty_text,
    as_text,
    dig,
    drop_payloads,
    image_ref,
    strip_images,
)
from chatparse.model import ImageRef

__all__ = ["Blocks", "block_image", "sort_blocks"]


@define
class Blocks:
    """One message's content blocks, sorted: what to show, what to call, what answers a call.

    Attributes:
        texts: The texts with visible characters, inline images replaced by placeholders.
        thinking: The reasoning texts.
        images: The images, of image blocks and of inline data URIs.
        calls: The ``tool_use`` blocks.
        results: The ``tool_result`` blocks.
        odd: The types of blocks of no known type (for a warning).
    """

    texts: list[str] = field(factory=list)
    thinking: list[str] = field(factory=list)
    images: list[ImageRef] = field(factory=list)
    calls: list[dict[str, Any]] = field(factory=list)
    results: list[dict[str, Any]] = field(factory=list)
    odd: list[str] = field(factory=list)

    def text(self) -> str:
        """The texts, a blank line between two."""
        return "\n\n".join(self.texts)

    def reasoning(self) -> str | None:
        """The reasoning texts, a blank line between two; ``None`` when there is none."""
        return "\n\n".join(self.thinking) or None

    def warn_odd(self, ledger: Ledger, where: str) -> None:
        """Say in ``ledger``'s warnings which blocks of no known type were not read."""
        for kind in self.odd:
            ledger.warn_once(f"{where}: content block of type {kind} not read")

    def make_calls(self, draft: MessageDraft, tools: ToolCallPairing) -> None:
        """Give ``draft`` the ``tool_use`` blocks as calls, waiting in ``tools`` for results."""
        for call in self.calls:
            arguments, _images = drop_payloads(call.get("input"))  # what the model wrote
            name = as_nonempty_text(call.get("name")) or "unknown"
            draft.calls.append(tools.call(as_nonempty_text(call.get("id")), name, arguments))


def block_image(block: object) -> ImageRef:
    """An image block's reference: its media type and decoded size."""
    source = dig(block, "source")
    media_type = dig(source, "media_type") or dig(source, "mediaType")
    return image_ref(media_type, dig(source, "data"))


def _text(blocks: Blocks, block: dict[str, Any]) -> None:
    text = as_text(block.get("text"))
    if text is not None and text.strip():
        cleaned, images = strip_images(text)
        blocks.texts.append(cleaned)
        blocks.images += images


def _thinking(blocks: Blocks, block: dict[str, Any]) -> None:
    text = as_text(block.get("thinking"))
    if text is not None and text.strip():
        blocks.thinking.append(text)


_READERS: Final[dict[str, Callable[[Blocks, dict[str, Any]], None]]] = {
    "text": _text,
    "thinking": _thinking,
    "redacted_thinking": lambda _blocks, _block: None,  # encrypted reasoning: nothing to show
    "image": lambda blocks, block: blocks.images.append(block_image(block)),
    "tool_use": lambda blocks, block: blocks.calls.append(block),
    "tool_result": lambda blocks, block: blocks.results.append(block),
}


def sort_blocks(content: object) -> Blocks:
    """A message's ``content`` (a list of blocks, or a lone string) sorted into :class:`Blocks`."""
    blocks = Blocks()
    listed = [{"type": "text", "text": content}] if isinstance(content, str) else content
    for block in listed if isinstance(listed, list) else ():
        kind = dig(block, "type")
        reader = _READERS.get(kind) if isinstance(kind, str) else None
        if reader is None:
            blocks.odd.append(str(kind))
        else:
            reader(blocks, block)
    return blocks
