"""Goose's session files before the database (before 1.10): ``sessions/<name>.jsonl``.

The first line is the session's metadata (``working_dir``, ``description``, ``schedule_id``,
``message_count`` and token totals: ``total_tokens``, ``input_tokens``, ``output_tokens``,
``accumulated_*``); every other line is one message ``{id?, role, created, content,
metadata?}`` (``created`` in epoch seconds). A first line that is not metadata is read as a
message, as Goose does. The session id is the file's name.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from chatparse.adapter import as_epoch, as_nonempty_text
from chatparse.adapters.goose.content import Found, Reading, read_message
from chatparse.decoders.jsonl import Malformed, iter_lines
from chatparse.decoders.value import encode

__all__ = ["read_legacy"]


def _is_metadata(value: object) -> bool:
    return isinstance(value, dict) and "role" not in value and "content" not in value


def _found(value: dict[str, Any], where: str) -> Found:
    return Found(
        where=where,
        wanted_id=as_nonempty_text(value.get("id")) or where.replace(" ", "-"),
        role=value.get("role"),
        content=value.get("content"),
        metadata=value.get("metadata"),
        timestamp=as_epoch(value.get("created"), "s"),
        model=None,
        usage=None,
    )


def read_legacy(path: Path, reading: Reading) -> dict[str, Any]:
    """Read the messages of a session file into ``reading``; return its metadata line."""
    header: dict[str, Any] = {}
    first = True
    for line in iter_lines(path):
        where = f"line {line.line_no}"
        if isinstance(line, Malformed):
            reading.ledger.bad(where, line.reason)
        elif first and _is_metadata(line.value):
            header = line.value
            reading.ledger.use()
        elif isinstance(line.value, dict):
            read_message(reading, _found(line.value, where))
        else:
            reading.ledger.keep(where, None, encode(line.value))
        first = False
    return header
