r"""Roo Code (``rooveterinaryinc.roo-cline``), a fork of Cline: its task folders.

Where: ``<User>/globalStorage/rooveterinaryinc.roo-cline/tasks/<task id>/`` in every VS
Code-family editor and remote server (``<User>`` is ``~/.config/<Product>/User`` on Linux,
``~/Library/Application Support/<Product>/User`` on macOS, ``%APPDATA%\<Product>\User`` on
Windows), and under the folder the ``roo-cline.customStoragePath`` setting names.

The records: ``api_conversation_history.json`` (Anthropic messages plus ``ts``, ``isSummary``,
condense and truncation links, OpenAI reasoning items), ``ui_messages.json`` (the UI log, with
per-request usage in ``api_req_started`` and Roo's ``apiProtocol``), ``task_metadata.json``
and, since 3.49, ``history_item.json`` (the task's index entry: title, workspace, parent task).
Sub-tasks (Orchestrator mode) are read into their parent's ``subagents``. The reading is shared
with Cline and Kilo Code, in :mod:`chatparse.adapters._cline`.

See ``docs/sources/roo-code.md`` for what is kept, what is skipped and why.
"""

from __future__ import annotations

from chatparse.adapters.roo_code.adapter import RooCodeAdapter

__all__ = ["RooCodeAdapter"]
