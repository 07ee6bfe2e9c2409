r"""Where Cursor's agent CLI keeps its sessions, in each layout, and what scan says of them.

The Cursor home is ``$CURSOR_CONFIG_DIR`` (reported to move it; used as given, ``~`` expanded),
else ``<home>/.cursor`` on every platform (``%USERPROFILE%\.cursor`` on Windows). In it:

* ``chats/<md5 of the workspace path>/<session id>/store.db`` (with ``meta.json``): the CLI's
  resumable state, the fullest record (tool results, times, models);
* ``projects/<slug>/agent-transcripts/<session id>/<session id>.jsonl`` (current transcripts),
  sub-agents in ``<session id>/subagents/<id>.jsonl``;
* ``projects/<slug>/agent-transcripts/<session id>.jsonl`` (a flat transcript, some builds);
* ``projects/<slug>/agent-transcripts/<session id>.txt`` (plain text, the oldest builds).

One conversation per session id: the store wins, then the nested transcript, then the flat one,
then the plain-text one;
a transcript of a session whose store wins is named in the locator, read when the store holds
no readable message.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final, NamedTuple

from chatparse.adapter import (
    as_epoch,
    as_nonempty_text,
    file_meta,
    files_in,
    folders_in,
    is_file,
    list_folder,
    stat_fingerprint,
    title_from,
)
from chatparse.decoders.value import decode
from chatparse.host import Host
from chatparse.model import ConversationMeta

__all__ = [
    "HOME_ENV",
    "LAYOUTS",
    "Found",
    "cursor_home",
    "found_in",
    "meta_of",
]

HOME_ENV: Final = "CURSOR_CONFIG_DIR"
LAYOUTS: Final = ("store", "nested", "flat", "plain")
"""The layouts, in the order a copy of one session wins."""
STORE: Final = "store.db"
META_FILE: Final = "meta.json"
SUBAGENTS: Final = "subagents"
_META_LIMIT: Final = 64 * 1024
_FLAT: Final = {".jsonl": "flat", ".txt": "plain"}
"""A transcript file directly in ``agent-transcripts/``: its layout, by its suffix."""


class Found(NamedTuple):
    """Where one copy of a session is: its id, its store or transcript, and which layout."""

    session_id: str
    path: Path
    layout: str


def cursor_home(host: Host) -> Path:
    """The Cursor home: ``$CURSOR_CONFIG_DIR`` (``~`` expanded), or ``.cursor`` in the home."""
    moved = host.getenv(HOME_ENV)
    return host.home / ".cursor" if moved is None else host.expand(moved)


def _transcript_dirs(home: Path) -> Iterator[Path]:
    for project in folders_in(home / "projects"):
        yield project / "agent-transcripts"


def found_in(home: Path) -> Iterator[Found]:
    """Every session file under a Cursor home, in any layout it reads."""
    for bucket in folders_in(home / "chats"):
        for session in folders_in(bucket):
            store = session / STORE
            if is_file(store):
                yield Found(session.name, store, "store")
    for folder in _transcript_dirs(home):
        for entry in list_folder(folder):
            path = Path(entry.path)
            nested = path / f"{path.name}.jsonl"
            if path.suffix in _FLAT and is_file(path):
                yield Found(path.stem, path, _FLAT[path.suffix])
            elif is_file(nested):
                yield Found(path.name, nested, "nested")


def _session_file(path: Path) -> dict[str, Any]:
    """The session's ``meta.json`` (``title``, ``createdAtMs``, ``updatedAtMs``), or ``{}``."""
    try:
        with (path.parent / META_FILE).open("rb") as stream:
            value = decode(stream.read(_META_LIMIT))
    except OSError:
        return {}
    return value if isinstance(value, dict) else {}


def _stamp(path: Path) -> str | None:
    """The stat fingerprint of a file beside the session's own, ``None`` when there is none."""
    try:
        return stat_fingerprint(path.stat())
    except OSError:
        return None


def meta_of(source: str, found: Found, transcript: Found | None = None) -> ConversationMeta | None:
    """The meta of one session; ``transcript`` is its transcript when the store wins.

    The fingerprint joins the file's stat with those of the store's ``-wal`` and ``meta.json``
    and of the transcript, where they exist.
    """
    try:
        info = found.path.stat()
    except OSError:
        return None
    store = found.layout == "store"
    beside = [found.path.parent / f"{STORE}-wal", found.path.parent / META_FILE] if store else []
    locator = {"layout": found.layout}
    if transcript is not None:
        locator["transcript"] = str(transcript.path)
        beside.append(transcript.path)
    stamps = [stat_fingerprint(info), *filter(None, map(_stamp, beside))]
    details = _session_file(found.path) if store else {}
    return file_meta(
        source,
        found.session_id,
        found.path,
        info,
        fingerprint="+".join(stamps),
        title=title_from(as_nonempty_text(details.get("title"))),
        created_at=as_epoch(details.get("createdAtMs"), "ms"),
        updated_at=as_epoch(details.get("updatedAtMs"), "ms"),
        locator=locator,
    )


def subagent_files(transcript: Path) -> list[Path]:
    """The sub-agent transcripts beside a nested transcript, sorted by name."""
    folder = transcript.parent / SUBAGENTS
    return files_in(folder, lambda name: name.endswith(".jsonl"))
