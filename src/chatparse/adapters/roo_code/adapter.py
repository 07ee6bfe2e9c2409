"""The Roo Code adapter: its extension folders, and the storage path its setting may move."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Final

from chatparse.adapter import is_file
from chatparse.adapters._cline import PRODUCTS, SERVER_DIRS, TaskFoldersAdapter, extension_dirs
from chatparse.adapters._vscode import existing_user_dirs
from chatparse.host import Host

__all__ = ["CUSTOM_STORAGE_SETTING", "EXTENSION_ID", "RooCodeAdapter", "custom_storage_paths"]

EXTENSION_ID: Final = "rooveterinaryinc.roo-cline"
"""The extension's folder under ``globalStorage`` (VS Code writes ids in lower case there)."""
CUSTOM_STORAGE_SETTING: Final = "roo-cline.customStoragePath"
"""The user setting that moves Roo Code's whole storage folder to an absolute path."""
_SETTING: Final = re.compile(rf'"{re.escape(CUSTOM_STORAGE_SETTING)}"\s*:\s*("(?:[^"\\]|\\.)*")')


def custom_storage_paths(host: Host) -> list[Path]:
    """The folders ``roo-cline.customStoragePath`` names in each editor's ``settings.json``.

    ``settings.json`` is JSON with comments, so the one setting is found by its key rather than
    by decoding the whole file; an empty or relative value is ignored, as Roo Code does.
    """
    found: list[Path] = []
    for user in existing_user_dirs(host, PRODUCTS, server_dirs=SERVER_DIRS):
        settings = user / "settings.json"
        if not is_file(settings):
            continue
        try:
            text = settings.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        for match in _SETTING.finditer(text):
            value = json.loads(match.group(1))
            if isinstance(value, str) and value.strip() and Path(value).is_absolute():
                found.append(Path(value.strip()))
    return found


class RooCodeAdapter(TaskFoldersAdapter):
    """Reads the tasks of Roo Code (``rooveterinaryinc.roo-cline``), with their sub-tasks.

    .. versionadded:: 0.3
    """

    name = "roo-code"
    display_name = "Roo Code"
    parser_version = "1"
    extension_ids = (EXTENSION_ID, "RooVeterinaryInc.roo-cline")

    def bases(self, host: Host) -> list[Path]:
        """The extension folder of every editor, then the folders a setting names."""
        return [*extension_dirs(host, [EXTENSION_ID]), *custom_storage_paths(host)]

    def explain(self, host: Host) -> Iterator[str]:
        """Where Roo Code's tasks are looked for on ``host``, for ``chatparse doctor``."""
        custom = custom_storage_paths(host)
        if custom:
            yield f"{CUSTOM_STORAGE_SETTING} is set: {', '.join(map(str, custom))}"
        else:
            yield f"{CUSTOM_STORAGE_SETTING} is not set in any editor's settings.json"
        yield from super().explain(host)
