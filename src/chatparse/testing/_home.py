"""The temporary home a case runs in: fixed mtimes, before/after snapshots, lock and read checks."""

from __future__ import annotations

import contextvars
import fnmatch
import hashlib
import os
import sqlite3
import stat
import sys
import threading
from collections.abc import Collection, Iterator, Mapping
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path, PurePosixPath
from typing import Any, Final
from urllib.parse import unquote

from attrs import frozen

__all__ = [
    "Snapshot",
    "compare_snapshots",
    "find_locked_databases",
    "scan_reads",
    "set_mtimes",
    "snapshot",
    "watch_opens",
]

_SQLITE_MAGIC: Final = b"SQLite format 3\x00"
# Readers of a WAL database legitimately write read marks into its shared-memory index, so
# only the existence of a -shm file is compared, never its content or times.
_SHM_SUFFIX: Final = "-shm"
_LOCK_TIMEOUT: Final = 0.05


def set_mtimes(home: Path, default: datetime, overrides: Mapping[str, datetime]) -> None:
    """Give every file and folder under ``home`` a fixed modification time."""
    stamp = default.timestamp()
    for directory, dirs, files in os.walk(home, topdown=False):
        for name in (*files, *dirs, ""):
            path = Path(directory, name) if name else Path(directory)
            if path.is_symlink():
                continue
            relative = path.relative_to(home).as_posix()
            when = overrides[relative].timestamp() if relative in overrides else stamp
            os.utime(path, (when, when))


@frozen
class _Entry:
    kind: str
    size: int | None
    mtime_ns: int | None
    mode: int | None
    digest: str | None


Snapshot = Mapping[str, _Entry]


def _digest(path: Path) -> str:
    sha = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 16), b""):
            sha.update(block)
    return sha.hexdigest()


def snapshot(home: Path) -> dict[str, _Entry]:
    """Every path under ``home`` with its type, size, mtime, mode and content hash."""
    entries: dict[str, _Entry] = {}
    for directory, dirs, files in os.walk(home):
        for name in (*dirs, *files):
            path = Path(directory, name)
            relative = path.relative_to(home).as_posix()
            info = path.lstat()
            if stat.S_ISLNK(info.st_mode):
                entries[relative] = _Entry("symlink", None, None, None, str(path.readlink()))
            elif stat.S_ISDIR(info.st_mode):
                entries[relative] = _Entry("dir", None, info.st_mtime_ns, info.st_mode, None)
            elif name.endswith(_SHM_SUFFIX):
                entries[relative] = _Entry("file", None, None, None, None)
            else:
                entries[relative] = _Entry(
                    "file", info.st_size, info.st_mtime_ns, info.st_mode, _digest(path)
                )
    return entries


def compare_snapshots(before: Snapshot, after: Snapshot) -> list[str]:
    """What changed between two snapshots, one line per path, paths written from ``~``."""
    changes = [f"created ~/{path}" for path in sorted(set(after) - set(before))]
    changes += [f"deleted ~/{path}" for path in sorted(set(before) - set(after))]
    for path in sorted(set(before) & set(after)):
        old, new = before[path], after[path]
        if old == new:
            continue
        what = [
            label
            for label, changed in (
                ("type", old.kind != new.kind),
                ("content", old.digest != new.digest or old.size != new.size),
                ("modification time", old.mtime_ns != new.mtime_ns),
                ("permissions", old.mode != new.mode),
            )
            if changed
        ]
        changes.append(f"changed ~/{path} ({', '.join(what)})")
    return changes


def _is_sqlite(path: Path) -> bool:
    try:
        with path.open("rb") as handle:
            return handle.read(len(_SQLITE_MAGIC)) == _SQLITE_MAGIC
    except OSError:
        return False


def find_locked_databases(home: Path) -> list[str]:
    """Every SQLite database under ``home`` that someone still holds a lock or snapshot on.

    Each database gets a throwaway connection that asks for an exclusive lock with a short
    timeout and rolls back; in WAL mode it also asks for a checkpoint that must wait for all
    readers, which fails while a reader still holds a snapshot. Run this only on a copy and
    after the last snapshot: the probe itself may create and remove journal files.
    """
    problems = []
    for path in sorted(p for p in home.rglob("*") if p.is_file() and not p.is_symlink()):
        if not _is_sqlite(path):
            continue
        relative = path.relative_to(home).as_posix()
        connection = sqlite3.connect(path, timeout=_LOCK_TIMEOUT, isolation_level=None)
        try:
            connection.execute("BEGIN EXCLUSIVE")
            connection.execute("ROLLBACK")
            mode = connection.execute("PRAGMA journal_mode").fetchone()[0]
            if mode == "wal":
                busy = connection.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]
                if busy:
                    problems.append(
                        f"~/{relative} still has a reader holding a snapshot "
                        "(a read transaction or cursor left open)"
                    )
        except sqlite3.OperationalError as exc:
            problems.append(
                f"~/{relative} is still locked ({exc}): a connection, transaction "
                "or cursor was left open"
            )
        finally:
            connection.close()
    return problems


# --- reads during scan -------------------------------------------------------------------------

_WATCH: contextvars.ContextVar[list[str] | None] = contextvars.ContextVar(
    "chatparse_testing_opens", default=None
)
_HOOK_LOCK = threading.Lock()
_hook_installed = False


def _audit(event: str, args: tuple[Any, ...]) -> None:
    # Runs for every audited event of the whole process, forever (audit hooks cannot be
    # removed): return as early as possible, and never raise into the audited call.
    if event not in ("open", "sqlite3.connect"):
        return
    opened = _WATCH.get()
    if opened is None or not args:
        return
    target = args[0]
    try:
        if isinstance(target, str | bytes | os.PathLike):
            text = os.fsdecode(target)
            if event == "sqlite3.connect" and text.startswith("file:"):
                text = unquote(text[len("file:") :].partition("?")[0])
            opened.append(os.path.abspath(text))  # noqa: PTH100 -- cheap and audit-free
    except (TypeError, ValueError):  # pragma: no cover -- an odd path type; not our business
        return


def _install_hook() -> None:
    global _hook_installed  # noqa: PLW0603 -- one process-wide hook, installed once
    with _HOOK_LOCK:
        if not _hook_installed:
            sys.addaudithook(_audit)
            _hook_installed = True


@contextmanager
def watch_opens() -> Iterator[list[str]]:
    """Record the path of every file opened (``open`` audit events, ``sqlite3.connect``).

    Only opens in this context (thread or task) are recorded, and only inside the block.
    """
    _install_hook()
    opened: list[str] = []
    token = _WATCH.set(opened)
    try:
        yield opened
    finally:
        _WATCH.reset(token)


def scan_reads(opened: list[str], home: Path, *, allowed: bool | Collection[str]) -> list[str]:
    """The files under ``home`` opened during a scan that the adapter did not declare.

    ``allowed`` is the adapter's ``scan_reads_content``: ``True`` allows everything, a
    collection of glob patterns allows the paths (relative to the home) they match.
    """
    if allowed is True:
        return []
    patterns = () if allowed is False else tuple(allowed)
    real_home = Path(os.path.realpath(home))
    found: list[str] = []
    for raw in opened:
        path = Path(os.path.realpath(raw))
        if path.is_dir() or not path.is_relative_to(real_home):
            continue
        relative = path.relative_to(real_home).as_posix()
        if any(PurePosixPath(relative).match(p) or fnmatch.fnmatch(relative, p) for p in patterns):
            continue
        if f"~/{relative}" not in found:
            found.append(f"~/{relative}")
    return found
