"""A separate process that keeps committing to a database, as an editor does; counts SQLITE_BUSY.

Run as ``python _writer.py DB STOP_FILE [PAUSE]``. Every key/value row holding JSON is
rewritten in one transaction, alternating between the values as found (state A) and the same
values with every text field marked (state B, see :func:`mark`). The write lock is taken with
``timeout=0``, so each time a reader holds a lock that stops a commit, the writer sees
``SQLITE_BUSY`` at once; it counts them, retries, and measures how long it had to wait.

Between commits it pauses ``PAUSE`` seconds (default 0.002: hundreds of commits a second, far
more than an editor makes). With no pause at all, a writer committing back to back keeps the
readers of a rollback-journal database out for seconds, as its PENDING lock turns every new
reader away. It stops when ``STOP_FILE`` exists and prints one JSON line: commits, busy count,
longest wait in seconds.
"""

from __future__ import annotations

import json
import sqlite3
import sys
import time
from contextlib import closing
from pathlib import Path
from typing import Any, Final

TEXT_KEYS: Final = frozenset({"text", "content", "value", "markdown"})
MARK: Final = " [B]"


def mark(value: Any, key: object = None) -> Any:
    """``value`` with every text field (by key) not holding JSON given a suffix."""
    if isinstance(value, dict):
        return {k: mark(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [mark(item, key) for item in value]
    if isinstance(value, str) and key in TEXT_KEYS and not value.lstrip().startswith(("{", "[")):
        return value + MARK
    return value


def states(connection: sqlite3.Connection) -> list[tuple[str, bytes, bytes, bytes]]:
    """Each JSON row as (table, key, value in state A, value in state B)."""
    found = []
    tables = [
        row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
    ]
    for table in tables:
        columns = {row[1] for row in connection.execute(f'PRAGMA table_info("{table}")')}
        if not {"key", "value"} <= columns:
            continue
        for key, value in connection.execute(f'SELECT key, value FROM "{table}"'):  # noqa: S608 -- test tables
            raw = value.encode() if isinstance(value, str) else value
            try:
                decoded = json.loads(raw)
            except (TypeError, ValueError):
                continue
            key_bytes = key.encode() if isinstance(key, str) else key
            found.append((table, key_bytes, raw, json.dumps(mark(decoded)).encode()))
    return found


def _retry(
    connection: sqlite3.Connection, sql: str, params: tuple[Any, ...], tally: dict[str, float]
) -> None:
    """Run ``sql``, retrying on SQLITE_BUSY, counting each busy and the longest wait."""
    started = None
    while True:
        try:
            connection.execute(sql, params)
        except sqlite3.OperationalError as exc:
            if exc.sqlite_errorcode & 0xFF not in {sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED}:
                raise
            tally["busy"] += 1
            started = started or time.monotonic()
            time.sleep(0.0005)
            continue
        if started is not None:
            tally["longest_wait"] = max(tally["longest_wait"], time.monotonic() - started)
        return


def main() -> None:
    """Commit A and B in turn until the stop file appears; print the tally."""
    db, stop = sys.argv[1], Path(sys.argv[2])
    pause = float(sys.argv[3]) if len(sys.argv) > 3 else 0.002
    tally = {"commits": 0.0, "busy": 0.0, "longest_wait": 0.0}
    with closing(sqlite3.connect(db, timeout=0, isolation_level=None)) as connection:
        rows = states(connection)
        print("ready", flush=True)  # noqa: T201 -- the protocol with the test
        turn = 0
        while not stop.exists():
            turn += 1
            _retry(connection, "BEGIN IMMEDIATE", (), tally)
            for table, key, a, b in rows:
                connection.execute(
                    f'UPDATE "{table}" SET value = CAST(? AS TEXT) WHERE key = CAST(? AS TEXT)',  # noqa: S608 -- ditto
                    (b if turn % 2 else a, key),
                )
            _retry(connection, "COMMIT", (), tally)
            tally["commits"] += 1
            time.sleep(pause)
        # End in state A, as found.
        _retry(connection, "BEGIN IMMEDIATE", (), tally)
        for table, key, a, _b in rows:
            connection.execute(
                f'UPDATE "{table}" SET value = CAST(? AS TEXT) WHERE key = CAST(? AS TEXT)',  # noqa: S608 -- ditto
                (a, key),
            )
        _retry(connection, "COMMIT", (), tally)
    print(json.dumps(tally), flush=True)  # noqa: T201 -- ditto


if __name__ == "__main__":
    main()
