"""Where OpenCode keeps its sessions on a host: the shared locations, with OpenCode's names.

``$XDG_DATA_HOME/opencode`` or ``~/.local/share/opencode``; ``opencode.db`` and
``opencode-<channel>.db`` (unless ``OPENCODE_DISABLE_CHANNEL_DB`` is set, builds of other
channels write their own); ``$OPENCODE_DB``; the ``storage/`` and ``project/`` JSON trees. See
:mod:`chatparse.adapters._opencode.locate`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from chatparse.adapters._opencode import locate
from chatparse.adapters._opencode.locate import Product
from chatparse.host import Host

__all__ = ["DB_ENV", "OPENCODE", "configured_db", "data_dir", "database_files", "stores_on"]

DB_ENV: Final = "OPENCODE_DB"
OPENCODE: Final = Product(
    app="opencode",
    a_database="an OpenCode database",
    db_env=DB_ENV,
    project_layout=True,
)


def data_dir(host: Host) -> Path:
    """``$XDG_DATA_HOME/opencode`` (an absolute value only, as XDG says), else the default."""
    return locate.data_dir(OPENCODE, host)


def configured_db(host: Host) -> Path | None:
    """The database ``OPENCODE_DB`` names, if it names one on disk."""
    return locate.configured_db(OPENCODE, host)


def database_files(folder: Path) -> list[Path]:
    """``opencode.db``, then every ``opencode-<channel>.db``, in ``folder``."""
    return locate.database_files(OPENCODE, folder)


def stores_on(host: Host) -> list[Path]:
    """Every store OpenCode left on ``host``: database files, then JSON tree roots."""
    return locate.stores_on(OPENCODE, host)
