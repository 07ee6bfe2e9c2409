"""GitHub Copilot Chat in VS Code: the chat sessions VS Code stores, replayed as VS Code does.

Where they are, under the ``User`` directory of ``Code``, ``Code - Insiders`` and ``VSCodium``
(and ``~/.vscode-server/data/User``, ``~/.vscode-server-insiders/data/User`` on remote hosts):

* ``workspaceStorage/<workspace id>/chatSessions/<session id>.jsonl`` or ``.json``: the sessions
  of a folder window; the folder's ``workspace.json`` names the project as a URI. The older
  ``workspaceStorage/no-workspace/chatSessions/`` holds empty-window sessions without one.
* ``globalStorage/emptyWindowChatSessions/<session id>.jsonl`` or ``.json``: empty windows.
* ``{workspaceStorage/<id>,globalStorage}/GitHub.copilot-chat/transcripts/<session id>.jsonl``:
  Copilot Chat's own event stream of a session (newer releases).
* ``{workspaceStorage/<id>,globalStorage}/state.vscdb``, key ``interactive.sessions`` of its
  ``ItemTable``: the sessions saved before file storage, a JSON array of session objects.

The ``chat.ChatSessionStore.index`` key in ``state.vscdb`` is not read: VS Code trims it to 400
sessions without deleting their files, so the folders are the truth.

The two shapes of a chat session file:

* **``.jsonl``, a mutation log** (VS Code 1.109 on): each line is ``{"kind", "k"?, "v"?, "i"?}``.
  Kind 0 sets the whole session state, 1 sets the value at path ``k``, 2 truncates the array at
  ``k`` to ``i`` items (when ``i`` is given) and appends the items of ``v``, 3 deletes the value
  at ``k``. The session is the state after every line is replayed; reading only the first line
  loses every turn added after it (see :func:`replay_log`).
* **``.json``, a document** (before 1.109): the same session object, whole. Its ``version`` says
  how to read the title: none (v1) has no custom title, v2 keeps it in ``computedTitle``, v3 in
  ``customTitle``. When both ``<id>.json`` and ``<id>.jsonl`` exist, the ``.jsonl`` wins, as in
  VS Code, and the ``.json`` is not read.

A session holds ``requests``; each is one turn. The request's ``message`` is the user message
and its ``response`` array of parts is the assistant message: markdown parts (objects with a
``value`` and no ``kind``) are its text, ``inlineReference`` parts are written into that text as
the file or symbol name in backticks (the model wrote `` `name` ``; VS Code turned it into a
link), ``thinking`` parts are its thinking, and ``toolInvocationSerialized`` parts (with the
``prepareToolInvocation`` that announced them) are its tool calls. ``result.metadata.
toolCallRounds`` holds the arguments the model sent; they fill tool inputs the parts lack.

A **record** is one line of a log (``.jsonl``), one request and one response part of the replayed
session (both shapes), and one event of a transcript. Each is used, skipped as known noise,
malformed, or kept raw as unknown: see ``docs/sources/copilot.md``.

The modules, by concern: :mod:`~chatparse.adapters.copilot.adapter` (the adapter),
:mod:`~chatparse.adapters.copilot.locate` (where the files are),
:mod:`~chatparse.adapters.copilot.replay` (the log), :mod:`~chatparse.adapters.copilot.document`
(sessions stored whole), :mod:`~chatparse.adapters.copilot.session` (a session into messages),
:mod:`~chatparse.adapters.copilot.parts` (response parts), :mod:`~chatparse.adapters.copilot.calls`
(tool calls), :mod:`~chatparse.adapters.copilot.drafts` (messages being assembled) and
:mod:`~chatparse.adapters.copilot.transcript` (Copilot Chat's event stream).
"""

from chatparse.adapters.copilot.adapter import CopilotAdapter
from chatparse.adapters.copilot.document import read_document
from chatparse.adapters.copilot.replay import replay_log
from chatparse.adapters.copilot.transcript import read_transcript

__all__ = ["CopilotAdapter", "read_document", "read_transcript", "replay_log"]
