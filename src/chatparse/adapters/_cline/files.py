"""Reading the JSON files of a task folder: whole arrays, tolerant of a torn end.

Cline writes ``api_conversation_history.json`` and ``ui_messages.json`` whole, as one JSON
array, on every change; an interrupted write leaves an array cut short (a missing ``]``, a
half-written element). The elements before the damage are read; the damage is one malformed
record, said in a warning.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

from chatparse.adapter import Ledger
from chatparse.decoders import bigjson
from chatparse.errors import SourceUnavailableError

__all__ = ["ARRAY_START", "Element", "read_array", "read_document"]

ARRAY_START: Final = b"["

Element = tuple[int, dict[str, Any]]
"""An array element that is an object, with its index in the array."""


def _first_byte(path: Path) -> bytes:
    try:
        with path.open("rb") as stream:
            return stream.read(256).lstrip(b"\xef\xbb\xbf \t\r\n")[:1]
    except OSError:
        return b""


def read_array(path: Path, ledger: Ledger, label: str, prefix: str = "item") -> Iterator[Element]:
    """The objects of the JSON array in ``path`` (at ``prefix``), each with its index.

    An element that is not an object is a malformed record; a file cut short ends in one
    malformed record. A file that is not an array at all (for the default ``prefix``, a
    top-level array) is one malformed record.

    Raises:
        SourceUnavailableError: The file cannot be opened.
    """
    if prefix == "item" and _first_byte(path) not in (ARRAY_START, b""):
        ledger.bad(label, "not a JSON array; nothing in it is read")
        return
    for item in bigjson.iter_items(path, prefix):
        if isinstance(item, bigjson.Malformed):
            ledger.bad(label, f"cut short at byte {item.offset} ({item.reason})")
            return
        index = int(item.key)
        if isinstance(item.value, dict):
            yield index, item.value
        else:
            ledger.bad(f"{label} item {index}", "not a JSON object")


def read_document(path: Path) -> Any:
    """The JSON value in ``path``; ``None`` when it is missing, unreadable or damaged."""
    try:
        for item in bigjson.iter_items(path, ""):
            return None if isinstance(item, bigjson.Malformed) else item.value
    except SourceUnavailableError:
        return None
    return None
