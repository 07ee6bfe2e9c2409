r"""Where Zed keeps its agent threads on a host.

Zed's data folder: ``~/Library/Application Support/Zed`` on macOS; on Linux
``$FLATPAK_XDG_DATA_HOME/zed`` inside the Flatpak sandbox, else ``$XDG_DATA_HOME/zed``, else
``~/.local/share/zed``, and, seen from outside the sandbox, the Flatpak's own
``~/.var/app/dev.zed.Zed/data/zed``; on Windows ``%LOCALAPPDATA%\Zed`` (else
``~/AppData/Local/Zed``). Every channel (stable, preview, nightly) shares it. In it:

- ``threads/threads.db``: the agent panel's threads (SQLite, mid-2025 on);
- ``threads/threads-db.1.mdb``: the earlier LMDB store, which Zed migrates into
  ``threads.db`` when it starts; chatparse cannot read LMDB, and says so;
- ``conversations/*.zed.json``: the assistant panel's text threads (2024 to 2026-04), kept
  in the data folder except on macOS, where they are in Zed's config folder
  ``~/.config/zed`` (a root of its own).
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from chatparse.adapter import is_dir, is_file
from chatparse.host import Host

__all__ = [
    "CONVERSATIONS",
    "FLATPAK_ENV",
    "LEGACY_DB",
    "THREADS_DB",
    "XDG_ENV",
    "data_dirs",
    "stores",
]

FLATPAK_ENV: Final = "FLATPAK_XDG_DATA_HOME"
XDG_ENV: Final = "XDG_DATA_HOME"
THREADS_DB: Final = Path("threads") / "threads.db"
LEGACY_DB: Final = Path("threads") / "threads-db.1.mdb"
CONVERSATIONS: Final = "conversations"
_FLATPAK_APP: Final = Path(".var") / "app" / "dev.zed.Zed" / "data" / "zed"


def _absolute(value: str | None) -> Path | None:
    # The XDG spec says a relative value is invalid and must be ignored.
    return Path(value) if value and Path(value).is_absolute() else None


def _linux(host: Host) -> list[Path]:
    flatpak = _absolute(host.getenv(FLATPAK_ENV))
    xdg = _absolute(host.getenv(XDG_ENV))
    own = (flatpak or xdg or host.home / ".local" / "share") / "zed"
    return [own, host.home / _FLATPAK_APP]


def data_dirs(host: Host) -> list[Path]:
    """Every folder Zed may keep threads in on ``host``, the usual data folder first.

    On macOS, Zed's config folder too: it holds the text threads there.
    """
    if host.platform == "darwin":
        return [
            host.home / "Library" / "Application Support" / "Zed",
            host.home / ".config" / "zed",
        ]
    if host.platform == "win32":
        local = host.getenv("LOCALAPPDATA")
        return [(Path(local) if local else host.home / "AppData" / "Local") / "Zed"]
    found: list[Path] = []
    for folder in _linux(host):
        if folder not in found:
            found.append(folder)
    return found


def _holds_threads(folder: Path) -> bool:
    if is_dir(folder / CONVERSATIONS):
        return True
    return is_dir(folder / "threads") and (
        is_file(folder / THREADS_DB) or (folder / LEGACY_DB).exists()
    )


def stores(host: Host) -> list[Path]:
    """The folders that hold threads: a thread store, or a folder of text threads."""
    return [folder for folder in data_dirs(host) if _holds_threads(folder)]
