r"""Cursor: composers, inline and legacy chats, read from the editor's SQLite stores as it runs.

Where they are, under Cursor's ``User`` directory (``~/.config/Cursor/User`` on Linux,
``~/Library/Application Support/Cursor/User`` on macOS, ``%APPDATA%\Cursor\User`` on Windows):

``workspaceStorage/<hash>/state.vscdb`` (table ``ItemTable``), one per opened folder
    ``composer.composerData`` lists the folder's composers (``allComposers``). Entries of 2025
    and later are small *heads* (``composerId``, ``name``, ``createdAt``, ``lastUpdatedAt``) whose
    content is in the global store; entries of late 2024 are *inline*: the whole composer with
    its messages in ``conversation``. ``workbench.panel.aichat.view.aichat.chatdata`` (or
    ``workbench.panel.chat.view.chat.chatdata``) holds the legacy chat pane: ``tabs``, each with
    ``bubbles`` of type ``"user"`` or ``"ai"``. ``workspace.json`` beside it names the project.
``globalStorage/state.vscdb`` (table ``cursorDiskKV``)
    ``composerData:<composer id>`` is one composer document; ``bubbleId:<composer id>:<bubble
    id>`` is one message (a *bubble*: ``type`` 1 user, 2 assistant). The document's
    ``fullConversationHeadersOnly`` is the turn order; bubbles it does not list are edits the
    user discarded. The same database's ``ItemTable`` holds the user's auth tokens
    (``cursorAuth/*``): it is never read, and the file is never copied.

Each database is opened once per scan through :mod:`chatparse.decoders.sqlite`, read-only and in
short transactions, so a running Cursor is never blocked; only the keys listed above are read,
by exact key or key range (never ``LIKE``: composer ids such as ``task-toolu_01…`` contain
``_``). ``parse`` opens the one database that holds the conversation and reads only its rows;
``parsing()`` (for :func:`chatparse.iter_conversations`) keeps each database open across the
conversations it holds instead.

A **record** is one composer document (a ``composerData`` row or an inline ``allComposers``
entry), one bubble (a ``bubbleId`` row or an element of an inline ``conversation``), one legacy
chat tab, and one bubble of such a tab. Each is used, skipped as known noise (a discarded edit, an
empty draft, a NULL row), malformed, or kept raw as unknown: see ``docs/sources/cursor.md``.
"""

from chatparse.adapters.cursor.adapter import CursorAdapter

__all__ = ["CursorAdapter"]
