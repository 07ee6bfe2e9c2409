"""Crush (charmbracelet/crush) and OpenCode-Go (opencode-ai/opencode): per-project SQLite.

Where: one database per project, ``<project>/.crush/crush.db`` (Crush) or
``<project>/.opencode/opencode.db`` (OpenCode-Go); the projects are found through Crush's
global ``projects.json``, the project folders in chatparse's ``$CHATPARSE_PROJECTS`` (and the
folders directly inside them) and the home folder (see :mod:`~chatparse.adapters.crush.locate`);
any other database through ``parse_path``.

Records: both tools write the same schema family (pressly/goose migrations tracked in
``goose_db_version``), read by one reader: a ``sessions`` row per session (one record; a
session whose ``parent_session_id`` names another is read as its sub-agent, a ``title-…``
session is skipped) and a ``messages`` row per message (one record) whose ``parts`` JSON is
routed by type (see :mod:`~chatparse.adapters.crush.parts`). ``files`` rows (copies of edited
files) are counted as skipped. Times are Unix seconds.

Usage: the session row's counts, which are the last model call's (see
:mod:`~chatparse.adapters.crush.conversation`).
"""

from chatparse.adapters.crush.adapter import CrushAdapter

__all__ = ["CrushAdapter"]
