"""Where the Cline family keeps its tasks, and what a scan learns of a task folder from its stat.

The extensions run in every VS Code-family editor, so each ``<User>/globalStorage/<extension
id>/`` is tried under every product's user folder and every remote server's (see
:mod:`chatparse.adapters._vscode`); Cline's CLI and JetBrains builds keep the same layout under
their own data folder.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from stat import S_ISREG
from typing import Final

from chatparse.adapter import digest_fingerprint, passed_over, stat_fingerprint, unlistable
from chatparse.adapters._cline.task import TASK_FILES
from chatparse.adapters._vscode import existing_user_dirs
from chatparse.host import Host

__all__ = [
    "PRODUCTS",
    "SERVER_DIRS",
    "TaskFolder",
    "extension_dirs",
    "folders_in",
    "pick",
]

PRODUCTS: Final = (
    "Code",
    "Code - Insiders",
    "VSCodium",
    "Cursor",
    "Windsurf",
    "Trae",
    "Kiro",
    "Antigravity",
    "Positron",
    "Void",
)
"""The VS Code-family editors whose ``User`` folder may hold the extensions' storage."""
SERVER_DIRS: Final = (
    ".vscode-server",
    ".vscode-server-insiders",
    ".vscodium-server",
    ".cursor-server",
    ".windsurf-server",
)
"""Remote-server folders under the home (SSH, WSL, containers) with a ``data/User`` inside."""


def extension_dirs(host: Host, folder_names: Iterable[str]) -> list[Path]:
    """``<User>/globalStorage/<name>`` of every user folder on ``host``, for each name given."""
    names = tuple(folder_names)
    return [
        user / "globalStorage" / name
        for user in existing_user_dirs(host, PRODUCTS, server_dirs=SERVER_DIRS)
        for name in names
    ]


def folders_in(folder: Path) -> list[Path]:
    """The sub-folders of ``folder`` but ``.*`` and ``_*``, sorted; warns when unlistable."""
    try:
        with os.scandir(folder) as entries:
            found = [
                Path(entry.path)
                for entry in entries
                if entry.name[:1] not in "._" and entry.is_dir(follow_symlinks=False)
            ]
    except (FileNotFoundError, NotADirectoryError):
        return []
    except OSError as exc:
        unlistable(folder, exc)
        return []
    return sorted(found)


class TaskFolder:
    """A task folder a scan found: its id and the stats of the files that are read."""

    __slots__ = ("folder", "id", "stats")

    def __init__(self, folder: Path, stats: dict[str, os.stat_result]) -> None:
        self.folder, self.id, self.stats = folder, folder.name, stats

    @classmethod
    def at(cls, folder: Path) -> TaskFolder | None:
        """The folder, or ``None`` when it holds none of the task's files or cannot be read."""
        stats: dict[str, os.stat_result] = {}
        for name in TASK_FILES:
            try:
                info = (folder / name).stat()
            except FileNotFoundError:
                continue
            except OSError as exc:  # a folder that shows its names but refuses their stat
                passed_over(folder, f"cannot be read ({exc.strerror or exc})")
                return None
            if S_ISREG(info.st_mode):
                stats[name] = info
        if set(stats) <= {TASK_FILES[-1]}:  # task_metadata.json alone holds no conversation
            return None
        return cls(folder, stats)

    @property
    def size(self) -> int:
        return sum(info.st_size for info in self.stats.values())

    @property
    def mtime_ns(self) -> int:
        return max(info.st_mtime_ns for info in self.stats.values())

    @property
    def main_file(self) -> Path:
        """The file a meta names: the API history, else the UI log."""
        return self.folder / next(name for name in TASK_FILES if name in self.stats)

    def fingerprint(self, others: Sequence[TaskFolder] = ()) -> str:
        """The stats of its files, and of the files of ``others`` read with it (sub-tasks)."""
        parts = [f"{name}={stat_fingerprint(info)}" for name, info in sorted(self.stats.items())]
        for other in others:
            parts += [other.id, other.fingerprint()]
        return digest_fingerprint(*parts)


def pick(copies: Sequence[TaskFolder]) -> TaskFolder:
    """Of several folders of one task (several editors), the largest, then the newest."""
    return max(copies, key=lambda f: (f.size, f.mtime_ns, -copies.index(f)))
