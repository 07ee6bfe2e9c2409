"""A file per conversation: listing a folder, and the newest copy of each id.

Amp (a document per thread) and Factory Droid (a log per session) both keep one file per
conversation, in folders that may hold a copy of the same conversation twice; both adapters
list and choose the same way, with these.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import NamedTuple

from chatparse.adapter import is_file, list_folder

__all__ = ["Found", "conversation_files", "newest_by_id"]


class Found(NamedTuple):
    """A conversation's file, with the stat a scan took of it."""

    ident: str
    path: Path
    info: os.stat_result


def conversation_files(folder: Path, suffix: str, *, prefix: str = "") -> Iterator[Found]:
    """The files directly in ``folder`` named ``<prefix><id><suffix>``, each with its stat.

    A folder that cannot be listed, and a file a folder of mode ``r--`` names but will not
    stat, are passed over with a warning.
    """
    for entry in list_folder(folder):
        name, path = entry.name, Path(entry.path)
        if len(name) <= len(prefix + suffix) or not name.startswith(prefix):
            continue
        if not name.endswith(suffix) or not is_file(path):
            continue
        try:
            info = path.stat()
        except OSError:  # gone since the folder was listed
            continue
        yield Found(name.removesuffix(suffix), path, info)


def newest_by_id(found: Iterable[Found]) -> dict[str, Found]:
    """One file per id: the one written last (on a tie, the first listed)."""
    chosen: dict[str, Found] = {}
    for item in found:
        known = chosen.get(item.ident)
        if known is None or item.info.st_mtime_ns > known.info.st_mtime_ns:
            chosen[item.ident] = item
    return chosen
