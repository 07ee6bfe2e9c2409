"""What a record's content holds: typed text, injected context, images and tool output."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Final

from chatparse.adapter import dig, image_ref, strip_images
from chatparse.decoders import value as jsonvalue
from chatparse.decoders.text import strip_data_uri_images
from chatparse.model import ImageRef

__all__ = [
    "IDE_REQUEST_MARKER",
    "INJECTED_CONTEXT",
    "INJECTED_EVENT_KINDS",
    "INJECTED_PREFIXES",
    "content_images",
    "content_texts",
    "cwd_in_context",
    "images",
    "is_injected",
    "tool_output",
    "typed_request",
    "visible",
]

# The IDE extension wraps the typed prompt in context; what was typed follows this marker.
IDE_REQUEST_MARKER: Final = "## My request for Codex:"

# User-role text that the harness injected rather than a person typed.
INJECTED_PREFIXES: Final = (
    "<environment_context>",
    "<user_instructions>",
    "# AGENTS.md instructions",
    "<INSTRUCTIONS>",
    "<permissions instructions>",
    "<collaboration_mode>",
    "<apps_instructions>",
    "<skills_instructions>",
    "<plugins_instructions>",
    "<multi_agent_mode>",
    "<realtime_conversation>",
)
INJECTED_EVENT_KINDS: Final = frozenset({"environment_context", "user_instructions"})
"""Kinds of older ``user_message`` events that carry injected context."""
INJECTED_CONTEXT: Final = "response_item/message: injected context"
"""Why a user-role message item nobody typed is skipped, whether known by its tag or by having
no ``user_message`` echo."""

_CWD_IN_CONTEXT: Final = re.compile(r"<cwd>(.*?)</cwd>", re.DOTALL)


def content_texts(content: object) -> list[str]:
    """The texts of a content array (``input_text``, ``output_text``, ``text`` parts)."""
    if isinstance(content, str):
        return [content]
    if not isinstance(content, list):
        return []
    return [
        part["text"]
        for part in content
        if isinstance(part, dict) and isinstance(part.get("text"), str)
    ]


def images(urls: Iterable[object]) -> tuple[ImageRef, ...]:
    """An :class:`ImageRef` per image URL or path; base64 data is measured, never kept.

    A URL or path that holds no inline image still stands for one: an ``ImageRef`` of unknown
    type and size.
    """
    refs: list[ImageRef] = []
    for url in urls:
        inline = strip_images(url)[1] if isinstance(url, str) else ()
        refs += inline or (image_ref(),)
    return tuple(refs)


def content_images(content: object) -> tuple[ImageRef, ...]:
    """The ``input_image`` parts of a content array, as :func:`images`."""
    if not isinstance(content, list):
        return ()
    return images(
        part.get("image_url")
        for part in content
        if isinstance(part, dict) and part.get("type") == "input_image"
    )


def visible(text: str) -> str:
    """Text as shown: inline base64 images replaced by a short placeholder, ends trimmed.

    Only the text is wanted here, so no :class:`ImageRef` is made: a message's images are those
    its content lists (:func:`images`).
    """
    return strip_data_uri_images(text)[0].strip()


def is_injected(text: str) -> bool:
    """Whether user-role text is harness context (environment, AGENTS.md), not a typed prompt."""
    return text.lstrip().startswith(INJECTED_PREFIXES)


def cwd_in_context(texts: Iterable[str]) -> str | None:
    """The working folder an ``<environment_context>`` block names, if one of ``texts`` has it."""
    for text in texts:
        found = _CWD_IN_CONTEXT.search(text)
        if found:
            return found[1].strip()
    return None


def typed_request(text: str) -> str:
    """What the person typed: the IDE extension's context before its marker is dropped."""
    if IDE_REQUEST_MARKER in text:
        text = text.split(IDE_REQUEST_MARKER, 1)[1]
    return visible(text)


def tool_output(output: object) -> tuple[str | None, bool | None]:
    """A tool's output as text, and whether it failed when the output says so.

    ``output`` is a string; an array of ``input_text`` / ``input_image`` items (or one such
    item); or, from shell tools, a string holding JSON ``{"output", "metadata": {"exit_code"}}``,
    whose non-zero exit code marks an error.
    """
    if isinstance(output, str):
        stripped = output.strip()
        # ``rfind``: the metadata follows the output, which may be long: found from the end at once.
        if stripped.startswith("{") and stripped.rfind('"metadata"') >= 0:
            result = jsonvalue.decode(stripped)
            if isinstance(result, dict) and isinstance(result.get("output"), str):
                exit_code = dig(result, "metadata", "exit_code")
                failed = None if not isinstance(exit_code, int) else exit_code != 0
                return visible(result["output"]), failed
        return visible(output), None
    if isinstance(output, dict):
        output = [output]
    if isinstance(output, list):
        return visible("\n".join(_output_parts(output))), None
    return None, None


def _output_parts(parts: list[object]) -> list[str]:
    """The texts of an output array, with a placeholder for each image."""
    texts = []
    for part in parts:
        if not isinstance(part, dict):
            continue
        if isinstance(part.get("text"), str):
            texts.append(part["text"])
        elif part.get("type") == "input_image":
            image = images([part.get("image_url")])[0]
            texts.append(f"[image: {image.media_type or 'unknown'}, {image.byte_size} bytes]")
    return texts
