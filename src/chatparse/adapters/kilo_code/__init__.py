"""Kilo Code: its 4.x-5.x extension (a Roo Code fork), and 7.x and the Kilo CLI (OpenCode forks).

Two layouts, one source (where each is: :mod:`~chatparse.adapters.kilo_code.locate`):

4.x-5.x (``kilocode.kilo-code``)
    ``<User>/globalStorage/kilocode.kilo-code/tasks/<task id>/`` in every VS Code-family editor
    and remote server. The records are Roo Code's (``api_conversation_history.json``,
    ``ui_messages.json``, ``task_metadata.json``); the task index lives only in the extension's
    row of the editor's global ``state.vscdb`` (``taskHistory``), read for titles, workspaces
    and sub-tasks. Read by the reader shared with Cline and Roo Code,
    :mod:`chatparse.adapters._cline`.
7.x and the Kilo CLI
    ``~/.local/share/kilo/``: ``kilo.db`` (SQLite, since the OpenCode 1.2 merge) and the
    ``storage/`` JSON tree before it, with OpenCode's tables and records (Kilo adds columns, not
    read). Read by the reader shared with OpenCode, :mod:`chatparse.adapters._opencode`.

One conversation per task: a 7.x session migrated from a 4.x-5.x task is a copy of it, and the
task folder wins unless the session was continued in 7.x
(:func:`~chatparse.adapters.kilo_code.adapter.merged`). See ``docs/sources/kilo-code.md``.
"""

from __future__ import annotations

from chatparse.adapters.kilo_code.adapter import KiloCodeAdapter

__all__ = ["KiloCodeAdapter"]
