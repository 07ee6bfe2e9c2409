"""The reader of the Cline family's task folders, shared by Cline, Roo Code and Kilo Code.

Cline (``saoudrizwan.claude-dev``) and its forks Roo Code (``rooveterinaryinc.roo-cline``) and
Kilo Code (``kilocode.kilo-code``, 4.x-5.x) keep one folder per task,
``<storage>/tasks/<task id>/``, where ``<storage>`` is the extension's
``<User>/globalStorage/<extension id>/`` in any VS Code-family editor (or Cline's data folder
for its CLI and JetBrains builds). The task id is the creation time in epoch milliseconds.

* :mod:`~chatparse.adapters._cline.files`: the JSON arrays, tolerant of a torn end;
* :mod:`~chatparse.adapters._cline.content`: Anthropic-shaped blocks, scaffolding, XML tools;
* :mod:`~chatparse.adapters._cline.usage`: per-request usage in the shared meaning;
* :mod:`~chatparse.adapters._cline.ui`: ``ui_messages.json``, for requests or as the log;
* :mod:`~chatparse.adapters._cline.history`: ``api_conversation_history.json`` joined with it;
* :mod:`~chatparse.adapters._cline.task`: a task folder to a conversation;
* :mod:`~chatparse.adapters._cline.index`: the task indexes, as hints for a scan;
* :mod:`~chatparse.adapters._cline.locate` and :mod:`~chatparse.adapters._cline.family`:
  where the folders are, and the adapter parts the three share;
* :mod:`~chatparse.adapters._cline.sdk`: Cline 4.x's SDK sessions (Cline only).
"""

from __future__ import annotations

from chatparse.adapters._cline.family import TaskFoldersAdapter
from chatparse.adapters._cline.locate import PRODUCTS, SERVER_DIRS, extension_dirs

__all__ = ["PRODUCTS", "SERVER_DIRS", "TaskFoldersAdapter", "extension_dirs"]
