"""Kimi (Moonshot AI): Kimi CLI's session logs and Kimi Code's operation logs, one source.

Where: Kimi CLI's share folder ``$KIMI_SHARE_DIR``, else ``<home>/.kimi``; Kimi Code's home
``$KIMI_CODE_HOME``, else ``<home>/.kimi-code``; Kimi Desktop's embedded Kimi Code home under
``<config home>/kimi-desktop/daimon-share/daimon/runtime/kimi-code/home``. Sessions are in each
home's ``sessions/`` folder, one folder per work dir, one folder per session.

Records:

* **Kimi CLI** (Python, 2025 on), ``sessions/<md5 of work dir>/<session id>/``:
  ``wire.jsonl``, the event log (a header line, then one timestamped event per line: prompts,
  content parts, tool calls and results, per-step token usage), read when present, else
  ``context.jsonl``, the model's context (messages and marker lines, no times); ``state.json``
  (one record: a custom title). Before 2025-11-28 the context was a flat
  ``sessions/<md5>/<session id>.jsonl``. Sub-agents: ``<session>/subagents/<agent id>/``.
  ``kimi.json`` maps work dirs to their hash folders.
* **Kimi Code** (TypeScript, 2026 on), ``sessions/wd_<slug>_<hash>/<session id>/``:
  ``state.json`` (one record: title, work dir, times) and ``agents/<agent id>/wire.jsonl``, an
  operation log (one operation per line, times in unix ms); ``main`` is the conversation, every
  other agent a sub-agent.

The modules, by concern: :mod:`~chatparse.adapters.kimi.adapter` (the adapter),
:mod:`~chatparse.adapters.kimi.locate` (where, and what a scan lists),
:mod:`~chatparse.adapters.kimi.parts` (content parts, tool results and usage, in both key
styles), :mod:`~chatparse.adapters.kimi.cli` (Kimi CLI's wire and context),
:mod:`~chatparse.adapters.kimi.code` (Kimi Code's operation log) and
:mod:`~chatparse.adapters.kimi.session` (one session into a conversation).
"""

from chatparse.adapters.kimi.adapter import KimiAdapter

__all__ = ["KimiAdapter"]
