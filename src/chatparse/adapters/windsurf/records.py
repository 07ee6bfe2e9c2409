"""What the Cascade-family transcript readers share: a file's first record, a line kept raw.

Windsurf's hook transcripts and Google Antigravity's (an IDE derived from Windsurf) are both
JSON Lines of typed steps; :mod:`chatparse.adapters.antigravity` uses these too.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from chatparse.adapter import Ledger, is_file
from chatparse.decoders import jsonl
from chatparse.errors import SourceUnavailableError

__all__ = ["first_object", "keep_line"]


def first_object(path: Path) -> dict[str, Any] | None:
    """The first line of a ``.jsonl`` file, when it is a JSON object; for sniffing."""
    if path.suffix != ".jsonl" or not is_file(path):
        return None
    try:
        first = jsonl.read_first_line(path)
    except SourceUnavailableError:
        return None
    value = first.value if isinstance(first, jsonl.Line) else None
    return value if isinstance(value, dict) else None


def keep_line(ledger: Ledger, path: Path, line: jsonl.Line | jsonl.Malformed, kind: object) -> None:
    """Keep the line raw as an unknown record, typed by ``kind`` when it is text."""
    ledger.keep_span(
        f"line {line.line_no}",
        kind if isinstance(kind, str) else None,
        path,
        start=line.offset,
        end=line.end_offset,
    )
