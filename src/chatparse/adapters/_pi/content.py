"""The content of a Pi message: text, thinking, images and tool calls, out of its blocks.

Pi writes content as a string or as an array of blocks: ``{type: "text", text}``, ``{type:
"thinking", thinking, thinkingSignature?}``, ``{type: "image", data, mimeType}`` and ``{type:
"toolCall", id, name, arguments}``. Image payloads are measured into
:class:`~chatparse.model.ImageRef` and never kept: a placeholder such as ``[image: image/png, 1234
bytes]`` stands where the image was, in text and inside structured tool data alike. Signatures
(opaque, base64) are never kept either.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Final

from attrs import define, field

from chatparse.adapter import as_text, image_ref, strip_images
from chatparse.model import ImageRef

__all__ = [
    "OPAQUE_BLOCKS",
    "Blocks",
    "placeholder",
    "read_blocks",
    "result_text",
    "scrub",
    "single_text",
]

# Blocks that carry nothing readable: encrypted reasoning, a provider's own server-side tool
# record, and OMP's marker that a request was routed elsewhere.
OPAQUE_BLOCKS: Final = frozenset({"redactedThinking", "anthropicServerTool", "fallback"})

# Keys that hold an image's base64 payload in Pi's blocks and in tools' structured details.
_PAYLOAD_KEYS: Final = ("data", "base64")


@define
class Blocks:
    """What a content array holds, sorted by kind."""

    texts: list[str] = field(factory=list)
    thinking: list[str] = field(factory=list)
    images: list[ImageRef] = field(factory=list)
    calls: list[dict[str, Any]] = field(factory=list)
    odd: list[str] = field(factory=list)
    """The types of blocks of no known kind, kept for a warning."""

    def text(self, separator: str = "\n\n") -> str:
        """The texts joined, with image placeholders in place (already in ``texts``)."""
        return separator.join(self.texts) if len(self.texts) != 1 else self.texts[0]


def placeholder(image: ImageRef) -> str:
    """The text that stands where an image was, as :func:`~chatparse.adapter.strip_images` puts."""
    return f"[image: {image.media_type}, {image.byte_size} bytes]"


def read_blocks(content: object) -> Blocks:
    """Sort ``content`` (a string, or an array of blocks) into texts, thinking, images, calls."""
    found = Blocks()
    if isinstance(content, str):
        _add_text(found, content)
        return found
    if not isinstance(content, list):
        return found
    for block in content:
        if isinstance(block, dict):
            kind = block.get("type")
            read = _BLOCKS.get(kind) if isinstance(kind, str) else None
            if read is not None:
                read(found, block)
            elif not isinstance(kind, str) or kind not in OPAQUE_BLOCKS:
                found.odd.append(str(kind))
        elif isinstance(block, str):
            _add_text(found, block)
        else:
            found.odd.append(type(block).__name__)
    return found


def _add_text(found: Blocks, text: str) -> None:
    if ";" in text:  # every data URI has one; most texts have none
        text, images = strip_images(text)
        found.images.extend(images)
    found.texts.append(text)


def _text(found: Blocks, block: dict[str, Any]) -> None:
    _add_text(found, as_text(block.get("text")) or "")


def _thinking(found: Blocks, block: dict[str, Any]) -> None:
    thinking = as_text(block.get("thinking"))
    if thinking and thinking.strip():  # redacted thinking is empty: its payload is opaque
        found.thinking.append(thinking)


def _image(found: Blocks, block: dict[str, Any]) -> None:
    image = image_ref(block.get("mimeType"), block.get("data"))
    found.images.append(image)
    found.texts.append(placeholder(image))


_BLOCKS: Final[dict[str, Callable[[Blocks, dict[str, Any]], None]]] = {
    "text": _text,
    "toolCall": lambda found, block: found.calls.append(block),
    "thinking": _thinking,
    "image": _image,
}


def result_text(content: object) -> tuple[str, list[ImageRef]]:
    """A tool result's content as one text (blocks joined by a line break), and its images."""
    single = single_text(content)
    if single is not None:
        return single, []
    found = read_blocks(content)
    return found.text("\n"), found.images


def single_text(content: object) -> str | None:
    """The text of content that is one string or one text block without images; else ``None``.

    Most prompts and tool results are; they need no :class:`Blocks`.
    """
    if type(content) is list and len(content) == 1:
        block = content[0]
        content = block.get("text") if type(block) is dict and block.get("type") == "text" else None
    if type(content) is not str or (";" in content and "data:image/" in content):
        return None
    return content


def scrub(value: Any, images: list[ImageRef]) -> Any:
    """``value`` (decoded JSON) with every image payload replaced by its placeholder.

    Tools' structured details and arguments may carry an image (``{type: "image", data,
    mimeType}``) or a ``data:image/...`` URI; each becomes an :class:`~chatparse.model.ImageRef`
    added to ``images``. Values without one are returned as they are: a container is copied only
    when something in it changed. Every tool call and result goes through here, and almost none
    holds an image, so the common cases (strings without ``;``, numbers) are passed over early.
    """
    kind = type(value)
    if kind is str:
        if ";" not in value:  # every data URI has one; most strings have none
            return value
        cleaned, found = strip_images(value)
        images.extend(found)
        return cleaned
    if kind is dict:
        if _is_image(value):
            image = image_ref(value.get("mimeType") or value.get("mediaType"), _payload(value))
            images.append(image)
            return {**value, **dict.fromkeys(_present(value), placeholder(image))}
        return _scrub_items(value, value.items(), dict, images)
    if kind is list:
        return _scrub_items(value, enumerate(value), list, images)
    return value


def _scrub_items(
    value: Any, items: Iterable[tuple[Any, Any]], copy: Callable[[Any], Any], images: list[ImageRef]
) -> Any:
    """A dict or list with its changed items replaced, copied only when one changed."""
    changed = None
    for key, item in items:
        if _plain(item):
            continue
        new = scrub(item, images)
        if new is not item:
            changed = changed if changed is not None else copy(value)
            changed[key] = new
    return value if changed is None else changed


def _plain(item: object) -> bool:
    """Whether ``item`` certainly holds no image: a string without ``;``, a number, ``null``."""
    kind = type(item)
    return (kind is str and ";" not in item) or kind in _SCALARS  # type: ignore[operator] # item is a str there


_SCALARS: Final = frozenset({int, float, bool, type(None)})


def _is_image(value: dict[str, Any]) -> bool:
    kind = value.get("type")
    return (kind == "image" or "mimeType" in value) and any(
        isinstance(value.get(key), str) for key in _PAYLOAD_KEYS
    )


def _payload(value: dict[str, Any]) -> str | None:
    return next((value[key] for key in _present(value)), None)


def _present(value: dict[str, Any]) -> Iterable[str]:
    return [key for key in _PAYLOAD_KEYS if isinstance(value.get(key), str)]
