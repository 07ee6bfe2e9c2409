"""Files and inline payloads: what stands in the text where OpenCode kept an attachment.

A ``file`` part holds ``{mime, filename?, url, source?}``; its ``url`` is a ``data:`` URL with
the whole file in base64 (images, PDFs, and files read when attached in the oldest versions),
or a ``file://`` URL (a file or folder named in the prompt). Tool inputs, outputs, results and
attachments can hold the same ``data:`` URLs. No payload is ever kept: an image becomes an
:class:`~chatparse.model.ImageRef` and the placeholder ``[image: <type>, <n> bytes]``, a file
part of another type ``[file: <name>, <n> bytes]`` (or ``[file: <path>]`` when it was only
named), and a payload anywhere else the toolkit's ``[base64: <n> bytes]``
(:func:`~chatparse.adapter.drop_payloads`, :func:`~chatparse.adapter.strip_payloads`).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote, urlsplit

from chatparse.adapter import (
    as_nonempty_text,
    dig,
    drop_payloads,
    image_ref,
    strip_images,
    strip_payloads,
)
from chatparse.decoders.text import base64_decoded_size
from chatparse.decoders.value import Invalid, canonical_bytes, decode
from chatparse.model import ImageRef

__all__ = ["clean_text", "clean_value", "file_placeholder", "may_hold_payload", "strip_text"]

_DATA_URL_MARK = ";base64,"
_DATA_URL_MARK_BYTES = _DATA_URL_MARK.encode()


def may_hold_payload(raw: str | bytes) -> bool:
    """Whether a record's text may hold a base64 payload: one search in C, once a record.

    OpenCode keeps every image and file it stores as a ``data:`` URL (a ``file`` part, a tool's
    attachments; tools' results are text and metadata it writes itself). A record without one
    is read without a search of its strings beyond the inline-image one every text gets.
    """
    if isinstance(raw, bytes):
        return _DATA_URL_MARK_BYTES in raw
    return _DATA_URL_MARK in raw


def clean_text(text: str, images: list[ImageRef]) -> str:
    """``text`` with each payload replaced by a placeholder; its images go to ``images``."""
    cleaned, found = strip_payloads(text)
    images.extend(found)
    return cleaned


def clean_value(value: Any, images: list[ImageRef]) -> Any:
    """A decoded JSON value with each payload replaced, wherever it is; images to ``images``.

    Payloads in the shapes the toolkit knows are dropped first (an image counted as one); a
    ``data:`` URL of any other type, anywhere in a string, is then found in the value's JSON
    text, whose payload characters never need escaping, nor do the placeholders.
    """
    dropped, found = drop_payloads(value)
    images.extend(found)
    text = canonical_bytes(dropped).decode()
    cleaned, more = strip_payloads(text)
    if cleaned == text:
        return dropped
    images.extend(more)
    # Our own JSON text decodes; were it not to, nothing of it is kept (no payload may stay).
    again = decode(cleaned)
    return None if isinstance(again, Invalid) else again


def file_placeholder(part: dict[str, Any], images: list[ImageRef]) -> str:
    """The text that stands for a ``file`` part; an image also goes to ``images``."""
    mime = as_nonempty_text(part.get("mime"))
    url = as_nonempty_text(part.get("url")) or ""
    name = as_nonempty_text(part.get("filename")) or as_nonempty_text(dig(part, "source", "path"))
    if url.startswith("data:"):
        header, _, payload = url.partition(",")
        media = mime or header[5:].partition(";")[0] or None
        if media is not None and media.startswith("image/"):
            image = image_ref(media, payload if ";base64" in header else None)
            images.append(image)
            return f"[image: {image.media_type}, {image.byte_size} bytes]"
        size = (
            base64_decoded_size(payload) if ";base64" in header else len(unquote(payload).encode())
        )
        return f"[file: {name or media or 'data'}, {size} bytes]"
    if url.startswith("file:"):
        return f"[file: {unquote(urlsplit(url).path) or name or url}]"
    return f"[file: {name or url or mime or 'unnamed'}]"


def strip_text(text: str, images: list[ImageRef]) -> str:
    """``text`` with its ``data:image`` URIs replaced: for text a person or model wrote."""
    cleaned, found = strip_images(text)
    images.extend(found)
    return cleaned
