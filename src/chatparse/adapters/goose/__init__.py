r"""Goose (block/goose): ``sessions.db`` since 1.10, ``<name>.jsonl`` session files before.

Where: Goose's data folder, ``$XDG_DATA_HOME/goose`` or ``~/.local/share/goose`` on Linux and
macOS, ``%APPDATA%\Block\goose\data`` on Windows, ``$GOOSE_PATH_ROOT/data`` when that is set;
its ``sessions/`` folder holds both stores (see :mod:`~chatparse.adapters.goose.locate`).

Records:

* ``sessions.db`` (SQLite, read through a read-only snapshot): one ``sessions`` row per session
  (name, type, working folder, times, model, parent, token totals) and one ``messages`` row per
  message, whose ``content_json`` is a list of parts tagged by ``type`` (text, image, thinking
  chunks, tool requests and responses, notifications). Each row is one record. The schema grows
  by numbered migrations (``schema_version``; 15 in goose 1.45); columns are read by name and a
  missing one reads as absent. A session whose ``parent_session_id`` names another is read as a
  sub-agent of it.
* ``sessions/<name>.jsonl`` (before 1.10): a metadata line, then one message per line (each
  line a record). A file whose session the database holds (Goose imported it) is not listed.

Usage: per message (``metadata_json.usage``) where recorded, else the session's totals on its
last answer (see :mod:`~chatparse.adapters.goose.session`).
"""

from chatparse.adapters.goose.adapter import GooseAdapter

__all__ = ["GooseAdapter"]
