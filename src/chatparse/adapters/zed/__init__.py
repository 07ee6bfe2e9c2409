r"""Zed's agent panel: the threads in ``threads.db``, and the assistant panel's text threads.

Where: Zed's data folder (``~/Library/Application Support/Zed`` on macOS;
``$FLATPAK_XDG_DATA_HOME/zed``, ``$XDG_DATA_HOME/zed`` or ``~/.local/share/zed`` on Linux,
and the Flatpak's ``~/.var/app/dev.zed.Zed/data/zed``; ``%LOCALAPPDATA%\Zed`` on Windows),
file ``threads/threads.db`` (SQLite, read through a read-only snapshot). Several data folders
merge; of one thread id in two, the first folder's copy wins.

Records: each ``threads`` row is one thread; its ``data`` blob (JSON, or a zstd frame holding
JSON) is a document whose own fields are one record and each of whose ``messages`` is one.
Versions: ``0.3.0`` (the current agent, Rust enum messages ``{"User": ...}``,
``{"Agent": ...}``, ``"Resume"``), ``0.2.0`` / ``0.1.0`` and an unversioned form (the first
agent: ``{role, segments}`` or ``{role, text}`` messages); rows from before 2026 lack the
``parent_id``, ``folder_paths``, ``folder_paths_order`` and ``created_at`` columns. Zed records
no time per message: a thread has ``created_at`` and ``updated_at`` only.

zstd: read with :mod:`compression.zstd` (Python 3.14+) or the ``backports.zstd`` package when
installed; without either, compressed threads are listed but their messages are not read, and
``doctor`` and the diagnostics say so (:mod:`.codec`). The legacy LMDB store
(``threads-db.1.mdb``) cannot be read and is reported, never guessed at.

Text threads (the assistant panel's ``conversations/*.zed.json``, 2024 to 2026-04, in the data
folder, or ``~/.config/zed`` on macOS) are read too, versions ``0.1.0`` to ``0.4.0``
(:mod:`.text_thread`).

The modules: :mod:`~chatparse.adapters.zed.adapter` (the adapter),
:mod:`~chatparse.adapters.zed.locate` (where), :mod:`~chatparse.adapters.zed.store` (the
table), :mod:`~chatparse.adapters.zed.codec` (blobs), :mod:`~chatparse.adapters.zed.conversation`
(a thread and its sub-agents), :mod:`~chatparse.adapters.zed.thread` (a thread document),
:mod:`~chatparse.adapters.zed.agent2` and :mod:`~chatparse.adapters.zed.agent1` (messages of
each format), :mod:`~chatparse.adapters.zed.reading` (what they share) and
:mod:`~chatparse.adapters.zed.text_thread` (text threads).
"""

from chatparse.adapters.zed.adapter import ZedAdapter

__all__ = ["ZedAdapter"]
