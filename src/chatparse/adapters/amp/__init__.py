"""Amp (Sourcegraph's coding agent, the ``amp`` CLI): one JSON document per thread.

Where: ``threads/`` in Amp's data folder, ``$XDG_DATA_HOME/amp`` (Linux and macOS, when set)
and ``<home>/.local/share/amp`` (every platform); each thread is ``T-<uuid>.json``. These are
the local-first era's files: Amp CLIs since early 2026 keep threads on Amp's servers and no
longer write (or read) this folder.

Records, per document: the document's own fields (title, creation time, the workspace folder
and its git branch, the client's version) are one; each element of ``messages`` is one
(Anthropic-style content blocks: text, thinking, images, tool calls, and tool results paired to
their calls by ``toolUseID``); each event of ``usageLedger`` (older files) is one. Usage is per
answer: its own ``usage`` object in newer files, its ledger events in older ones.

The modules, by concern: :mod:`~chatparse.adapters.amp.adapter` (the adapter),
:mod:`~chatparse.adapters.amp.locate` (where), :mod:`~chatparse.adapters.amp.thread` (one
document), :mod:`~chatparse.adapters.amp.messages` (its messages) and
:mod:`~chatparse.adapters.amp.usage` (token counts). Listing the files and sorting content
blocks are shared with Factory Droid, whose sessions are also a file each with Anthropic-style
content: :mod:`chatparse.adapters._anthropic`.
"""

from chatparse.adapters.amp.adapter import AmpAdapter

__all__ = ["AmpAdapter"]
