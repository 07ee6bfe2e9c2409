"""Looking around a user's folders without stopping at the first one we may not enter.

A scan must go on past a folder it cannot list or a store it cannot read, and must not do so in
silence: each thing passed over is named in a :class:`~chatparse.errors.SkippedSourceWarning`.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable
from pathlib import Path

from chatparse.errors import SkippedSourceWarning

__all__ = ["is_dir", "is_file", "passed_over", "unlistable", "walk_files"]


def passed_over(path: str | os.PathLike[str], reason: str) -> None:
    """Warn that the folder or store at ``path`` is left out of a scan, and why."""
    warnings.warn(
        f"passed over {os.fspath(path)}: {reason}; the conversations in it are not listed",
        SkippedSourceWarning,
        stacklevel=3,
    )


def unlistable(path: str | os.PathLike[str], error: OSError) -> None:
    """Warn that the folder at ``path`` could not be listed (``error`` says why)."""
    passed_over(path, f"cannot be listed ({error.strerror or error})")


def is_file(path: Path) -> bool:
    """``path.is_file()``, but ``False`` and a warning when a folder on the way cannot be searched.

    ``Path.is_file`` raises ``PermissionError`` then (Python 3.11), where a missing file is only
    ``False``.
    """
    return _reachable(path, path.is_file)


def is_dir(path: Path) -> bool:
    """``path.is_dir()``, with the same care as :func:`is_file`."""
    return _reachable(path, path.is_dir)


def _reachable(path: Path, test: Callable[[], bool]) -> bool:
    try:
        return test()
    except OSError as exc:
        passed_over(path, f"cannot be reached ({exc.strerror or exc})")
        return False


def walk_files(root: Path, wanted: Callable[[str], bool]) -> list[Path]:
    """Every regular file under ``root`` whose name is ``wanted``, sorted by path.

    Folders that cannot be listed are passed over with a warning; links to folders are not
    followed, so a link loop cannot trap the walk.
    """
    found = [
        Path(folder, name)
        for folder, _folders, names in os.walk(
            root, onerror=lambda error: unlistable(error.filename or root, error)
        )
        for name in names
        if wanted(name)
    ]
    # A folder that can be listed but not searched (mode r--) shows its names, then refuses
    # their stat: is_file warns about each such file.
    return sorted(path for path in found if is_file(path))
