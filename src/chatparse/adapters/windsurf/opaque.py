"""Stores chatparse finds but cannot read: counted and described for ``chatparse doctor``.

Cascade (Windsurf, Devin Desktop) and Google Antigravity, which derives from it, keep their
conversations as encrypted protobuf files (``<uuid>.pb``), and Antigravity's newer releases as
SQLite databases whose rows are protobuf without a published schema. Neither is decoded, nor
guessed at: ``doctor`` says they are there (how many, how large, how recent) and why they are
not read, so that an empty history is never a silent one.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path

from chatparse.adapter import is_dir

__all__ = ["describe_store"]


def _files(folder: Path, suffix: str) -> list[os.stat_result]:
    """The stat of each regular file of ``folder`` ending in ``suffix``; nothing if unlistable."""
    try:
        with os.scandir(folder) as entries:
            return [
                entry.stat(follow_symlinks=False)
                for entry in entries
                if entry.name.endswith(suffix) and entry.is_file(follow_symlinks=False)
            ]
    except OSError:
        return []


def describe_store(folder: Path, suffix: str, why: str) -> str:
    """One line: the ``*suffix`` files of ``folder`` (count, bytes, newest change) and ``why``.

    ``why`` says what they are and why they are not read; it follows the count.
    """
    if not is_dir(folder):
        return f"{folder}: missing"
    found = _files(folder, suffix)
    if not found:
        return f"{folder}: no {suffix} file"
    newest = datetime.fromtimestamp(max(info.st_mtime for info in found), UTC)
    size = sum(info.st_size for info in found)
    return (
        f"{folder}: {len(found)} {suffix} file(s), {size} bytes, newest changed "
        f"{newest.isoformat(timespec='seconds')}; {why}"
    )
