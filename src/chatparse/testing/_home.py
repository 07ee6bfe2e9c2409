"""The temporary home a case runs in: fixed mtimes, before/after snapshots, lock and read checks.

Also the clock the adapter sees, which a case moves to prove that no time is taken from it.
"""

from __future__ import annotations

import contextvars
import fnmatch
import hashlib
import os
import sqlite3
import stat
import sys
import threading
import time
from collections.abc import Collection, Iterable, Iterator, Mapping
from contextlib import contextmanager
from datetime import UTC, date, datetime, timedelta
from pathlib import Path, PurePosixPath
from typing import Any, Final
from urllib.parse import unquote

from attrs import frozen

__all__ = [
    "Snapshot",
    "compare_snapshots",
    "find_locked_databases",
    "moved_clock",
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


def set_mtimes(
    home: Path,
    default: datetime,
    overrides: Mapping[str, datetime],
    moved: timedelta = timedelta(0),
) -> None:
    """Give every file and folder under ``home`` a fixed modification time, ``moved`` later."""
    stamp = (default + moved).timestamp()
    for directory, dirs, files in os.walk(home, topdown=False):
        for name in (*files, *dirs, ""):
            path = Path(directory, name) if name else Path(directory)
            if path.is_symlink():
                continue
            relative = path.relative_to(home).as_posix()
            when = (overrides[relative] + moved).timestamp() if relative in overrides else stamp
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


# --- the clock ---------------------------------------------------------------------------------

_REAL_DATETIME: Final = datetime
_REAL_DATE: Final = date
_REAL_CLOCK: Final = {
    name: getattr(time, name) for name in ("time", "time_ns", "localtime", "gmtime", "ctime")
}


class _Either(type):
    """What the stand-in classes answer to ``isinstance``: the real class's instances."""

    real: type

    def __instancecheck__(cls, instance: object) -> bool:
        return isinstance(instance, cls.real)

    def __subclasscheck__(cls, subclass: type) -> bool:
        return issubclass(subclass, cls.real)


def _moved_classes(offset: timedelta) -> tuple[type, type]:
    """Stand-ins for ``datetime`` and ``date`` whose "now" is ``offset`` away.

    Everything else is the real class's: a value made through them is a real ``datetime``.
    """

    class MovedDatetime(datetime, metaclass=_Either):
        real = _REAL_DATETIME

        def __new__(cls, *args: Any, **kwargs: Any) -> datetime:  # type: ignore[misc]  # a real one
            return _REAL_DATETIME(*args, **kwargs)

        @classmethod
        def now(cls, tz: Any = None) -> datetime:  # type: ignore[override]  # moved
            return _REAL_DATETIME.now(tz) + offset

        @classmethod
        def utcnow(cls) -> datetime:  # type: ignore[override]  # moved
            return _REAL_DATETIME.now(UTC).replace(tzinfo=None) + offset

        @classmethod
        def today(cls) -> datetime:  # type: ignore[override]  # moved
            return _REAL_DATETIME.now() + offset

    class MovedDate(date, metaclass=_Either):
        real = _REAL_DATE

        def __new__(cls, *args: Any, **kwargs: Any) -> date:  # type: ignore[misc]  # a real one
            return _REAL_DATE(*args, **kwargs)

        @classmethod
        def today(cls) -> date:  # type: ignore[override]  # moved
            return (_REAL_DATETIME.now() + offset).date()

    return MovedDatetime, MovedDate


def _moved_functions(offset: timedelta) -> dict[str, Any]:
    """Stand-ins for the :mod:`time` functions that read the wall clock."""
    seconds = offset.total_seconds()
    real = _REAL_CLOCK

    def moved_time() -> float:
        return float(real["time"]()) + seconds

    def at(secs: float | None) -> float:
        return moved_time() if secs is None else secs

    return {
        "time": moved_time,
        "time_ns": lambda: int(real["time_ns"]()) + int(seconds * 1e9),
        "localtime": lambda secs=None: real["localtime"](at(secs)),
        "gmtime": lambda secs=None: real["gmtime"](at(secs)),
        "ctime": lambda secs=None: real["ctime"](at(secs)),
    }


@contextmanager
def moved_clock(offset: timedelta, packages: Iterable[str]) -> Iterator[None]:
    """Inside the block, the wall clock reads ``offset`` away from the real one.

    ``time.time()`` and friends, ``datetime.now()``, ``utcnow()`` and ``today()``,
    ``date.today()``: through the :mod:`time` and :mod:`datetime` modules, and through the names
    that modules of ``packages`` (and their submodules) imported from them (``from datetime
    import datetime``). A clock read by other means (C code, another library) is not moved. Not
    thread-safe: the modules are changed for the whole process while the block runs.
    """
    moved_datetime, moved_date = _moved_classes(offset)
    functions = _moved_functions(offset)
    stand_ins: dict[int, Any] = {id(_REAL_DATETIME): moved_datetime, id(_REAL_DATE): moved_date}
    stand_ins |= {id(_REAL_CLOCK[name]): function for name, function in functions.items()}
    changed: list[tuple[object, str, object]] = []

    def replace(owner: object, name: str, value: object) -> None:
        changed.append((owner, name, getattr(owner, name)))
        setattr(owner, name, value)

    try:
        replace(sys.modules["datetime"], "datetime", moved_datetime)
        replace(sys.modules["datetime"], "date", moved_date)
        for name, function in functions.items():
            replace(time, name, function)
        for module in _modules_of(packages):
            for name, value in list(vars(module).items()):
                if id(value) in stand_ins and value is not stand_ins[id(value)]:
                    replace(module, name, stand_ins[id(value)])
        yield
    finally:
        for owner, name, value in reversed(changed):
            setattr(owner, name, value)


def _modules_of(packages: Iterable[str]) -> list[Any]:
    prefixes = tuple(packages)
    return [
        module
        for name, module in list(sys.modules.items())
        if any(name == prefix or name.startswith(f"{prefix}.") for prefix in prefixes)
    ]
