"""Typed readers of decoded JSON: a field's value when it has the expected type, else ``None``.

Sources change shape without notice; a field that was a string may arrive as a number, an
object or ``null``. Adapters read every field through these, so a surprise becomes ``None``
(and the adapter decides what that means) instead of an exception or a wrong type in the model.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

__all__ = [
    "LARGEST_TOKEN_COUNT",
    "as_count",
    "as_nonempty_text",
    "as_text",
    "as_token_count",
    "dig",
    "parts_within_wholes",
]


def as_text(value: object) -> str | None:
    """The value if it is a string (possibly empty)."""
    return value if isinstance(value, str) else None


def as_nonempty_text(value: object) -> str | None:
    """The value if it is a string with at least one character; ``""`` is as good as absent."""
    return value if isinstance(value, str) and value else None


def as_count(value: object) -> int | None:
    """The value if it is a non-negative integer (``True`` is not a count)."""
    return value if type(value) is int and value >= 0 else None


LARGEST_TOKEN_COUNT: Final = 10**12
"""The largest token count :func:`as_token_count` takes: no response reads or writes a trillion
tokens, so a larger number is damage, and would make every total that includes it wrong."""


def as_token_count(value: object, problems: list[str], name: str) -> int | None:
    """A token count: an integer from 0 to :data:`LARGEST_TOKEN_COUNT`, else ``None``.

    A value that is there but is no count (negative, fractional, a boolean, text, absurdly
    large) is described in ``problems`` under ``name``, for the adapter to put in its
    diagnostics: it is left out of every total, never counted wrong, and never unexplained.
    """
    if type(value) is int and 0 <= value <= LARGEST_TOKEN_COUNT:
        return value
    if value is not None:
        problems.append(f"{name} {value!r} is not a token count; left out")
    return None


def parts_within_wholes(
    counts: Mapping[str, int | None], problems: list[str]
) -> dict[str, int | None]:
    """``counts`` without a part that is larger than its whole, each one left out described.

    ``counts`` are keyed by :class:`~chatparse.model.Usage`'s field names. Cache reads and
    writes are parts of ``input_tokens`` (together: both are left out when their sum is larger)
    and reasoning is part of ``output_tokens``; a damaged record can say otherwise, and a usage
    that did would break the one meaning every source shares. What is left out is described in
    ``problems``, for the adapter to put in its diagnostics, as :func:`as_token_count` does.
    """
    kept = dict(counts)
    cached = (kept.get("cache_read_tokens") or 0) + (kept.get("cache_write_tokens") or 0)
    prompt = kept.get("input_tokens")
    if prompt is not None and cached > prompt:
        problems.append(
            f"cache reads and writes ({cached}) exceed input_tokens ({prompt}); left out"
        )
        kept["cache_read_tokens"] = kept["cache_write_tokens"] = None
    reasoning, output = kept.get("reasoning_tokens"), kept.get("output_tokens")
    if reasoning is not None and output is not None and reasoning > output:
        problems.append(f"reasoning_tokens ({reasoning}) exceed output_tokens ({output}); left out")
        kept["reasoning_tokens"] = None
    return kept


def dig(value: object, *keys: str) -> Any:
    """``value[k1][k2]…``, or ``None`` as soon as a level is not an object or lacks the key."""
    for key in keys:
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value
