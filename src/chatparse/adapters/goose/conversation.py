"""A Goose conversation assembled: a database session with its sub-agents, or a legacy file."""

from __future__ import annotations

from pathlib import Path

from attrs import frozen

from chatparse.adapter import SourceAdapter, as_nonempty_text, build_conversation
from chatparse.adapters.goose.catalog import SQLITE, Lineage, child_meta
from chatparse.adapters.goose.content import Reading, read_message
from chatparse.adapters.goose.legacy import read_legacy
from chatparse.adapters.goose.session import (
    found_in_row,
    give_totals,
    model_of,
    session_time,
    session_usage,
)
from chatparse.adapters.goose.store import Store
from chatparse.model import ConversationMeta, ParsedConversation

__all__ = ["read_database_conversation", "read_legacy_conversation"]


def read_database_conversation(
    adapter: SourceAdapter,
    meta: ConversationMeta,
    store: Store,
    lineage: Lineage,
    ident: str,
) -> ParsedConversation:
    """Session ``ident`` of the database, its sub-agents read inside it."""
    return _read_session(_Database(adapter, store, lineage), meta, ident, {ident})


@frozen
class _Database:
    """What every session of one database is read with."""

    adapter: SourceAdapter
    store: Store
    lineage: Lineage


def _read_session(
    db: _Database, meta: ConversationMeta, ident: str, on_the_way: set[str]
) -> ParsedConversation:
    adapter, store, lineage = db.adapter, db.store, db.lineage
    row = lineage.rows[ident]
    reading = Reading()
    reading.ledger.use()  # the session row: title, folder, times, totals
    model = model_of(row)
    for message in store.messages(ident):
        read_message(reading, found_in_row(message, ident, model, reading.ledger))
    give_totals(
        reading.drafts, session_usage(row, f"goose:{ident}", reading.ledger), reading.ledger
    )
    subagents = [
        _read_session(db, child_meta(meta, child, store=SQLITE), child, on_the_way | {child})
        for child in lineage.children.get(ident, [])
        if child not in on_the_way
    ]
    return build_conversation(
        adapter,
        meta,
        [draft.freeze() for draft in reading.drafts],
        reading.ledger,
        title=as_nonempty_text(row.get("name")) or as_nonempty_text(row.get("description")),
        project_path=as_nonempty_text(row.get("working_dir")),
        created_at=session_time(row.get("created_at")),
        updated_at=session_time(row.get("updated_at")),
        subagents=subagents,
    )


def read_legacy_conversation(adapter: SourceAdapter, meta: ConversationMeta) -> ParsedConversation:
    """The conversation in one legacy session file."""
    reading = Reading()
    header = read_legacy(Path(meta.path), reading)
    usage = session_usage(header, f"goose:{meta.id}", reading.ledger)
    give_totals(reading.drafts, usage, reading.ledger)
    return build_conversation(
        adapter,
        meta,
        [draft.freeze() for draft in reading.drafts],
        reading.ledger,
        title=as_nonempty_text(header.get("description")),
        project_path=as_nonempty_text(header.get("working_dir")),
    )
