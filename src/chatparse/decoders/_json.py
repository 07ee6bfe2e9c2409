r"""One JSON text in, one Python value out, identically with ``orjson`` or the standard library.

The two parsers disagree at the edges, and chatparse's output must not depend on which one is
installed. We take orjson's rules, because it is the one we cannot configure, and bend the
standard library to them:

- ``NaN``, ``Infinity`` and numbers that overflow a double are errors;
- integers outside the 64-bit range (signed or unsigned) become floats;
- nesting deeper than :data:`MAX_DEPTH` is an error.

Lone surrogate escapes (``"\ud83d"``) are the one case where we take the standard library's side:
orjson rejects the line, we decode it and replace each lone half with U+FFFD.

Each backend has a fast path for the ordinary line, which raises for anything unusual, and both
share one slow path (:func:`parse_slow`) that decides those cases.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable
from typing import Any

from attrs import frozen

from chatparse.decoders.text import _repair_surrogates

MAX_DEPTH = 1024
"""The deepest nesting accepted: orjson's fixed limit, imposed on the standard library too."""

_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_SURROGATE_ESCAPE_BYTES = re.compile(rb"\\u[dD][89a-fA-F]")
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"')
_BRACKET = re.compile(r"[\[\]{}]")
_INT64_MIN = -(2**63)
_UINT64_MAX = 2**64 - 1


class InvalidJSONError(ValueError):
    """The text is not one JSON value that chatparse accepts; ``reason`` says why, in words.

    The reason never depends on the backend, so that malformed markers compare equal across them.
    """

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


_NOT_JSON = "not valid JSON"
_TOO_DEEP = f"nested deeper than {MAX_DEPTH} levels"


def _finite_float(text: str) -> float:
    number = float(text)
    if number - number != 0:
        raise InvalidJSONError(_NOT_JSON)
    return number


def _int_as_orjson(text: str) -> int | float:
    # Nineteen characters (sign included) always fit; only longer ones need the range check, and
    # the length is checked before ``int()`` so that a 5000-digit number never meets Python's
    # limit on converting long digit strings.
    if len(text) <= 19:
        return int(text)
    if len(text) <= 21:
        number = int(text)
        if _INT64_MIN <= number <= _UINT64_MAX:
            return number
    return _finite_float(text)


def _reject_constant(_text: str) -> Any:
    raise InvalidJSONError(_NOT_JSON)


# One decoder built once: ``json.loads`` with hooks would build a new decoder for every line.
_STDLIB_DECODER = json.JSONDecoder(
    parse_int=_int_as_orjson, parse_float=_finite_float, parse_constant=_reject_constant
)
_stdlib_decode = _STDLIB_DECODER.decode


def _stdlib_loads(line: bytes) -> Any:
    # A lone surrogate escape parses without complaint here, so it has to be looked for; orjson
    # rejects it and reaches the slow path on its own.
    if _SURROGATE_ESCAPE_BYTES.search(line) is not None:
        raise InvalidJSONError(_NOT_JSON)
    value = _stdlib_decode(line.decode())
    if _stdlib_may_exceed_depth() and _could_be_deeper(line):
        _normalize(value, ints=False)
    return value


def _stdlib_may_exceed_depth() -> bool:
    # Python 3.11's json trips RecursionError below our limit, at the interpreter's recursion
    # limit; later versions guard the C stack instead and accept deeper documents than orjson.
    return sys.version_info >= (3, 12) or sys.getrecursionlimit() > MAX_DEPTH


def _could_be_deeper(line: bytes) -> bool:
    return len(line) > 2 * MAX_DEPTH and line.count(b"[") + line.count(b"{") > MAX_DEPTH


@frozen
class Backend:
    """A JSON parser as the line reader sees it.

    Attributes:
        name: ``"orjson"`` or ``"json"``.
        loads: The fast path: parses UTF-8 bytes, raises ``ValueError`` (or ``RecursionError``)
            for anything that needs :func:`parse_slow` to decide.
        loads_text: Parses a ``str`` free of lone surrogate escapes, with the same rules.
    """

    name: str
    loads: Callable[[bytes], Any]
    loads_text: Callable[[str], Any]


STDLIB = Backend("json", _stdlib_loads, _stdlib_decode)

try:
    import orjson
except ImportError:  # pragma: no cover -- tested in a subprocess, which coverage does not follow
    ORJSON: Backend | None = None
else:
    ORJSON = Backend("orjson", orjson.loads, orjson.loads)

DEFAULT = ORJSON or STDLIB
"""The backend used unless a test swaps it: orjson when it is installed."""


def parse_slow(line: bytes, backend: Backend) -> tuple[Any, int]:
    """Parse a line the fast path refused; return the value and the number of repairs made.

    A repair is one U+FFFD put in place of an invalid UTF-8 sequence or a lone surrogate.

    Raises:
        InvalidJSONError: The line is not JSON that chatparse accepts.
    """
    text = line.decode("utf-8", "replace")
    repairs = text.count("\ufffd") - line.count("\ufffd".encode())
    try:
        if _SURROGATE_ESCAPE.search(text) is None:
            value = backend.loads_text(text)
        else:
            # Only the standard library keeps lone halves, which we then replace.
            value, repaired = _normalize(_stdlib_decode(text), ints=False)
            return value, repairs + repaired
    except RecursionError:
        return _parse_deep(text, repairs)
    except InvalidJSONError:
        raise
    except ValueError as exc:
        if "depth" in str(exc):  # orjson says "depth limit exceeded"
            raise InvalidJSONError(_TOO_DEEP) from exc
        raise InvalidJSONError(_NOT_JSON) from exc
    if backend is STDLIB and _stdlib_may_exceed_depth() and _could_be_deeper(line):
        _normalize(value, ints=False)
    return value, repairs


def _parse_deep(text: str, repairs: int) -> tuple[Any, int]:
    """Parse text too deep for the standard library's recursive parser.

    ijson's pure-Python backend builds values with an explicit stack, so it has no depth limit of
    its own; :func:`_normalize` then applies ours, and orjson's integer range.
    """
    if _max_depth(text) > MAX_DEPTH:
        # Checked first: ijson's cost grows with the square of the depth.
        raise InvalidJSONError(_TOO_DEEP)
    import ijson  # noqa: PLC0415 -- only a document this deep needs it; see bigjson._pick_backend

    try:
        (parsed,) = ijson.get_backend("python").items(text.encode(), "", use_float=True)
    except (ijson.JSONError, ValueError) as exc:
        raise InvalidJSONError(_NOT_JSON) from exc
    value, repaired = _normalize(parsed, ints=True)
    return value, repairs + repaired


def _max_depth(text: str) -> int:
    """Return how deeply the brackets of a JSON text nest, ignoring those inside strings."""
    depth = deepest = 0
    for bracket in _BRACKET.findall(_STRING.sub("", text)):
        if bracket in "[{":
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth -= 1
    return deepest


def _normalize(value: Any, *, ints: bool) -> tuple[Any, int]:
    """Repair lone surrogates in every string of ``value``, keys included, and count the repairs.

    Containers are changed in place. With ``ints``, integers outside orjson's range become floats.
    Iterative, so that a value at the depth limit cannot exhaust Python's own stack.

    Raises:
        InvalidJSONError: ``value`` is nested deeper than :data:`MAX_DEPTH`.
    """
    if not isinstance(value, (dict, list)):
        return _normalize_leaf(value, ints=ints)
    repairs = 0
    stack: list[tuple[dict[str, Any] | list[Any], int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise InvalidJSONError(_TOO_DEEP)
        if isinstance(node, dict):
            repairs += _repair_keys(node)
            entries: list[tuple[Any, Any]] = list(node.items())
        else:
            entries = list(enumerate(node))
        for key, child in entries:
            if isinstance(child, (dict, list)):
                stack.append((child, depth + 1))
                continue
            fixed, count = _normalize_leaf(child, ints=ints)
            if fixed is not child:
                node[key] = fixed
            repairs += count
    return value, repairs


def _normalize_leaf(value: Any, *, ints: bool) -> tuple[Any, int]:
    if isinstance(value, str):
        return _repair_surrogates(value)
    if ints and type(value) is int:
        return _int_as_orjson(str(value)), 0
    return value, 0


def _repair_keys(node: dict[str, Any]) -> int:
    repaired = [_repair_surrogates(key) for key in node]
    repairs = sum(count for _, count in repaired)
    if repairs:
        # Rebuilt in place to keep the key order; two keys that repair to the same text collide,
        # and the later one wins, as with any duplicate key.
        items = list(zip((key for key, _ in repaired), node.values(), strict=True))
        node.clear()
        node.update(items)
    return repairs
