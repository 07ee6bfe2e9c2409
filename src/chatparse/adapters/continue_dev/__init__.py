r"""Continue (``continue.continue`` for VS Code, the JetBrains plugin, the ``cn`` CLI).

The module is ``continue_dev`` because ``continue`` is a Python keyword; the adapter's name is
``continue``.

Where: ``$CONTINUE_GLOBAL_DIR``, else ``~/.continue`` on every platform; the IDE extensions and
the CLI share it. Sessions are ``<home>/sessions/<sessionId>.json``, one JSON document each,
listed by ``sessions/sessions.json`` (an index that may miss files or name deleted ones: the
folder is what is listed; the index adds each session's creation time).

A session document is ``{sessionId, title, workspaceDirectory, history[], mode?,
chatModelTitle?, usage?}``; ``history`` items are ``{message, contextItems, toolCallStates?,
reasoning?, promptLogs?, conversationSummary?}`` with ``message.role`` one of ``user``,
``assistant``, ``thinking``, ``system``, ``tool`` (see :mod:`.messages`). Versions: items
gained ``promptLogs`` (2024-05), ``toolCallState`` (2024-11, plural ``toolCallStates`` from
2025-07), ``reasoning`` (2025-01), the ``thinking`` role (2025-03), an answer's ``usage`` and
``conversationSummary`` (2025-07); sessions gained ``mode`` and ``chatModelTitle`` (2025-11) and
``usage`` (2025-12). Every shape is read where it appears. Continue records no time per message
(only an answer's ``reasoning.startAt``), so most messages have none.

The modules: :mod:`~chatparse.adapters.continue_dev.adapter` (the adapter),
:mod:`~chatparse.adapters.continue_dev.locate` (where, and the index),
:mod:`~chatparse.adapters.continue_dev.session` (one document),
:mod:`~chatparse.adapters.continue_dev.messages` (one history item) and
:mod:`~chatparse.adapters.continue_dev.usage` (token counts).
"""

from chatparse.adapters.continue_dev.adapter import ContinueAdapter

__all__ = ["ContinueAdapter"]
