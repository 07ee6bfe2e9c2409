"""The reader of the Gemini family's session files, shared by Gemini CLI and Qwen Code.

Qwen Code forked Gemini CLI in 2025 and kept its model-facing side: both store Gemini API
content (``PartListUnion``: text, thought, ``inlineData``, ``functionCall`` and
``functionResponse`` parts) and Gemini's usage counters. Their session files differ, and each
has a reader here:

* **Gemini CLI** writes a ``ConversationRecord`` per session, as one JSON document (v0.4 to
  v0.38) or a JSON Lines replay log of upserts, ``$set`` updates and ``$rewindTo`` rewinds
  (v0.39+): :mod:`~chatparse.adapters._gemini.cli_log` replays both,
  :mod:`~chatparse.adapters._gemini.cli_messages` makes the messages and
  :mod:`~chatparse.adapters._gemini.cli_session` the conversation.
* **Qwen Code** writes a tree of records (``uuid`` / ``parentUuid``) with typed system records
  and usage telemetry: :mod:`~chatparse.adapters._gemini.qwen_reading` holds the state,
  :mod:`~chatparse.adapters._gemini.qwen_records` routes each record and
  :mod:`~chatparse.adapters._gemini.qwen_session` makes the conversation.

What both share: :mod:`~chatparse.adapters._gemini.parts` (content parts, tool results, image
payloads never kept), :mod:`~chatparse.adapters._gemini.usage` (the counters in the shared
meaning of usage), :mod:`~chatparse.adapters._gemini.drafts` (messages being built, the tree and
its abandoned branches) and :mod:`~chatparse.adapters._gemini.files` (listing folders, picking
one copy of a session). The adapters, :mod:`chatparse.adapters.gemini_cli` and
:mod:`chatparse.adapters.qwen_code`, say where the files are.
"""

from __future__ import annotations

from chatparse.adapters._gemini.cli_session import read_session, session_conversation
from chatparse.adapters._gemini.files import DUPLICATES, Found, files_in, folders_in, pick, stat_of
from chatparse.adapters._gemini.qwen_session import qwen_conversation, read_qwen_session
from chatparse.adapters._gemini.usage import GEMINI_API, OPENAI_COMPATIBLE, read_usage

__all__ = [
    "DUPLICATES",
    "GEMINI_API",
    "OPENAI_COMPATIBLE",
    "Found",
    "files_in",
    "folders_in",
    "pick",
    "qwen_conversation",
    "read_qwen_session",
    "read_session",
    "read_usage",
    "session_conversation",
    "stat_of",
]
