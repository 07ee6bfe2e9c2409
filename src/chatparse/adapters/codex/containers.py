"""Reading the two containers a rollout comes in: JSON Lines, and the TypeScript JSON document."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

from chatparse.adapters.codex.locate import is_bare_meta
from chatparse.adapters.codex.records import label
from chatparse.adapters.codex.thread import ECHO, ROLLBACK, Thread
from chatparse.decoders import bigjson, jsonl
from chatparse.decoders import value as jsonvalue
from chatparse.model import Message

__all__ = ["read_document", "read_lines", "stream_lines", "take_line"]


def read_lines(path: Path, thread: Thread) -> None:
    """Feed a JSON Lines rollout (modern or bare) to ``thread``, one line at a time."""
    # Unknown records are kept once the file is read: each is tagged with the file's version,
    # which its session_meta line gives.
    # TOOLKIT-REQUEST: Ledger.diagnostics(producer_version=...) for records kept without one.
    unknown: list[tuple[int, str | None, int, int]] = []
    for record in jsonl.iter_lines(path):
        take_line(thread, record, unknown)
    for line_no, kind, start, end in unknown:
        # Where an unknown record was is only spelled out for the few that need it.
        thread.ledger.keep_span(
            f"line {line_no}", kind, path, start=start, end=end, producer_version=thread.version
        )


def stream_lines(path: Path, thread: Thread) -> Iterator[Message]:
    """The messages ``read_lines`` then ``Thread.conversation`` make, each once it is settled."""
    # Here, not at the top: ``parse`` never needs it, nor its compiled patterns.
    from chatparse._streaming import IdHorizons  # noqa: PLC0415 -- see above

    horizons = IdHorizons(path, (ROLLBACK, ECHO))
    drafts, settled, release = thread.drafts, thread.settled, thread.release
    unknown: list[tuple[int, str | None, int, int]] = []  # kept by parse only
    head = 0
    for record in jsonl.iter_lines(path):
        take_line(thread, record, unknown)
        unknown.clear()
        while head < len(drafts) and settled(head, record, horizons):
            message = release(head)
            head += 1
            if message is not None:
                yield message
    for index in range(head, len(drafts)):  # the end of the file: nothing can change any more
        message = release(index)
        if message is not None:
            yield message


def take_line(
    thread: Thread,
    record: jsonl.Line | jsonl.Malformed,
    unknown: list[tuple[int, str | None, int, int]],
) -> None:
    """Feed one line of a JSON Lines rollout; an unknown record's place is added to ``unknown``.

    The first record may be an early-Rust rollout's bare meta.
    """
    if isinstance(record, jsonl.Malformed):
        thread.ledger.bad()
    elif thread.lines_read == 0 and isinstance(record.value, dict) and is_bare_meta(record.value):
        thread.feed_bare_meta(record.value)
    elif not thread.feed(record.value, record.line_no):
        unknown.append((record.line_no, label(record.value), record.offset, record.end_offset))
    if not isinstance(record, jsonl.Malformed):
        thread.lines_read += 1


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
