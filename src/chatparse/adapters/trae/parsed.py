"""The parsed sessions of one workspace database, and the conversation ``parse`` makes of one."""

from __future__ import annotations

import os
from collections.abc import Callable

from attrs import define

from chatparse.adapter import SourceAdapter, build_conversation
from chatparse.adapters.trae.history import History, inputs_of
from chatparse.adapters.trae.session import Session
from chatparse.adapters.trae.stores import STORE_KEY, Notes, RawSession, iter_sessions
from chatparse.decoders.sqlite import open_snapshot
from chatparse.model import ConversationMeta, ParsedConversation

__all__ = ["Store", "completed", "conversation", "keyed_session", "read_store"]

Where = tuple[str, int]
"""Where a session is stored: the store's key and the position in its list."""


@define
class Store:
    """The parsed sessions of one workspace database, by where each is stored."""

    sessions: dict[Where, Session]
    problems: list[str]
    """Damage of the database's stores, a warning on each of its conversations."""
    size: int
    """Bytes of the store values they were read from."""


def read_store(db: str | os.PathLike[str], only: str | None = None) -> Store:
    """The sessions of the workspace database at ``db``, each parsed as soon as it is decoded.

    With ``only``, only the copies of that session id are parsed: the others are still decoded,
    for the damage they may show and for the count of sessions the input history depends on.
    """
    notes = Notes()
    read = keyed_session if only is None else _keyed_if(only)
    with open_snapshot(db) as snapshot:
        sessions = {where: s for where, s in iter_sessions(snapshot, notes, read) if s is not None}
        history = History.read(snapshot) if _stored_without_messages(sessions) else History()
    return completed(sessions, notes, history)


def keyed_session(raw: RawSession) -> tuple[Where, Session]:
    """A stored session, parsed, with where it is stored."""
    return (raw.key, raw.position), Session.read(raw.session_id, raw.value)


def _keyed_if(session_id: str) -> Callable[[RawSession], tuple[Where, Session | None]]:
    def read(raw: RawSession) -> tuple[Where, Session | None]:
        if raw.session_id != session_id:
            return (raw.key, raw.position), None
        return keyed_session(raw)

    return read


def _stored_without_messages(sessions: dict[Where, Session]) -> bool:
    """Whether a session was stored without messages, so the input history is needed."""
    return any(not s.entries and not s.unreadable for s in sessions.values())


def completed(sessions: dict[Where, Session], notes: Notes, history: History) -> Store:
    """The store, once the sessions stored without messages have their prompts from history.

    ``history`` (and its damage) counts only when a session was stored without messages.
    """
    if not _stored_without_messages(sessions):
        history = History()
    for (key, _position), session in sessions.items():
        if session.entries or session.unreadable:
            continue
        used, unattributed = inputs_of(history, session.session_id, notes, key)
        session.fall_back(used, unattributed=unattributed)
    return Store(sessions, [*notes.problems, *history.problems], notes.size)


def conversation(
    adapter: SourceAdapter, meta: ConversationMeta, store: Store
) -> ParsedConversation:
    """The conversation of the session ``meta`` names, read from its database's ``store``.

    The session at the meta's locator, else (a meta from an older scan, or made by hand) the
    best copy of its id in the store.
    """
    where = (meta.locator.get("key", STORE_KEY), _locator_number(meta, "position", -1))
    session = store.sessions.get(where)
    if session is None or session.session_id != meta.id:
        copies_here = [s for s in store.sessions.values() if s.session_id == meta.id]
        session = max(copies_here, key=Session.size, default=None) or Session.missing(meta.id)
    warnings = [*session.ledger.warnings, *store.problems]
    copies = _locator_number(meta, "copies", 1)
    if copies > 1:
        warnings.append(
            f"this session is stored {copies} times (in several workspace databases, or "
            "twice in one); the copy with the most messages is the one read"
        )
    return build_conversation(
        adapter,
        meta,
        session.messages,
        session.ledger,
        title=session.title,
        created_at=session.created_at,
        updated_at=session.updated_at,
        warnings=warnings,
    )


def _locator_number(meta: ConversationMeta, key: str, default: int) -> int:
    """A number written in the meta's locator, or ``default`` when there is none (or not one)."""
    text = meta.locator.get(key)
    return int(text) if text is not None and text.isdecimal() else default
