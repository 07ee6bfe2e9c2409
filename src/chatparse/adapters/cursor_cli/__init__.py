r"""Cursor's agent CLI (``cursor-agent``, ``agent``): chat stores and JSONL transcripts.

Where: ``$CURSOR_CONFIG_DIR``, else ``<home>/.cursor`` on every platform. Sessions, by layout
(one conversation per session id; the store wins, see :mod:`.locate`):

* ``chats/<md5 of the workspace>/<session id>/store.db`` with ``meta.json`` (see :mod:`.store`);
* ``projects/<slug>/agent-transcripts/<session id>/<session id>.jsonl``, sub-agents in
  ``subagents/`` beside it, and the flat ``agent-transcripts/<session id>.jsonl`` (see
  :mod:`.transcript`);
* ``agent-transcripts/<session id>.txt``, plain text of the oldest builds (see :mod:`.plain`).

Records: each content block of a transcript line (a roleless line is one), each turn of a
plain-text transcript, each ``meta`` row, and each block of a message blob or other blob of a
store (see :mod:`.content`). The IDE's chats are the ``cursor`` source's. Cursor is closed
source: the format is known from third-party readers and real files.

Usage: none. Neither the transcripts nor the store record token counts.

The modules, by concern: :mod:`~chatparse.adapters.cursor_cli.adapter` (the adapter),
:mod:`~chatparse.adapters.cursor_cli.locate` (where), :mod:`~chatparse.adapters.cursor_cli.content`
(content blocks), :mod:`~chatparse.adapters.cursor_cli.transcript` (JSONL transcripts),
:mod:`~chatparse.adapters.cursor_cli.plain` (plain-text transcripts) and
:mod:`~chatparse.adapters.cursor_cli.store` (``store.db``).
"""

from chatparse.adapters.cursor_cli.adapter import CursorCliAdapter

__all__ = ["CursorCliAdapter"]
