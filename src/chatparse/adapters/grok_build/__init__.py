"""Grok Build (xai-org/grok-build, the ``grok`` command): a folder per session.

Where: ``$GROK_HOME`` (when set and not empty), else ``<home>/.grok`` on every platform; each
session is ``sessions/<encoded cwd>/<session id>/`` (the cwd URL-encoded, or ``<slug>-<hash>``
with a ``.cwd`` file beside the sessions holding the real path). Session ids are UUIDv7.

Records, per session folder:

* ``summary.json``, one JSON object rewritten in place: title (``generated_title``, else
  ``session_summary``), ``info.cwd``, times, ``head_branch``, and, for a sub-agent or a fork,
  ``session_kind`` and ``parent_session_id``. One record.
* ``chat_history.jsonl``, the model's context, one item per line (one record each): v1 items
  tagged by ``type``, or v0 OpenAI chat messages tagged by ``role`` (files written before
  ``chat_format_version`` 1, or downgraded). No times, no usage, no message ids. It is what the
  model sees, so a compaction or a rewind has cut it.
* ``updates.jsonl``, the append-only notification log (one record per line): the time of each
  prompt, tool call and final answer, and each turn's usage (``turn_completed``), matched to the
  chat history by prompt index and tool call id.

A sub-agent's session (``session_kind`` ``subagent``) is read as a sub-agent of the session that
started it; a fork is a conversation of its own. Other files (``signals.json``,
``prompt_context.json``, ``rewind_points.jsonl``...) are not read.

The modules, by concern: :mod:`~chatparse.adapters.grok_build.adapter` (the adapter),
:mod:`~chatparse.adapters.grok_build.locate` (where, and ``summary.json``),
:mod:`~chatparse.adapters.grok_build.history` (the chat history),
:mod:`~chatparse.adapters.grok_build.updates` (the update log),
:mod:`~chatparse.adapters.grok_build.usage` (turn usage) and
:mod:`~chatparse.adapters.grok_build.session` (one folder into a conversation).
"""

from chatparse.adapters.grok_build.adapter import GrokBuildAdapter

__all__ = ["GrokBuildAdapter"]
