"""Looking around a user's folders without stopping at the first one we may not enter.

A scan must go on past a folder it cannot list or a store it cannot read, and must not do so in
silence: each thing passed over is named in a :class:`~chatparse.errors.SkippedSourceWarning`.
"""

from __future__ import annotations

import errno
import os
import warnings
from collections.abc import Callable
from pathlib import Path

from chatparse.errors import SkippedSourceWarning, SourceUnavailableError, UnavailableCause

__all__ = [
    "file_stat",
    "files_in",
    "folders_in",
    "is_dir",
    "is_file",
    "list_folder",
    "passed_over",
    "require_file",
    "unlistable",
    "walk_files",
]


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


def file_stat(path: str | os.PathLike[str]) -> os.stat_result | None:
    """The stat of the file at ``path``, for a scan; ``None`` when it cannot be taken.

    A file gone since its folder was listed is simply not there; one that its folder shows but
    will not let us stat (a folder of mode ``r--``) is passed over with a warning.
    """
    try:
        return Path(path).stat()
    except FileNotFoundError:
        return None
    except OSError as exc:
        passed_over(path, f"cannot be read ({exc.strerror or exc})")
        return None


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
        if exc.errno == errno.ENAMETOOLONG:  # a name no file can have: not there, not hidden
            return False
        passed_over(path, f"cannot be reached ({exc.strerror or exc})")
        return False


def list_folder(folder: str | os.PathLike[str], *, warn: bool = True) -> list[os.DirEntry[str]]:
    """The entries of ``folder``, sorted by name; none when it is missing.

    A folder that cannot be listed has none either, and is passed over with a warning
    (:func:`unlistable`), unless ``warn`` is false: for a caller that looks there only in
    passing, or says what it could not read in its own way.
    """
    try:
        with os.scandir(folder) as entries:
            return sorted(entries, key=_name)
    except (FileNotFoundError, NotADirectoryError):
        return []
    except OSError as exc:
        if warn:
            unlistable(folder, exc)
        return []


def folders_in(folder: str | os.PathLike[str]) -> list[Path]:
    """The sub-folders of ``folder``, sorted by name; links to folders are not followed."""
    return [Path(entry.path) for entry in list_folder(folder) if _entry_is(entry, folder=True)]


def files_in(
    folder: str | os.PathLike[str], wanted: Callable[[str], bool], *, warn: bool = True
) -> list[Path]:
    """The files directly in ``folder`` whose name is ``wanted``, sorted by name.

    A link to a file counts as the file. ``warn`` is as for :func:`list_folder`.
    """
    return [
        Path(entry.path)
        for entry in list_folder(folder, warn=warn)
        if wanted(entry.name) and _entry_is(entry, folder=False)
    ]


def _name(entry: os.DirEntry[str]) -> str:
    return entry.name


def _entry_is(entry: os.DirEntry[str], *, folder: bool) -> bool:
    # An entry gone or unreadable since the listing is neither.
    try:
        return entry.is_dir(follow_symlinks=False) if folder else entry.is_file()
    except OSError:
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


def require_file(path: str | os.PathLike[str], what: str = "conversation") -> Path:
    """``path`` as a :class:`~pathlib.Path`, when it is still a file: what ``parse`` checks first.

    A scan lists a conversation; by the time it is parsed, its file may be gone. ``what`` names
    it in the error (``"session"``, ``"rollout"``).

    Raises:
        SourceUnavailableError: The file is gone (cause ``MISSING``), or a folder on the way
            cannot be searched (``UNREADABLE``).
    """
    target = Path(path)
    try:
        present = target.is_file()
    except OSError as exc:  # Python 3.11 raises for a folder on the way that cannot be searched
        raise SourceUnavailableError(
            os.fspath(path),
            f"cannot read: {exc.strerror or exc}",
            "Check its permissions.",
            UnavailableCause.UNREADABLE,
        ) from exc
    if not present:
        raise SourceUnavailableError(
            os.fspath(path),
            "no such file",
            f"Scan again: the {what} was moved or deleted.",
            UnavailableCause.MISSING,
        )
    return target
