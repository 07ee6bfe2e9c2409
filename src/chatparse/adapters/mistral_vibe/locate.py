"""Where Mistral Vibe logs its sessions, and what a scan says of each.

The log folder is Vibe's ``session_logging.save_dir`` setting: ``$VIBE_SESSION_LOGGING__SAVE_DIR``
(Vibe reads its settings from ``VIBE_*`` variables, ``__`` between levels), else the
``[session_logging]`` table of ``<vibe home>/config.toml``, else ``<vibe home>/logs/session``.
The Vibe home is ``$VIBE_HOME``, else ``<home>/.vibe``, on every platform. A session is a folder
holding ``meta.json`` or ``messages.jsonl`` (2.x), or a ``.json`` file of its own (1.x).
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Final

from chatparse.adapter import (
    file_meta,
    file_stat,
    is_file,
    new_meta,
    passed_over,
    stat_fingerprint,
    unlistable,
)
from chatparse.host import Host
from chatparse.model import ConversationMeta

__all__ = [
    "CONFIG",
    "HOME_ENV",
    "MESSAGES",
    "METADATA",
    "SAVE_DIR_ENV",
    "folder_meta",
    "legacy_meta",
    "session_root",
    "sessions",
    "subagent_folders",
    "vibe_home",
]

HOME_ENV: Final = "VIBE_HOME"
"""Moves the whole ``.vibe`` folder, session logs included."""
SAVE_DIR_ENV: Final = "VIBE_SESSION_LOGGING__SAVE_DIR"
"""Vibe's ``session_logging.save_dir`` setting, as an environment variable."""
CONFIG: Final = "config.toml"
METADATA: Final = "meta.json"
MESSAGES: Final = "messages.jsonl"
FILES: Final = (MESSAGES, METADATA)
"""The files of a 2.x session folder; a folder with neither is not a session."""
SUBAGENTS: Final = "agents"
"""The folder inside a session where the sessions of its sub-agents are logged."""
_CONFIG_LIMIT: Final = 1024 * 1024  # a settings file, never more


def vibe_home(host: Host) -> Path:
    """``$VIBE_HOME`` when set and not empty (``~`` expanded), else ``<home>/.vibe``."""
    configured = host.getenv(HOME_ENV)
    return host.expand(configured) if configured else host.home / ".vibe"


def _configured_save_dir(path: Path) -> str | None:
    """``session_logging.save_dir`` of the settings file at ``path``, when it sets one."""
    if not is_file(path):
        return None
    try:
        with path.open("rb") as stream:
            settings = tomllib.loads(stream.read(_CONFIG_LIMIT).decode("utf-8", "replace"))
    except (OSError, tomllib.TOMLDecodeError):
        return None
    table = settings.get("session_logging")
    value = table.get("save_dir") if isinstance(table, dict) else None
    return value if isinstance(value, str) and value else None


def session_root(host: Host) -> tuple[Path, str]:
    """The session log folder, and what chose it (for ``explain``)."""
    configured = host.getenv(SAVE_DIR_ENV)
    if configured:
        return host.expand(configured), f"{SAVE_DIR_ENV} is set"
    home = vibe_home(host)
    from_file = _configured_save_dir(home / CONFIG)
    if from_file:
        return host.expand(from_file), f"session_logging.save_dir in {home / CONFIG}"
    return home / "logs" / "session", "the default"


def _entries(folder: Path) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(folder) as found:
            return sorted(found, key=lambda entry: entry.name)
    except FileNotFoundError:
        return []
    except OSError as exc:
        unlistable(folder, exc)
        return []


def _kind(entry: os.DirEntry[str]) -> str | None:
    """``"folder"`` for a 2.x session folder, ``"file"`` for a 1.x session file, else None."""
    try:
        if entry.is_dir(follow_symlinks=False):
            folder = Path(entry.path)
            return "folder" if any(is_file(folder / name) for name in FILES) else None
        if entry.name.endswith(".json") and entry.is_file(follow_symlinks=False):
            return "file"
    except OSError:
        return None
    return None


def sessions(root: Path) -> Iterator[tuple[str, Path]]:
    """``(kind, path)`` of every session under ``root``, by name."""
    for entry in _entries(root):
        kind = _kind(entry)
        if kind is not None:
            yield kind, Path(entry.path)


def subagent_folders(folder: Path) -> list[Path]:
    """The 2.x session folders of the sub-agents a session started."""
    return [path for kind, path in sessions(folder / SUBAGENTS) if kind == "folder"]


def _stats(folder: Path) -> dict[str, os.stat_result]:
    return {name: info for name in FILES if (info := file_stat(folder / name)) is not None}


def folder_meta(source: str, folder: Path) -> ConversationMeta | None:
    """The meta of the 2.x session in ``folder`` (its sub-agents' files watched too)."""
    stats = _stats(folder)
    if not stats:
        return None
    children = [child for child in subagent_folders(folder) if _stats(child)]
    watched = [f"{name}={stat_fingerprint(s)}" for name, s in stats.items()]
    for child in children:
        watched += [f"{child.name}/{n}={stat_fingerprint(s)}" for n, s in _stats(child).items()]
    main = MESSAGES if MESSAGES in stats else METADATA
    return new_meta(
        source=source,
        id=folder.name,
        path=str(folder / main),
        fingerprint="+".join(watched),
        size=sum(s.st_size for s in stats.values()),
        mtime=datetime.fromtimestamp(max(s.st_mtime for s in stats.values()), UTC),
        locator={"layout": "2.x"},
    )


def legacy_meta(source: str, path: Path) -> ConversationMeta | None:
    """The meta of the 1.x session file at ``path``."""
    try:
        info = path.stat()
    except OSError as exc:
        passed_over(path, f"cannot be read ({exc.strerror or exc})")
        return None
    return file_meta(source, path.stem, path, info, locator={"layout": "1.x"})
