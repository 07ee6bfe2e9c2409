"""``read_lock_holds`` sees every read transaction of every snapshot, and only while active."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

from chatparse.decoders.sqlite import open_snapshot
from chatparse.testing import read_lock_holds


def _database(path: Path, rows: int) -> Path:
    with closing(sqlite3.connect(path)) as connection:
        connection.execute(
            "CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)"
        )
        connection.executemany(
            "INSERT INTO ItemTable VALUES (?, ?)", ((f"k{i:05d}", "v" * 100) for i in range(rows))
        )
        connection.commit()
    return path


def test_each_read_transaction_is_timed_while_the_block_runs(tmp_path: Path) -> None:
    db = _database(tmp_path / "state.vscdb", 3)
    with open_snapshot(db) as snapshot:
        with read_lock_holds() as holds:
            assert snapshot.get("ItemTable", "k00001") is not None
            rows = list(snapshot.iter_prefix("ItemTable", "k"))
        count = len(holds)
        snapshot.get("ItemTable", "k00002")
    assert len(rows) == 3
    assert count >= 2  # one get, at least one batch of the prefix read
    assert len(holds) == count  # nothing recorded after the block
    assert all(hold >= 0 for hold in holds)
