"""Titles and images: the two things every adapter derives from what people typed.

One rule makes a title everywhere, so the same prompt gives the same title in every source. And
the rule "the image data itself is never kept" is applied here: an inline ``data:image/...``
URI is replaced by a short placeholder and measured into an :class:`~chatparse.model.ImageRef`.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import Final

from chatparse.adapter.build import new_image
from chatparse.decoders.text import base64_decoded_size, strip_data_uri_images
from chatparse.model import ImageRef, Message, MessageKind

__all__ = ["TITLE_LENGTH", "image_ref", "prompt_title", "strip_images", "title_from"]

_PROMPTS: Final[tuple[MessageKind, ...]] = ("message",)

TITLE_LENGTH: Final = 100
"""The longest title :func:`title_from` makes, "…" included."""


def title_from(text: str | None, limit: int = TITLE_LENGTH) -> str | None:
    """A title from a prompt: its first line with text, spaces folded, cut to ``limit``.

    Whitespace runs (tabs, non-breaking spaces) become one space; a line longer than ``limit``
    keeps its first ``limit - 1`` characters, without trailing spaces, and ends in "…". ``None``
    when ``text`` holds no visible character.
    """
    if not text:
        return None
    for line in text.splitlines():
        words = line.split()
        if words:
            folded = " ".join(words)
            return folded if len(folded) <= limit else folded[: limit - 1].rstrip() + "…"
    return None


def prompt_title(
    messages: Iterable[Message], kinds: Collection[MessageKind] = _PROMPTS
) -> str | None:
    """The :func:`title_from` of the first user message of one of ``kinds`` that has text.

    ``kinds`` are tried in their order: ``("message", "command")`` takes a typed prompt when
    there is one, else a slash command. A prompt on the main line comes before side-chain ones
    (turns replayed from another conversation, or abandoned); a conversation that is all side
    chain (a sub-agent's) takes its own first prompt.
    """
    prompts = [m for m in messages if m.role == "user" and m.kind in kinds and m.text.strip()]
    for main_line in (True, False):
        for kind in kinds:
            for message in prompts:
                if message.kind == kind and message.is_sidechain is not main_line:
                    return title_from(message.text)
    return None


def strip_images(text: str) -> tuple[str, tuple[ImageRef, ...]]:
    """``text`` with each inline ``data:image/...;base64,...`` URI replaced by a placeholder.

    The placeholder reads ``[image: image/png, 1234 bytes]``; each image becomes an
    :class:`~chatparse.model.ImageRef` of that media type and decoded size, in text order.
    """
    if ";" not in text:  # every data URI has one and most text has none: no call then
        return text, ()
    cleaned, payloads = strip_data_uri_images(text)
    if not payloads:
        return cleaned, ()
    return cleaned, tuple(
        new_image(media_type=p.media_type, byte_size=p.byte_size) for p in payloads
    )


def image_ref(media_type: object = None, data: object = None) -> ImageRef:
    """An :class:`~chatparse.model.ImageRef` from a media type and a base64 payload.

    Either may be missing or of the wrong type (then it is unknown); the payload is measured,
    not kept.
    """
    return new_image(
        media_type=media_type if isinstance(media_type, str) and media_type else None,
        byte_size=base64_decoded_size(data) if isinstance(data, str) else None,
    )
