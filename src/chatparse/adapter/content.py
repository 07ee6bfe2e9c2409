"""A message's content as most chat formats write it: a string, or text and image parts.

OpenAI's chat messages set the shape most tools copy: ``content`` is the text, or a list of
parts tagged by ``type``, of which the text parts hold ``text`` and the image parts an image
(by URL, a data URI, or a payload) in a shape each format names its own way.
:func:`content_text` reads such a content given a reader for each image type, and
:func:`image_at` reads an image given by URL; image data is never kept (see
:func:`~chatparse.adapter.strip_images`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeAlias

from chatparse.adapter.build import new_image
from chatparse.adapter.fields import dig
from chatparse.adapter.text import image_ref, strip_images
from chatparse.model import ImageRef

__all__ = ["ImagePart", "content_text", "image_at"]


def image_at(url: str) -> tuple[str, ImageRef]:
    """An image given by its URL: a placeholder for the text, and its reference.

    A ``data:`` URI is measured and dropped (``[image: image/png, 1234 bytes]``, whatever the
    media type it names); a link is kept in the placeholder (``[image: https://...]``), with a
    reference of unknown type and size; an empty URL reads ``[image]``.
    """
    if url.startswith("data:"):
        header, _, payload = url.partition(",")
        image = image_ref(header.removeprefix("data:").partition(";")[0], payload)
        return f"[image: {image.media_type}, {image.byte_size} bytes]", image
    return (f"[image: {url}]" if url else "[image]"), new_image()


ImagePart: TypeAlias = Callable[[dict[str, Any]], Iterable[tuple[str, ImageRef]]]
"""Reads one image part of a message's content: a placeholder and a reference per image it
holds (most hold one; :func:`image_at` reads one given by URL)."""


def content_text(
    content: object, images: Mapping[str, ImagePart], odd: set[str] | None = None
) -> tuple[str, list[ImageRef]] | None:
    """Text and images of a message's ``content``: a string, or a list of text and image parts.

    The shape most chat formats share. A string is the text. In a list, a part whose ``type`` is
    a key of ``images`` is read by that reader, its placeholders taking the image's place in the
    text; any other part with a string ``text`` is text. Inline ``data:image/...`` URIs in a text
    are replaced by placeholders too (:func:`strip_images`). The texts and placeholders are
    joined by line breaks. A part of neither kind is passed over, its ``type`` (or, without one,
    its Python type name) added to ``odd`` when given, for a warning.

    ``None`` when ``content`` is neither a string nor a list (``None`` included: whether a
    missing content is an empty message or a malformed record is the format's to say).
    """
    if isinstance(content, str):
        text, found = strip_images(content)
        return text, list(found)
    if not isinstance(content, list):
        return None
    texts: list[str] = []
    refs: list[ImageRef] = []
    for part in content:
        kind = dig(part, "type")
        reader = images.get(kind) if isinstance(kind, str) else None
        if reader is not None:
            for placeholder, image in reader(part):
                texts.append(placeholder)
                refs.append(image)
        elif isinstance(text := dig(part, "text"), str):
            cleaned, found = strip_images(text)
            texts.append(cleaned)
            refs.extend(found)
        elif odd is not None:
            odd.add(kind if isinstance(kind, str) else type(part).__name__)
    return "\n".join(texts), refs
