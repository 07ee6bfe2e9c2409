"""OpenClaw (openclaw/openclaw; formerly Clawdbot, Moltbot): its agents' transcripts.

Where they are: the state folder ``$OPENCLAW_STATE_DIR`` (or the older ``$CLAWDBOT_STATE_DIR``),
else ``~/.openclaw`` and its old homes ``~/.clawdbot``, ``~/.moldbot``, ``~/.moltbot``, all read
(``$OPENCLAW_HOME`` replaces the home folder); the same on Linux, macOS and Windows. In it,
``agents/<agent id>/sessions/`` holds one ``<session id>.jsonl`` transcript per session, the
``sessions.json`` index, and archived copies (``.reset.``, ``.deleted.``, ``.bak.``, checkpoint
and ``.full.bak`` files) that keep what a reset, a deletion, a compaction or a rotation of the
transcript left behind.

The records are Pi's version 3 (OpenClaw runs Pi's agent core; see
:mod:`chatparse.adapters._pi`), with OpenClaw's gateway around them: prompts wrapped in sender
metadata and a time, answers prefixed with reply directives, the gateway's own errors and
mirrored replies written as assistant messages of provider ``openclaw``. One conversation per
session id: its archived copies are read with it, each entry once. A sub-agent session (its
index entry names the session that spawned it) is read inside the session at the top of its
chain.

See ``docs/sources/openclaw.md`` for what is kept, what is skipped and why.
"""

from __future__ import annotations

from chatparse.adapters.openclaw.adapter import OpenClawAdapter
from chatparse.adapters.openclaw.locate import classify, session_roots, state_dirs
from chatparse.adapters.openclaw.text import answer_text, prompt_text

__all__ = [
    "OpenClawAdapter",
    "answer_text",
    "classify",
    "prompt_text",
    "session_roots",
    "state_dirs",
]
