"""Where Kiro keeps its conversations: four stores, by the writer and its generation.

* **CLI database**: ``data.sqlite3`` in the CLI's data folder, ``kiro-cli`` (Kiro CLI) or
  ``amazon-q`` (the Amazon Q Developer CLI it replaced, same schema). The data folder is the
  platform's local data folder: ``$XDG_DATA_HOME`` or ``~/.local/share`` on Linux,
  ``~/Library/Application Support`` on macOS, ``%LOCALAPPDATA%`` or ``~/AppData/Local`` on
  Windows.
* **CLI session files**: ``<kiro home>/sessions/cli/<id>.json`` (metadata) beside
  ``<id>.jsonl`` (the journal). The Kiro home is ``$KIRO_HOME``, else ``~/.kiro``.
* **Workspace sessions** (Kiro IDE 1.x, and the CLI's opt-in v3 engine):
  ``<kiro home>/sessions/<workspace hash>/sess_<id>/session.json`` and ``messages.jsonl``.
* **IDE workspace sessions** (Kiro IDE 0.x, the ``kiro.kiroagent`` extension):
  ``<Kiro user dir>/globalStorage/kiro.kiroagent/workspace-sessions/<base64url workspace>/
  <session id>.json``, in Continue's session format.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Final

from attrs import frozen

from chatparse.adapter import files_in, folders_in, is_dir, is_file, list_folder
from chatparse.host import Host

__all__ = [
    "CLI_SESSIONS",
    "DATABASE",
    "DATA_FOLDERS",
    "HOME_ENV",
    "SESSION_FILE",
    "SESSION_MESSAGES",
    "Found",
    "cli_sessions",
    "databases",
    "has_files",
    "ide_sessions",
    "ide_storage",
    "kiro_home",
    "workspace_sessions",
]

HOME_ENV: Final = "KIRO_HOME"
"""Moves ``~/.kiro`` (kiro-cli 2.3.0 and later)."""
DATABASE: Final = "data.sqlite3"
DATA_FOLDERS: Final = ("kiro-cli", "amazon-q")
"""The CLI's folders in the local data folder, the current one first."""
CLI_SESSIONS: Final = "cli"
SESSION_FILE: Final = "session.json"
SESSION_MESSAGES: Final = "messages.jsonl"
_SESSION_PREFIX: Final = "sess_"
_IDE_EXTENSION: Final = "kiro.kiroagent"
_IDE_INDEX: Final = "sessions.json"


@frozen
class Found:
    """A conversation's files, before anything is read: its id, its main file, its layout."""

    ident: str
    path: Path
    layout: str
    """``cli`` (session files), ``workspace`` (v3 folders) or ``ide`` (IDE 0.x files)."""


def kiro_home(host: Host) -> Path:
    """``$KIRO_HOME`` when set and not empty (``~`` expanded), else ``<home>/.kiro``."""
    configured = host.getenv(HOME_ENV)
    return host.expand(configured) if configured else host.home / ".kiro"


def _local_data(host: Host) -> Path:
    if host.platform == "darwin":
        return host.home / "Library" / "Application Support"
    if host.platform == "win32":
        local = host.getenv("LOCALAPPDATA")
        return Path(local) if local else host.home / "AppData" / "Local"
    xdg = host.getenv("XDG_DATA_HOME")
    # The XDG spec says a relative value is invalid and must be ignored.
    return Path(xdg) if xdg and Path(xdg).is_absolute() else host.home / ".local" / "share"


def databases(host: Host) -> list[Path]:
    """The CLI databases that may exist, Kiro CLI's first."""
    return [_local_data(host) / folder / DATABASE for folder in DATA_FOLDERS]


def ide_storage(host: Host) -> Path:
    """The IDE extension's global storage folder."""
    return host.vscode_user_dir("Kiro") / "globalStorage" / _IDE_EXTENSION


def _is_session_file(name: str) -> bool:
    return name.endswith((".json", ".jsonl"))


def _is_ide_session(name: str) -> bool:
    return name.endswith(".json") and name != _IDE_INDEX


def cli_sessions(sessions: Path) -> Iterator[Found]:
    """Each ``cli/<id>.jsonl`` (its ``<id>.json`` beside it), or a ``<id>.json`` alone."""
    folder = sessions / CLI_SESSIONS
    names = {path.name for path in files_in(folder, _is_session_file)}
    for stem in sorted({name.rsplit(".", 1)[0] for name in names}):
        journal = f"{stem}.jsonl"
        path = folder / (journal if journal in names else f"{stem}.json")
        yield Found(stem, path, "cli")


def workspace_sessions(sessions: Path) -> Iterator[Found]:
    """Each ``<workspace hash>/sess_<id>/`` holding ``session.json`` or ``messages.jsonl``."""
    for workspace in folders_in(sessions):
        if workspace.name == CLI_SESSIONS:
            continue
        for entry in list_folder(workspace):
            folder = Path(entry.path)
            # Looked at before its name is: a workspace folder that can be listed but not
            # searched is then passed over with a warning, not in silence.
            if not (is_dir(folder) and entry.name.startswith(_SESSION_PREFIX)):
                continue
            if is_file(folder / SESSION_MESSAGES) or is_file(folder / SESSION_FILE):
                ident = entry.name.removeprefix(_SESSION_PREFIX)
                yield Found(ident, folder / SESSION_MESSAGES, "workspace")


def ide_sessions(storage: Path) -> Iterator[Found]:
    """Each ``workspace-sessions/<workspace>/<session id>.json`` (not the index)."""
    for workspace in folders_in(storage / "workspace-sessions"):
        for path in files_in(workspace, _is_ide_session):
            yield Found(path.name.removesuffix(".json"), path, "ide")


def has_files(host: Host) -> list[Path]:
    """The file-store roots that exist: the Kiro sessions folder, the IDE storage."""
    roots = [kiro_home(host) / "sessions", ide_storage(host)]
    return [root for root in roots if is_dir(root)]
