"""Reading the two containers a rollout comes in: JSON Lines, and the TypeScript JSON document."""

from __future__ import annotations

from contextlib import closing
from pathlib import Path
from typing import Any

from chatparse.adapters.codex.locate import is_bare_meta
from chatparse.adapters.codex.records import label
from chatparse.adapters.codex.thread import Thread
from chatparse.decoders import bigjson, jsonl
from chatparse.decoders import value as jsonvalue

__all__ = ["read_document", "read_lines"]


def read_lines(path: Path, thread: Thread) -> None:
    """Feed a JSON Lines rollout (modern or bare) to ``thread``, one line at a time."""
    # Unknown records are kept once the file is read: each is tagged with the file's version,
    # which its session_meta line gives.
    # TOOLKIT-REQUEST: Ledger.diagnostics(producer_version=...) for records kept without one.
    unknown: list[tuple[int, str | None, int, int]] = []
    first = True
    feed = thread.feed
    for record in jsonl.iter_lines(path):
        if isinstance(record, jsonl.Malformed):
            thread.ledger.bad()
            continue
        value = record.value
        if first and isinstance(value, dict) and is_bare_meta(value):
            thread.feed_bare_meta(value)
        elif not feed(value, record.line_no):
            unknown.append((record.line_no, label(value), record.offset, record.end_offset))
        first = False
    for line_no, kind, start, end in unknown:
        # Where an unknown record was is only spelled out for the few that need it.
        thread.ledger.keep_span(
            f"line {line_no}", kind, path, start=start, end=end, producer_version=thread.version
        )


def read_document(path: Path, thread: Thread) -> None:
    """Feed a TypeScript CLI ``.json`` rollout to ``thread``: the session, then each item."""
    fields = bigjson.iter_kvitems(path, "session")
    with closing(fields):
        session: dict[str, Any] = {}
        for field in fields:
            if isinstance(field, bigjson.Malformed):
                break
            session[str(field.key)] = field.value
            if {"id", "timestamp"} <= session.keys():
                break
    thread.id_prefix = "I"
    if session:
        thread.feed_bare_meta(session)
    for item in bigjson.iter_items(path, "items.item"):
        if isinstance(item, bigjson.Malformed):
            thread.ledger.bad()
            continue
        if not thread.feed(item.value, int(item.key)):
            thread.ledger.keep(
                f"items[{item.key}]",
                label(item.value),
                jsonvalue.encode(item.value),
                producer_version=thread.version,
            )
