"""Typed readers of decoded JSON: a field's value when it has the expected type, else ``None``.

Sources change shape without notice; a field that was a string may arrive as a number, an
object or ``null``. Adapters read every field through these, so a surprise becomes ``None``
(and the adapter decides what that means) instead of an exception or a wrong type in the model.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

__all__ = ["as_count", "as_datetime", "as_text", "dig"]


def as_text(value: object) -> str | None:
    """The value if it is a string (possibly empty)."""
    return value if isinstance(value, str) else None


def as_count(value: object) -> int | None:
    """The value if it is a non-negative integer (``True`` is not a count)."""
    return value if type(value) is int and value >= 0 else None


def dig(value: object, *keys: str) -> Any:
    """``value[k1][k2]…``, or ``None`` as soon as a level is not an object or lacks the key."""
    for key in keys:
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value


def as_datetime(value: object) -> datetime | None:
    """An ISO-8601 / RFC 3339 string with a time zone, as an aware UTC datetime.

    A string without a zone gives ``None``: guessing one would shift the time by hours.
    """
    if not isinstance(value, str):
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        return None
    return parsed.astimezone(UTC) if parsed.tzinfo is not None else None
