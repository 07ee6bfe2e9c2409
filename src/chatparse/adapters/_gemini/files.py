"""Listing a tool's folders without stopping at one we may not enter, and picking copies.

A folder that cannot be listed, and a file that a folder shows but will not let us stat (mode
``r--``), are passed over with a :class:`~chatparse.errors.SkippedSourceWarning`, never in
silence; links to folders are not followed, so a link loop cannot trap a scan.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Final

from attrs import frozen

from chatparse.adapter import file_meta, files_in, folders_in
from chatparse.model import ConversationMeta

__all__ = ["DUPLICATES", "Found", "files_in", "folders_in", "pick", "stat_of"]

DUPLICATES: Final = "duplicates"
"""The locator key naming the other copies of a conversation, one path a line."""


@frozen
class Found:
    """A conversation file found by a scan, with what its name and head say."""

    id: str
    path: Path
    info: os.stat_result
    rank: tuple[int, ...] = ()
    """Smaller wins among copies of one conversation (see :func:`pick`)."""

    def meta(
        self,
        source: str,
        others: Sequence[Found] = (),
        *,
        locator: Mapping[str, str] | None = None,
        project_path: str | None = None,
        created_at: datetime | None = None,
    ) -> ConversationMeta:
        """The conversation's meta; ``others`` are the copies not read, named in the locator."""
        where = dict(locator or {})
        if others:
            where[DUPLICATES] = "\n".join(str(other.path) for other in others)
        return file_meta(
            source,
            self.id,
            self.path,
            self.info,
            locator=where,
            project_path=project_path,
            created_at=created_at,
        )


def stat_of(path: Path) -> os.stat_result | None:
    """The file's stat; ``None`` for a file gone since its folder was listed."""
    try:
        return path.stat()
    except OSError:
        return None


def pick(copies: Iterable[Found]) -> tuple[Found, list[Found]]:
    """The copy that wins (smallest rank, then largest, then first path) and the others."""
    ordered = sorted(copies, key=lambda f: (f.rank, -f.info.st_size, str(f.path)))
    return ordered[0], ordered[1:]
