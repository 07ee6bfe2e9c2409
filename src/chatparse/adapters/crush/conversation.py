"""A Crush session assembled, with its sub-agents, and the one usage Crush records.

Usage: Crush (and OpenCode-Go) keep token counts only on the session row, and **assign** them
after every model call rather than add them up: ``prompt_tokens`` and ``completion_tokens``
are the last call's, not the session's. They go to the session's last answer, as that call's
usage (``input_tokens`` = ``prompt_tokens``, ``output_tokens`` = ``completion_tokens``;
versions differ in where they count cache reads, so no cache part is given). Zero, the
columns' default, is nothing recorded. ``cost`` (summed by Crush) has no place in the model.
"""

from __future__ import annotations

from typing import Any, Final

from attrs import frozen

from chatparse.adapter import (
    Ledger,
    MessageDraft,
    SourceAdapter,
    as_nonempty_text,
    as_token_count,
    build_conversation,
    new_usage,
)
from chatparse.adapters.crush.parts import Reading, read_row
from chatparse.adapters.crush.store import Store, epoch
from chatparse.adapters.goose.catalog import Lineage, child_meta
from chatparse.model import ConversationMeta, ParsedConversation

__all__ = ["TITLE_PREFIX", "Database", "read_conversation"]

TITLE_PREFIX: Final = "title-"
"""A session Crush ran to name another (``title-<parent id>``): not a conversation."""


@frozen
class Database:
    """What every session of one database is read with."""

    adapter: SourceAdapter
    store: Store
    lineage: Lineage


def _last_call_usage(row: dict[str, Any], drafts: list[MessageDraft], ledger: Ledger) -> None:
    problems: list[str] = []
    prompt = as_token_count(row.get("prompt_tokens"), problems, "prompt_tokens")
    completion = as_token_count(row.get("completion_tokens"), problems, "completion_tokens")
    for problem in problems:
        ledger.warn(f"session {row.get('id')}: {problem}")
    answers = [d for d in drafts if d.role == "assistant"]
    if not (prompt or completion) or not answers:
        return
    answers[-1].usage = new_usage(
        input_tokens=prompt or None,
        output_tokens=completion or None,
        dedup_key=f"crush:{row.get('id')}",
    )


def read_conversation(db: Database, meta: ConversationMeta, ident: str) -> ParsedConversation:
    """Session ``ident`` of the database, its sub-agents read inside it."""
    return _read_session(db, meta, ident, {ident})


def _read_session(
    db: Database, meta: ConversationMeta, ident: str, on_the_way: set[str]
) -> ParsedConversation:
    row = db.lineage.rows[ident]
    reading = Reading()
    reading.ledger.use()  # the session row: title, times, counts
    summary = as_nonempty_text(row.get("summary_message_id"))
    for message in db.store.messages(ident):
        flagged = message.get("is_summary_message") == 1 or message.get("id") == summary
        read_row(reading, message, summary=flagged)
    _last_call_usage(row, reading.drafts, reading.ledger)
    snapshots = db.store.file_snapshots(ident)
    if snapshots:
        reading.ledger.skip("file snapshot (files table)", snapshots)
    subagents = []
    for child in db.lineage.children.get(ident, []):
        if child.startswith(TITLE_PREFIX):
            reading.ledger.skip("title generation session")
        elif child not in on_the_way:
            below = child_meta(meta, child)
            subagents.append(_read_session(db, below, child, on_the_way | {child}))
    return build_conversation(
        db.adapter,
        meta,
        [draft.freeze() for draft in reading.drafts],
        reading.ledger,
        title=as_nonempty_text(row.get("title")),
        created_at=epoch(row.get("created_at")),
        updated_at=epoch(row.get("updated_at")),
        subagents=subagents,
    )
