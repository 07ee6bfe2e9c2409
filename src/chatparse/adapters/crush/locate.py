r"""Where Crush and OpenCode-Go keep their databases: one per project, found three ways.

Both tools write a database inside each project they ran in, never in the home folder alone:
``<project>/.crush/crush.db`` (Crush; ``options.data_directory`` in the project's
``crush.json`` or ``--data-dir`` moves it) and ``<project>/.opencode/opencode.db``
(OpenCode-Go). So the projects must be found first:

1. **Crush's project list**: ``projects.json`` (``{"projects": [{"path", "data_dir",
   "last_accessed"}]}``) in Crush's global data folder: ``$CRUSH_GLOBAL_DATA``, else
   ``$XDG_DATA_HOME/crush``, else ``~/.local/share/crush``; on Windows
   ``%LOCALAPPDATA%\crush``. Each entry's ``data_dir`` (relative to its ``path`` when not
   absolute) holds ``crush.db``; its ``path`` is also looked in for ``.opencode/opencode.db``.
2. **Folders named** in chatparse's ``$CHATPARSE_PROJECTS``
   (:meth:`~chatparse.host.Host.project_folders`): each folder and each folder directly inside
   it, as a project folder or a data folder (holding ``crush.db`` or ``opencode.db``); a
   database file named there is read too.
3. **The home folder itself**, as a project (a tool started in ``~``).

OpenCode-Go kept no list of projects: its databases are found through 2, 3 and the project
paths of 1. Any other database is read through :func:`chatparse.parse_path`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from chatparse.adapter import as_nonempty_text, dig, folders_in, is_file
from chatparse.decoders.value import Invalid, decode
from chatparse.host import Host

__all__ = [
    "CRUSH_DB",
    "GLOBAL_ENV",
    "OPENCODE_DB",
    "databases",
    "global_dir",
    "project_list",
]

GLOBAL_ENV: Final = "CRUSH_GLOBAL_DATA"
CRUSH_DB: Final = "crush.db"
OPENCODE_DB: Final = "opencode.db"
PROJECTS_FILE: Final = "projects.json"
_LIST_BYTES: Final = 4 * 1024 * 1024  # a list of projects; anything larger is not one


def global_dir(host: Host) -> Path:
    """Crush's global data folder on ``host`` (where ``projects.json`` is)."""
    configured = host.getenv(GLOBAL_ENV)
    if configured:
        return Path(configured)
    if host.platform == "win32":
        local = host.getenv("LOCALAPPDATA")
        return (Path(local) if local else host.home / "AppData" / "Local") / "crush"
    xdg = host.getenv("XDG_DATA_HOME")
    if xdg and Path(xdg).is_absolute():
        return Path(xdg) / "crush"
    return host.home / ".local" / "share" / "crush"


def project_list(host: Host) -> list[tuple[Path, Path | None]]:
    """``(path, data_dir)`` of every project in Crush's ``projects.json``, in its order."""
    listing = global_dir(host) / PROJECTS_FILE
    try:
        with listing.open("rb") as stream:
            value = decode(stream.read(_LIST_BYTES))
    except OSError:
        return []
    entries = dig(value, "projects") if not isinstance(value, Invalid) else None
    found: list[tuple[Path, Path | None]] = []
    for entry in entries if isinstance(entries, list) else ():
        path = as_nonempty_text(dig(entry, "path"))
        if path is None:
            continue
        data = as_nonempty_text(dig(entry, "data_dir"))
        found.append((Path(path), Path(path) / data if data else None))
    return found


def _in_folder(folder: Path) -> list[Path]:
    """The databases of a project folder, or of a data folder."""
    places = (
        folder / ".crush" / CRUSH_DB,
        folder / ".opencode" / OPENCODE_DB,
        folder / CRUSH_DB,
        folder / OPENCODE_DB,
    )
    return [db for db in places if is_file(db)]


def _named(path: Path) -> list[Path]:
    """The databases of a path named in ``$CHATPARSE_PROJECTS``: a database, or a folder's."""
    if is_file(path):
        return [path]
    return [db for place in (path, *folders_in(path)) for db in _in_folder(place)]


def databases(host: Host) -> list[Path]:
    """Every database of a known project on ``host``, each once, in the order above."""
    found: list[Path] = []
    for project, data in project_list(host):
        found += [data / CRUSH_DB] if data is not None and is_file(data / CRUSH_DB) else []
        found += _in_folder(project)
    for named in host.project_folders():
        found += _named(named)
    found += _in_folder(host.home)
    return list(dict.fromkeys(found))
