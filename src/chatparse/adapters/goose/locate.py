r"""Where Goose keeps its sessions on a host.

Goose picks its data folder with ``etcetera``'s app strategy: XDG on Linux and macOS
(``$XDG_DATA_HOME/goose``, else ``~/.local/share/goose``) and the Windows strategy on Windows
(``%APPDATA%\Block\goose\data``). ``GOOSE_PATH_ROOT`` moves everything: the data folder is then
``<root>/data`` (a relative root, which Goose resolves against its own working folder, cannot
be followed and is not used). In the data folder, ``sessions/`` holds ``sessions.db`` (since
1.10) and the older ``<name>.jsonl`` session files.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Final

from chatparse.adapter import is_file, unlistable
from chatparse.host import Host

__all__ = [
    "DATABASE",
    "ROOT_ENV",
    "SESSIONS",
    "data_dir",
    "legacy_files",
    "sessions_dir",
]

ROOT_ENV: Final = "GOOSE_PATH_ROOT"
DATA_HOME_ENV: Final = "XDG_DATA_HOME"
SESSIONS: Final = "sessions"
DATABASE: Final = "sessions.db"
LEGACY_SUFFIX: Final = ".jsonl"


def data_dir(host: Host) -> Path:
    """Goose's data folder on ``host``."""
    root = host.getenv(ROOT_ENV)
    if root and host.expand(root).is_absolute():  # relative to Goose's working folder: unknown
        return host.expand(root) / "data"
    if host.platform == "win32":
        appdata = host.getenv("APPDATA")
        roaming = Path(appdata) if appdata else host.home / "AppData" / "Roaming"
        return roaming / "Block" / "goose" / "data"
    xdg = host.getenv(DATA_HOME_ENV)
    if xdg and Path(xdg).is_absolute():
        return Path(xdg) / "goose"
    return host.home / ".local" / "share" / "goose"


def sessions_dir(host: Host) -> Path:
    """The ``sessions`` folder of Goose's data folder on ``host``."""
    return data_dir(host) / SESSIONS


def legacy_files(folder: Path) -> list[Path]:
    """The ``*.jsonl`` session files in ``folder``, sorted; a warning when it cannot be listed."""
    try:
        with os.scandir(folder) as entries:
            names = sorted(e.name for e in entries if e.name.endswith(LEGACY_SUFFIX))
    except FileNotFoundError:
        return []
    except OSError as exc:
        unlistable(folder, exc)
        return []
    return [folder / name for name in names if is_file(folder / name)]
