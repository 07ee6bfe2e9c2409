"""OpenClaw's ``sessions.json``: the index of an agent's sessions, by session key.

One JSON object per agent, ``{<session key>: {sessionId, updatedAt, label?, displayName?,
spawnedBy?, parentSessionKey?, sessionFile?, model?, token totals...}}``. Keys look like
``agent:<agent id>:<scope>``; a sub-agent's key is ``agent:<agent id>:subagent:<uuid>`` and its
``spawnedBy`` is the key of the session that started it. The adapter takes from it a title for
each session and which session started which; its token totals are not used (every assistant
message of a transcript has its own usage).
"""

from __future__ import annotations

from collections.abc import Iterable
from contextlib import closing
from pathlib import Path
from typing import Final, NamedTuple

from chatparse.adapter import as_nonempty_text, is_file
from chatparse.decoders import bigjson

__all__ = ["INDEX", "Indexed", "read_index", "spawned"]

INDEX: Final = "sessions.json"
_TITLES: Final = ("label", "displayName", "subject")
_PARENTS: Final = ("spawnedBy", "parentSessionKey")


class Indexed(NamedTuple):
    """What the index says of one session key."""

    key: str
    session_id: str
    title: str | None
    parent_key: str | None


def read_index(sessions: Path) -> list[Indexed] | None:
    """The entries of ``<sessions>/sessions.json``; ``[]`` without one, ``None`` when damaged.

    Streamed one entry at a time: an index holds a snapshot of skills and prompts per session
    and can be large. Entries that are not objects with a ``sessionId`` are passed over.
    """
    path = sessions / INDEX
    if not is_file(path):
        return []
    found: list[Indexed] = []
    with closing(bigjson.iter_kvitems(path, "")) as items:
        for item in items:
            if isinstance(item, bigjson.Malformed):
                return None
            value = item.value
            session_id = (
                as_nonempty_text(value.get("sessionId")) if isinstance(value, dict) else None
            )
            if session_id is None or not isinstance(value, dict):
                continue
            title = next(filter(None, map(as_nonempty_text, map(value.get, _TITLES))), None)
            parent = next(filter(None, map(as_nonempty_text, map(value.get, _PARENTS))), None)
            found.append(Indexed(str(item.key), session_id, title, parent))
    return found


def spawned(entries: Iterable[Indexed]) -> dict[str, str]:
    """Which session started which: child session id to parent session id."""
    entries = list(entries)
    by_key = {entry.key: entry.session_id for entry in entries}
    parents: dict[str, str] = {}
    for entry in entries:
        parent = by_key.get(entry.parent_key) if entry.parent_key else None
        if parent is not None and parent != entry.session_id:
            parents[entry.session_id] = parent
    return parents
