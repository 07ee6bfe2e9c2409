"""Hermes's transcript files: gateway ``<id>.jsonl`` logs and ``session_<id>.json`` snapshots.

A gateway transcript is one JSON object per line (one record each): first ``{role:
"session_meta", tools, model, platform, timestamp}``, then the messages. A snapshot is one JSON
object ``{session_id?, model, platform, session_start, last_updated, cwd?, messages: [...]}``:
the object is one record and each element of ``messages`` another. The session id is in the
file name only. Times in transcripts are ISO text written without a zone (the machine's local
time): they are no time (never guessed); a snapshot's own times carry a zone when it wrote one.
"""

from __future__ import annotations

from contextlib import closing
from datetime import datetime
from pathlib import Path
from typing import Any

from attrs import define, field

from chatparse.adapter import as_datetime, as_nonempty_text
from chatparse.adapters.hermes.messages import Found, Reading, read_message
from chatparse.decoders import bigjson
from chatparse.decoders.value import encode

__all__ = ["FileSession", "read_file_session"]


@define
class FileSession:
    """What a transcript file says of its session besides its messages."""

    reading: Reading = field(factory=Reading)
    model: str | None = None
    platform: str | None = None
    cwd: str | None = None
    started: datetime | None = None
    updated: datetime | None = None


def _header(session: FileSession, record: dict[str, Any]) -> None:
    session.model = as_nonempty_text(record.get("model")) or session.model
    session.platform = as_nonempty_text(record.get("platform")) or session.platform
    session.cwd = as_nonempty_text(record.get("cwd")) or session.cwd
    session.started = as_datetime(record.get("session_start")) or as_datetime(
        record.get("timestamp")
    )
    session.updated = as_datetime(record.get("last_updated"))


def _message(session: FileSession, ident: str, record: dict[str, Any], where: str) -> None:
    found = Found(
        record=record,
        where=where,
        wanted_id=where.replace(" ", "-"),
        session=ident,
        timestamp=as_datetime(record.get("timestamp")),
        model=session.model,
    )
    read_message(session.reading, found, lambda: encode(record))


def _read_jsonl(path: Path, ident: str, session: FileSession) -> None:
    ledger = session.reading.ledger
    for line in ledger.decoded_lines(path):
        where = f"line {line.line_no}"
        if not isinstance(line.value, dict):
            ledger.keep(where, None, encode(line.value))
        elif line.value.get("role") == "session_meta":
            _header(session, line.value)
            ledger.use()
        else:
            _message(session, ident, line.value, where)


def _read_snapshot(path: Path, ident: str, session: FileSession) -> None:
    ledger = session.reading.ledger
    header: dict[str, Any] = {}
    messages: object = None
    with closing(bigjson.iter_kvitems(path, "")) as items:
        for item in items:
            if isinstance(item, bigjson.Malformed):
                ledger.bad("document", item.reason)
                break
            if item.key == "messages":
                messages = item.value
            else:
                header[str(item.key)] = item.value
    _header(session, header)
    ledger.use()  # the document's own fields
    for index, record in enumerate(messages if isinstance(messages, list) else ()):
        where = f"messages[{index}]"
        if isinstance(record, dict):
            _message(session, ident, record, where)
        else:
            ledger.keep(where, None, encode(record))


def read_file_session(path: Path, ident: str, shape: str) -> FileSession:
    """Read the transcript file at ``path`` (``shape`` ``"jsonl"`` or ``"json"``)."""
    session = FileSession()
    (_read_jsonl if shape == "jsonl" else _read_snapshot)(path, ident, session)
    return session
