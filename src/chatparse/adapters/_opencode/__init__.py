r"""The reader of OpenCode's stores, shared by OpenCode and Kilo Code 7.x (an OpenCode fork).

Where: the program's data folder, ``$XDG_DATA_HOME/<app>`` or ``~/.local/share/<app>`` on
every platform (Windows included), where ``<app>`` is ``opencode`` or ``kilo``, holds

``<app>.db`` (OpenCode v1.2+; Kilo since its OpenCode 1.2 merge)
    Also ``<app>-<channel>.db`` of other builds, and the file ``$<APP>_DB`` names
    (``OPENCODE_DB``, ``KILO_DB``). SQLite, WAL journal. Table ``session`` (one row per
    session: ``parent_id``, ``slug``, ``title``, ``directory``, ``version``, ``revert``, times
    in epoch ms), ``message`` and ``part`` (``id``, ``session_id``, ``message_id``,
    ``time_created``, and ``data``: the record's JSON without the ids). Kilo adds columns of
    its own, not read. Read through :mod:`chatparse.decoders.sqlite` snapshots, once per scan.
``storage/`` (up to OpenCode v1.1 and Kilo CLI 1.0.25; left in place after the move to SQLite)
    One JSON file per record: ``session/<project>/<session>.json``,
    ``message/<session>/<message>.json``, ``part/<message>/<part>.json``.
``project/<folder>/storage/session/`` (OpenCode before v0.4)
    ``info/<session>.json``, ``message/<session>/<message>.json``,
    ``part/<session>/<message>/<part>.json``.

Records, the same JSON in every container: a message is ``{role: "user" | "assistant", time,
...}``; an assistant message carries ``modelID``, ``providerID``, ``tokens``, ``cost``,
``summary`` (a compaction summary) and ``error``. Its content is in its parts, each a record of
its own, routed by ``type`` (:mod:`~chatparse.adapters._opencode.parts`): ``text``,
``reasoning``, ``file``, ``tool`` (the call and its result in one record), ``step-start``,
``step-finish`` (a call's tokens), ``snapshot``, ``patch``, ``agent``, ``subtask``, ``retry``,
``compaction``. A sub-agent is a session of its own whose ``parent_id`` names its parent; it is
read into the parent's ``subagents``.

One conversation per session id: of several copies (a database and the JSON tree it was
imported from), the one updated last is read (:mod:`~chatparse.adapters._opencode.catalog`).
Usage per assistant message, in the shared meaning (:mod:`~chatparse.adapters._opencode.usage`).

* :mod:`~chatparse.adapters._opencode.locate`: where a program of the family keeps its stores
  (:class:`~chatparse.adapters._opencode.locate.Product`: what differs between them);
* :mod:`~chatparse.adapters._opencode.database` and :mod:`~chatparse.adapters._opencode.tree`:
  the two containers, behind the small :class:`~chatparse.adapters._opencode.records.Store`
  interface;
* :mod:`~chatparse.adapters._opencode.parts`, :mod:`~chatparse.adapters._opencode.content`,
  :mod:`~chatparse.adapters._opencode.messages` and :mod:`~chatparse.adapters._opencode.usage`:
  the records;
* :mod:`~chatparse.adapters._opencode.session` and :mod:`~chatparse.adapters._opencode.catalog`:
  a session to a conversation, and what a scan lists;
* :mod:`~chatparse.adapters._opencode.family`: the adapter parts the members share.
"""

from __future__ import annotations

from chatparse.adapters._opencode.family import StoresAdapter, tree_root
from chatparse.adapters._opencode.locate import Product, data_dir, stores_on
from chatparse.adapters._opencode.records import STORE
from chatparse.adapters._opencode.session import COPIES

__all__ = ["COPIES", "STORE", "Product", "StoresAdapter", "data_dir", "stores_on", "tree_root"]
