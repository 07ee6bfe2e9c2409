r"""Pi coding agent (badlogic/pi-mono, ``@mariozechner/pi-coding-agent``): its session files.

Where they are: ``$PI_CODING_AGENT_DIR`` (a leading ``~`` expanded), else ``~/.pi/agent``, on
Linux, macOS and Windows alike; sessions are ``sessions/--<encoded cwd>--/<time>_<uuid>.jsonl``,
one JSON Lines file per session. The folder name encodes the working directory lossily (``/``,
``\\`` and ``:`` all become ``-``), so the folder a session ran in is read from the file's
header, never from the name.

The records: a ``session`` header, then entries forming a tree by ``id`` / ``parentId``
(messages, compactions, branch summaries, extension messages, names, settings). Format versions
1 (a plain list without ids), 2 (the tree) and 3 (``hookMessage`` renamed ``custom``) are all
read; Pi rewrites older files as version 3 when it opens them. The reading is shared with Oh My
Pi and OpenClaw, in :mod:`chatparse.adapters._pi`.

See ``docs/sources/pi.md`` for what is kept, what is skipped and why.
"""

from __future__ import annotations

from chatparse.adapters.pi.adapter import AGENT_DIR_ENV, PiAdapter, agent_dir

__all__ = ["AGENT_DIR_ENV", "PiAdapter", "agent_dir"]
