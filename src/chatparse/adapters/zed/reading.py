"""What every Zed thread reader shares: the reading state, tool results, images and usage.

Zed's types serialise as Rust externally tagged enums (``{"Text": "..."}``) in every version,
and its token counts are Anthropic's (``input_tokens`` without the cached parts, which come
apart as ``cache_read_input_tokens`` and ``cache_creation_input_tokens``; a count of zero may
be left out).
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
    new_usage,
    strip_images,
)
from chatparse.decoders.value import Invalid, decode
from chatparse.model import ImageRef, MessageKind, Role, Usage

__all__ = [
    "IMAGE_TYPE",
    "Reading",
    "image_part",
    "model_of",
    "result_text",
    "thread_usage",
    "tool_input",
]

IMAGE_TYPE: Final = "image/png"
"""Zed re-encodes every image it sends to a model as PNG (``LanguageModelImage``)."""
_COUNTS: Final = (
    "input_tokens",
    "output_tokens",
    "cache_read_input_tokens",
    "cache_creation_input_tokens",
)


@define
class Reading:
    """What the messages of one thread have given so far."""

    thread: str
    model: str | None = None
    ledger: Ledger = field(factory=Ledger)
    ids: UniqueIds = field(factory=UniqueIds)
    tools: ToolCallPairing = field(factory=ToolCallPairing)
    drafts: list[MessageDraft] = field(factory=list)
    odd_parts: set[str] = field(factory=set)
    current_prompt: str | None = None
    """The id of the latest prompt read (the turn an answer belongs to)."""
    answers: dict[str, MessageDraft] = field(factory=dict)
    """The last answer after each prompt (by the prompt's id), or after each message (by its
    place), whichever the version keys its usage by."""

    def add(
        self, wanted: str, role: Role, kind: MessageKind = "message", **fields: Any
    ) -> MessageDraft:
        """A new draft, its id made unique."""
        draft = MessageDraft(id=self.ids.take(wanted), role=role, kind=kind, **fields)
        self.drafts.append(draft)
        return draft

    def answer(self, ident: str | None, text: str, *, is_error: bool | None, result: Any) -> None:
        """Give a tool result to its call; a result no call made is kept as a message."""
        if self.tools.answer(ident, text, is_error=is_error, result=result) is None:
            self.add(f"result-{ident}", "user", "tool_result", text=text)


def image_part(image: object) -> tuple[str, ImageRef]:
    """An ``Image`` part's placeholder and reference (its base64 ``source`` measured, not kept)."""
    found = image_ref(IMAGE_TYPE, dig(image, "source"))
    return f"[image: {found.media_type}, {found.byte_size} bytes]", found


def _one_result(part: object) -> str | None:
    if isinstance(part, str):
        return part
    text = as_text(dig(part, "Text")) or as_text(dig(part, "text"))
    if text is not None:
        return text
    image = dig(part, "Image")
    return image_part(image)[0] if isinstance(image, dict) else None


def result_text(content: object) -> str:
    """A tool result's text, from any of its shapes over time: a string, one part, or a list."""
    parts = content if isinstance(content, list) else [content]
    texts = [t for t in map(_one_result, parts) if t is not None]
    cleaned, _ = strip_images("\n\n".join(texts))
    text: str = drop_payloads(cleaned)[0]
    return text


def tool_input(value: object, raw: object) -> Any:
    """A call's input: the parsed ``input``, else ``raw_input`` decoded when it is JSON."""
    if value is None and isinstance(raw, str) and raw.strip():
        decoded = decode(raw)
        value = raw if isinstance(decoded, Invalid) else decoded
    return drop_payloads(value)[0]


def thread_usage(value: object, dedup_key: str, problems: list[str]) -> Usage | None:
    """A ``TokenUsage`` in the shared meaning; ``None`` when it records nothing."""
    if not isinstance(value, dict):
        return None
    counts = {name: as_token_count(value.get(name, 0), problems, name) for name in _COUNTS}
    if not any(counts.values()):
        return None
    fresh, read = counts["input_tokens"], counts["cache_read_input_tokens"]
    written = counts["cache_creation_input_tokens"]
    total = None if fresh is None else fresh + (read or 0) + (written or 0)
    return new_usage(
        input_tokens=total,
        output_tokens=counts["output_tokens"],
        cache_read_tokens=read if total is not None else None,
        cache_write_tokens=written if total is not None else None,
        dedup_key=dedup_key,
    )


def model_of(value: object) -> str | None:
    """The thread's model, ``{"provider": ..., "model": ...}``: the model's id."""
    return as_nonempty_text(dig(value, "model"))
