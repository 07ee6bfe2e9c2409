r"""Where Kilo Code keeps its tasks and sessions on a host, in its two layouts.

4.x-5.x (a Roo Code fork)
    ``<User>/globalStorage/kilocode.kilo-code/`` of every VS Code-family editor and remote
    server (the list is the Cline family's, :mod:`chatparse.adapters._cline.locate`).
7.x and the Kilo CLI (an OpenCode fork)
    ``$XDG_DATA_HOME/kilo``, else ``~/.local/share/kilo``, on every platform (Windows too:
    ``%USERPROFILE%\.local\share\kilo``): ``kilo.db``, ``kilo-<channel>.db`` of dev builds,
    ``opencode.db`` and ``opencode-<channel>.db`` left there by installs from before the
    rename, the database ``$KILO_DB`` names, and the ``storage/`` JSON tree (up to Kilo CLI
    1.0.25; left in place by the move to SQLite). Every other ``OPENCODE_*`` variable Kilo reads
    as ``KILO_*``; none of them moves the data folder.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from chatparse.adapters._cline import extension_dirs
from chatparse.adapters._opencode import Product
from chatparse.host import Host

__all__ = ["DB_ENV", "EXTENSION_ID", "KILO", "MIGRATED_FROM", "extension_storage", "is_task_root"]

EXTENSION_ID: Final = "kilocode.kilo-code"
"""The 4.x-5.x extension's folder under ``globalStorage``, and the key of its globalState row."""
DB_ENV: Final = "KILO_DB"
"""Names Kilo 7.x's database (OpenCode's ``OPENCODE_DB``, renamed)."""
MIGRATED_FROM: Final = "slug"
"""The locator key of a 7.x session's slug: a session migrated from a 4.x-5.x task has the
task's id as its slug."""

KILO: Final = Product(
    app="kilo",
    a_database="a Kilo database",
    db_env=DB_ENV,
    former_apps=("opencode",),
    slug_key=MIGRATED_FROM,
)


def extension_storage(host: Host) -> list[Path]:
    """``<User>/globalStorage/kilocode.kilo-code`` of every editor and remote server."""
    return extension_dirs(host, [EXTENSION_ID])


def is_task_root(root: str) -> bool:
    """Whether a root of the source is the 4.x-5.x extension's storage (else a 7.x store)."""
    return Path(root).name.lower() == EXTENSION_ID
