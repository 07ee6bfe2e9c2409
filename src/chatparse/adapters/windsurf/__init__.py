r"""Windsurf (Codeium's Cascade agent; also Devin Desktop, the same app renamed in 2026).

Cascade's own store is encrypted: one ``<uuid>.pb`` per conversation in
``~/.codeium/windsurf/cascade/`` (and ``implicit/``), with a key per conversation. chatparse
does not read it and does not guess at it; ``chatparse doctor`` (:meth:`WindsurfAdapter.explain`)
counts those files and says so.

What is read: the **hook transcripts** Windsurf writes for the
``post_cascade_response_with_transcript`` Cascade hook, ``~/.windsurf/transcripts/<trajectory
id>.jsonl`` on every platform (``%USERPROFILE%\.windsurf\transcripts`` on Windows), one per
conversation. Each line is one step, ``{"type": T, "status": "done"|"error", T: {...}}``:
``user_input`` (the prompt), ``planner_response`` (an answer) and tool steps (``view_file``,
``code_action``, ``run_command``, ``list_directory``, ``find``, ``grep_search``,
``list_resources``), each a call and its result in one line. No ids, times, models, usage or
thinking are recorded. Seen: transcripts of early 2026 (the first version that writes them is
not known).

The modules: :mod:`.adapter` (the adapter), :mod:`.locate` (where), :mod:`.steps` (the
transcript); :mod:`.opaque` (the stores that are counted, not read) and :mod:`.records` (a
first line, a line kept raw) also serve the Antigravity adapter, whose IDE derives from
Windsurf. See ``docs/sources/windsurf.md``.
"""

from chatparse.adapters.windsurf.adapter import WindsurfAdapter

__all__ = ["WindsurfAdapter"]
