r"""GitHub Copilot CLI (the ``copilot`` command): its session event logs, in every layout.

Where: ``$COPILOT_HOME``, else ``<home>/.copilot`` (``%USERPROFILE%\.copilot`` on Windows).
Sessions, by layout (one conversation per session id; the newest layout's copy wins):

* ``session-state/<id>/events.jsonl`` and ``workspace.yaml`` (current; ``session.db`` and the
  home's ``session-store.db`` are indexes derived from the logs, not read);
* ``session-state/<id>.jsonl`` (the first event-log releases, 0.0.342 on);
* ``history-session-state/<id>.json`` (to 0.0.341: one document, ``chatMessages`` and
  ``timeline``; see :mod:`.legacy`).

Records: each line of an event log, ``{type, data, id, timestamp, parentId}`` (see
:mod:`.events`); each message and timeline entry of a legacy document, and the document itself.
The CLI's system prompt, turn boundaries and UI counters are skipped; the prompt as typed
(``content``, not ``transformedContent`` with the CLI's injections) is the user's text.

Usage: ``outputTokens`` per answer, and the session's totals at each ``session.shutdown``
(see :mod:`.usage`). Versions seen: 1.0.77 and 1.0.78 (``version: 1``, ``producer:
copilot-agent`` on ``session.start``).

The modules, by concern: :mod:`~chatparse.adapters.copilot_cli.adapter` (the adapter),
:mod:`~chatparse.adapters.copilot_cli.locate` (where), :mod:`~chatparse.adapters.copilot_cli.drafts`
(messages being read), :mod:`~chatparse.adapters.copilot_cli.events` (the event log),
:mod:`~chatparse.adapters.copilot_cli.legacy` (the legacy document) and
:mod:`~chatparse.adapters.copilot_cli.usage` (usage).
"""

from chatparse.adapters.copilot_cli.adapter import CopilotCliAdapter

__all__ = ["CopilotCliAdapter"]
