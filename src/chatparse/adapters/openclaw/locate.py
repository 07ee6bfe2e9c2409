"""Where OpenClaw keeps its transcripts, and which file of a sessions folder is what.

A state folder (``~/.openclaw``, or one of its old homes) holds ``agents/<agent id>/sessions/``
per agent. In it, besides the ``sessions.json`` index:

* ``<id>.jsonl``: a session's live transcript (``<id>-topic-<topic>.jsonl`` for a thread);
* ``<id>.jsonl.reset.<time>``, ``.deleted.<time>``, ``.bak.<time>`` (optionally followed by
  ``.<generation>``) and ``<id>.jsonl.full.bak``: archived copies, left by ``/reset``, by
  deleting the session, and by rotating a transcript grown too large (the live file then keeps
  only its last lines);
* ``<id>.checkpoint.<uuid>.jsonl``: the transcript as it was before a compaction;
* ``<id>.trajectory.jsonl`` and ``*.trajectory-path.json``: runtime traces, not transcripts;
* ``*.zst``: archives compressed with Zstandard, which are not read.

A transcript may also be encrypted (AES-GCM, behind the line ``OPENCLAW_ENCRYPTED_V1``; seen in
OpenClaw's code, possibly a fork's): it is recognised and said so, never guessed at.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Final, NamedTuple

from chatparse.adapter import is_dir
from chatparse.adapters._pi import folders_in
from chatparse.host import Host

__all__ = [
    "ENCRYPTED",
    "HOME_ENV",
    "STATE_DIRS",
    "STATE_ENVS",
    "Named",
    "classify",
    "is_encrypted",
    "openclaw_home",
    "session_roots",
    "state_dirs",
]

HOME_ENV: Final = "OPENCLAW_HOME"
"""Replaces the home folder for OpenClaw (``~`` expanded against the real one)."""
STATE_ENVS: Final = ("OPENCLAW_STATE_DIR", "CLAWDBOT_STATE_DIR")
"""Move the state folder; the first set wins (the second is the old name)."""
STATE_DIRS: Final = (".openclaw", ".clawdbot", ".moldbot", ".moltbot")
"""The state folder's name under the home, then its old names (Clawdbot, a misspelling,
Moltbot)."""

_STAMP: Final = r"\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d(?:\.\d{3})?Z"
_ARCHIVE: Final = re.compile(
    rf"(?P<id>.+)\.jsonl\.(?:(?:reset|deleted|bak)\.(?P<stamp>{_STAMP})(?:\.[\w-]+)?|full\.bak)"
)
_CHECKPOINT: Final = re.compile(
    r"(?P<id>.+)\.checkpoint\.[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.jsonl",
    re.IGNORECASE,
)
_NOT_TRANSCRIPTS: Final = (".trajectory.jsonl", ".zst")
ENCRYPTED: Final = b"OPENCLAW_ENCRYPTED_V1\n"
"""The first bytes of an encrypted transcript."""


class Named(NamedTuple):
    """What a transcript file's name says: its session, and whether it is the live copy.

    ``order`` sorts the copies of one session oldest first: an archive by the time in its name,
    any other copy after those (then by modification time, which the caller adds).
    """

    id: str
    live: bool
    order: str


def classify(name: str) -> Named | None:
    """The session a file of a sessions folder belongs to; ``None`` for what is no transcript."""
    if name.endswith(_NOT_TRANSCRIPTS):
        return None
    archive = _ARCHIVE.fullmatch(name)
    if archive is not None:
        return Named(archive["id"], live=False, order=archive["stamp"] or "~")
    checkpoint = _CHECKPOINT.fullmatch(name)
    if checkpoint is not None:
        return Named(checkpoint["id"], live=False, order="~")
    if name.endswith(".jsonl"):
        return Named(name.removesuffix(".jsonl"), live=True, order="~~")
    return None


def is_encrypted(path: Path) -> bool:
    """Whether the transcript at ``path`` is encrypted (reads its first bytes only)."""
    try:
        with path.open("rb") as stream:
            return stream.read(len(ENCRYPTED)) == ENCRYPTED
    except OSError:
        return False


def openclaw_home(host: Host) -> Path:
    """``$OPENCLAW_HOME`` (``~`` expanded), else the home folder."""
    configured = host.getenv(HOME_ENV)
    return host.expand(configured) if configured else host.home


def state_dirs(host: Host) -> tuple[str | None, list[Path]]:
    """The variable that chose the state folder (if one did), and the folders to read.

    Without a variable, every one of ``~/.openclaw`` and its old homes is read: OpenClaw uses the
    first that exists, and a history left in an older one is history all the same.
    """
    home = openclaw_home(host)
    for variable in STATE_ENVS:
        value = host.getenv(variable)
        if value:
            expanded = Path(value) if not value.startswith("~") else home / value[2:]
            return variable, [expanded]
    return None, [home / name for name in STATE_DIRS]


def session_roots(host: Host) -> list[Path]:
    """Each agent's ``sessions/`` folder, in every state folder that exists."""
    _variable, states = state_dirs(host)
    roots: list[Path] = []
    for state in states:
        agents = state / "agents"
        if is_dir(agents):
            roots += [agent / "sessions" for agent in folders_in(agents)]
    return roots


def transcripts(root: Path, names: list[str]) -> Iterator[tuple[Path, Named]]:
    """The transcript files among the ``names`` of a sessions folder, with what each is."""
    for name in names:
        named = classify(name)
        if named is not None:
            yield root / name, named
