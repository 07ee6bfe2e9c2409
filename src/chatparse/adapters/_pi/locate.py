"""Finding session files, and what a scan says of each: its meta.

Pi and Oh My Pi keep one folder per working directory under ``<agent dir>/sessions/``, with one
``<time>_<session id>.jsonl`` file per session in it. A scan lists them with one ``os.scandir``
per folder, and reads the first lines of each file (the header; Oh My Pi's title slot before it)
for its id, folder, time and title.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from stat import S_ISREG
from typing import Final

from chatparse.adapter import (
    digest_fingerprint,
    file_meta,
    file_stat,
    files_in,
    folders_in,
    stat_fingerprint,
)
from chatparse.adapters._pi.files import Head, id_from_name, read_head
from chatparse.model import ConversationMeta

__all__ = [
    "SUFFIX",
    "Found",
    "folders_in",
    "jsonl_files",
    "meta_of",
    "pick",
    "sessions_under",
    "watched_fingerprint",
]

SUFFIX: Final = ".jsonl"


def jsonl_files(folder: Path, *, warn: bool = True) -> list[Path]:
    """The ``*.jsonl`` files directly in ``folder``, sorted by name."""
    return files_in(folder, lambda name: name.endswith(SUFFIX), warn=warn)


def sessions_under(root: Path) -> Iterable[Path]:
    """The session files of a ``sessions/`` root: ``<root>/<project folder>/*.jsonl``."""
    for folder in folders_in(root):
        yield from jsonl_files(folder)


class Found:
    """A session file a scan found: its path, stat and head."""

    __slots__ = ("head", "id", "path", "stat")

    def __init__(self, path: Path, stat: os.stat_result, head: Head, ident: str | None) -> None:
        self.path, self.stat, self.head = path, stat, head
        self.id = ident or head.id or id_from_name(path)

    @classmethod
    def at(cls, path: Path, ident: str | None = None) -> Found | None:
        """The file at ``path``, or ``None`` when it is gone or empty (Pi never leaves one).

        Its session id is ``ident`` when given, else its header's, else the one its name gives.
        """
        stat = file_stat(path)
        if stat is None or not S_ISREG(stat.st_mode) or not stat.st_size:
            return None
        return cls(path, stat, read_head(path), ident)


def pick(copies: Sequence[Found]) -> Found:
    """Of several files for one session id (several roots), read the largest, then the newest.

    A session resumed in one place grows there; the copy left elsewhere is older and shorter.
    """
    return max(copies, key=lambda f: (f.stat.st_size, f.stat.st_mtime_ns, -copies.index(f)))


def watched_fingerprint(found: Found, watched: Iterable[Path]) -> str:
    """The file's stat, plus a digest of the places and stats of other files read with it.

    A place is a path relative to the file's folder, so that the key does not change when the
    whole home is moved (a backup, a mounted disk).
    """
    states = []
    for path in watched:
        stat = file_stat(path)
        state = "gone" if stat is None else stat_fingerprint(stat)
        states += [_relative(path, found.path.parent), state]
    own = stat_fingerprint(found.stat)
    return f"{own}+{digest_fingerprint(*states)}" if states else own


def _relative(path: Path, start: Path) -> str:
    try:
        return Path(os.path.relpath(path, start)).as_posix()
    except ValueError:  # Windows: another drive
        return path.name


def meta_of(
    source: str,
    found: Found,
    *,
    fingerprint: str | None = None,
    title: str | None = None,
    locator: Mapping[str, str] | None = None,
) -> ConversationMeta:
    """What a scan says of a session file."""
    head = found.head
    extra = dict(locator or {})
    if head.version is not None:
        extra.setdefault("format_version", str(head.version))
    if head.parent is not None:
        extra.setdefault("parent_session", head.parent)
    return file_meta(
        source,
        found.id,
        found.path,
        found.stat,
        fingerprint=fingerprint or stat_fingerprint(found.stat),
        title=title or head.title,
        project_path=head.cwd,
        created_at=head.created_at,
        locator=extra,
    )
