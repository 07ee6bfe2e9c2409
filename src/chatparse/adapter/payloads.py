"""Base64 payloads outside message text: measured, then left out, wherever they are.

The rule "the image data itself is never kept" holds for every field of the output, not only
for message text: a tool's result may hold the image it read (Claude Code's ``Read`` of a PNG
writes it into the line's ``toolUseResult``), a tool's input the file it uploads, a record kept
raw the whole block. :func:`drop_payloads` walks a decoded JSON value and leaves, in place of
each payload, a short placeholder that keeps its media type and decoded size;
:func:`strip_payloads` does the same in a text, such as a record's raw JSON.

What counts as a payload in a text is the rule the conformance kit checks
(:func:`looks_like_base64`), so a text that went through :func:`strip_payloads` holds nothing
the kit reports.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any, Final, TypeAlias

from chatparse.adapter.build import new_image
from chatparse.adapter.text import strip_images
from chatparse.decoders.text import base64_decoded_size
from chatparse.model import ImageRef

__all__ = ["BASE64_LIMIT", "drop_payloads", "looks_like_base64", "strip_payloads"]

BASE64_LIMIT: Final = 100
"""The longest base64-looking run of characters a string may keep: anything longer that looks
like base64 (see :func:`looks_like_base64`) is a payload."""

# A run starts where the character before it cannot be part of it: tried only there, the scan
# stays linear in the text's length (tried at every position, a long word is scanned again from
# each of its letters).
_RUNS: Final = (
    (re.compile(rf"(?<![A-Za-z0-9+/])[A-Za-z0-9+/]{{{BASE64_LIMIT + 1},}}"), "/"),
    (re.compile(rf"(?<![A-Za-z0-9_-])[A-Za-z0-9_-]{{{BASE64_LIMIT + 1},}}"), "-_"),
)
# Both alphabets at once, and the padding: what a payload replaced in a text spans.
_EITHER_RUN: Final = re.compile(rf"(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{{{BASE64_LIMIT + 1},}}=*")
# Whether a text has such a run at all, answered for most texts, which have none, several times
# faster than a regular expression can: every byte of either alphabet becomes "a", others " ".
_ALPHABETS: Final = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_-"
_RUN_BYTES: Final = bytes(ord("a") if byte in _ALPHABETS else ord(" ") for byte in range(256))
_LONG_RUN: Final = b"a" * (BASE64_LIMIT + 1)
# A value that is base64 and nothing else (wrapped lines and padding allowed). Prose and code
# fail it within a few characters, at their first space or punctuation.
_BASE64_TEXT: Final = re.compile(r"[A-Za-z0-9+/_\-=\r\n]+")

_PAYLOAD_KEYS: Final = ("data", "base64", "blob")
"""Where a block keeps its payload: ``data`` (Anthropic's and MCP's image blocks, Gemini's
``inlineData``), ``base64`` (Claude Code's ``file``), ``blob`` (MCP's resources)."""
_MEDIA_KEYS: Final = ("media_type", "mimeType", "mime_type", "type")
"""Where a block names the media type of its payload; the first that holds ``type/subtype``."""
_SELF_EVIDENT: Final = "base64"
"""A key whose name says its value is base64, with or without a media type beside it."""
_IMAGE_TYPE: Final = re.compile(r"image/[A-Za-z0-9.+-]+")
"""A key that names an image type holds an image (a notebook output's ``{"image/png": ...}``)."""

_Container: TypeAlias = dict[Any, Any] | list[Any]
_Edit: TypeAlias = tuple[int, Any, str]
"""A change to make: the container (an index into the walk), the key or index in it, the new
string."""


# --- what a payload is ---------------------------------------------------------------------------


def _payload_runs(text: str) -> Iterator[tuple[re.Match[str], str]]:
    """Every run of base64 characters over the limit in ``text``, with its separators."""
    for pattern, separators in _RUNS:
        for match in pattern.finditer(text):
            yield match, separators


def _is_random(run: str, separators: str) -> bool:
    """Whether a run mixes cases and digits, with separators as rare as in random data."""
    return (
        any(c.isupper() for c in run)
        and any(c.islower() for c in run)
        and any(c.isdigit() for c in run)
        and sum(run.count(s) for s in separators) * 16 <= len(run)
    )


def _has_long_run(text: str) -> bool:
    """Whether ``text`` has a run over :data:`BASE64_LIMIT` characters of either alphabet."""
    try:
        data = text.encode()
    except UnicodeEncodeError:  # a lone surrogate: no part of a run
        data = text.encode("utf-8", "surrogatepass")
    return _LONG_RUN in data.translate(_RUN_BYTES)


def looks_like_base64(text: str) -> bool:
    """Whether ``text`` holds a base64 (or URL-safe base64) run longer than :data:`BASE64_LIMIT`.

    A run must mix upper case, lower case and digits, and its separators (``/``, or ``-`` and
    ``_``) must be rare, as in random data: deep paths and long identifiers are not payloads.

    .. versionadded:: 0.1
    """
    return (
        len(text) > BASE64_LIMIT
        and _has_long_run(text)
        and any(_is_random(match.group(), separators) for match, separators in _payload_runs(text))
    )


def _placeholder(media_type: str | None, byte_size: int) -> str:
    if media_type is not None and media_type.startswith("image/"):
        return f"[image: {media_type}, {byte_size} bytes]"
    if media_type is not None:
        return f"[base64: {media_type}, {byte_size} bytes]"
    return f"[base64: {byte_size} bytes]"


# --- in a text -----------------------------------------------------------------------------------


def strip_payloads(text: str) -> tuple[str, tuple[ImageRef, ...]]:
    """``text`` with every base64 payload in it replaced by a placeholder.

    Each ``data:image/...;base64,...`` URI is replaced as :func:`strip_images` does
    (``[image: image/png, 1234 bytes]``, and an :class:`~chatparse.model.ImageRef`); every other
    run :func:`looks_like_base64` reports, with its ``=`` padding, by ``[base64: 1234 bytes]``.
    Every other character is kept: a record's raw JSON text stays JSON, its other fields as
    they were. Use it where a payload may sit anywhere in a text (a record kept raw, a tool's
    result written as JSON text): it reads the whole text, which :func:`drop_payloads` does not
    do for every string of a value.

    .. versionadded:: 0.2
    """
    cleaned, images = strip_images(text)
    if not looks_like_base64(cleaned):
        return cleaned, images

    def replace(match: re.Match[str]) -> str:
        run = match.group()
        if not looks_like_base64(run):
            return run
        return _placeholder(None, base64_decoded_size(run))

    return _EITHER_RUN.sub(replace, cleaned), images


# --- in a JSON value -----------------------------------------------------------------------------


def _worth_a_look(text: str) -> bool:
    """Whether a string may hold a payload: a data URI has a ";", a payload is long."""
    return len(text) > BASE64_LIMIT or ";" in text


def _is_base64_text(value: object) -> bool:
    return isinstance(value, str) and bool(value) and bool(_BASE64_TEXT.fullmatch(value))


def _clean_string(text: str, images: list[ImageRef]) -> str:
    """A string value without inline images (measured into ``images``), or a placeholder."""
    if (
        len(text) > BASE64_LIMIT
        and _BASE64_TEXT.fullmatch(text, 0, BASE64_LIMIT)  # most texts fail here, early
        and _BASE64_TEXT.fullmatch(text)
        and looks_like_base64("".join(text.split()))  # lines of 76 characters: one payload
    ):
        return _placeholder(None, base64_decoded_size(text))
    cleaned, inline = strip_images(text)
    images += inline
    return cleaned


def _media_type(block: dict[Any, Any]) -> str | None:
    for key in _MEDIA_KEYS:
        value = block.get(key)
        if isinstance(value, str) and "/" in value:
            return value
    return None


def _payload_key(block: dict[Any, Any]) -> tuple[str, str | None] | None:
    """The key that holds the base64 payload of ``block`` by its shape, and its media type.

    A ``data`` or ``blob`` is a payload when the block names a media type (``image/png``) or says
    ``"type": "base64"``; a ``base64`` is one whatever is beside it. The value must be base64
    text: a block that holds something else there is left alone.
    """
    if "data" not in block and _SELF_EVIDENT not in block and "blob" not in block:
        return None  # most objects: three lookups and done
    media_type = _media_type(block)
    for key in _PAYLOAD_KEYS:
        if _is_base64_text(block.get(key)) and (
            key == _SELF_EVIDENT or media_type is not None or block.get("type") == "base64"
        ):
            return key, media_type
    return None


def _looked_at(value: object) -> bool:
    """Whether a value may hold a payload: a container, or a string worth a look."""
    if type(value) is str:
        return _worth_a_look(value)
    return isinstance(value, dict | list)


def _flat_and_short(value: _Container) -> bool:
    """Whether ``value`` is an object of short strings and scalars without a payload key.

    Most tool inputs are (a path, a command): answered here, without a walk.
    """
    if type(value) is not dict or _payload_key(value) is not None:
        return False
    for key, inner in value.items():
        if type(inner) is str:
            if _worth_a_look(inner) or (type(key) is str and key.startswith("image/")):
                return False
        elif isinstance(inner, dict | list):
            return False
    return True


class _Walk:
    """One :func:`drop_payloads`: the containers walked, and the changes to make to them."""

    def __init__(self) -> None:
        # Every container walked: (value, index of its parent or -1, its key in the parent).
        self.nodes: list[tuple[_Container, int, Any]] = []
        self.edits: list[_Edit] = []
        self.images: list[ImageRef] = []

    def run(self, value: _Container) -> _Container:
        pending: list[tuple[Any, int, Any]] = [(value, -1, None)]
        while pending:
            item, parent, key = pending.pop()
            if type(item) is str:
                cleaned = _clean_string(item, self.images)
                if cleaned is not item:
                    self.edits.append((parent, key, cleaned))
                continue
            index = len(self.nodes)
            self.nodes.append((item, parent, key))
            children = (
                self._entries(item, index)
                if isinstance(item, dict)
                else [(v, index, at) for at, v in enumerate(item) if _looked_at(v)]
            )
            pending += reversed(children)  # so that images come in document order
        return self._apply(value)

    def _entries(self, block: dict[Any, Any], index: int) -> list[tuple[Any, int, Any]]:
        """The values of ``block`` worth a look; its payloads dropped on the way."""
        found = _payload_key(block)
        if found is not None:
            self._drop(block, index, *found)
        children = []
        for key, value in block.items():
            if (
                type(key) is str
                and key.startswith("image/")
                and _IMAGE_TYPE.fullmatch(key)
                and _is_base64_text(value)
            ):
                self._drop(block, index, key, key)  # a notebook output's {"image/png": ...}
            elif (found is None or key != found[0]) and _looked_at(value):
                children.append((value, index, key))
        return children

    def _drop(self, block: dict[Any, Any], index: int, key: Any, media_type: str | None) -> None:
        size = base64_decoded_size(block[key])
        self.edits.append((index, key, _placeholder(media_type, size)))
        if media_type.startswith("image/") if media_type else block.get("type") == "image":
            self.images.append(new_image(media_type=media_type, byte_size=size))

    def _apply(self, value: _Container) -> _Container:
        """``value`` with the edits made, copying only the containers on their way to the root."""
        copies: dict[int, _Container] = {}
        for node, key, new in self.edits:
            self._copy_chain(node, copies)
            copies[node][key] = new
        return copies.get(0, value)

    def _copy_chain(self, node: int, copies: dict[int, _Container]) -> None:
        """Copy ``node`` and each ancestor not copied yet, each linked into its parent's copy."""
        chain: list[int] = []
        while node != -1 and node not in copies:
            chain.append(node)
            node = self.nodes[node][1]
        for index in reversed(chain):
            original, parent, key = self.nodes[index]
            copies[index] = dict(original) if isinstance(original, dict) else list(original)
            if parent != -1:
                copies[parent][key] = copies[index]


def drop_payloads(value: Any) -> tuple[Any, tuple[ImageRef, ...]]:
    """``value`` (a decoded JSON value) with its base64 payloads replaced by placeholders.

    A payload is found three ways:

    * by the shape of the object that holds it: ``{"type": "base64", "media_type":
      "image/png", "data": ...}`` (Anthropic's image and document sources),
      ``{"base64": ..., "type": "image/png", "originalSize": ...}`` (Claude Code's ``file``),
      ``{"type": "image", "data": ..., "mimeType": "image/png"}`` (MCP), ``{"mimeType": ...,
      "data": ...}`` (Gemini's ``inlineData``), ``{"image/png": ...}`` (a notebook cell's
      output). Its value becomes ``"[image: image/png, 1234 bytes]"``
      (``"[base64: application/pdf, 1234 bytes]"`` for other media), whatever its length; the
      rest of the object is kept;
    * a ``data:image/...;base64,...`` URI inside any string, replaced as :func:`strip_images`
      does;
    * a string that is a payload and nothing else (longer than :data:`BASE64_LIMIT`, only
      base64 characters, wrapped lines allowed, and random-looking as
      :func:`looks_like_base64` says): ``"[base64: 1234 bytes]"``.

    A payload inside a longer text (a log line that prints one) is left: looking for one in
    every string of every tool result would cost more than the parse; :func:`strip_payloads`
    does it for one text.

    Lists and objects are walked at any depth, without recursion (a value may be nested as deep
    as the decoders accept, 1,024). Nothing is changed in place: the containers on the way to a
    payload are copied, everything else is shared with ``value``, and a value without payloads
    is returned as it is. Object keys are not rewritten.

    Returns:
        The value, and an :class:`~chatparse.model.ImageRef` for each image dropped (data URIs,
        and objects whose media type is an image or that say ``"type": "image"``), in document
        order. A caller whose images are already counted elsewhere (a tool result whose image
        block made one) ignores them.

    .. versionadded:: 0.2
    """
    images: list[ImageRef] = []
    if isinstance(value, str):
        return (_clean_string(value, images) if _worth_a_look(value) else value), tuple(images)
    if not isinstance(value, dict | list) or not value or _flat_and_short(value):
        return value, ()
    walk = _Walk()
    return walk.run(value), tuple(walk.images)
