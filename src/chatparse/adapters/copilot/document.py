"""Sessions stored whole: a ``.json`` document, or an element of ``interactive.sessions``.

Before VS Code 1.109 a session file was the session object itself; before file storage, the
sessions of a window were a JSON array under the ``interactive.sessions`` key of its
``state.vscdb``. Both hold the same session object the log replays to.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, Final

from chatparse.adapter import Ledger, as_text, digest_fingerprint, new_meta, passed_over
from chatparse.adapters._vscode import workspace_project_path
from chatparse.adapters.copilot.locate import databases, session_meta
from chatparse.decoders import bigjson, sqlite
from chatparse.decoders import value as jsonvalue
from chatparse.errors import SourceUnavailableError
from chatparse.model import ConversationMeta

__all__ = [
    "LEGACY_FORMAT",
    "LEGACY_KEY",
    "has_legacy",
    "legacy_metas",
    "legacy_session",
    "read_document",
]

LEGACY_KEY: Final = "interactive.sessions"
"""The ``ItemTable`` key of the sessions saved before file storage: an array, newest first."""
LEGACY_FORMAT: Final = "interactive.sessions"
"""``locator["format"]`` of a conversation read from :data:`LEGACY_KEY`."""


def read_document(path: Path, ledger: Ledger) -> dict[str, Any] | None:
    """Read a ``.json`` session document, streamed key by key; damage ends it (``malformed``)."""
    state: dict[str, Any] = {}
    for item in bigjson.iter_kvitems(path, ""):
        if isinstance(item, bigjson.Malformed):
            ledger.bad()
            ledger.warn(f"document damaged near byte {item.offset}: {item.reason}")
            break
        state[str(item.key)] = item.value
    return state or None


def legacy_metas(source: str, user_dir: Path) -> Iterator[ConversationMeta]:
    """One meta per session of each ``interactive.sessions`` array under ``user_dir``.

    The fingerprint is a digest of the session's own content: the database's size and time
    change whenever any other session or key does.
    """
    for db, workspace in databases(user_dir):
        project = workspace_project_path(workspace) if workspace is not None else None
        try:
            sessions = list(_legacy_sessions(db))
        except SourceUnavailableError as exc:
            passed_over(db, exc.reason)
            continue
        for index, session in sessions:
            meta = session_meta(source, _legacy_id(db, index, session), db, project)
            if meta is None:
                continue
            yield new_meta(
                source=meta.source,
                id=meta.id,
                path=meta.path,
                fingerprint=digest_fingerprint(jsonvalue.encode(session)),
                size=meta.size,
                mtime=meta.mtime,
                project_path=project,
                locator={"format": LEGACY_FORMAT, "index": str(index)},
            )


def has_legacy(db: Path) -> bool:
    """For ``detect`` and ``doctor``: an unreadable database has none (``scan`` says why)."""
    try:
        return _legacy_value(db) is not None
    except SourceUnavailableError:
        return False


def legacy_session(db: Path, meta: ConversationMeta) -> dict[str, Any]:
    """The session ``meta`` names in the ``interactive.sessions`` array of ``db``.

    Raises:
        SourceUnavailableError: The database cannot be read, or the session has left the array.
    """
    wanted = meta.locator.get("index")
    found = [(i, s) for i, s in _legacy_sessions(db) if _legacy_id(db, i, s) == meta.id]
    for index, session in found:
        if str(index) == wanted or len(found) == 1:
            return session
    raise SourceUnavailableError(
        str(db), f"no session {meta.id} under {LEGACY_KEY}", "Scan again: it was migrated."
    )


def _legacy_value(db: Path) -> str | None:
    """The ``interactive.sessions`` value of a database, or ``None`` (no table, no key).

    Raises:
        SourceUnavailableError: Not a database, or locked past the retries.
    """
    with sqlite.open_snapshot(db) as snapshot:
        if "ItemTable" not in snapshot.tables():
            return None
        row = snapshot.get("ItemTable", LEGACY_KEY)
    value = row.values[0] if row is not None else None
    return value if isinstance(value, str) else None


def _legacy_sessions(db: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """The sessions of a database's ``interactive.sessions`` array, with their positions."""
    value = _legacy_value(db)
    if value is None:
        return
    sessions = jsonvalue.decode(value)
    if not isinstance(sessions, list):
        return
    for index, session in enumerate(sessions):
        if isinstance(session, dict):
            yield index, session


def _legacy_id(db: Path, index: int, session: Mapping[str, Any]) -> str:
    """The session's ``sessionId``, else one made from its database folder and position."""
    return as_text(session.get("sessionId")) or f"{db.parent.name}-interactive-{index}"
