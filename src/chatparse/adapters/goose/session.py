"""A Goose conversation put together: from ``sessions.db`` or from a legacy session file.

Usage: every assistant message Goose wrote since late 2025 carries the counts of its request
in ``metadata_json.usage`` (``inputTokens``, ``outputTokens``; Goose's providers count cached
prompt tokens in ``inputTokens``), read per message. A session whose messages carry none has
only its totals (``accumulated_*`` columns, or the legacy file's metadata line): they go to its
last answer.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any, Final

from chatparse.adapter import (
    Ledger,
    MessageDraft,
    as_datetime,
    as_epoch,
    as_nonempty_text,
    as_token_count,
    dig,
    new_usage,
)
from chatparse.adapters.goose.content import Found
from chatparse.decoders.value import Invalid, decode
from chatparse.model import Usage

__all__ = ["found_in_row", "give_totals", "model_of", "session_time", "session_usage"]

_SQLITE_TIME: Final = re.compile(r"\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(\.\d+)?")


def session_time(value: object) -> datetime | None:
    """A session row's time: RFC 3339 text, or SQLite's ``CURRENT_TIMESTAMP`` text (UTC).

    SQLite documents ``CURRENT_TIMESTAMP`` and ``datetime('now')`` as UTC, so their zone-less
    text is read as UTC; any other zone-less text is no time.
    """
    if isinstance(value, str) and _SQLITE_TIME.fullmatch(value):
        return datetime.fromisoformat(value.replace(" ", "T")).replace(tzinfo=UTC)
    return as_datetime(value)


def _json(value: object) -> Any:
    decoded = decode(value) if isinstance(value, str) else None
    return None if isinstance(decoded, Invalid) else decoded


def model_of(row: dict[str, Any]) -> str | None:
    """The model a session ran, from ``model_config_json``."""
    return as_nonempty_text(dig(_json(row.get("model_config_json")), "model_name"))


def _usage(counts: object, key: str, ledger: Ledger, where: str) -> Usage | None:
    """A message's ``usage`` object in the shared meaning; ``None`` when it counts nothing."""
    if not isinstance(counts, dict):
        return None
    problems: list[str] = []
    read = as_token_count(counts.get("inputTokens"), problems, "inputTokens")
    written = as_token_count(counts.get("outputTokens"), problems, "outputTokens")
    for problem in problems:
        ledger.warn(f"{where}: {problem}")
    if not (read or written):
        return None
    return new_usage(input_tokens=read, output_tokens=written, dedup_key=key)


def found_in_row(row: dict[str, Any], session: str, model: str | None, ledger: Ledger) -> Found:
    """A ``messages`` row as a message record."""
    where = f"messages row {row['rowid']}"
    metadata = _json(row.get("metadata_json"))
    wanted = as_nonempty_text(row.get("message_id")) or f"row-{row['rowid']}"
    raw = row.get("content_json")
    content = decode(raw) if isinstance(raw, str) else None
    return Found(
        where=where,
        wanted_id=wanted,
        role=row.get("role"),
        content=content,
        metadata=metadata,
        timestamp=as_epoch(row.get("created_timestamp"), "s"),
        model=model,
        usage=_usage(dig(metadata, "usage"), f"goose:{session}:{wanted}", ledger, where),
    )


def session_usage(totals: dict[str, Any], key: str, ledger: Ledger) -> Usage | None:
    """A session's token totals (``accumulated_*`` first), ``None`` when none are recorded."""
    problems: list[str] = []

    def count(name: str) -> int | None:
        for column in (f"accumulated_{name}", name):
            found = as_token_count(totals.get(column), problems, column)
            if found is not None:
                return found
        return None

    read, written = count("input_tokens"), count("output_tokens")
    cache_read, cache_write = count("cache_read_tokens"), count("cache_write_tokens")
    for problem in problems:
        ledger.warn_once(f"session totals: {problem}")
    if not (read or written):
        return None
    if read is not None and (cache_read or 0) + (cache_write or 0) > read:
        cache_read = cache_write = None  # not parts of this input: not kept
    return new_usage(
        input_tokens=read,
        output_tokens=written,
        cache_read_tokens=cache_read,
        cache_write_tokens=cache_write,
        dedup_key=key,
    )


def give_totals(drafts: list[MessageDraft], usage: Usage | None, ledger: Ledger) -> None:
    """Session totals to the last answer, unless some message carries its own usage."""
    if usage is None or any(d.usage is not None for d in drafts):
        return
    answers = [d for d in drafts if d.role == "assistant"]
    if answers:
        answers[-1].usage = usage
    else:
        ledger.warn("session token totals recorded, but no answer to carry them")
