"""Mistral Vibe (mistralai/mistral-vibe, the ``vibe`` command): a folder, or a file, per session.

Where: the session log folder, ``$VIBE_SESSION_LOGGING__SAVE_DIR`` (Vibe's own setting, read
from its environment), else ``session_logging.save_dir`` of ``<vibe home>/config.toml``, else
``<vibe home>/logs/session``; the Vibe home is ``$VIBE_HOME`` (when set and not empty), else
``<home>/.vibe``, the same on Linux, macOS and Windows.

Records, per session:

* **2.x** (Vibe 2.0, 2026-01 on): a folder ``<prefix>_<YYYYMMDD_HHMMSS>_<short id>/`` holding
  ``meta.json`` (one record, rewritten after each turn: session id, start and end times, git
  branch, working directory, title, the active model in ``config``, and the session's
  cumulative token counts in ``stats``) and ``messages.jsonl`` (append-only, one ``LLMMessage``
  per line, one record each: ``user``, ``assistant`` with ``reasoning_content`` and
  ``tool_calls``, ``tool`` results by ``tool_call_id``). No per-message times, no per-message
  usage.
* **1.x**: one file ``<prefix>_<YYYYMMDD_HHMMSS>_<short id>.json``, ``{metadata, messages}``
  (each message one record, the metadata one), with the system prompt as the first message and
  times written without a zone. Vibe 2 moves these into folders of the same name.

A sub-agent started by the ``task`` tool logs into ``<session folder>/agents/`` with the same
layout, and is read as a sub-agent of that session.

The modules, by concern: :mod:`~chatparse.adapters.mistral_vibe.adapter` (the adapter),
:mod:`~chatparse.adapters.mistral_vibe.locate` (where, and what a scan lists),
:mod:`~chatparse.adapters.mistral_vibe.messages` (``LLMMessage`` records) and
:mod:`~chatparse.adapters.mistral_vibe.session` (one session into a conversation).
"""

from chatparse.adapters.mistral_vibe.adapter import MistralVibeAdapter

__all__ = ["MistralVibeAdapter"]
