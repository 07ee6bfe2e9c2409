"""Gemini CLI (google-gemini/gemini-cli): its recorded chat sessions, in both containers.

Where they are: ``$GEMINI_CLI_HOME/.gemini``, else ``~/.gemini`` (Linux, macOS and Windows
alike); sessions are ``tmp/<project>/chats/session-<UTC minutes>-<id prefix>.json[l]``, where
``<project>`` is the SHA-256 of the project folder (to v0.28) or a slug named in
``projects.json`` (v0.29+); sub-agents' sessions are ``chats/<parent session id>/<id>.jsonl``
(v0.37+). Nothing else under ``~/.gemini`` is read, Google Antigravity's files included.

The records: one ``ConversationRecord`` per session (``sessionId``, ``projectHash``,
``startTime``, ``lastUpdated``, ``summary``, ``kind``, ``messages``), whose messages are
``user``, ``gemini`` (with ``thoughts``, ``toolCalls``, ``tokens``, ``model``), ``info``,
``error`` and ``warning`` records. Two containers, both read: the **legacy document** (v0.4 to
v0.38), one JSON object rewritten whole on every change, and the **JSON Lines replay log**
(v0.39+): a header line, message upserts by id, ``$set`` header updates (a ``messages`` array in
one is a checkpoint) and ``$rewindTo`` rewinds, replayed here as Gemini CLI replays them, with
the rewound turns kept as branches. The reading is shared with Qwen Code, in
:mod:`chatparse.adapters._gemini`.

See ``docs/sources/gemini-cli.md`` for what is kept, what is skipped and why.
"""

from __future__ import annotations

from chatparse.adapters.gemini_cli.adapter import GeminiCliAdapter
from chatparse.adapters.gemini_cli.locate import HOME_ENV, gemini_dir

__all__ = ["HOME_ENV", "GeminiCliAdapter", "gemini_dir"]
