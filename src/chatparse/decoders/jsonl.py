"""A tolerant, streaming reader for JSON Lines files that another program may still be writing.

Every physical line that is not blank becomes exactly one :class:`Line` or one :class:`Malformed`,
so an adapter can account for every record it saw. Nothing in the file stops the iteration: bad
JSON, invalid UTF-8, absurd nesting, a line of gigabytes, or a last line torn off mid-write.

Memory is bounded by the longest line accepted (``max_line_bytes``), never by the file. Lines are
parsed by ``orjson`` when it is installed (``pip install chatparse[fast]``) and by the standard
library otherwise; the results are the same either way, down to the wording of ``reason``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Generator, Iterable, Iterator
from contextlib import closing, contextmanager
from functools import partial
from typing import IO, Any

from attrs import define, frozen

from chatparse.decoders import _json
from chatparse.decoders._files import Source, open_binary
from chatparse.decoders.text import repair_surrogates

__all__ = [
    "MAX_DEPTH",
    "MAX_LINE_BYTES",
    "Line",
    "Malformed",
    "Source",
    "backend_name",
    "iter_lines",
    "read_first_line",
    "read_spans",
]

MAX_LINE_BYTES = 64 * 1024 * 1024
"""The default cap on one line: longer lines are reported malformed, not parsed."""

MAX_DEPTH = _json.MAX_DEPTH
"""The deepest nesting parsed; deeper values are malformed (never a ``RecursionError``)."""

# Lines are read in pieces of this size: a line longer than one piece is assembled (or, past the
# cap, skipped) piece by piece, so the cap bounds memory even for a line with no newline at all.
_CHUNK = 1024 * 1024
_BOM = b"\xef\xbb\xbf"

# The decoder used by iter_lines; tests swap it to run every test against both backends.
_backend = _json.DEFAULT


# Not frozen: a frozen attrs class sets each field through object.__setattr__, and one record is
# built per line; a plain slotted class stores its fields directly, which made the whole reader
# about 6 % faster (0.78 -> 0.84 of a bare orjson loop). Treat it as read-only all the same.
@define(slots=True)
class Line:
    """One decoded line.

    Attributes:
        line_no: The physical line number, from 1 (or from ``first_line_no``).
        offset: The byte offset where the line starts.
        end_offset: The byte offset just past the line and its newline: where to resume reading.
        value: The decoded JSON value: usually a ``dict``, but any JSON value is passed on as is
            (``"text"``, ``42``, ``[1]``), and the adapter decides what a non-object means.
        repairs: How many U+FFFD characters were put in place of invalid UTF-8 sequences and lone
            surrogates; ``0`` for almost every line.
    """

    line_no: int
    offset: int
    end_offset: int
    value: Any
    repairs: int = 0


@frozen
class Malformed:
    """One line that could not be decoded, and why.

    Attributes:
        line_no: The physical line number.
        offset: The byte offset where the line starts.
        end_offset: Where to resume reading: just past the line, except for a torn last line (one
            without a newline that does not parse), where it is the line's own ``offset``, so that
            a reader tailing the file reads the line again once its writer has finished it.
        reason: A short phrase, such as ``"not valid JSON"``; the same whichever backend ran.
    """

    line_no: int
    offset: int
    end_offset: int
    reason: str


def backend_name() -> str:
    """Return the JSON parser in use: ``"orjson"`` when installed, else ``"json"``."""
    return _backend.name


def iter_lines(
    source: Source,
    *,
    start: int = 0,
    first_line_no: int = 1,
    max_line_bytes: int = MAX_LINE_BYTES,
) -> Generator[Line | Malformed, None, None]:
    """Yield each non-blank line of a JSON Lines file, decoded or marked malformed.

    Lines may end in LF or CRLF; a UTF-8 byte order mark at offset 0 is skipped; blank lines
    (spaces, tabs, CR) are skipped without a trace except in the line numbers.

    Args:
        source: A path, opened and read from ``start``; or a binary stream, read from where it is,
            which is taken to be offset ``start`` (the stream is never seeked, so pipes work).
        start: Where reading begins: 0, or the ``end_offset`` of the last record of a previous
            read, to pick up what a writer has appended since. (A file now shorter than that
            was replaced or truncated: the caller should read it again from 0.)
        first_line_no: The number of the first line read: when resuming, the last record's
            ``line_no`` plus one for a :class:`Line`, and its own ``line_no`` for a torn
            :class:`Malformed` (which is read again). Reading a path from just after a last line
            that had no newline yet, the newline that completes it is not counted as a line.
        max_line_bytes: Lines longer than this, newline included, are reported as malformed; they
            are skipped in pieces and never held in memory whole.

    Raises:
        chatparse.errors.SourceUnavailableError: ``source`` is a path that cannot be opened.
    """
    with _opened(source, start) as (stream, resumed_mid_line):
        # After a last line that had no newline, the newline its writer adds later ends that
        # line; it must not be counted as a line of its own.
        line_no = first_line_no - resumed_mid_line
        # The hot loop lives here, in the generator the caller iterates: one readline, one parse
        # and one record per ordinary line, with no generator or iterator stacked in between
        # (each layer cost about 4 % of the throughput). Everything unusual (long, blank, torn,
        # invalid) is caught by one cheap test or by the parser failing, and handled out of line.
        readline = stream.readline
        chunk = min(max_line_bytes, _CHUNK)
        backend = _backend
        loads = backend.loads
        offset = start
        if start == 0:
            # Only the first line can carry a byte order mark; it takes the general path.
            first, offset, end = _read_first_line(readline, chunk, max_line_bytes)
            if end > offset:  # a line was read (empty only if it was over the cap)
                record = _decode_any(first, (line_no, offset, end), backend, max_line_bytes)
                if record is not None:
                    yield record
                offset = end
                line_no += 1
        for line in iter(partial(readline, chunk), b""):
            line_start = offset
            offset += len(line)
            if len(line) == chunk and line[-1:] != b"\n":
                line, offset = _read_long_line(readline, line, offset, max_line_bytes)  # noqa: PLW2901 -- the rest of the same line
            try:
                value = loads(line)
            except (ValueError, RecursionError):
                record = _decode_unusual(
                    line, (line_no, line_start, offset), backend, max_line_bytes
                )
                if record is not None:
                    yield record
            else:
                yield Line(line_no, line_start, offset, value)
            line_no += 1


@contextmanager
def _opened(source: Source, start: int) -> Iterator[tuple[IO[bytes], bool]]:
    """The stream to read, and whether ``start`` falls just after an unterminated line.

    A path is opened (and closed afterwards) and seeked to ``start``; a stream is read from where
    it is, and nothing is known about what precedes it.
    """
    if not isinstance(source, (str, os.PathLike)):
        yield source, False
        return
    with open_binary(source) as stream:
        resumed_mid_line = False
        if start:
            stream.seek(start - 1)
            resumed_mid_line = stream.read(1) not in {b"\n", b""}
        yield stream, resumed_mid_line


def read_first_line(
    source: Source, *, max_line_bytes: int = MAX_LINE_BYTES
) -> Line | Malformed | None:
    """Decode only the first non-blank line, for detecting a file's format or reading its header.

    Consumes nothing past that line's newline (a path is read through an ordinary file buffer),
    so it is cheap on files of any size. Returns ``None`` for a file with no non-blank line.

    Raises:
        chatparse.errors.SourceUnavailableError: ``source`` is a path that cannot be opened.
    """
    with closing(iter_lines(source, max_line_bytes=max_line_bytes)) as records:
        return next(records, None)


def _read_first_line(
    readline: Callable[[int], bytes], chunk: int, max_line_bytes: int
) -> tuple[bytes, int, int]:
    """The first line without its byte order mark, where it starts, and the offset after it.

    Whether the line goes on past the first piece is judged before the mark is cut off: a piece
    of ``chunk`` bytes less the mark's three is still a whole piece.
    """
    line = readline(chunk)
    longer = len(line) == chunk and line[-1:] != b"\n"
    start = 0
    if line.startswith(_BOM):
        line = line[len(_BOM) :]
        start = len(_BOM)
    end = start + len(line)
    if longer:
        line, end = _read_long_line(readline, line, end, max_line_bytes)
    return line, start, end


def _decode_any(
    line: bytes, where: tuple[int, int, int], backend: _json.Backend, max_line_bytes: int
) -> Line | Malformed | None:
    """Decide one line the way the hot loop of :func:`iter_lines` does, out of line."""
    try:
        value = backend.loads(line)
    except (ValueError, RecursionError):
        return _decode_unusual(line, where, backend, max_line_bytes)
    return Line(*where, value)


def _read_long_line(
    readline: Callable[[int], bytes], head: bytes, offset: int, max_line_bytes: int
) -> tuple[bytes, int]:
    """Read the rest of a line longer than one piece; return it, or ``b""`` if over the cap.

    Also returns the offset after the line. A line over the cap is consumed up to its newline but
    not kept, so its length costs time, never memory.
    """
    pieces = [head]
    size = len(head)
    while True:
        piece = readline(_CHUNK)
        if not piece:
            break
        offset += len(piece)
        size += len(piece)
        if size > max_line_bytes:
            pieces.clear()
        else:
            pieces.append(piece)
        if piece[-1:] == b"\n":
            break
    return (b"".join(pieces) if size <= max_line_bytes else b""), offset


def _decode_unusual(
    line: bytes, where: tuple[int, int, int], backend: _json.Backend, max_line_bytes: int
) -> Line | Malformed | None:
    """Decide a line the fast parser refused: over the cap, blank, repairable, or malformed.

    ``where`` is the line number, start offset and end offset.
    """
    line_no, start, end = where
    if not line:
        # Only _read_long_line returns an empty line: the real one was longer than the cap.
        return Malformed(line_no, start, end, f"longer than {max_line_bytes} bytes")
    if not line.strip(b" \t\r\n"):
        return None
    try:
        value, repairs = _json.parse_slow(line, backend)
    except _json.InvalidJSONError as exc:
        if line[-1:] != b"\n":
            return Malformed(line_no, start, start, "torn last line: no newline and not valid JSON")
        return Malformed(line_no, start, end, exc.reason)
    return Line(line_no, start, end, value, repairs)


def read_spans(path: str | os.PathLike[str], spans: Iterable[tuple[int, int]]) -> list[str]:
    """The text of the lines at the given ``(offset, end_offset)`` byte ranges of ``path``.

    For records an adapter keeps raw (unknown types): the exact line as written, without its
    line break, with invalid UTF-8 and lone surrogates repaired as everywhere else. Reading the
    few such lines again by offset is cheaper than keeping every line's text while parsing.

    Raises:
        SourceUnavailableError: The file can no longer be opened.
    """
    texts: list[str] = []
    with open_binary(path) as stream:
        for start, end in spans:
            stream.seek(start)
            raw = stream.read(end - start).decode("utf-8", "replace").rstrip("\r\n")
            texts.append(repair_surrogates(raw))
    return texts
