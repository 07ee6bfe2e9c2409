r"""Aider: the Markdown chat log and the input history it keeps inside each project.

Where: ``.aider.chat.history.md`` and ``.aider.input.history`` in a project's git root (its
working folder outside git). Aider keeps no list of its projects, so chatparse reads the places
it is told of: Aider's own ``$AIDER_CHAT_HISTORY_FILE`` / ``$AIDER_INPUT_HISTORY_FILE``, the
project folders in chatparse's ``$CHATPARSE_PROJECTS``
(:meth:`~chatparse.host.Host.project_folders`) or given as ``AiderAdapter(projects=[...])`` (and
the folders directly inside them), and the home; and any file handed to
:func:`chatparse.parse_path` (see :mod:`.locate`).

Records: the blocks of the chat history, a header, an input (``#### `` lines), an output burst
(``> `` lines) or an answer (see :mod:`.history`); the entries of an input history (see
:mod:`.inputs`). One conversation per session: the sessions of a file are cut at its ``# aider
chat started at`` headers (see :mod:`.sessions`). No time in either file has a zone, so no
message has a time. Blocks carry no ids and are paired by position.

Usage: the ``Tokens: … sent, … received.`` line Aider prints after each answer, with its ``cache
write`` and ``cache hit`` parts; Aider rounds the counts it prints (``1.8k``), and these are
what is kept. Versions seen: 0.47 (2024) and 0.86.

The modules, by concern: :mod:`~chatparse.adapters.aider.adapter` (the adapter),
:mod:`~chatparse.adapters.aider.locate` (where), :mod:`~chatparse.adapters.aider.sessions`
(sessions in a file), :mod:`~chatparse.adapters.aider.history` (a session's blocks) and
:mod:`~chatparse.adapters.aider.inputs` (the input history).
"""

from chatparse.adapters.aider.adapter import AiderAdapter

__all__ = ["AiderAdapter"]
