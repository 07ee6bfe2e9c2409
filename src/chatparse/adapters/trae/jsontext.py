"""JSON that Trae sometimes stores inside strings, and the small readers of plain fields.

Some Trae builds write ``agentTaskContent``, ``meta``, ``modelInfo``, ``guideline``,
``planItems`` and ``messages`` as JSON *strings* instead of objects and arrays; the readers here
take either.
"""

from __future__ import annotations

import re
from typing import Any, Final

from attrs import define

from chatparse.decoders import value as jsonvalue

__all__ = [
    "NotJSON",
    "json_array",
    "json_object",
    "json_value",
    "kind_of",
    "lenient_string",
    "nonblank",
    "whole_number",
]


@define
class NotJSON:
    """A string that should have held JSON and does not."""

    text: str


def json_value(text: str) -> Any:
    """Decode one JSON value held in a string; :class:`NotJSON` when it is not JSON."""
    decoded = jsonvalue.decode(text)
    return NotJSON(text) if isinstance(decoded, jsonvalue.Invalid) else decoded


def json_object(value: object) -> dict[str, Any] | NotJSON | None:
    """An object, or an object written as a JSON string (as some Trae builds store them)."""
    if isinstance(value, dict):
        return value
    if isinstance(value, str) and value.strip():
        decoded = json_value(value)
        if isinstance(decoded, dict):
            return decoded
        return decoded if isinstance(decoded, NotJSON) else NotJSON(value)
    return None


def json_array(value: object) -> list[Any]:
    """An array, or an array written as a JSON string; empty for anything else."""
    if isinstance(value, str) and value.strip().startswith("["):
        value = json_value(value)
    return value if isinstance(value, list) else []


_LENIENT: Final = re.compile(r'"(?P<key>[A-Za-z_]+)"\s*:\s*"(?P<body>(?:[^"\\]|\\.)*)(?P<end>"?)')


def lenient_string(text: str, key: str) -> str | None:
    """The string value of ``key`` in text that is JSON-like but not valid (such as cut short)."""
    for match in _LENIENT.finditer(text):
        if match["key"] != key:
            continue
        body = re.sub(r"\\u[0-9a-fA-F]{0,3}\Z", "", match["body"])  # an escape cut short
        decoded = json_value(f'"{body}"')
        value = decoded if isinstance(decoded, str) else body
        return value.strip() or None
    return None


def nonblank(value: object) -> str | None:
    """The value, trimmed, if it is a string with a visible character."""
    return (value.strip() or None) if isinstance(value, str) else None


def whole_number(value: object) -> int | None:
    """An integer, or a float without a fraction (``bool`` is not a number here)."""
    if type(value) is int:  # the common case
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


_KINDS: Final = {dict: "an object", list: "an array", str: "a string", bool: "a boolean"}


def kind_of(value: object) -> str:
    """What a JSON value is, in words for a warning (``"an object"``, ``"null"``...)."""
    if value is None:
        return "null"
    return _KINDS.get(type(value), "a number" if isinstance(value, (int, float)) else "a value")
