"""One JSON value held in a string, as sources embed them, and back to text.

Tools nest JSON inside JSON (tool arguments sent as a string, a SQLite column holding a
document, a shell result that is itself JSON). :func:`decode` reads such a value with exactly
the rules of :mod:`chatparse.decoders.jsonl` (orjson's limits whichever backend runs, lone
surrogates repaired), so a value means the same wherever it was found. :func:`encode` writes a
value back as compact text, for an unknown record kept raw when the source gave no text of its
own (an item of a document, a part of a replayed state).
"""

from __future__ import annotations

import json
from typing import Any

from attrs import frozen

from chatparse.decoders import _json
from chatparse.decoders.text import repair_surrogates

__all__ = ["Invalid", "decode", "encode"]


@frozen
class Invalid:
    """The text is not one JSON value; ``reason`` says why, the same whichever backend ran."""

    reason: str


def decode(text: str | bytes) -> Any | Invalid:
    """The JSON value in ``text``, or :class:`Invalid`.

    A ``str`` may hold lone surrogates (from a decoder that kept them); they become U+FFFD like
    everywhere else in chatparse.
    """
    if isinstance(text, str):
        try:
            raw = text.encode()
        except UnicodeEncodeError:  # lone surrogates: rare, so repaired only when they are there
            raw = repair_surrogates(text).encode()
    else:
        raw = text
    backend = _json.DEFAULT
    try:
        return backend.loads(raw)
    except (ValueError, RecursionError):
        try:
            value, _repairs = _json.parse_slow(raw, backend)
        except _json.InvalidJSONError as exc:
            return Invalid(exc.reason)
        return value


def encode(value: Any) -> str:
    """Compact JSON text of ``value``, not ASCII-escaped; the same with or without orjson."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
