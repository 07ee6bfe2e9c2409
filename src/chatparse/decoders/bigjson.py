"""Stream items out of one large JSON document, such as a Copilot chat session file.

Whole-document parsers hold the raw text and the parsed tree at once; these functions hold one
item at a time. They use ijson's C backend (``yajl2_c``) whenever it is installed, which ijson's
wheels include for the common platforms, and ijson's pure-Python backend otherwise.

What is yielded follows the same string rules as :mod:`chatparse.decoders.jsonl`: invalid UTF-8
and lone surrogate escapes become U+FFFD, and non-integral numbers are ``float``, never
``Decimal``. A document that ends early or goes wrong yields the items before the damage and then
one :class:`Malformed`, never an exception. Nesting deeper than 1024 levels (the limit of
:mod:`chatparse.decoders.jsonl`) is such damage: ijson's memory grows with the square of the depth.

A number right at the point where a truncated document ends is yielded as far as it goes (``10``
cut after its first digit reads as ``1``), as no parser can tell; the :class:`Malformed` after it
says the document was cut. ``yajl2_c`` rejects integers beyond ±(2**63 - 1) as
``"integer overflow"``; they do not occur in the formats we read.
"""

from __future__ import annotations

import codecs
import functools
import io
import os
import re
from collections.abc import Generator, Iterator
from typing import IO, Any

from attrs import frozen

from chatparse.decoders._files import Source, open_binary
from chatparse.decoders._json import MAX_DEPTH

__all__ = ["Item", "Malformed", "Source", "backend_name", "iter_items", "iter_kvitems"]


@functools.cache
def _pick_backend() -> Any:
    # Imported on the first document read, not with this module: most adapters import this
    # module for files that many homes do not have, and ijson, with the decimal and logging
    # modules it brings, would otherwise weigh on every first use of such an adapter.
    import logging  # noqa: PLC0415 -- see the comment above

    import ijson  # noqa: PLC0415 -- see the comment above

    # Ask for the C backend by name: ijson's own default can be moved by the IJSON_BACKEND
    # environment variable, and the pure-Python backend is some 30 times slower.
    try:
        backend = ijson.get_backend("yajl2_c")
    except ImportError:  # pragma: no cover -- only on platforms without an ijson wheel
        backend = ijson.get_backend("python")
    logging.getLogger(__name__).debug(
        "chatparse.decoders.bigjson uses the ijson backend %s", backend.backend_name
    )
    return backend


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
# For the depth guard: escapes, every byte but quotes and brackets, and innermost pairs.
_ESCAPE_BYTES = re.compile(rb"\\.", re.DOTALL)
_NOT_STRUCTURE = bytes(byte for byte in range(256) if byte not in b'"[]{}')
_PAIR = re.compile(rb"\[\]|\{\}")
_TOO_DEEP = f"nested deeper than {MAX_DEPTH} levels"


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
    name: str = _pick_backend().backend_name
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
    import ijson  # noqa: PLC0415 -- see _pick_backend

    backend = _pick_backend()
    reader = _RepairingReader(stream)
    try:
        if kv:
            for key, item in backend.kvitems(reader, prefix, use_float=True):
                yield Item(key, item)
        else:
            for index, item in enumerate(backend.items(reader, prefix, use_float=True)):
                yield Item(index, item)
    except _TooDeepError:
        yield Malformed(reader.consumed, _TOO_DEEP)
    except ijson.JSONError as exc:
        # yajl appends a picture of the context on further lines; the first line is the reason.
        lines = str(exc).strip().splitlines()
        yield Malformed(reader.consumed, lines[0] if lines else "not valid JSON")


class _TooDeepError(Exception):
    """The document nests deeper than :data:`MAX_DEPTH`; raised by the reader to stop ijson."""


class _DepthGuard:
    """Follows the nesting depth of the bytes handed to ijson, and stops them past the limit.

    ijson keeps the prefix of every open level, each as long as the path to it, so its memory
    grows with the square of the depth: a document nested 100,000 deep took over 20 GB and was
    killed by the kernel. Stopping at the limit jsonl already applies keeps it to a few MB.
    Strings are cut out and bracket pairs folded with C-speed steps; only a chunk that may go
    past the limit is walked byte by byte.
    """

    def __init__(self) -> None:
        self.depth = 0
        self.in_string = False
        self.tripped = False

    def feed(self, chunk: bytes) -> bytes:
        """Account for ``chunk`` (never cut inside an escape); return what ijson may read of it.

        Past the limit, that is the part before the first byte too deep, and the next call
        raises :class:`_TooDeepError`, so the items before the damage are still yielded.
        """
        if self.tripped:
            raise _TooDeepError
        start_depth, start_in_string = self.depth, self.in_string
        plain = _ESCAPE_BYTES.sub(b"", chunk) if b"\\" in chunk else chunk
        # Split at quotes: every other piece is inside a string (escaped quotes are gone).
        pieces = plain.translate(None, _NOT_STRUCTURE).split(b'"')
        structure = b"".join(pieces[1::2] if self.in_string else pieces[::2])
        self.in_string ^= len(pieces) % 2 == 0
        opens = structure.count(b"[") + structure.count(b"{")
        self.depth += 2 * opens - len(structure)
        if start_depth + opens <= MAX_DEPTH:
            return chunk
        folds, rest = 0, structure
        while folds <= MAX_DEPTH and (folded := _PAIR.sub(b"", rest)) != rest:
            folds, rest = folds + 1, folded
        # Every folded pair lies above at most all the opening brackets left after folding.
        if start_depth + rest.count(b"[") + rest.count(b"{") + folds <= MAX_DEPTH:
            return chunk
        cut = _too_deep_at(chunk, start_depth, in_string=start_in_string)
        if cut is None:
            return chunk
        self.tripped = True
        if cut == 0:
            raise _TooDeepError  # an empty read would tell ijson the document ended
        return chunk[:cut]


def _too_deep_at(chunk: bytes, depth: int, *, in_string: bool) -> int | None:
    """Where in ``chunk`` the nesting first goes past the limit, walked byte by byte."""
    escaped = False
    for index, byte in enumerate(chunk):
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:  # quote
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in b"[{":
            depth += 1
            if depth > MAX_DEPTH:
                return index
        elif byte in b"]}":
            depth -= 1
    return None


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
        self._guard = _DepthGuard()
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
                # Most chunks hold no surrogate escape at all; only those need the rewrite.
                if _MAYBE_SURROGATE.search(ready) is None:
                    out = ready.encode()
                else:
                    out = _ESCAPE.sub(_keep_or_replace, ready).encode()
                return self._guard.feed(out)


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
