"""The sessions of one chat history file, found by their header lines.

Every run of Aider appends to the same file, starting with ``# aider chat started at
<local time>``; the file holds no other session marker and no session id. A session is the
bytes from its header to the next one. Bytes before the first header (a file cut or edited by
hand) are a session of their own, without a start time.

A session's id is ``<folder>@<start>``: the folder holding the file (``/home/me/code/app``)
and the header's time as written (``2024-08-06T10:03:58``), or ``start`` for the bytes before
the first header. The time is local and has no zone, so it names the session but is never
taken as a time.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Final, NamedTuple

__all__ = ["HEADER", "Session", "sessions_in"]

HEADER: Final = re.compile(
    rb"^# aider chat started at (\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d)[ \t]*\r?$", re.MULTILINE
)
_BEFORE_FIRST: Final = "start"


class Session:
    """One session's place in its file."""

    __slots__ = ("data", "end", "label", "start")

    def __init__(self, label: str, start: int, end: int, data: bytes) -> None:
        self.label = label
        """``2024-08-06T10:03:58``, or ``start`` for the bytes before the first header."""
        self.start = start
        self.end = end
        self.data = data


class _Cut(NamedTuple):
    label: str
    start: int


def sessions_in(data: bytes) -> Iterator[Session]:
    """The sessions of a chat history's bytes, in file order; blank stretches are none."""
    cuts = [_Cut(_BEFORE_FIRST, 0)]
    for match in HEADER.finditer(data):
        label = f"{match[1].decode()}T{match[2].decode()}"
        if match.start() == 0 or not data[: match.start()].strip():
            cuts[0] = _Cut(label, match.start())
        else:
            cuts.append(_Cut(label, match.start()))
    for index, cut in enumerate(cuts):
        end = cuts[index + 1].start if index + 1 < len(cuts) else len(data)
        chunk = data[cut.start : end]
        if chunk.strip():
            yield Session(cut.label, cut.start, end, chunk)
