"""A conversation put together, from ``state.db`` or from a transcript file.

From the database: a chain of sessions, with its sub-agents. And each session's token totals,
the only usage Hermes records.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import Any, Final

from chatparse.adapter import (
    Ledger,
    SourceAdapter,
    as_count,
    as_epoch,
    as_nonempty_text,
    build_conversation,
    new_usage,
    parts_within_wholes,
)
from chatparse.adapters.hermes.lineage import Lineage
from chatparse.adapters.hermes.messages import Draft, Found, Reading, read_message
from chatparse.adapters.hermes.store import Store
from chatparse.adapters.hermes.transcripts import read_file_session
from chatparse.decoders.value import encode
from chatparse.model import ConversationMeta, ParsedConversation, Usage

__all__ = ["read_database_conversation", "read_transcript_conversation", "session_usage"]

_COUNTS: Final = (
    "input_tokens",
    "output_tokens",
    "cache_read_tokens",
    "cache_write_tokens",
    "reasoning_tokens",
)


def session_usage(row: dict[str, Any], ledger: Ledger) -> Usage | None:
    """A session row's token totals in the shared meaning; ``None`` when all are zero.

    Hermes counts ``input_tokens`` without the cached part (``prompt = input + cache_read +
    cache_write`` in its ``CanonicalUsage``): the input here adds them back. Zero is the
    columns' default, so a session with nothing but zeros recorded nothing.
    """
    counts = {name: as_count(row.get(name)) for name in _COUNTS}
    if not any(counts.values()):
        return None
    fresh = counts["input_tokens"]
    if fresh is not None:
        counts["input_tokens"] = (
            fresh + (counts["cache_read_tokens"] or 0) + (counts["cache_write_tokens"] or 0)
        )
    problems: list[str] = []
    kept = parts_within_wholes(counts, problems)
    for problem in problems:
        ledger.warn_once(f"session {row.get('id')}: {problem}")
    return new_usage(
        input_tokens=kept["input_tokens"],
        output_tokens=kept["output_tokens"],
        cache_read_tokens=kept["cache_read_tokens"],
        cache_write_tokens=kept["cache_write_tokens"],
        reasoning_tokens=kept["reasoning_tokens"],
        dedup_key=f"hermes:{row.get('id')}",
    )


def _give_usage(drafts: list[Draft], row: dict[str, Any], ledger: Ledger) -> None:
    """The session's totals go to its last answer (no answer: a warning, nothing lost silently)."""
    usage = session_usage(row, ledger)
    if usage is None:
        return
    ident = row.get("id")
    answers = [d for d in drafts if d.session == ident and d.role == "assistant"]
    if answers:
        answers[-1].usage = usage
    else:
        ledger.warn(f"session {ident}: token totals recorded, but no answer to carry them")


def _message_found(row: dict[str, Any], session: dict[str, Any]) -> Found:
    active, compacted = row.get("active"), row.get("compacted")
    return Found(
        record=row,
        where=f"messages row {row['rowid']}",
        wanted_id=str(row["rowid"]),
        session=str(session["id"]),
        timestamp=as_epoch(row.get("timestamp"), "s"),
        model=as_nonempty_text(session.get("model")),
        # Taken out of the live transcript (a rewind), not archived by a compaction.
        sidechain=active == 0 and compacted != 1,
        summary=row.get("_compressed_summary") == 1,
        hidden=row.get("display_kind") == "hidden",
    )


def _times(rows: Iterable[dict[str, Any]]) -> tuple[datetime | None, datetime | None]:
    rows = list(rows)
    started = [as_epoch(r.get("started_at"), "s") for r in rows]
    ended = [as_epoch(r.get(k), "s") for r in rows for k in ("ended_at", "last_activity_at")]
    return (
        min((s for s in started if s is not None), default=None),
        max((e for e in ended if e is not None), default=None),
    )


def _first(rows: Iterable[dict[str, Any]], column: str) -> str | None:
    return next(filter(None, (as_nonempty_text(r.get(column)) for r in rows)), None)


def read_database_conversation(
    adapter: SourceAdapter,
    meta: ConversationMeta,
    store: Store,
    lineage: Lineage,
    chain: list[str],
) -> ParsedConversation:
    """The conversation of ``chain`` (a session and its continuations) and its sub-agents."""
    reading = Reading()
    rows = [lineage.rows[ident] for ident in chain]
    for session in rows:
        reading.ledger.use()  # the session row: title, times, totals
        for row in store.messages(str(session["id"])):
            read_message(reading, _message_found(row, session), partial(encode, row))
    for session in rows:
        _give_usage(reading.drafts, session, reading.ledger)
    subagents = [
        read_database_conversation(
            adapter, _child_meta(meta, lineage, ident), store, lineage, lineage.chain(ident)
        )
        for ident in lineage.subagents(chain)
    ]
    created, updated = _times(rows)
    return build_conversation(
        adapter,
        meta,
        [draft.freeze() for draft in reading.drafts],
        reading.ledger,
        title=_first(rows, "title"),
        project_path=_first(rows, "cwd"),
        git_branch=_first(rows, "git_branch"),
        created_at=created,
        updated_at=updated,
        subagents=subagents,
    )


def _child_meta(meta: ConversationMeta, lineage: Lineage, ident: str) -> ConversationMeta:
    """A sub-agent's meta: its parent's store and change key, its own sessions and parent."""
    return ConversationMeta(
        source=meta.source,
        id=ident,
        path=meta.path,
        fingerprint=meta.fingerprint,
        size=meta.size,
        mtime=meta.mtime,
        locator={"sessions": "\n".join(lineage.chain(ident)), **lineage.related(ident)},
    )


def read_transcript_conversation(
    adapter: SourceAdapter, meta: ConversationMeta
) -> ParsedConversation:
    """The conversation in one transcript file."""
    session = read_file_session(Path(meta.path), meta.id, meta.locator.get("format", "jsonl"))
    return build_conversation(
        adapter,
        meta,
        [draft.freeze() for draft in session.reading.drafts],
        session.reading.ledger,
        project_path=session.cwd,
        created_at=session.started,
        updated_at=session.updated,
    )
