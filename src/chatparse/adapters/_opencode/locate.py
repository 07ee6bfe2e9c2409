r"""Where a program of the OpenCode family keeps its stores on a host, by what it calls itself.

OpenCode names its data folder after itself (``xdg-basedir``'s data home plus ``opencode``) and
its forks rename it: Kilo 7.x writes ``kilo``. The same on every platform:
``$XDG_DATA_HOME/<app>``, else ``~/.local/share/<app>`` (on Windows too:
``%USERPROFILE%\.local\share\<app>``). In it:

- ``<app>.db`` (OpenCode v1.2+, Kilo since its OpenCode 1.2 merge); builds of other channels
  write ``<app>-<channel>.db``. Every such database there is read, whichever channel wrote it;
  a fork also reads the names of the program it was renamed from (Kilo: ``opencode*.db``).
- ``$<APP>_DB`` names the database instead: an absolute path, or a name in the data folder
  (``:memory:`` leaves nothing on disk). It is read besides the others.
- ``storage/`` (the JSON tree, before v1.2) and, for OpenCode only,
  ``project/<folder>/storage/session/`` (its older layout, before v0.4).

The stores are listed in this order, which breaks ties between copies of one session (see
:mod:`~chatparse.adapters._opencode.catalog`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from attrs import frozen

from chatparse.adapter import is_dir, is_file, list_folder
from chatparse.host import Host

__all__ = [
    "DATA_HOME_ENV",
    "Product",
    "configured_db",
    "data_dir",
    "database_files",
    "is_database_name",
    "stores_on",
]

DATA_HOME_ENV: Final = "XDG_DATA_HOME"
IN_MEMORY: Final = ":memory:"
DB_SUFFIX: Final = ".db"


@frozen
class Product:
    """What one program of the family calls its folder, its databases and its variables.

    Attributes:
        app: The data folder's name, also the stem of its database (``opencode``, ``kilo``).
        a_database: One of its databases, with its article (``an OpenCode database``).
        db_env: The variable that names its database (``OPENCODE_DB``, ``KILO_DB``).
        former_apps: The stems of databases a renamed install may have left in the folder.
        project_layout: Whether it ever wrote the ``project/`` layout of the JSON tree.
        slug_key: The locator key a session's slug goes in, or ``None`` to leave it out.
    """

    app: str
    a_database: str
    db_env: str
    former_apps: tuple[str, ...] = ()
    project_layout: bool = False
    slug_key: str | None = None

    @property
    def stems(self) -> tuple[str, ...]:
        """Its own database stem, then the former ones."""
        return (self.app, *self.former_apps)


def data_dir(product: Product, host: Host) -> Path:
    """``$XDG_DATA_HOME/<app>`` (an absolute value only, as XDG says), else the default."""
    configured = host.getenv(DATA_HOME_ENV)
    if configured and Path(configured).is_absolute():
        return Path(configured) / product.app
    return host.home / ".local" / "share" / product.app


def configured_db(product: Product, host: Host) -> Path | None:
    """The database ``$<APP>_DB`` names, if it names one on disk."""
    value = host.getenv(product.db_env)
    if value is None or value == IN_MEMORY:
        return None
    path = Path(value)
    return path if path.is_absolute() else data_dir(product, host) / path


def _rank(product: Product, name: str) -> tuple[int, int] | None:
    """Where a database of this name comes in the folder's list; ``None`` if it is not one."""
    for place, stem in enumerate(product.stems):
        if name == f"{stem}{DB_SUFFIX}":
            return place, 0
        if name.startswith(f"{stem}-") and name.endswith(DB_SUFFIX):
            return place, 1
    return None


def is_database_name(product: Product, name: str) -> bool:
    """Whether ``name`` is one the program gives its databases (``<stem>[-<channel>].db``)."""
    return _rank(product, name) is not None


def _names_in(folder: Path) -> list[str]:
    return [entry.name for entry in list_folder(folder)]


def database_files(product: Product, folder: Path) -> list[Path]:
    """``<app>.db``, then every ``<app>-<channel>.db``, then the former names, in ``folder``."""
    ranked = [(rank, name) for name in _names_in(folder) if (rank := _rank(product, name))]
    return [folder / name for _, name in sorted(ranked) if is_file(folder / name)]


def _project_trees(folder: Path) -> list[Path]:
    trees = [folder / name / "storage" / "session" for name in _names_in(folder)]
    return [tree for tree in trees if is_dir(tree / "info")]


def stores_on(product: Product, host: Host) -> list[Path]:
    """Every store the program left on ``host``: database files, then JSON tree roots."""
    data = data_dir(product, host)
    found: list[Path] = []
    configured = configured_db(product, host)
    if configured is not None and is_file(configured):
        found.append(configured)
    found += [db for db in database_files(product, data) if db != configured]
    if is_dir(data / "storage" / "session"):
        found.append(data / "storage")
    if product.project_layout:
        found += _project_trees(data / "project")
    return found
