"""Reading a session file: every line into a reading, or just its head for a scan.

A line is one record. A line that is not JSON, or not an object, is malformed; one whose
``type`` the dialect does not know is kept raw (its bytes are read again only for the
diagnostics). Entry times are the entries' ISO ``timestamp`` (when the entry was written); a
message entry without one takes its message's ``timestamp`` (Unix milliseconds, when it was
made).
"""

from __future__ import annotations

import re
from contextlib import closing
from datetime import datetime
from pathlib import Path
from typing import Any, Final

from attrs import frozen

from chatparse.adapter import as_count, as_datetime, as_nonempty_text, as_text
from chatparse.adapters._pi.entries import HEADERS
from chatparse.adapters._pi.reading import UNKNOWN, Bad, Outcome, Reading
from chatparse.decoders import jsonl
from chatparse.errors import SourceUnavailableError

__all__ = ["Head", "id_from_name", "read_file", "read_head"]

# <ISO time with ":" and "." as "-">_<session id>.jsonl, as Pi and Oh My Pi name their files.
_STAMPED: Final = re.compile(r"\d{4}-\d\d-\d\dT[\d-]+Z_(?P<id>.+)")
_HEAD_RECORDS: Final = 2  # Oh My Pi's title slot, then the header


def read_file(reading: Reading, path: Path, *, where: str = "", line_ids: str = "") -> None:
    """Feed every line of ``path`` to ``reading``.

    ``where`` is put before ``line N`` in what the ledger says; ``line_ids`` before the ``L<N>``
    key given to an entry that has no id (a version 1 file), so that copies of one session read
    together keep their keys apart.
    """
    ledger = reading.ledger
    table = reading.dialect.entries
    repeated = reading.repeated
    unknown: list[tuple[int, str | None, int, int]] = []
    used = 0  # told to the ledger once, at the end
    # The hot loop: names looked up once, and the usual case (an entry of a known type) first.
    malformed, headers, enter, leave = jsonl.Malformed, HEADERS, reading.enter, reading.leave
    for record in jsonl.iter_lines(path):
        if record.__class__ is malformed:
            ledger.bad(f"{where}line {record.line_no}", record.reason)
            continue
        entry: Any = record.value  # type: ignore[union-attr] # a Line
        if entry.__class__ is not dict:
            ledger.bad(f"{where}line {record.line_no}", "not a JSON object")
            continue
        kind = entry.get("type")
        if kind.__class__ is not str:
            kind = None
        read = table.get(kind) if kind is not None else None
        if kind in headers:
            outcome = read(reading, entry) if read is not None else UNKNOWN
        else:
            ident = entry.get("id")
            key = ident if type(ident) is str and ident else f"{line_ids}L{record.line_no}"
            if key in repeated:
                reading.leaf = key
                ledger.skip("entry repeated in a later copy of the session")
                continue
            parent = entry.get("parentId") if key is ident else None
            stamp = entry.get("timestamp")
            enter(
                key,
                parent if type(parent) is str and parent else None,
                stamp if type(stamp) is str else None,
                in_tree=key is ident,
            )
            outcome = read(reading, entry) if read is not None else UNKNOWN
            leave()
        if outcome is None:
            used += 1
        elif not _account(reading, outcome, f"{where}line {record.line_no}"):
            unknown.append((record.line_no, kind, record.offset, record.end_offset))
    ledger.use(used)
    for line_no, kind, start, end in unknown:
        ledger.keep_span(f"{where}line {line_no}", kind, path, start=start, end=end)


def _account(reading: Reading, outcome: Outcome, where: str) -> bool:
    """Tell the ledger of a record that was not used; ``False`` for one to keep raw."""
    if isinstance(outcome, str):
        reading.ledger.skip(outcome)
    elif isinstance(outcome, Bad):
        reading.ledger.bad(where, outcome.reason)
    else:
        return False
    return True


@frozen
class Head:
    """What the first lines of a session file say about it: enough for a scan.

    Attributes:
        id: The header's session ``id``.
        cwd: The folder the session ran in.
        created_at: The header's time.
        version: The format version (``1`` when the header has none).
        parent: The session it was forked from: ``parentSession`` (a file path in Pi, a session
            id in Oh My Pi) or version 1's ``branchedFrom``.
        title: Oh My Pi's title slot's title.
        slot: Whether the file begins with Oh My Pi's title slot (which may be empty).
        entry: Whether the first line is an entry (a JSON object with a ``type``), header or not.
    """

    id: str | None = None
    cwd: str | None = None
    created_at: datetime | None = None
    version: int | None = None
    parent: str | None = None
    title: str | None = None
    slot: bool = False
    entry: bool = False


def read_head(path: Path) -> Head:
    """The :class:`Head` of a session file; empty when its first lines say nothing."""
    header: dict[str, Any] = {}
    title: str | None = None
    slot = entry = False
    try:
        with closing(jsonl.iter_lines(path)) as lines:
            for index, record in enumerate(lines):
                value = record.value if isinstance(record, jsonl.Line) else None
                kind = value.get("type") if isinstance(value, dict) else None
                entry = entry or (index == 0 and isinstance(kind, str))
                if kind == "title" and isinstance(value, dict) and index == 0:
                    slot, title = True, as_nonempty_text(value.get("title"))
                elif kind == "session" and isinstance(value, dict):
                    header = value
                if header or index + 1 >= _HEAD_RECORDS or kind != "title":
                    break
    except SourceUnavailableError:
        return Head()
    version = as_count(header.get("version"))
    parent = header.get("parentSession") or header.get("branchedFrom")
    return Head(
        id=as_nonempty_text(header.get("id")),
        cwd=as_nonempty_text(header.get("cwd")),
        created_at=as_datetime(header.get("timestamp")),
        version=version if version is not None else (1 if header else None),
        parent=as_text(parent) or None,
        title=title,
        slot=slot,
        entry=entry,
    )


def id_from_name(path: Path) -> str:
    """The session id a file's name gives: after ``<time>_``, else the whole name."""
    stem = path.name.removesuffix(".jsonl")
    found = _STAMPED.fullmatch(stem)
    return found["id"] if found else stem
