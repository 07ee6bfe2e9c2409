"""Where the OpenHands CLI keeps its conversations, and what a scan says of each.

The CLI persists every conversation under ``~/.openhands/conversations/<id>/`` (its
``PERSISTENCE_DIR`` is ``~/.openhands`` on Linux, macOS and Windows alike). Newer CLI builds move
it with ``OPENHANDS_PERSISTENCE_DIR`` (the whole folder) or ``OPENHANDS_CONVERSATIONS_DIR`` (the
conversations alone). Every folder named by these that exists is read; a conversation id (the
folder's name) found in two of them is read from the copy changed last.

A conversation folder holds ``base_state.json`` (the state without its events) and ``events/``,
one JSON file per event named ``event-<index>-<event id>.json`` (older SDKs:
``event-<index>.json``), in the order of their index.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Final

from chatparse.adapter import (
    file_stat,
    files_in,
    folders_in,
    is_dir,
    is_file,
    new_meta,
    stat_fingerprint,
)
from chatparse.host import Host
from chatparse.model import ConversationMeta

__all__ = [
    "BASE_STATE",
    "CONVERSATIONS_ENV",
    "EVENTS",
    "PERSISTENCE_ENV",
    "conversation_dirs",
    "conversation_meta",
    "event_files",
    "folder_of",
    "is_conversation",
    "roots",
]

PERSISTENCE_ENV: Final = "OPENHANDS_PERSISTENCE_DIR"
"""Moves the CLI's whole ``.openhands`` folder, conversations included."""
CONVERSATIONS_ENV: Final = "OPENHANDS_CONVERSATIONS_DIR"
"""Moves the conversations folder alone."""
BASE_STATE: Final = "base_state.json"
EVENTS: Final = "events"

_EVENT_NAME: Final = re.compile(r"event-(\d+)(?:-[^/\\]*)?\.json")


def roots(host: Host) -> list[Path]:
    """Each conversations folder the CLI may have written to, the configured ones first."""
    found: list[Path] = []
    configured = host.getenv(CONVERSATIONS_ENV)
    if configured:
        found.append(host.expand(configured))
    persistence = host.getenv(PERSISTENCE_ENV)
    if persistence:
        found.append(host.expand(persistence) / "conversations")
    found.append(host.home / ".openhands" / "conversations")
    return list(dict.fromkeys(found))


def is_conversation(folder: Path) -> bool:
    """Whether ``folder`` holds a conversation: a ``base_state.json`` or an ``events`` folder."""
    return is_file(folder / BASE_STATE) or is_dir(folder / EVENTS)


def conversation_dirs(root: Path) -> Iterator[Path]:
    """Every conversation folder directly under ``root``, by name."""
    for folder in folders_in(root):
        if is_conversation(folder):
            yield folder


def _is_event(name: str) -> bool:
    return _EVENT_NAME.fullmatch(name) is not None


def event_files(folder: Path) -> list[tuple[int, Path]]:
    """The event files of a conversation folder with their index, in index order.

    Files of any other name are not events and are not listed.
    """
    found = []
    for path in files_in(folder / EVENTS, _is_event):
        match = _EVENT_NAME.fullmatch(path.name)
        if match is not None:
            found.append((int(match[1]), path))
    return sorted(found)


def _stats(folder: Path) -> dict[str, os.stat_result]:
    """The stat of ``base_state.json`` and of each event file, by name under the folder."""
    found: dict[str, os.stat_result] = {}
    paths = [folder / BASE_STATE, *(path for _, path in event_files(folder))]
    for path in paths:
        info = file_stat(path)
        if info is not None:
            found[path.relative_to(folder).as_posix()] = info
    return found


def folder_of(path: Path) -> Path:
    """The conversation folder of a meta's path: ``base_state.json``'s, or an event file's."""
    return path.parent if path.name == BASE_STATE else path.parent.parent


def conversation_meta(source: str, folder: Path) -> ConversationMeta | None:
    """The meta of the conversation in ``folder``; ``None`` when it holds no file to read.

    The path is ``base_state.json``, else the first event file; size and time are the folder's
    files' sum and latest; the fingerprint joins each file's size and time, so a new event or a
    rewritten state is seen.
    """
    stats = _stats(folder)
    if not stats:
        return None
    return new_meta(
        source=source,
        id=folder.name,
        path=str(folder / next(iter(stats))),
        fingerprint="+".join(f"{name}={stat_fingerprint(s)}" for name, s in stats.items()),
        size=sum(s.st_size for s in stats.values()),
        mtime=datetime.fromtimestamp(max(s.st_mtime for s in stats.values()), UTC),
    )
