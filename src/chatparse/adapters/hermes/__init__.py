r"""Hermes Agent (NousResearch/hermes-agent): ``state.db`` first, transcript files beside it.

Where: ``$HERMES_HOME``, else ``~/.hermes`` (``%LOCALAPPDATA%\\hermes`` on Windows), with
``$HERMES_DATA_DIR_SUFFIX`` appended to the default; every named profile
``<home>/profiles/<name>/`` is a home too.

Stores, in each home:

* ``state.db`` (SQLite, WAL; read through a read-only snapshot): the primary store of every
  Hermes surface. ``sessions`` rows (one record each) hold a session's source, model, lineage,
  times, title, cwd, git branch and **token totals**; ``messages`` rows (one record each) hold
  its messages, OpenAI-shaped. Context compression closes a session and goes on in a new one
  whose ``parent_session_id`` names it: such a chain is one conversation, and sub-agent runs
  are read inside the conversation that started them (see :mod:`.lineage`).
* ``sessions/<id>.jsonl``: transcripts the messaging gateway writes (a ``session_meta`` line,
  then the messages; times without a zone) and ``sessions/session_<id>.json``: whole-session
  snapshots. A session the database holds is read from the database (its transcript is named
  in ``meta.locator["superseded"]``); the others are conversations of their own, the copy
  modified last winning when both files exist.

Usage is recorded per session only (the totals of the ``sessions`` row): each session's totals
go to its last answer. Schema versions seen in the source: up to 30; columns are selected only
when the database declares them.

The modules, by concern: :mod:`~chatparse.adapters.hermes.adapter` (the adapter),
:mod:`~chatparse.adapters.hermes.locate` (where), :mod:`~chatparse.adapters.hermes.store`
(``state.db``), :mod:`~chatparse.adapters.hermes.lineage` (sessions into conversations),
:mod:`~chatparse.adapters.hermes.catalog` (what scan lists),
:mod:`~chatparse.adapters.hermes.messages` (one message record),
:mod:`~chatparse.adapters.hermes.transcripts` (the files) and
:mod:`~chatparse.adapters.hermes.session` (a conversation put together, and usage).
"""

from chatparse.adapters.hermes.adapter import HermesAdapter

__all__ = ["HermesAdapter"]
