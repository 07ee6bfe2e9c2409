"""Qwen Code (QwenLM/qwen-code): its session files, trees of JSON Lines records.

Where they are: ``$QWEN_RUNTIME_DIR`` and ``$QWEN_HOME`` (else ``~/.qwen``), on Linux, macOS
and Windows alike; sessions are ``projects/<sanitized cwd>/chats/<session id>.jsonl``, one file
per session (since Nov 2025, when Qwen Code left Gemini CLI's JSON for its own format).

The records: every line is ``{uuid, parentUuid, sessionId, timestamp, type, subtype?, cwd,
version, gitBranch?, message?: Gemini API content, usageMetadata?, model?, toolCallResult?,
systemPayload?, isSidechain?}``, with ``type`` one of ``user``, ``assistant``, ``tool_result``
and ``system``. The records form a tree by ``uuid`` / ``parentUuid``: ``/rewind`` re-roots the
next prompt, so rewound turns stay in the file on a dead branch (kept here, marked
``is_sidechain``). Usage is complete only in the ``ui_telemetry`` records, which this adapter
reads. The reading is shared with Gemini CLI, in :mod:`chatparse.adapters._gemini`.

See ``docs/sources/qwen-code.md`` for what is kept, what is skipped and why.
"""

from __future__ import annotations

from chatparse.adapters.qwen_code.adapter import QwenCodeAdapter
from chatparse.adapters.qwen_code.locate import HOME_ENV, RUNTIME_ENV, qwen_bases, qwen_home

__all__ = ["HOME_ENV", "RUNTIME_ENV", "QwenCodeAdapter", "qwen_bases", "qwen_home"]
