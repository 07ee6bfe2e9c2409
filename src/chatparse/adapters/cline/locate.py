"""Where Cline keeps its tasks and sessions: the extension's folders and Cline's data folder."""

from __future__ import annotations

from pathlib import Path
from typing import Final

from chatparse.host import Host

__all__ = [
    "DATA_DIR_ENV",
    "EXTENSION_ID",
    "HOME_DIR_ENV",
    "SESSION_DIR_ENV",
    "data_dir",
    "sessions_dir",
]

EXTENSION_ID: Final = "saoudrizwan.claude-dev"
"""The VS Code extension's id: its folder under ``globalStorage``, and its globalState key."""
DATA_DIR_ENV: Final = "CLINE_DATA_DIR"
"""Moves Cline's data folder (CLI, JetBrains and the 4.x SDK)."""
HOME_DIR_ENV: Final = "CLINE_DIR"
"""Moves Cline's home folder; the data folder is ``data`` in it."""
SESSION_DIR_ENV: Final = "CLINE_SESSION_DATA_DIR"
"""Moves the 4.x SDK's ``sessions`` folder alone."""


def data_dir(host: Host) -> Path:
    """``$CLINE_DATA_DIR``, else ``$CLINE_DIR/data``, else ``~/.cline/data`` (every platform)."""
    configured = host.getenv(DATA_DIR_ENV)
    if configured:
        return host.expand(configured)
    home = host.getenv(HOME_DIR_ENV)
    return (host.expand(home) if home else host.home / ".cline") / "data"


def sessions_dir(host: Host) -> Path:
    """``$CLINE_SESSION_DATA_DIR``, else ``<data folder>/sessions``."""
    configured = host.getenv(SESSION_DIR_ENV)
    return host.expand(configured) if configured else data_dir(host) / "sessions"
