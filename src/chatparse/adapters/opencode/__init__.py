r"""OpenCode (sst/opencode, now anomalyco/opencode): the SQLite store and the JSON tree before it.

Where: OpenCode's data folder, ``$XDG_DATA_HOME/opencode`` or ``~/.local/share/opencode`` on
every platform (Windows included), holds

``opencode.db`` (v1.2+)
    Also ``opencode-<channel>.db`` of other builds, and the file ``$OPENCODE_DB`` names.
    SQLite, WAL journal. Table ``session`` (one row per session: ``parent_id``, ``title``,
    ``directory``, ``version``, ``revert``, times in epoch ms), ``message`` and ``part`` (``id``,
    ``session_id``, ``message_id``, ``time_created``, and ``data``: the record's JSON without the
    ids). Read through :mod:`chatparse.decoders.sqlite` snapshots, once per scan.
``storage/`` (up to v1.1; left in place after the move to SQLite)
    One JSON file per record: ``session/<project>/<session>.json``,
    ``message/<session>/<message>.json``, ``part/<message>/<part>.json``.
``project/<folder>/storage/session/`` (before v0.4)
    ``info/<session>.json``, ``message/<session>/<message>.json``,
    ``part/<session>/<message>/<part>.json``.

Records, the same JSON in every container: a message is ``{role: "user" | "assistant", time,
...}``; an assistant message carries ``modelID``, ``providerID``, ``tokens``, ``cost``,
``summary`` (a compaction summary) and ``error``. Its content is in its parts, each a record of
its own, routed by ``type`` (:mod:`~chatparse.adapters.opencode.parts`): ``text``,
``reasoning``, ``file``, ``tool`` (the call and its result in one record), ``step-start``,
``step-finish`` (a call's tokens), ``snapshot``, ``patch``, ``agent``, ``subtask``, ``retry``,
``compaction``. A sub-agent is a session of its own whose ``parent_id`` names its parent; it is
read into the parent's ``subagents``.

One conversation per session id: of several copies (a database and the JSON tree it was
imported from), the one updated last is read (:mod:`~chatparse.adapters.opencode.catalog`).
Usage per assistant message, in the shared meaning (:mod:`~chatparse.adapters.opencode.usage`).
The SQLite reading is :mod:`~chatparse.adapters.opencode.database`, behind the small
:class:`~chatparse.adapters.opencode.records.Store` interface the JSON tree
(:mod:`~chatparse.adapters.opencode.tree`) also offers. See ``docs/sources/opencode.md``.
"""

from chatparse.adapters.opencode.adapter import OpenCodeAdapter

__all__ = ["OpenCodeAdapter"]
