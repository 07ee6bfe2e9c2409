"""The reader of Pi's session files, shared by Pi, Oh My Pi and OpenClaw.

Pi (badlogic/pi-mono) writes one JSON Lines file per session. Its first line is the header,
``{type: "session", version?, id, timestamp, cwd, parentSession?}``; every other line is an
*entry* ``{type, id, parentId, timestamp, ...}``, and the entries form a tree by ``id`` and
``parentId``: ``/tree`` branches add children to an older entry of the same file, and the
current branch is the path from the file's last entry back to the root.

Entry types: ``message`` (a ``user``, ``assistant``, ``toolResult``, ``bashExecution`` or
``custom`` message), ``compaction`` (a summary standing for the history before it),
``branch_summary``, ``custom_message`` (an extension's message sent to the model),
``session_info`` (the name given with ``/name``), and settings and bookmarks
(``model_change``, ``thinking_level_change``, ``label``, ``custom``).

Three format versions, all read: **1** (Oct 2025; no ``version``, no entry ids: a plain list,
``branchedFrom`` for forks, compactions point by index), **2** (v0.31, Dec 2025; the tree,
``parentSession``) and **3** (v0.35, Jan 2026; the ``hookMessage`` role renamed ``custom``).
Pi rewrites an older file as version 3 when it opens it.

Oh My Pi adds a 256-byte title slot as the first line and entry types of its own; OpenClaw runs
Pi's agent core and writes version 3 files beside a ``sessions.json`` index. Each adapter gives
a :class:`~chatparse.adapters._pi.dialect.Dialect` (its entry types, its gateway's text
wrappers) and where its files are; this package does the reading:

* :mod:`~chatparse.adapters._pi.files`: a file's lines into a reading; a file's head;
* :mod:`~chatparse.adapters._pi.entries`: the entry types, Pi's and Oh My Pi's;
* :mod:`~chatparse.adapters._pi.roles`: the message roles;
* :mod:`~chatparse.adapters._pi.content`: text, thinking, images and tool calls of a message;
* :mod:`~chatparse.adapters._pi.usage`: per-response usage in the shared meaning;
* :mod:`~chatparse.adapters._pi.reading`: the tree, the main line, the messages;
* :mod:`~chatparse.adapters._pi.session`: a session (and its copies) to a conversation;
* :mod:`~chatparse.adapters._pi.locate` and :mod:`~chatparse.adapters._pi.family`: listing
  session files, and the adapter parts the three share.
"""

from __future__ import annotations

from chatparse.adapters._pi.dialect import Dialect, unchanged
from chatparse.adapters._pi.entries import OMP_ENTRIES, PI_ENTRIES
from chatparse.adapters._pi.family import SessionFilesAdapter
from chatparse.adapters._pi.files import Head, id_from_name, read_head
from chatparse.adapters._pi.locate import Found, folders_in, jsonl_files, meta_of, pick
from chatparse.adapters._pi.reading import Reading, Title
from chatparse.adapters._pi.session import finish, read_session

__all__ = [
    "OMP_ENTRIES",
    "PI_ENTRIES",
    "Dialect",
    "Found",
    "Head",
    "Reading",
    "SessionFilesAdapter",
    "Title",
    "finish",
    "folders_in",
    "id_from_name",
    "jsonl_files",
    "meta_of",
    "pick",
    "read_head",
    "read_session",
    "unchanged",
]
