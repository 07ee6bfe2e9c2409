"""How long chatparse holds read locks on the SQLite databases it reads.

A database that an editor is writing is only safe to read if readers stay out of the writer's
way: every read transaction chatparse opens delays the next commit for as long as it lasts. The
writer can count the delays it suffered; :func:`read_lock_holds` measures the other side, each of
chatparse's own read transactions, so a test can report them next to the writer's count.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from chatparse.decoders import sqlite

__all__ = ["read_lock_holds"]


@contextmanager
def read_lock_holds() -> Iterator[list[float]]:
    """Record the duration in seconds of every read transaction any snapshot runs meanwhile.

    Each read of a batch of rows is one transaction (one statement in autocommit mode), so the
    list holds one duration per batch, in the order they ran. A duration includes any time SQLite
    waited for a writer to let go before the lock was taken: it bounds the hold from above. Not
    thread-safe: it replaces the snapshot's batch reader for the whole process while the block
    runs.
    """
    holds: list[float] = []
    original = sqlite.Snapshot._read  # noqa: SLF001 -- the one place a read transaction is open

    def timed(self: sqlite.Snapshot, sql: str, *args: Any) -> Any:
        started = time.perf_counter()
        try:
            return original(self, sql, *args)
        finally:
            holds.append(time.perf_counter() - started)

    sqlite.Snapshot._read = timed  # type: ignore[method-assign,assignment]  # noqa: SLF001 -- see above
    try:
        yield holds
    finally:
        sqlite.Snapshot._read = original  # type: ignore[method-assign]  # noqa: SLF001 -- restored
