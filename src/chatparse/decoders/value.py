"""One JSON value held in a string, as sources embed them, and back to text.

Tools nest JSON inside JSON (tool arguments sent as a string, a SQLite column holding a
document, a shell result that is itself JSON). :func:`decode` reads such a value with exactly
the rules of :mod:`chatparse.decoders.jsonl` (orjson's limits whichever backend runs, lone
surrogates repaired), so a value means the same wherever it was found. :func:`encode` writes a
value back as compact text, for an unknown record kept raw when the source gave no text of its
own (an item of a document, a part of a replayed state). :func:`canonical_bytes` writes a value
as bytes to digest, fast.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from attrs import frozen

from chatparse.decoders import _json
from chatparse.decoders.text import repair_surrogates

try:
    import orjson
except ImportError:  # pragma: no cover -- tested in a subprocess, which coverage does not follow
    _orjson_dumps: Callable[[Any], bytes] | None = None
else:
    _orjson_dumps = orjson.dumps

__all__ = ["Invalid", "canonical_bytes", "decode", "encode"]


@frozen
class Invalid:
    """The text is not one JSON value; ``reason`` says why, the same whichever backend ran."""

    reason: str


def decode(text: str | bytes) -> Any | Invalid:
    """The JSON value in ``text``, or :class:`Invalid`.

    A ``str`` may hold lone surrogates (from a decoder that kept them); they become U+FFFD like
    everywhere else in chatparse.
    """
    backend = _json.DEFAULT
    if isinstance(text, str):
        if backend is _json.ORJSON:
            # orjson reads a str as it is, without the copy to bytes below, and refuses lone
            # surrogates (written or escaped) itself: those go the long way round.
            try:
                return backend.loads_text(text)
            except ValueError:
                pass
        try:
            raw = text.encode()
        except UnicodeEncodeError:  # lone surrogates: rare, so repaired only when they are there
            raw = repair_surrogates(text).encode()
    else:
        raw = text
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


def canonical_bytes(value: Any) -> bytes:
    """Compact JSON of ``value`` as UTF-8 bytes, to digest; through orjson when it is installed.

    For values decoded by chatparse the bytes are the same with either backend, except floats
    written in exponent form (``2.5e-07`` by ``json``, ``2.5e-7`` by orjson). Any value nested as
    deeply as chatparse decodes (:data:`chatparse.decoders.jsonl.MAX_DEPTH`) is written.
    """
    if _orjson_dumps is not None:
        try:
            return _orjson_dumps(value)
        except TypeError:  # deeper than orjson writes (255 levels), or a lone surrogate
            pass
    return _canonical_stdlib(value)


def _canonical_stdlib(value: Any) -> bytes:
    try:
        text = encode(value)
    except RecursionError:
        text = _encode_deep(value)
    return text.encode("utf-8", "surrogatepass")


class _Punctuation(str):
    """Text to write as it is, told apart from a string value on :func:`_encode_deep`'s stack."""

    __slots__ = ()


def _encode_deep(value: Any) -> str:
    """:func:`encode` with a stack of its own, for a value nested deeper than ``json`` recurses."""
    out: list[str] = []
    todo: list[Any] = [value]
    while todo:
        item = todo.pop()
        if isinstance(item, _Punctuation):
            out.append(item)
        elif isinstance(item, dict):
            members = [
                (_Punctuation(("," if n else "") + encode(key) + ":"), member)
                for n, (key, member) in enumerate(item.items())
            ]
            out.append("{")
            todo.append(_Punctuation("}"))
            todo.extend(part for pair in reversed(members) for part in reversed(pair))
        elif isinstance(item, (list, tuple)):
            out.append("[")
            todo.append(_Punctuation("]"))
            for n in range(len(item) - 1, -1, -1):
                todo.append(item[n])
                if n:
                    todo.append(_Punctuation(","))
        else:
            out.append(encode(item))
    return "".join(out)
