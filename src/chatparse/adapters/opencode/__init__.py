r"""OpenCode (sst/opencode, now anomalyco/opencode): the SQLite store and the JSON tree before it.

Where: ``$XDG_DATA_HOME/opencode`` or ``~/.local/share/opencode`` on every platform (Windows
included): ``opencode.db`` (v1.2+), ``opencode-<channel>.db`` of other builds, the file
``$OPENCODE_DB`` names, the ``storage/`` JSON tree (up to v1.1) and its older
``project/<folder>/storage/session/`` layout (before v0.4).

The records and their reading are shared with Kilo Code 7.x, an OpenCode fork, in
:mod:`chatparse.adapters._opencode` (which states the format); this package says where
OpenCode's stores are (:mod:`~chatparse.adapters.opencode.locate`). See
``docs/sources/opencode.md``.
"""

from chatparse.adapters.opencode.adapter import OpenCodeAdapter

__all__ = ["OpenCodeAdapter"]
