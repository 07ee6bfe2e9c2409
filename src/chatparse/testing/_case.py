"""Conformance cases: finding them on disk and reading their ``case.toml``.

A case is a folder ``<adapter>/<case>/`` holding ``case.toml``, a fake home directory ``home/``
and the golden ``expected.json``. Problems with the folder itself (an orphan golden, a typo in
``case.toml``) do not raise: they become a :class:`Case` whose :attr:`Case.problem` says what is
wrong, so that every runner reports them as a failing case instead of silently skipping it.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath
from types import MappingProxyType
from typing import Any, Final

from attrs import field, frozen

from chatparse.adapter import ADAPTER_NAME
from chatparse.testing._sqlite_text import SQLITE_TEXT_SUFFIX

__all__ = [
    "CASE_FILE",
    "DEFAULT_MTIME",
    "DEFAULT_PLATFORM",
    "GOLDEN_FILE",
    "HOME_DIR",
    "Case",
    "load_cases",
]

CASE_FILE: Final = "case.toml"
HOME_DIR: Final = "home"
GOLDEN_FILE: Final = "expected.json"

DEFAULT_PLATFORM: Final = "linux"
"""The platform a case runs as when ``case.toml`` names none: a fixed one, never this machine's,
so that a golden means the same on every machine."""

DEFAULT_MTIME: Final = datetime(2025, 1, 1, tzinfo=UTC)
"""The modification time every file and folder of a case's home gets unless ``case.toml`` says
otherwise. A checkout gives files the time of the checkout; a golden must not depend on it."""

_PLATFORMS: Final = ("darwin", "linux", "win32")
_FOLDER_NAME: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
_CASE_KEYS: Final = frozenset({"description", "adapter", "host", "files"})
_HOST_KEYS: Final = frozenset({"platform", "env"})
_FILES_KEYS: Final = frozenset({"mtime", "mtimes"})
_HOME_TOKEN: Final = "{home}"  # noqa: S105 -- a placeholder, not a password


def _read_only(value: Mapping[str, Any]) -> Mapping[str, Any]:
    return MappingProxyType(dict(value))


@frozen(kw_only=True)
class Case:
    """One conformance case, as read from its folder.

    .. versionadded:: 0.1
    """

    name: str
    """``"<adapter folder>/<case folder>"``, such as ``"toy/basic"``: what runners print."""
    path: Path
    """The case folder."""
    adapter: str
    """The adapter the case is run with: the parent folder's name unless ``case.toml`` says
    ``adapter = "..."``."""
    description: str = ""
    platform: str = DEFAULT_PLATFORM
    env: Mapping[str, str] = field(factory=dict, converter=_read_only)
    """The host's environment, with ``{home}`` still unexpanded (see :meth:`host_env`)."""
    mtime: datetime = DEFAULT_MTIME
    """The modification time given to every file and folder of the home."""
    mtimes: Mapping[str, datetime] = field(factory=dict, converter=_read_only)
    """Per-path overrides of :attr:`mtime`, keyed by POSIX path relative to the home."""
    problem: str | None = None
    """Why this folder is not a runnable case (an orphan golden, a bad ``case.toml``); a case
    with a problem always fails."""

    @property
    def home_dir(self) -> Path:
        """The fake home folder in the fixture (never run in place: runners copy it)."""
        return self.path / HOME_DIR

    @property
    def golden_path(self) -> Path:
        """Where the golden ``expected.json`` lives."""
        return self.path / GOLDEN_FILE

    def host_env(self, home: Path) -> dict[str, str]:
        """The environment with every ``{home}`` replaced by ``home``."""
        return {key: value.replace(_HOME_TOKEN, str(home)) for key, value in self.env.items()}


def load_cases(path: str | os.PathLike[str], *, adapter: str | None = None) -> tuple[Case, ...]:
    """Find every case under ``path``, sorted by name.

    ``path`` may be a fixtures root (``<root>/<adapter>/<case>/``), one adapter's folder
    (``<adapter>/<case>/``) or a single case folder. A folder counts as a case when it holds a
    ``case.toml``, a ``home/`` or an ``expected.json``; other folders (such as a demo home kept
    beside the cases) are ignored, and so are hidden folders.

    Args:
        path: Where to look.
        adapter: Keep only the cases run with this adapter.

    Raises:
        NotADirectoryError: ``path`` is not a directory.

    .. versionadded:: 0.1
    """
    root = Path(path)
    if not root.is_dir():
        raise NotADirectoryError(f"{root}: not a directory of conformance cases")
    if _is_case_like(root):
        folders = [(root.parent.name, root)]
    elif any(_is_case_like(child) for child in _subdirs(root)):
        folders = [(root.name, child) for child in _subdirs(root) if _is_case_like(child)]
    else:
        folders = [
            (group.name, child)
            for group in _subdirs(root)
            for child in _subdirs(group)
            if _is_case_like(child)
        ]
    cases = [_load_case(group, folder) for group, folder in folders]
    if adapter is not None:
        cases = [case for case in cases if case.adapter == adapter]
    return tuple(sorted(cases, key=lambda case: (case.name, str(case.path))))


def _subdirs(path: Path) -> list[Path]:
    return sorted(
        child
        for child in path.iterdir()
        if child.is_dir() and not child.name.startswith((".", "__"))
    )


def _is_case_like(path: Path) -> bool:
    return any((path / name).exists() for name in (CASE_FILE, HOME_DIR, GOLDEN_FILE))


def _load_case(group: str, folder: Path) -> Case:
    name = f"{group}/{folder.name}"
    default_adapter = group
    has_toml = (folder / CASE_FILE).is_file()
    has_home = (folder / HOME_DIR).is_dir()
    has_golden = (folder / GOLDEN_FILE).exists()

    def broken(problem: str) -> Case:
        return Case(name=name, path=folder, adapter=default_adapter, problem=problem)

    if not has_toml or not has_home:
        missing = " and ".join(
            what for what, ok in ((CASE_FILE, has_toml), (f"{HOME_DIR}/", has_home)) if not ok
        )
        if has_golden:
            problem = (
                f"orphan golden: {GOLDEN_FILE} is here but the case has no {missing}; "
                "restore the case or delete the golden"
            )
        else:
            problem = f"not a complete case: {missing} missing"
        return broken(problem)
    if not _FOLDER_NAME.fullmatch(folder.name):
        problem = (
            f"case folder name {folder.name!r} must be letters, digits, '.', '_' and '-' "
            "(runners select cases by name)"
        )
        return broken(problem)
    try:
        data = tomllib.loads((folder / CASE_FILE).read_text(encoding="utf-8"))
        return _case_from_toml(name, folder, default_adapter, data)
    except (tomllib.TOMLDecodeError, UnicodeDecodeError, ValueError, TypeError) as exc:
        return broken(f"{CASE_FILE}: {exc}")


def _case_from_toml(name: str, folder: Path, adapter: str, data: dict[str, Any]) -> Case:
    _no_unknown_keys(data, _CASE_KEYS, "")
    description = data.get("description")
    if not isinstance(description, str) or not description.strip():
        raise ValueError("'description' is required: one or two sentences on what the case shows")
    declared: object = data.get("adapter", adapter)
    if not isinstance(declared, str) or not ADAPTER_NAME.fullmatch(declared):
        raise ValueError(f"adapter name {declared!r} is not lower-case words joined by '-'")
    adapter = declared
    host = _table(data, "host")
    _no_unknown_keys(host, _HOST_KEYS, "host.")
    platform = host.get("platform", DEFAULT_PLATFORM)
    if platform not in _PLATFORMS:
        raise ValueError(f"host.platform must be one of {', '.join(_PLATFORMS)}, got {platform!r}")
    env = _table(host, "env")
    for key, value in env.items():
        if not isinstance(value, str):
            raise TypeError(f"host.env.{key} must be a string, got {type(value).__name__}")
    files = _table(data, "files")
    _no_unknown_keys(files, _FILES_KEYS, "files.")
    mtime = _aware(files.get("mtime", DEFAULT_MTIME), "files.mtime")
    mtimes = {}
    for key, value in _table(files, "mtimes").items():
        relative = PurePosixPath(key)
        if relative.is_absolute() or ".." in relative.parts or not relative.parts:
            raise ValueError(f"files.mtimes key {key!r} must be a path relative to home/")
        if not (folder / HOME_DIR / relative).exists() and not _materialized_from(folder, key):
            raise ValueError(f"files.mtimes names {key!r}, which is not in home/")
        mtimes[relative.as_posix()] = _aware(value, f"files.mtimes.{key!r}")
    return Case(
        name=name,
        path=folder,
        adapter=adapter,
        description=description.strip(),
        platform=platform,
        env=env,
        mtime=mtime,
        mtimes=mtimes,
    )


def _materialized_from(folder: Path, key: str) -> bool:
    # A database described in the SQLite text form exists only once materialized.
    return (folder / HOME_DIR / f"{key}{SQLITE_TEXT_SUFFIX}").is_file()


def _table(data: Mapping[str, Any], key: str) -> dict[str, Any]:
    value = data.get(key, {})
    if not isinstance(value, dict):
        raise TypeError(f"{key} must be a table, got {type(value).__name__}")
    return value


def _no_unknown_keys(data: Mapping[str, Any], allowed: frozenset[str], prefix: str) -> None:
    unknown = sorted(set(data) - allowed)
    if unknown:
        raise ValueError(
            f"unknown key(s) {', '.join(prefix + key for key in unknown)}; "
            f"allowed: {', '.join(prefix + key for key in sorted(allowed))}"
        )


def _aware(value: object, where: str) -> datetime:
    if not isinstance(value, datetime) or value.tzinfo is None:
        raise ValueError(
            f"{where} must be a TOML date-time with an offset, such as 2025-01-01T00:00:00Z"
        )
    return value.astimezone(UTC)
