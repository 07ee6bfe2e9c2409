"""A bounded look at a file's content: its head for ``sniff``, its two ends for a peek.

``sniff`` decides from a file's first bytes whether it is the tool's: :func:`read_head` reads
them, and reads nothing from a file it cannot open.

A scan that peeks (``scan(peek=True)``) and lists thousands of conversations cannot parse them,
but a title, a project and a last time are usually near a file's two ends: the first prompt and
the launch directory at its head, renames and the latest records at its tail.
:func:`read_window` reads those two ends within a byte budget, cut at line boundaries, so a JSON
Lines adapter can decode them as it decodes the whole file.
"""

from __future__ import annotations

import io
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Final

from attrs import frozen

from chatparse.decoders._files import open_binary
from chatparse.decoders.jsonl import Line, Malformed, iter_lines

__all__ = ["PEEK_BYTES", "SNIFF_BYTES", "Window", "read_head", "read_window"]

SNIFF_BYTES: Final = 4096
"""How much of a file's start :func:`read_head` reads by default."""

PEEK_BYTES: Final = 64 * 1024
"""How much of each end of a file a peek reads at most."""


def read_head(path: str | os.PathLike[str], size: int = SNIFF_BYTES) -> bytes:
    """The first ``size`` bytes of ``path``, for ``sniff``; empty when it cannot be read.

    A ``sniff`` must not raise: a file that is gone, a folder, or one we may not read has no
    head, and so is not the tool's.
    """
    try:
        with Path(path).open("rb") as stream:
            return stream.read(size)
    except OSError:
        return b""


@frozen
class Window:
    """The complete lines at the two ends of a file.

    Attributes:
        head: The file from its start to the end of the last complete line within the budget.
        tail: The file's last complete lines within the budget, from the first line that starts
            inside it; empty when ``head`` is the whole file.
        tail_start: The file offset where ``tail`` begins.
        whole: Whether ``head`` is the whole file (it was no longer than two budgets).
    """

    head: bytes
    tail: bytes = b""
    tail_start: int = 0
    whole: bool = True

    def head_lines(self) -> Iterator[Line | Malformed]:
        """The head's lines, decoded as :func:`~chatparse.decoders.jsonl.iter_lines` does."""
        return iter_lines(io.BytesIO(self.head))

    def tail_lines(self) -> Iterator[Line | Malformed]:
        """The tail's lines, with their offsets in the file."""
        return iter_lines(io.BytesIO(self.tail), start=self.tail_start)


def read_window(path: str | os.PathLike[str], budget: int = PEEK_BYTES) -> Window:
    """The head and the tail of ``path``, each at most ``budget`` bytes.

    A file no longer than two budgets is read whole, into ``head``: then decoding the window is
    decoding the file. A line longer than the budget is in neither end.

    Raises:
        chatparse.errors.SourceUnavailableError: ``path`` cannot be opened.
    """
    with open_binary(path) as stream:
        size = os.fstat(stream.fileno()).st_size
        if size <= 2 * budget:
            return Window(head=stream.read(2 * budget))
        head = stream.read(budget)
        start = size - budget
        stream.seek(start)
        tail = stream.read(budget)
    head = head[: head.rfind(b"\n") + 1]
    # The tail's first line began before the budget: it is not a whole line.
    cut = tail.find(b"\n") + 1
    return Window(head=head, tail=tail[cut:] if cut else b"", tail_start=start + cut, whole=False)
