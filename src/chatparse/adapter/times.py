"""One policy for the times sources write: when a record was made, as an aware UTC datetime.

Sources write times as ISO-8601 text, as seconds or milliseconds since the Unix epoch, as numbers
or as digits in a string. Every reader here gives an aware UTC :class:`~datetime.datetime`, or
``None`` when the value is not a time:

* ISO-8601 / RFC 3339 text **with** a zone (``Z`` or ``+02:00``) is that instant.
* ISO-8601 text **without** a zone gives ``None``. It could be local time of a machine we do not
  know, or UTC: guessing would move every time of the conversation by hours, and the model
  promises never to invent a time. An adapter that knows its source writes UTC without saying
  so (documented by the tool itself) may attach the zone before calling :func:`as_datetime`.
* An epoch number must be positive and finite, and its unit is the caller's to say: the same
  number is a time in 1970 read as milliseconds and in 2024 read as seconds. A string of at most
  20 decimal digits is read as that number; longer ones are no time (no real time has them).
* Anything else (``None``, ``True``, an object, a time out of the calendar's range) is ``None``.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Final, Literal, TypeAlias

__all__ = ["EpochUnit", "as_datetime", "as_epoch", "as_time"]

EpochUnit: TypeAlias = Literal["s", "ms"]
"""The unit of an epoch number: seconds or milliseconds since 1970-01-01T00:00:00Z."""

_PER_SECOND: Final[dict[str, int]] = {"s": 1, "ms": 1000}
_LONGEST_DIGITS: Final = 20  # year 9999 in milliseconds has 15; int() refuses past 4,300


def as_datetime(value: object) -> datetime | None:
    """ISO-8601 text with a zone as an aware UTC datetime; ``None`` for anything else.

    Text without a zone is ``None`` (see the module's policy).
    """
    if not isinstance(value, str):
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        return None
    return parsed.astimezone(UTC) if parsed.tzinfo is not None else None


def as_epoch(value: object, unit: EpochUnit) -> datetime | None:
    """A positive epoch number in ``unit`` (or its decimal digits as text), as UTC."""
    if type(value) is not int:  # an int, as most sources write times, needs no other check
        if isinstance(value, str):
            digits = value.strip()
            # isdecimal, not isdigit: int("²") raises.
            if not (digits.isdecimal() and len(digits) <= _LONGEST_DIGITS):
                return None
            value = int(digits)
        elif isinstance(value, bool) or not isinstance(value, int | float):
            return None
    if value <= 0:  # NaN passes here, and is refused by fromtimestamp below
        return None
    try:
        return datetime.fromtimestamp(value / _PER_SECOND[unit], UTC)
    except (OverflowError, OSError, ValueError):  # beyond the calendar, infinite, NaN
        return None


def as_time(value: object, unit: EpochUnit) -> datetime | None:
    """ISO-8601 text as :func:`as_datetime` reads it, else an epoch number in ``unit``."""
    # Written out rather than through as_datetime: adapters call this once per record.
    if isinstance(value, str):
        try:
            parsed = datetime.fromisoformat(value)
        except ValueError:
            return as_epoch(value, unit)  # digits (perhaps padded), or no time at all
        if parsed.tzinfo is not None:
            return parsed.astimezone(UTC)
        # Zone-less ISO text is no time; but digits fromisoformat also reads ("20240101", a
        # basic-format date) are an epoch number.
        return as_epoch(value, unit) if value.strip().isdecimal() else None
    return as_epoch(value, unit)
