"""The garbage collector paced for a parse.

While a parse runs (:func:`chatparse.parse`, :func:`chatparse.iter_conversations` in this process
or in its workers, :func:`chatparse.parse_path`, the batches of the engines and the CLI's
export), the collector collects its young generation every :data:`YOUNG_THRESHOLD_WHILE_PARSING`
new containers instead of CPython's default (700; 2,000 from Python 3.13), the first value of
``gc.get_threshold()``. A parse keeps nearly every container it makes, so those collections find
no garbage, and the older collections they set off scan all that the parse has built so far:
with the default, the cost per MB grows with the file. Cycles are still collected, in larger
batches. The threshold is raised when the first parse of the process starts and put back when
the last one running ends (two threads may parse at once), also when a parse raises. A
threshold that is already higher, or 0 (automatic collection off), is left alone, as is one the
program sets while a parse runs.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Final

__all__ = ["YOUNG_THRESHOLD_WHILE_PARSING", "pacing"]

YOUNG_THRESHOLD_WHILE_PARSING: Final = 50_000
"""How many new containers the garbage collector lets pass between two young collections while a
parse runs."""


class _CollectorPacing:
    """The young-generation threshold raised while any parse runs, and put back after the last."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._running = 0
        self._outside: tuple[int, int, int] = gc.get_threshold()
        self._inside: tuple[int, int, int] = self._outside

    @contextmanager
    def parsing(self) -> Iterator[None]:
        """Raise the threshold for the duration of the block (nested and concurrent blocks too)."""
        self._enter()
        try:
            yield
        finally:
            self._leave()

    def _enter(self) -> None:
        with self._lock:
            if self._running == 0:
                self._outside = gc.get_threshold()
                young, *older = self._outside
                if 0 < young < YOUNG_THRESHOLD_WHILE_PARSING:
                    gc.set_threshold(YOUNG_THRESHOLD_WHILE_PARSING, *older)
                self._inside = gc.get_threshold()
            self._running += 1

    def _leave(self) -> None:
        with self._lock:
            self._running -= 1
            if self._running == 0 and gc.get_threshold() == self._inside:
                gc.set_threshold(*self._outside)


pacing: Final = _CollectorPacing().parsing
"""``with pacing():`` paces the collector for a parse for the duration of the block."""
