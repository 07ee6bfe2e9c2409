r"""Cline (``saoudrizwan.claude-dev``): its task folders and its 4.x SDK sessions.

Where:

* the VS Code extension: ``<User>/globalStorage/saoudrizwan.claude-dev/`` in every VS
  Code-family editor and remote server (``<User>`` is ``~/.config/<Product>/User`` on Linux,
  ``~/Library/Application Support/<Product>/User`` on macOS, ``%APPDATA%\<Product>\User`` on
  Windows), holding ``tasks/<task id>/`` and the index ``state/taskHistory.json`` (3.26.7+;
  before, the index was in the editor's global ``state.vscdb``);
* the CLI and JetBrains builds: the data folder ``$CLINE_DATA_DIR``, else ``$CLINE_DIR/data``,
  else ``~/.cline/data``, with the same ``tasks/`` and ``state/``;
* Cline 4.x (the SDK bundle, every host): ``<data folder>/sessions/<id>/`` (or
  ``$CLINE_SESSION_DATA_DIR/<id>/``), a manifest ``<id>.json`` and a transcript
  ``<id>.messages.json``, with sub-agents' transcripts beside it.

A task folder's records (the API history, the UI log and its per-request usage, the task's
metadata) are read by :mod:`chatparse.adapters._cline`, shared with Roo Code and Kilo Code;
4.x sessions by :mod:`chatparse.adapters._cline.sdk`. ``secrets.json`` is never read.

See ``docs/sources/cline.md`` for what is kept, what is skipped and why.
"""

from __future__ import annotations

from chatparse.adapters.cline.adapter import ClineAdapter

__all__ = ["ClineAdapter"]
