"""What both Kimi layouts share: content parts, tool arguments and results, token usage.

Kimi CLI (Python, kosong) writes snake-case keys, Kimi Code (TypeScript) camel-case ones, for
the same shapes: parts ``{type: "text", text}``, ``{type: "think", think}``, ``{type:
"image_url", image_url | imageUrl: {url}}`` (also ``audio_url`` and ``video_url``), and token
usage ``{input_other | inputOther, output, input_cache_read | inputCacheRead,
input_cache_creation | inputCacheCreation}``, whose input is the sum of its three input counts.
"""

from __future__ import annotations

from typing import Any, Final

from attrs import define, field

from chatparse.adapter import (
    Ledger,
    MessageDraft,
    ToolCallPairing,
    UniqueIds,
    as_nonempty_text,
    as_text,
    as_token_count,
    dig,
    drop_payloads,
    image_ref,
    new_image,
    new_usage,
    strip_images,
)
from chatparse.decoders.value import Invalid, decode, encode
from chatparse.model import ImageRef, Usage

__all__ = ["Parts", "Transcript", "arguments", "read_parts", "result_text", "token_usage"]


@define
class Transcript:
    """What the records of one log have given so far."""

    ledger: Ledger = field(factory=Ledger)
    ids: UniqueIds = field(factory=UniqueIds)
    tools: ToolCallPairing = field(factory=ToolCallPairing)
    drafts: list[MessageDraft] = field(factory=list)

    def add(self, wanted_id: str, **fields: Any) -> MessageDraft:
        """A new message, its id made unique."""
        draft = MessageDraft(id=self.ids.take(wanted_id), **fields)
        self.drafts.append(draft)
        return draft

    def result(self, ident: str | None, value: object, where: str, **fields: Any) -> None:
        """A tool result for the call ``ident``; an orphan is kept as a message of its own."""
        text = result_text(value)
        replays = self.tools.repeated
        if self.tools.answer(ident, text, **fields) is None:
            self.add(where.replace(" ", "-"), role="user", kind="tool_result", text=text or "")
        if self.tools.repeated > replays:
            self.ledger.skip("repeated tool result")  # the first result stays
        else:
            self.ledger.use()


@define
class Parts:
    """The text, reasoning and images of a list of content parts."""

    text: list[str] = field(factory=list)
    thinking: list[str] = field(factory=list)
    images: list[ImageRef] = field(factory=list)

    def add(self, part: object) -> None:
        """One part; a kind this reader does not know adds nothing."""
        kind = as_text(dig(part, "type"))
        if kind == "text":
            text, images = strip_images(as_text(dig(part, "text")) or "")
            self.text.append(text)
            self.images.extend(images)
        elif kind == "think":
            self.thinking.append(as_text(dig(part, "think")) or "")
        elif kind in _MEDIA:
            placeholder, image = _media(part, kind)
            self.text.append(placeholder)
            if image is not None:
                self.images.append(image)

    def extend(self, draft: MessageDraft) -> None:
        """Add these parts to the end of an answer being streamed in pieces."""
        draft.text = "".join([draft.text, *self.text])
        draft.images.extend(self.images)
        if self.joined_thinking is not None:
            draft.thinking = "\n\n".join(filter(None, [draft.thinking, self.joined_thinking]))

    @property
    def joined_thinking(self) -> str | None:
        """The reasoning, ``None`` when there is none."""
        return "\n\n".join(t for t in self.thinking if t) or None


_MEDIA: Final = {"image_url": "imageUrl", "audio_url": "audioUrl", "video_url": "videoUrl"}
"""The media part kinds, with the camel-case key Kimi Code writes for each."""


def _media(part: object, kind: str) -> tuple[str, ImageRef | None]:
    """A media part's placeholder, and its image when it is one (the data is never kept)."""
    url = as_nonempty_text(dig(part, kind, "url")) or as_nonempty_text(
        dig(part, _MEDIA[kind], "url")
    )
    label = kind.removesuffix("_url")
    if url is not None and url.startswith("data:"):
        header, _, payload = url.partition(",")
        media_type = header.removeprefix("data:").partition(";")[0] or None
        image = image_ref(media_type, payload)
        return f"[{label}: {image.media_type}, {image.byte_size} bytes]", (
            image if label == "image" else None
        )
    placeholder = f"[{label}: {url}]" if url else f"[{label}]"
    return placeholder, new_image() if label == "image" else None


def read_parts(content: object) -> Parts | None:
    """The parts of ``content``: text, or a list of parts; ``None`` for any other shape."""
    parts = Parts()
    if isinstance(content, str):
        parts.add({"type": "text", "text": content})
    elif isinstance(content, list):
        for part in content:
            parts.add(part)
    else:
        return None
    return parts


def arguments(value: object) -> object:
    """Tool arguments: JSON text decoded (text that is not JSON kept); payloads dropped."""
    if isinstance(value, str) and value.strip():
        decoded = decode(value)
        value = value if isinstance(decoded, Invalid) else decoded
    return drop_payloads(value)[0]


def result_text(value: object) -> str | None:
    """A tool's output as text: text as it is, parts joined, anything else as JSON."""
    parts = read_parts(value)
    if parts is not None:
        return "\n".join(parts.text)
    if value is None:
        return None
    cleaned = drop_payloads(value)[0]
    return cleaned if isinstance(cleaned, str) else encode(cleaned)


_USAGE_KEYS: Final = {
    "snake": ("input_other", "output", "input_cache_read", "input_cache_creation"),
    "camel": ("inputOther", "output", "inputCacheRead", "inputCacheCreation"),
}


def token_usage(payload: object, style: str, dedup_key: str, ledger: Ledger) -> Usage | None:
    """A ``TokenUsage`` in the shared meaning; ``None`` when it holds no count.

    ``style`` is ``"snake"`` (Kimi CLI) or ``"camel"`` (Kimi Code).
    """
    problems: list[str] = []
    other, output, read, write = (
        as_token_count(dig(payload, key), problems, key) for key in _USAGE_KEYS[style]
    )
    for problem in problems:
        ledger.warn_once(problem)
    if other is None and read is None and write is None and output is None:
        return None
    # Without the uncached part the whole input is unknown, whatever the cached parts say.
    return new_usage(
        input_tokens=None if other is None else other + (read or 0) + (write or 0),
        output_tokens=output,
        cache_read_tokens=read,
        cache_write_tokens=write,
        dedup_key=dedup_key,
    )
