r"""Where OpenCode keeps its sessions on a host.

OpenCode's data folder is ``xdg-basedir``'s data home plus ``opencode``, on every platform:
``$XDG_DATA_HOME/opencode``, else ``~/.local/share/opencode`` (on Windows too:
``%USERPROFILE%\.local\share\opencode``). In it:

- ``opencode.db`` (v1.2+); builds of other channels write ``opencode-<channel>.db`` unless
  ``OPENCODE_DISABLE_CHANNEL_DB`` is set. Every ``opencode.db`` and ``opencode-*.db`` there is
  read, whichever channel wrote it.
- ``OPENCODE_DB`` names the database instead: an absolute path, or a name in the data folder
  (``:memory:`` leaves nothing on disk). It is read besides the others.
- ``storage/`` (the JSON tree, before v1.2) and ``project/<folder>/storage/session/`` (its
  older layout, before v0.4).

The stores are listed in this order, which breaks ties between copies of one session (see
:mod:`~chatparse.adapters.opencode.catalog`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from chatparse.adapter import is_dir, is_file, list_folder
from chatparse.host import Host

__all__ = ["DATA_HOME_ENV", "DB_ENV", "configured_db", "data_dir", "database_files", "stores_on"]

DATA_HOME_ENV: Final = "XDG_DATA_HOME"
DB_ENV: Final = "OPENCODE_DB"
IN_MEMORY: Final = ":memory:"
DEFAULT_DB: Final = "opencode.db"


def data_dir(host: Host) -> Path:
    """``$XDG_DATA_HOME/opencode`` (an absolute value only, as XDG says), else the default."""
    configured = host.getenv(DATA_HOME_ENV)
    if configured and Path(configured).is_absolute():
        return Path(configured) / "opencode"
    return host.home / ".local" / "share" / "opencode"


def configured_db(host: Host) -> Path | None:
    """The database ``OPENCODE_DB`` names, if it names one on disk."""
    value = host.getenv(DB_ENV)
    if value is None or value == IN_MEMORY:
        return None
    path = Path(value)
    return path if path.is_absolute() else data_dir(host) / path


def _is_database_name(name: str) -> bool:
    return name == DEFAULT_DB or (name.startswith("opencode-") and name.endswith(".db"))


def _names_in(folder: Path) -> list[str]:
    return [entry.name for entry in list_folder(folder)]


def database_files(folder: Path) -> list[Path]:
    """``opencode.db``, then every ``opencode-<channel>.db``, in ``folder``."""
    names = [name for name in _names_in(folder) if _is_database_name(name)]
    names.sort(key=lambda name: name != DEFAULT_DB)
    return [folder / name for name in names if is_file(folder / name)]


def _project_trees(folder: Path) -> list[Path]:
    trees = [folder / name / "storage" / "session" for name in _names_in(folder)]
    return [tree for tree in trees if is_dir(tree / "info")]


def stores_on(host: Host) -> list[Path]:
    """Every store OpenCode left on ``host``: database files, then JSON tree roots."""
    data = data_dir(host)
    found: list[Path] = []
    configured = configured_db(host)
    if configured is not None and is_file(configured):
        found.append(configured)
    found += [db for db in database_files(data) if db != configured]
    if is_dir(data / "storage" / "session"):
        found.append(data / "storage")
    found += _project_trees(data / "project")
    return found
