"""The OpenCode adapter: OpenCode's names on the reader shared with Kilo Code 7.x."""

from __future__ import annotations

from pathlib import Path
from typing import Final

from chatparse.adapters._opencode import StoresAdapter
from chatparse.adapters.opencode.locate import OPENCODE

__all__ = ["OpenCodeAdapter"]

_TREE: Final = 0.8
"""A ``storage/`` tree has no mark of the program that wrote it but the folder it is in."""


class OpenCodeAdapter(StoresAdapter):
    """Reads OpenCode's sessions: the SQLite store (v1.2+) and the JSON tree before it.

    Args:
        busy_timeout: The longest, in seconds, one read waits for OpenCode's lock before the
            database counts as unavailable.

    .. versionadded:: 0.2
    """

    name = "opencode"
    display_name = "OpenCode"
    parser_version = "1"
    product = OPENCODE

    def tree_confidence(self, _root: Path) -> float:
        """Any JSON tree of OpenCode's shape (Kilo Code is surer of one in a ``kilo`` folder)."""
        return _TREE
