"""Kilo Code's VS Code extension 4.x-5.x (``kilocode.kilo-code``, a fork of Roo Code).

Where: ``<User>/globalStorage/kilocode.kilo-code/tasks/<task id>/`` in every VS Code-family
editor and remote server. The records are Roo Code's (``api_conversation_history.json``,
``ui_messages.json``, ``task_metadata.json``); the task index lives only in the extension's
row of the editor's global ``state.vscdb`` (``taskHistory``), read for titles, workspaces and
sub-tasks. The reading is shared with Cline and Roo Code, in :mod:`chatparse.adapters._cline`.

Kilo Code 7.x and the Kilo CLI are an OpenCode fork (``~/.local/share/kilo/kilo.db``): not
read by this adapter yet (see ``docs/sources/kilo-code.md``).
"""

from __future__ import annotations

from chatparse.adapters.kilo_code.adapter import KiloCodeAdapter

__all__ = ["KiloCodeAdapter"]
