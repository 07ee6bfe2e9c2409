"""Gemini API content, as both tools store it: a ``PartListUnion`` sorted into what it holds.

A message's content is a plain string or an array of *parts*: ``{text}`` (with ``thought: true``
for a thought summary), ``{inlineData: {mimeType, data}}`` (an image or other binary, base64),
``{fileData: {mimeType, fileUri}}``, ``{functionCall: {id, name, args}}`` and
``{functionResponse: {id, name, response}}``. A ``thoughtSignature`` may ride on any part; it is
opaque (base64) and never kept. Image payloads are measured into
:class:`~chatparse.model.ImageRef` and never kept either: a placeholder such as ``[image:
image/png, 1234 bytes]`` stands where the image was, in text and inside tool arguments and
results alike.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from attrs import define, field

from chatparse.adapter import as_nonempty_text, as_text, image_ref, strip_images
from chatparse.decoders.value import encode
from chatparse.model import ImageRef

__all__ = ["Parts", "placeholder", "read_parts", "response_output", "result_output", "scrub"]


@define
class Parts:
    """What a content holds, sorted by kind, in order."""

    texts: list[str] = field(factory=list)
    thoughts: list[str] = field(factory=list)
    images: list[ImageRef] = field(factory=list)
    calls: list[dict[str, Any]] = field(factory=list)
    """The ``functionCall`` objects."""
    responses: list[dict[str, Any]] = field(factory=list)
    """The ``functionResponse`` objects."""
    odd: list[str] = field(factory=list)
    """The keys of parts of no known kind, for a warning."""


def placeholder(image: ImageRef) -> str:
    """The text that stands where an image was, as :func:`~chatparse.adapter.strip_images` puts."""
    return f"[image: {image.media_type}, {image.byte_size} bytes]"


def _add_text(found: Parts, text: str) -> None:
    cleaned, images = strip_images(text) if "data:" in text else (text, ())
    found.images.extend(images)
    found.texts.append(cleaned)


def _text(found: Parts, part: dict[str, Any]) -> None:
    text = as_text(part.get("text")) or ""
    if part.get("thought") is True:
        if text.strip():
            found.thoughts.append(text)
    else:
        _add_text(found, text)


def _inline(found: Parts, part: dict[str, Any]) -> None:
    data = part.get("inlineData")
    blob = data if isinstance(data, dict) else {}
    image = image_ref(blob.get("mimeType"), blob.get("data"))
    found.images.append(image)
    found.texts.append(placeholder(image))


def _file(found: Parts, part: dict[str, Any]) -> None:
    data = part.get("fileData")
    uri = as_nonempty_text(data.get("fileUri")) if isinstance(data, dict) else None
    found.texts.append(f"[file: {uri}]" if uri else "[file]")


def _call(found: Parts, part: dict[str, Any]) -> None:
    call = part.get("functionCall")
    if isinstance(call, dict):
        found.calls.append(call)
    else:
        found.odd.append("functionCall")


def _response(found: Parts, part: dict[str, Any]) -> None:
    response = part.get("functionResponse")
    if isinstance(response, dict):
        found.responses.append(response)
    else:
        found.odd.append("functionResponse")


# The key a part is known by, and its reader; the first key a part has decides.
_PARTS: Final[tuple[tuple[str, Callable[[Parts, dict[str, Any]], None]], ...]] = (
    ("functionCall", _call),
    ("functionResponse", _response),
    ("inlineData", _inline),
    ("fileData", _file),
    ("text", _text),
)
# Keys that carry nothing readable on their own: an opaque signature, an empty part.
_OPAQUE: Final = frozenset({"thoughtSignature", "thought"})


def read_parts(content: object) -> Parts:
    """Sort ``content`` (a string, one part, or an array of strings and parts) by kind."""
    found = Parts()
    if isinstance(content, str):
        _add_text(found, content)
        return found
    items = [content] if isinstance(content, dict) else content
    if not isinstance(items, list):
        return found
    for part in items:
        if isinstance(part, str):
            _add_text(found, part)
        elif isinstance(part, dict):
            reader = next((read for key, read in _PARTS if key in part), None)
            if reader is not None:
                reader(found, part)
            elif not set(part) <= _OPAQUE:
                found.odd.append(",".join(sorted(map(str, part))) or "{}")
        else:
            found.odd.append(type(part).__name__)
    return found


def response_output(response: dict[str, Any]) -> tuple[str | None, bool | None]:
    """The text of a ``functionResponse`` and whether it says the call failed.

    ``response.output`` is the tool's text, ``response.error`` a failure's (the call failed);
    any other response object is kept as its compact JSON text.
    """
    body = response.get("response")
    if not isinstance(body, dict):
        return (None, None) if body is None else (encode(body), None)
    output, error = as_text(body.get("output")), as_nonempty_text(body.get("error"))
    if error is not None:
        return (f"{output}\n\n{error}" if output else error), True
    if output is not None:
        return output, None
    return (encode(body) if body else None), None


def result_output(result: object) -> tuple[str | None, bool | None, list[ImageRef]]:
    """A stored tool result (a string, or parts holding ``functionResponse``), as text.

    Returns the text (responses and text parts joined by line breaks), whether a response said
    the call failed, and the images the result held.
    """
    if result is None:
        return None, None, []
    if isinstance(result, str):
        return result, None, []
    found = read_parts(result)
    texts: list[str] = []
    failed: bool | None = None
    for response in found.responses:
        output, is_error = response_output(response)
        if output is not None:
            texts.append(output)
        failed = failed or is_error
    texts += [text for text in found.texts if text]
    return ("\n".join(texts) if texts else None), failed, found.images


def scrub(value: Any, images: list[ImageRef]) -> Any:
    """``value`` (decoded JSON) with every image payload replaced by its placeholder.

    Tool arguments and displays may hold an ``inlineData`` blob or a ``data:image/...`` URI;
    each becomes an :class:`~chatparse.model.ImageRef` added to ``images``. A value without one
    is returned as it is, not copied.
    """
    if isinstance(value, str):
        if "data:" not in value:
            return value
        cleaned, found = strip_images(value)
        images.extend(found)
        return cleaned
    if isinstance(value, list):
        items = [scrub(item, images) for item in value]
        return value if all(a is b for a, b in zip(items, value, strict=True)) else items
    if isinstance(value, dict):
        blob = value.get("inlineData")
        if isinstance(blob, dict) and "data" in blob:
            image = image_ref(blob.get("mimeType"), blob.get("data"))
            images.append(image)
            return {**value, "inlineData": {**blob, "data": placeholder(image)}}
        scrubbed = {key: scrub(item, images) for key, item in value.items()}
        same = all(scrubbed[key] is item for key, item in value.items())
        return value if same else scrubbed
    return value
