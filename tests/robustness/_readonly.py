"""An audit hook that records every write-like operation on paths under a watched directory.

Audit hooks cannot be removed, so one is installed once per process and does nothing unless a
:func:`watch_writes` block in the same context (thread or task) is active. The conformance kit's
own hook (``chatparse.testing._home``) records opened paths only, without their mode or flags, so
it cannot tell a read from a write; this one looks at both, and at renames, deletions and the
rest.
"""

from __future__ import annotations

import contextvars
import os
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Final
from urllib.parse import parse_qs, unquote

__all__ = ["watch_writes"]

_WRITE_FLAGS: Final = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
# Events whose first argument is a path the operation changes (and, for two-path events, the
# second too).
_CHANGES: Final = frozenset(
    {
        "os.chmod",
        "os.chown",
        "os.chflags",
        "os.link",
        "os.mkdir",
        "os.mkfifo",
        "os.mknod",
        "os.remove",
        "os.removexattr",
        "os.rename",
        "os.rmdir",
        "os.setxattr",
        "os.symlink",
        "os.truncate",
        "os.utime",
        "shutil.chown",
        "shutil.copyfile",
        "shutil.copymode",
        "shutil.copystat",
        "shutil.copytree",
        "shutil.move",
        "shutil.rmtree",
    }
)
_TWO_PATHS: Final = frozenset(
    {"os.link", "os.rename", "os.symlink", "shutil.copyfile", "shutil.move"}
)

_WATCH: contextvars.ContextVar[tuple[str, list[str]] | None] = contextvars.ContextVar(
    "chatparse_robustness_writes", default=None
)
_LOCK = threading.Lock()
_installed = False


def _under(root: str, target: object) -> str | None:
    if not isinstance(target, str | bytes | os.PathLike):
        return None  # a file descriptor: its open was checked already
    path = os.path.abspath(os.fsdecode(target))  # noqa: PTH100 -- no Path, no further events
    return path if path == root or path.startswith(root + os.sep) else None


def _sqlite_target(database: object) -> tuple[object, bool]:
    """The file a ``sqlite3.connect`` argument names, and whether it is opened read-only."""
    if not isinstance(database, str | bytes | os.PathLike):
        return None, True
    text = os.fsdecode(database)
    if not text.startswith("file:"):
        return text, False  # a plain path is opened read-write
    location, _, query = text[len("file:") :].partition("?")
    options = parse_qs(query)
    return unquote(location), options.get("mode") == ["ro"] or options.get("immutable") == ["1"]


def _audit(event: str, args: tuple[Any, ...]) -> None:
    watch = _WATCH.get()
    if watch is None or not args:
        return
    root, found = watch
    try:
        if event == "open":
            mode, flags = (args[1], args[2]) if len(args) >= 3 else (None, 0)
            writes = bool((flags or 0) & _WRITE_FLAGS) or (
                isinstance(mode, str) and any(c in mode for c in "wax+")
            )
            path = _under(root, args[0])
            if writes and path is not None:
                found.append(f"open({path!r}, {mode!r}, flags={flags:#o})")
        elif event == "sqlite3.connect":
            target, read_only = _sqlite_target(args[0])
            path = _under(root, target)
            if path is not None and not read_only:
                found.append(f"sqlite3.connect({args[0]!r}) is not read-only")
        elif event in _CHANGES:
            targets = args[:2] if event in _TWO_PATHS else args[:1]
            for target in targets:
                path = _under(root, target)
                if path is not None:
                    found.append(f"{event}({path!r})")
    except (TypeError, ValueError):  # pragma: no cover -- an odd argument; not a write we know
        return


@contextmanager
def watch_writes(root: Path) -> Iterator[list[str]]:
    """Record every write-like operation on a path under ``root`` made in this context."""
    global _installed  # noqa: PLW0603 -- one process-wide hook, installed once
    with _LOCK:
        if not _installed:
            sys.addaudithook(_audit)
            _installed = True
    found: list[str] = []
    token = _WATCH.set((os.path.realpath(root), found))
    try:
        yield found
    finally:
        _WATCH.reset(token)
