"""Codex CLI: the rollout files OpenAI's Codex CLI writes, in all three of their shapes.

Where they are: ``$CODEX_HOME``, else ``~/.codex``. ``sessions/`` holds one rollout per thread,
in date folders ``YYYY/MM/DD/`` or (older) flat; ``archived_sessions/`` holds the threads
``codex archive`` moved away, flat. ``session_index.jsonl`` names threads: one
``{"id", "thread_name", "updated_at"}`` line per rename, the last line for an id wins.

The three shapes of a rollout:

* **Modern JSON Lines** (Sep 2025 on): every line is ``{"timestamp", "type", "payload"}``; the
  first is ``session_meta``.
* **Bare early-Rust JSON Lines** (until about Sep 2025): the first line is a bare
  ``{"id", "timestamp", "instructions"?, "git"?}``, then bare response items with no timestamp,
  and ``{"record_type": "state"}`` markers.
* **The TypeScript CLI's JSON document** (spring 2025): ``rollout-<date>-<uuid>.json`` holding
  ``{"session": {"id", "timestamp", "instructions"}, "items": [<response items>]}``.

One conversation is told twice in a modern rollout. ``response_item`` records are what the model
saw: messages, reasoning, tool calls and their outputs, plus injected context (environment,
AGENTS.md, developer instructions) that nobody typed. ``event_msg`` records are what the person
saw: ``user_message``, ``agent_message``, ``agent_reasoning``, ``token_count``. Every typed
prompt, answer and reasoning summary is in both. The two copies of one thing are paired within
the user's turn, by order of arrival for each shape (the n-th ``agent_message`` of a turn is the
n-th assistant ``message`` item of that turn), never by comparing texts: the copies may differ
in whitespace, and arrive in either order. The ``event_msg`` copy's text wins; a copy without its
partner stands alone.

A model response (one request to the model) is one assistant :class:`~chatparse.model.Message`:
its reasoning summary is ``thinking``, its text is ``text``, its tool calls are ``tool_calls``
with their outputs paired by ``call_id``, and the ``token_count`` that follows it gives its
``usage``. Within a response, items come in the order reasoning, text, calls; an item that goes
back in that order, or a second text, starts the next response.

Times are RFC 3339 text with a zone, or Unix seconds; text without a zone, and an epoch at or
before 1970-01-01, are no time (``None``), never a guess.

See ``docs/sources/codex.md`` for what is kept, what is skipped and why. The package, by concern:

* :mod:`~chatparse.adapters.codex.adapter`: :class:`CodexAdapter` (detect, explain, scan, parse);
* :mod:`~chatparse.adapters.codex.locate`: where the rollouts are, and their first line;
* :mod:`~chatparse.adapters.codex.containers`: reading a JSON Lines file or a JSON document;
* :mod:`~chatparse.adapters.codex.records`: the tables that route each kind of record;
* :mod:`~chatparse.adapters.codex.thread`: the state of one thread, and the messages it makes;
* :mod:`~chatparse.adapters.codex.drafts`: copies, messages being built, turns;
* :mod:`~chatparse.adapters.codex.content`: typed text, injected context, images, tool output;
* :mod:`~chatparse.adapters.codex.usage`: ``token_count`` events as per-response usage.
"""

from __future__ import annotations

from chatparse.adapters.codex.adapter import CodexAdapter
from chatparse.adapters.codex.content import (
    IDE_REQUEST_MARKER,
    INJECTED_PREFIXES,
    is_injected,
    tool_output,
    typed_request,
)
from chatparse.adapters.codex.locate import (
    ARCHIVED,
    SESSION_INDEX,
    SESSIONS,
    codex_home,
    read_session_index,
    thread_origin,
)
from chatparse.adapters.codex.records import SKIPPED_EVENTS, SKIPPED_ITEMS, SKIPPED_RECORDS
from chatparse.adapters.codex.thread import REPLAY_BURST_GAP

__all__ = [
    "ARCHIVED",
    "IDE_REQUEST_MARKER",
    "INJECTED_PREFIXES",
    "REPLAY_BURST_GAP",
    "SESSIONS",
    "SESSION_INDEX",
    "SKIPPED_EVENTS",
    "SKIPPED_ITEMS",
    "SKIPPED_RECORDS",
    "CodexAdapter",
    "codex_home",
    "is_injected",
    "read_session_index",
    "thread_origin",
    "tool_output",
    "typed_request",
]
