"""Kiro (AWS): the CLI's SQLite database and session files, and the IDE's session files.

Where (see :mod:`~chatparse.adapters.kiro.locate`): ``data.sqlite3`` in ``kiro-cli/`` (and in
``amazon-q/``, the Amazon Q Developer CLI that Kiro CLI replaced) under the platform's local
data folder; ``$KIRO_HOME`` (else ``~/.kiro``) ``/sessions/cli/<id>.json`` + ``<id>.jsonl``
and ``/sessions/<workspace hash>/sess_<id>/{session.json, messages.jsonl}``; the IDE 0.x
extension's ``globalStorage/kiro.kiroagent/workspace-sessions/<workspace>/<id>.json``.

Records:

* a database row (``conversations_v2``, else ``conversations``) is one record, holding the
  CLI's ``ConversationState`` document, whose turns are one record each
  (:mod:`~chatparse.adapters.kiro.history`);
* a session's metadata file is one record, and each journal line one
  (:mod:`~chatparse.adapters.kiro.journal`);
* an IDE session file is one record, and each of its ``history`` items one
  (:mod:`~chatparse.adapters.kiro.ide`).

Kiro records no token counts anywhere (it bills in credits): usage is ``None``. Kiro is closed
source and no real sample is public: every shape here is from Amazon Q Developer CLI's source
(the database) or from third-party reports (the session files), and the fixtures were written
from those notes.

The modules, by concern: :mod:`~chatparse.adapters.kiro.adapter` (the adapter),
:mod:`~chatparse.adapters.kiro.locate` (where), :mod:`~chatparse.adapters.kiro.catalog` (what a
scan lists), :mod:`~chatparse.adapters.kiro.store` (the database),
:mod:`~chatparse.adapters.kiro.conversation` (one conversation, by store) and
:mod:`~chatparse.adapters.kiro.common` (what they share).
"""

from chatparse.adapters.kiro.adapter import KiroAdapter

__all__ = ["KiroAdapter"]
