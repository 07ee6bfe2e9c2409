"""Typed readers of decoded JSON: a field's value when it has the expected type, else ``None``.

Sources change shape without notice; a field that was a string may arrive as a number, an
object or ``null``. Adapters read every field through these, so a surprise becomes ``None``
(and the adapter decides what that means) instead of an exception or a wrong type in the model.
"""

from __future__ import annotations

from typing import Any

__all__ = ["as_count", "as_nonempty_text", "as_text", "dig"]


def as_text(value: object) -> str | None:
    """The value if it is a string (possibly empty)."""
    return value if isinstance(value, str) else None


def as_nonempty_text(value: object) -> str | None:
    """The value if it is a string with at least one character; ``""`` is as good as absent."""
    return value if isinstance(value, str) and value else None


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
