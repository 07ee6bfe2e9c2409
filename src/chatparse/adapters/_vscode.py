"""Where VS Code and its forks (Cursor, Trae, VSCodium…) keep per-user and per-workspace state.

Shared by every adapter of that family. Layout, per product:

``<User>/globalStorage/state.vscdb``
    Application-wide key-value store (SQLite, table ``ItemTable``).
``<User>/workspaceStorage/<workspace id>/``
    One folder per opened folder or workspace, with its own ``state.vscdb`` and, except for
    empty windows, a ``workspace.json`` naming what was opened as a URI.

``<User>`` is found through :meth:`chatparse.host.Host.vscode_user_dir`; remote servers (SSH, WSL,
Codespaces) keep the same tree under ``~/.vscode-server/data/User``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Final
from urllib.parse import unquote, urlsplit

from chatparse.adapter.paths import unlistable
from chatparse.decoders import bigjson
from chatparse.errors import SourceUnavailableError
from chatparse.host import Host

__all__ = [
    "GLOBAL_DB",
    "WORKSPACE_DB",
    "existing_user_dirs",
    "uri_platform",
    "uri_to_project_path",
    "workspace_dirs",
    "workspace_project_path",
    "workspace_uri",
]

GLOBAL_DB: Final = Path("globalStorage") / "state.vscdb"
WORKSPACE_DB: Final = "state.vscdb"
WORKSPACE_FILE: Final = "workspace.json"
_DRIVE: Final = re.compile(r"/?[A-Za-z]:(?:/|$)")


def existing_user_dirs(
    host: Host, products: Iterable[str], *, server_dirs: Iterable[str] = ()
) -> list[Path]:
    """The ``User`` directories of ``products`` that exist on ``host``, in the order given.

    ``server_dirs`` names remote-server folders under the home (``".vscode-server"``), whose
    ``data/User`` is laid out the same way.
    """
    candidates = [host.vscode_user_dir(product) for product in products]
    candidates += [host.home / name / "data" / "User" for name in server_dirs]
    found: list[Path] = []
    for candidate in candidates:
        if candidate.is_dir() and candidate not in found:
            found.append(candidate)
    return found


def workspace_dirs(user_dir: Path) -> Iterator[Path]:
    """Every ``workspaceStorage/<id>/`` folder, sorted by id so scans are deterministic.

    A ``workspaceStorage`` that cannot be listed is passed over with a warning; a workspace
    folder that cannot be searched is still listed, and what reads in it says what it cannot.
    """
    storage = user_dir / "workspaceStorage"
    try:
        with os.scandir(storage) as entries:
            folders = sorted(Path(entry.path) for entry in entries if _is_dir(entry))
    except (FileNotFoundError, NotADirectoryError):
        return
    except OSError as exc:
        unlistable(storage, exc)
        return
    yield from folders


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:  # a link loop, or gone since the listing
        return False


def uri_to_project_path(uri: str, platform: str) -> str:
    r"""The project path a ``workspace.json`` URI stands for, in the host platform's own form.

    ``file:///home/ada/proj`` is ``/home/ada/proj``; ``file:///c%3A/Users/ada/proj`` on Windows
    is ``c:\Users\ada\proj``. Other schemes (``vscode-remote://ssh-remote+box/src``) are kept
    verbatim: the path only means something on the remote machine, and dropping the authority
    would make it look local.
    """
    parts = urlsplit(uri)
    if parts.scheme != "file":
        return uri
    path = unquote(parts.path)
    if platform == "win32":
        if parts.netloc:  # a UNC share: file://server/share/dir
            return str(PureWindowsPath(f"//{parts.netloc}{path}"))
        return str(PureWindowsPath(path.removeprefix("/")))
    return str(PurePosixPath(path))


def workspace_uri(workspace_dir: Path) -> str | None:
    """The URI a workspace folder's ``workspace.json`` names, or ``None``.

    The file holds ``{"folder": "<uri>"}`` for a folder window or ``{"workspace": "<uri>"}`` for a
    multi-root ``.code-workspace`` window; empty windows have no such file. A file that is
    missing, unreadable or not of that shape gives ``None``: the project is then unknown, which
    never stops the sessions beside it from being read.
    """
    path = workspace_dir / WORKSPACE_FILE
    if not path.is_file():
        return None
    try:
        for item in bigjson.iter_kvitems(path, ""):
            if isinstance(item, bigjson.Malformed):
                return None
            if item.key in ("folder", "workspace") and isinstance(item.value, str) and item.value:
                return item.value
    except SourceUnavailableError:
        return None
    return None


def workspace_project_path(workspace_dir: Path, platform: str | None = None) -> str | None:
    """The project a ``workspaceStorage/<id>/`` folder belongs to, as a path on ``platform``.

    ``workspace.json``'s URI decoded by :func:`uri_to_project_path`; ``None`` for an empty
    window's folder (such as ``no-workspace``), which has no ``workspace.json``. With no
    ``platform``, the URI itself decides (:func:`uri_platform`), which also reads a copy of
    another machine's profile correctly.
    """
    uri = workspace_uri(workspace_dir)
    if uri is None:
        return None
    return uri_to_project_path(uri, platform or uri_platform(uri))


def uri_platform(uri: str) -> str:
    r"""The platform whose path form a URI's path takes: ``"win32"`` or ``"linux"``.

    ``"win32"`` for a ``file:`` URI of a drive-letter path or a UNC share (VS Code writes
    ``file:///c%3A/Users/ada/proj`` for ``C:\Users\ada\proj``); ``"linux"`` otherwise, as a
    POSIX path never starts with a drive letter.
    """
    parts = urlsplit(uri)
    if parts.scheme != "file":
        return "linux"
    if parts.netloc or _DRIVE.match(unquote(parts.path)):
        return "win32"
    return "linux"
