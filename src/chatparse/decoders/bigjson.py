"""Stream items out of one large JSON document, such as a Copilot chat session file.

Whole-document parsers hold the raw text and the parsed tree at once; these functions hold one
item at a time. They use ijson's C backend (``yajl2_c``) whenever it is installed, which ijson's
wheels include for the common platforms, and ijson's pure-Python backend otherwise.

What is yielded follows the same string rules as :mod:`chatparse.decoders.jsonl`: invalid UTF-8
and lone surrogate escapes become U+FFFD, and non-integral numbers are ``float``, never
``Decimal``. A document that ends early or goes wrong yields the items before the damage and then
one :class:`Malformed`, never an exception.

A number right at the point where a truncated document ends is yielded as far as it goes (``10``
cut after its first digit reads as ``1``), as no parser can tell; the :class:`Malformed` after it
says the document was cut. ``yajl2_c`` rejects integers beyond ±(2**63 - 1) as
``"integer overflow"``; they do not occur in the formats we read.
"""

from __future__ import annotations

import codecs
import io
import logging
import os
import re
from collections.abc import Generator, Iterator
from typing import IO, Any

import ijson
from attrs import frozen

from chatparse.decoders._files import Source, open_binary

__all__ = ["Item", "Malformed", "Source", "backend_name", "iter_items", "iter_kvitems"]

_log = logging.getLogger(__name__)


def _pick_backend() -> Any:
    # Ask for the C backend by name: ijson's own default can be moved by the IJSON_BACKEND
    # environment variable, and the pure-Python backend is some 30 times slower.
    try:
        return ijson.get_backend("yajl2_c")
    except ImportError:  # pragma: no cover -- only on platforms without an ijson wheel
        return ijson.get_backend("python")


_backend = _pick_backend()
_log.debug("chatparse.decoders.bigjson uses the ijson backend %s", _backend.backend_name)

_READ_SIZE = 64 * 1024

# A lone surrogate escape is rewritten to ``\ufffd`` (same length) before ijson sees it: yajl
# would turn it into "?", and the other backends into a lone surrogate. An escaped backslash is
# matched first so that ``\\ud83d`` (a backslash, then text) is left alone.
_ESCAPE = re.compile(
    r"\\\\|(\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2})|\\u[dD][89a-fA-F][0-9a-fA-F]{2}"
)
# The longest end of a chunk that could be part of an escape still being read.
_UNFINISHED_ESCAPE = re.compile(r"\\[\\uU0-9a-fA-F]*\Z")
_TAIL = 64
_MAYBE_SURROGATE = re.compile(r"\\u[dD][89a-fA-F]")


@frozen
class Item:
    """One value found under the prefix.

    Attributes:
        key: The index within the array (for :func:`iter_items`), or the object key (for
            :func:`iter_kvitems`).
        value: The decoded JSON value.
    """

    key: int | str
    value: Any


@frozen
class Malformed:
    """The point where the document stopped making sense; nothing follows it.

    Attributes:
        offset: How many bytes of the source had been read when the problem was found: the exact
            size of a truncated document, otherwise within 64 KiB after the problem.
        reason: What the parser reported, such as ``"parse error: premature EOF"``.
    """

    offset: int
    reason: str


def backend_name() -> str:
    """Return the ijson backend in use: ``"yajl2_c"`` wherever ijson has its C extension."""
    name: str = _backend.backend_name
    return name


def iter_items(source: Source | bytes, prefix: str) -> Generator[Item | Malformed, None, None]:
    """Yield each value found at ``prefix``, one at a time, numbered from 0.

    Args:
        source: A path; a binary stream, read from its current position; or ``bytes`` holding the
            document itself, such as a value from a database (a ``str`` document is passed as
            ``text.encode()``).
        prefix: An ijson prefix, which names array elements with ``item``:
            ``"requests.item"`` for the elements of the array under the top-level key
            ``requests``, ``"item"`` for those of a top-level array, ``""`` for the whole
            document as one value.

    Raises:
        chatparse.errors.SourceUnavailableError: ``source`` is a path that cannot be opened.
    """
    yield from _iterate(source, prefix, kv=False)


def iter_kvitems(source: Source | bytes, prefix: str) -> Generator[Item | Malformed, None, None]:
    """Yield each key and value of the object found at ``prefix``, one at a time.

    Arguments as for :func:`iter_items`; a ``prefix`` of ``""`` means the top-level object.
    """
    yield from _iterate(source, prefix, kv=True)


def _iterate(
    source: Source | bytes, prefix: str, *, kv: bool
) -> Generator[Item | Malformed, None, None]:
    if isinstance(source, bytes):
        yield from _parse(io.BytesIO(source), prefix, kv=kv)
    elif isinstance(source, (str, os.PathLike)):
        with open_binary(source) as stream:
            yield from _parse(stream, prefix, kv=kv)
    else:
        yield from _parse(source, prefix, kv=kv)


def _parse(stream: IO[bytes], prefix: str, *, kv: bool) -> Iterator[Item | Malformed]:
    reader = _RepairingReader(stream)
    try:
        if kv:
            for key, item in _backend.kvitems(reader, prefix, use_float=True):
                yield Item(key, item)
        else:
            for index, item in enumerate(_backend.items(reader, prefix, use_float=True)):
                yield Item(index, item)
    except ijson.JSONError as exc:
        # yajl appends a picture of the context on further lines; the first line is the reason.
        lines = str(exc).strip().splitlines()
        yield Malformed(reader.consumed, lines[0] if lines else "not valid JSON")


class _RepairingReader:
    """A binary reader that hands ijson well-formed UTF-8 with no lone surrogate escapes.

    Invalid bytes become U+FFFD as the standard library's decoder replaces them. A chunk is only
    passed on up to the last point where no escape can be cut in half, so a pair split between two
    reads is still seen as a pair.
    """

    def __init__(self, stream: IO[bytes]) -> None:
        self._read = stream.read
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self._held = ""
        self.consumed = 0

    def read(self, size: int = _READ_SIZE) -> bytes:
        """Return the next repaired bytes: empty only at the end of the source."""
        if size == 0:
            # ijson reads zero bytes first to learn whether the stream gives bytes or text.
            return b""
        while True:
            raw = self._read(size if size > 0 else _READ_SIZE)
            self.consumed += len(raw)
            text = self._held + self._decoder.decode(raw, final=not raw)
            cut = len(text)
            if raw:
                unfinished = _unfinished_escape(text)
                if unfinished is not None:
                    cut = unfinished
            self._held = text[cut:]
            ready = text[:cut]
            if ready or not raw:
                # Most chunks hold no \u escape at all; only those need the (slower) rewrite.
                if "\\u" not in ready:
                    return ready.encode()
                return _ESCAPE.sub(_keep_or_replace, ready).encode()


def _unfinished_escape(text: str) -> int | None:
    """Where an escape that may continue in the next chunk starts, if the text ends in one."""
    # Look at the tail first: searching the whole chunk for an end anchor costs a full scan.
    window = max(0, len(text) - _TAIL)
    match = _UNFINISHED_ESCAPE.search(text, window)
    if match is not None and match.start() == window and window > 0:
        match = _UNFINISHED_ESCAPE.search(text)  # the run is longer than the window
    return None if match is None else match.start()


def _keep_or_replace(match: re.Match[str]) -> str:
    escape = match[0]
    return escape if escape == "\\\\" or match[1] else "\\ufffd"
