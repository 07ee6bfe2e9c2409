"""The JSONL transcripts (``<session id>.jsonl``, nested or flat, and sub-agents' files).

One JSON object per line: ``{"role": "user"|"assistant", "message": {"content": ...}}``, or a
roleless lifecycle line, ``{"type": "turn_ended", "status": ...}``. Lines carry no id, time,
model or usage: message ids are line numbers, and a prompt's time is its ``<timestamp>`` tag
when that has a zone. Tool calls carry no id and the CLI writes no results into the file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Final

from chatparse.adapter import as_nonempty_text, as_text, dig
from chatparse.adapters.cursor_cli.content import Reading, read_content
from chatparse.decoders.value import encode

__all__ = ["read_transcript"]

_ROLES: Final = ("user", "assistant")


def _turn_ended(reading: Reading, record: dict[str, Any], line: int) -> None:
    status = as_text(record.get("status"))
    if status == "success":
        reading.ledger.skip("turn ended")
        return
    draft = reading.draft(f"line-{line}", "system")
    draft.kind = "notice"
    error = as_nonempty_text(record.get("error"))
    draft.text = f"Turn ended: {status or 'no status'}" + (f" ({error})" if error else "")
    reading.drafts.append(draft)
    reading.ledger.use()


def read_transcript(path: Path, reading: Reading) -> Reading:
    """Read the transcript at ``path`` into ``reading``, line by line."""
    ledger = reading.ledger
    for line in ledger.decoded_lines(path):
        record = line.value
        role = dig(record, "role")
        if role in _ROLES and isinstance(dig(record, "message"), dict):
            draft = reading.draft(f"line-{line.line_no}", role)
            read_content(reading, draft, record["message"].get("content"), f"line {line.line_no}")
        elif dig(record, "type") == "turn_ended":
            _turn_ended(reading, record, line.line_no)
        else:
            kind = dig(record, "type")
            ledger.keep(
                f"line {line.line_no}", kind if isinstance(kind, str) else None, encode(record)
            )
    return reading
