"""The Kilo Code adapter: the task folders of its 4.x-5.x extension, a fork of Roo Code."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Final

from chatparse.adapter import is_dir, is_file
from chatparse.adapters._cline import TaskFoldersAdapter, extension_dirs
from chatparse.host import Host

__all__ = ["DB_ENV", "EXTENSION_ID", "KiloCodeAdapter", "kilo7_stores"]

EXTENSION_ID: Final = "kilocode.kilo-code"
"""The extension's folder under ``globalStorage``, and the key of its globalState row."""
DB_ENV: Final = "KILO_DB"
"""Names Kilo 7.x's database (OpenCode's ``OPENCODE_DB``, renamed)."""


def kilo7_stores(host: Host) -> list[Path]:
    """Kilo 7.x's stores on ``host``: ``kilo*.db`` and ``storage/`` in its data folder.

    The data folder is ``$XDG_DATA_HOME/kilo`` (an absolute value), else
    ``~/.local/share/kilo``, on every platform; ``$KILO_DB`` names a database besides.
    """
    configured = host.getenv("XDG_DATA_HOME")
    data = (
        Path(configured) / "kilo"
        if configured and Path(configured).is_absolute()
        else host.home / ".local" / "share" / "kilo"
    )
    named = host.getenv(DB_ENV)
    found = [host.expand(named)] if named and is_file(host.expand(named)) else []
    if is_dir(data):
        found += sorted(p for p in data.glob("kilo*.db") if is_file(p))
        found += [data / "storage"] if is_dir(data / "storage") else []
    return found


class KiloCodeAdapter(TaskFoldersAdapter):
    """Reads the tasks of Kilo Code's VS Code extension up to 5.x.

    .. versionadded:: 0.3
    """

    name = "kilo-code"
    display_name = "Kilo Code"
    parser_version = "1"
    extension_ids = (EXTENSION_ID,)

    def bases(self, host: Host) -> list[Path]:
        """``<User>/globalStorage/kilocode.kilo-code`` of every editor and remote server."""
        return extension_dirs(host, [EXTENSION_ID])

    def explain(self, host: Host) -> Iterator[str]:
        """Where the extension's tasks are looked for, and any Kilo 7.x store found beside."""
        yield from super().explain(host)
        for store in kilo7_stores(host):
            yield (
                f"{store}: a Kilo 7.x / Kilo CLI store (an OpenCode fork); not read by this "
                "adapter yet"
            )
