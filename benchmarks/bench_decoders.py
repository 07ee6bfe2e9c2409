# ruff: noqa: INP001 -- a standalone script run by `nox -s bench`, not part of a package
"""Benchmark the decoders against the bare loops they wrap.

Run with ``python benchmarks/bench_decoders.py`` (``nox -s bench``). It prints:

- JSON Lines: MB/s of ``chatparse.decoders.jsonl.iter_lines`` against a bare
  ``for line in file: loads(line)`` loop over the same generated file, for each installed backend,
  and the ratio (target: at least 0.90);
- SQLite: the longest time one read transaction of ``chatparse.decoders.sqlite`` holds its lock
  while every row of a generated database is read; a writer committing to a rollback-journal
  database waits at most that long for us.

Everything is generated in a temporary directory and deleted afterwards. JSON Lines timings are
CPU time (the file is read from the page cache), the best of ``--repeat`` rounds, each round
running every contender once, so that other work on a shared machine skews them least. This is a
script, not a test: its numbers depend on the machine.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from contextlib import closing
from functools import partial
from pathlib import Path
from typing import Any

from chatparse.decoders import _json, jsonl, sqlite
from chatparse.testing import read_lock_holds

_WORDS = ("the", "a", "model", "tool", "file", "read", "edit", "diff", "test", "pass", "code")


def _record(rng: random.Random, index: int) -> dict[str, Any]:
    """Return one line shaped like a Claude Code transcript entry.

    Sizes follow what such files hold: mostly short messages, some tool output of a few kB, a few
    file reads of tens of kB. The mean line is about 3 kB.
    """
    roll = rng.random()
    words = 40 if roll < 0.6 else 400 if roll < 0.93 else 4000
    text = " ".join(rng.choice(_WORDS) for _ in range(words))
    return {
        "parentUuid": f"{index - 1:08d}-0000-4000-8000-000000000000" if index else None,
        "isSidechain": False,
        "type": "assistant" if index % 2 else "user",
        "uuid": f"{index:08d}-0000-4000-8000-000000000000",
        "timestamp": "2026-08-01T12:00:00.000Z",
        "sessionId": "5b3c1f2e-0000-4000-8000-000000000000",
        "version": "2.1.40",
        "cwd": "/home/user/project",
        "message": {
            "role": "assistant" if index % 2 else "user",
            "model": "claude-sonnet-4-5",
            "content": [{"type": "text", "text": text + "\n"}],
            "usage": {
                "input_tokens": index % 997,
                "output_tokens": 42,
                "cache_read_input_tokens": 7,
            },
        },
    }


def write_jsonl(path: Path, size_mb: int) -> int:
    """Write about ``size_mb`` MB of transcript lines to ``path``; return the byte size."""
    rng = random.Random(3)  # noqa: S311 -- reproducible test data, not cryptography
    size = 0
    index = 0
    with path.open("wb") as stream:
        while size < size_mb * 1_000_000:
            line = json.dumps(_record(rng, index), separators=(",", ":")).encode() + b"\n"
            stream.write(line)
            size += len(line)
            index += 1
    return size


def _bare(path: Path, loads: Callable[[bytes], Any]) -> None:
    with path.open("rb") as stream:
        for line in stream:
            loads(line)


def _ours(path: Path, backend: _json.Backend) -> None:
    jsonl._backend = backend  # noqa: SLF001 -- choose the backend, as the tests do
    for _ in jsonl.iter_lines(path):
        pass


def best_times(contenders: dict[str, Callable[[], None]], repeat: int) -> dict[str, float]:
    """Run each contender once per round, ``repeat`` rounds; return each one's best CPU time."""
    times: dict[str, list[float]] = {name: [] for name in contenders}
    for _ in range(repeat):
        for name, run in contenders.items():
            started = time.process_time()
            run()
            times[name].append(time.process_time() - started)
    return {name: min(values) for name, values in times.items()}


def bench_jsonl(directory: Path, size_mb: int, repeat: int) -> None:
    """Print MB/s of iter_lines and of the bare loop, per backend, and their ratio."""
    path = directory / "bench.jsonl"
    size = write_jsonl(path, size_mb)
    backends: list[tuple[_json.Backend, Callable[[bytes], Any]]] = [(_json.STDLIB, json.loads)]
    if _json.ORJSON is not None:
        import orjson  # noqa: PLC0415 -- optional, as in the library

        backends.append((_json.ORJSON, orjson.loads))
    _out(f"jsonl: {size / 1e6:.0f} MB, {sum(1 for _ in path.open('rb'))} lines")
    for backend, loads in backends:
        times = best_times(
            {
                "bare": partial(_bare, path, loads),
                "ours": partial(_ours, path, backend),
            },
            repeat,
        )
        bare, ours = size / 1e6 / times["bare"], size / 1e6 / times["ours"]
        _out(
            f"  {backend.name:7} bare {bare:7.1f} MB/s   iter_lines {ours:7.1f} MB/s   "
            f"ratio {ours / bare:.3f}"
        )
    jsonl._backend = _json.DEFAULT  # noqa: SLF001 -- restore the default


def write_database(path: Path, size_mb: int) -> int:
    """Write a rollback-journal key-value database of about ``size_mb`` MB; return the row count."""
    rng = random.Random(5)  # noqa: S311 -- reproducible test data, not cryptography
    rows = 0
    with closing(sqlite3.connect(path, isolation_level=None)) as connection:
        connection.execute(
            "CREATE TABLE cursorDiskKV (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)"
        )
        connection.execute("BEGIN")
        while rows % 1000 or path.stat().st_size < size_mb * 1_000_000:
            value = json.dumps(_record(rng, rows)).encode()
            connection.execute(
                "INSERT INTO cursorDiskKV VALUES (?, ?)", (f"bubbleId:{rows // 50}:{rows}", value)
            )
            rows += 1
        connection.execute("COMMIT")
    return rows


def bench_sqlite(directory: Path, size_mb: int) -> None:
    """Print the longest and typical lock hold while reading every row of a generated database."""
    path = directory / "state.vscdb"
    rows = write_database(path, size_mb)
    started = time.perf_counter()
    with read_lock_holds() as holds, sqlite.open_snapshot(path) as snapshot:
        read = sum(1 for _ in snapshot.iter_prefix("cursorDiskKV", "bubbleId:"))
        read += sum(1 for _ in snapshot.iter_rows("cursorDiskKV", ["key", "value"]))
    elapsed = time.perf_counter() - started
    _out(f"sqlite: {path.stat().st_size / 1e6:.0f} MB, {rows} rows, read twice in {elapsed:.2f} s")
    _out(
        f"  {len(holds)} read transactions; lock held at most {max(holds) * 1000:.1f} ms, "
        f"median {statistics.median(holds) * 1000:.1f} ms"
    )
    assert read == 2 * rows  # noqa: S101 -- a sanity check of the benchmark itself


def _out(text: str) -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def main() -> None:
    """Parse the arguments and run the benchmarks."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jsonl-mb", type=int, default=200, help="size of the JSON Lines file")
    parser.add_argument("--sqlite-mb", type=int, default=100, help="size of the database")
    parser.add_argument("--repeat", type=int, default=3, help="rounds; the best time counts")
    args = parser.parse_args()
    orjson = importlib.util.find_spec("orjson") is not None
    _out(f"python {sys.version.split()[0]}, {sqlite.backend_name()}, orjson installed: {orjson}")
    with tempfile.TemporaryDirectory(prefix="chatparse-bench-") as directory:
        bench_jsonl(Path(directory), args.jsonl_mb, args.repeat)
        bench_sqlite(Path(directory), args.sqlite_mb)


if __name__ == "__main__":
    main()
