r"""Trae, Trae CN and TRAE SOLO CN: the agent chat sessions Trae keeps in workspace databases.

Where they are, under the ``User`` directory of each product (``Trae``, ``Trae CN``,
``TRAE SOLO CN``; ``%APPDATA%\<product>\User`` on Windows, ``~/Library/Application
Support/<product>/User`` on macOS, ``~/.config/<product>/User`` on Linux):

* ``workspaceStorage/<workspace id>/state.vscdb``, table ``ItemTable``, key
  ``memento/icube-ai-agent-storage``: one JSON value (TEXT or a UTF-8 BLOB) holding
  ``{"list": [<session>...], "currentSessionId"}``. It can be large: up to 64 MiB it is decoded
  at once (session by session from their own bytes, when it is written compactly), beyond that
  streamed one session at a time.
* the same table, key ``icube-ai-agent-storage-input-history``: an array of past prompts
  ``[{"inputText", "parsedQuery", "multiMedia", "files"}...]``, read only for sessions whose
  ``messages`` are empty (newer Trae CN builds).
* the same table, older keys ``memento/icube-ai-chat-storage-<n>`` and
  ``memento/icube-ai-ng-chat-storage-<n>``: read with the same rules when they hold sessions with
  messages; otherwise ``chatparse doctor`` says they were left alone.
* ``workspace.json`` beside the database: the project, as a URI.

Not read: ``<product>/ModularData/ai-agent/database.db``, the store of newer builds, which is
encrypted (``chatparse doctor`` says so when it exists).

A session is ``{"sessionId", "title"?, "name"?, "createdAt"?, "updatedAt"?, "hasMore"?,
"messages": [...]}``, times in epoch milliseconds. A message is ``{"role", "content",
"turnIndex", "turnId", "timestamp", ...}``; a user message adds ``parsedQuery`` (the prompt
without file references), an assistant message ``status``, ``modelInfo`` and
``agentTaskContent`` = ``{"proposal", "proposalReasoningContent", "guideline": {"thought",
"planItems": [{"toolName", "thought", "reasoningContent"}...]}}`` (sometimes as a JSON string).
Assistant ``content`` is usually empty: the answer is the proposal, else the ``thought`` of the
``finish`` plan step, else the guideline's ``thought``.

A **record** is one entry of a session's ``messages`` array, or one input-history entry used in
its place. Each is used, skipped as known noise, malformed or kept raw as unknown: see
``docs/sources/trae.md``.
"""

from __future__ import annotations

from chatparse.adapters.trae.adapter import TraeAdapter

__all__ = ["TraeAdapter"]
