"""Lines written twice: what resumes and compactions re-write, told apart from new lines."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Mapping
from contextlib import closing
from pathlib import Path
from typing import Any

from attrs import define, field

from chatparse.adapter import Ledger
from chatparse.adapters.claude_code.content import content_of
from chatparse.decoders.jsonl import Line, iter_lines

__all__ = ["Copies"]

_SHOWN_LINES = 5  # line numbers named in a warning about a reused uuid


@define
class Copies:
    """The conversation lines of one file read so far, by uuid and by shape.

    A copy is counted in ``ledger`` (``skipped["duplicate-uuid"]`` or ``skipped["replay"]``);
    a replay's uuid is linked in ``up`` to the line it repeats, so that its children hang there.
    """

    path: Path
    ledger: Ledger
    up: dict[str, str | None]
    """The transcript's links from a line that is not a message to the line above it."""
    written: dict[str, int] = field(factory=dict)
    """uuid -> offset of its line."""
    shapes: dict[int, tuple[tuple[str, int], ...]] = field(factory=dict)
    """hash of (type, timestamp, parent message, length) -> (uuid, offset) of such lines."""
    reused: defaultdict[str, list[int]] = field(factory=lambda: defaultdict(list))
    """uuid -> line numbers of the different records that reused it."""

    def is_copy(
        self, line: Line, record: dict[str, Any], parent: str | None, above: str | None
    ) -> bool:
        """Resumes re-write lines with their old uuid; compaction re-writes them with new ones.

        A line whose uuid was seen before, with the same type, timestamp and content, is the
        same event written again: the first copy is kept. So is a line with a new uuid that
        repeats an earlier line's type, timestamp, content and nearest message parent
        (``above``; ``parent`` is the line's own): a compaction replay, which is not a rewind
        (a rewind has a new timestamp). A uuid reused by a different record is kept, under an
        id made unique by its line number (``record["uuid"]`` is changed to it).

        Content is compared only when everything else matches, by reading the earlier line
        again: that is rare, and far cheaper than remembering every line's content.
        """
        uuid = record.get("uuid")
        if not uuid or type(uuid) is not str:
            return False
        # A copy has a new uuid and parent of its own, so its length is compared without them.
        length = line.end_offset - line.offset - len(uuid) - len(parent or "")
        earlier = self.written.get(uuid)
        if earlier is not None:
            if self._same_record(earlier, record):
                self.ledger.skip("duplicate-uuid")
                return True
            self.reused[uuid].append(line.line_no)
            uuid = record["uuid"] = f"{uuid}~line{line.line_no}"
        # A timestamp that is a list or object is unhashable: hashed by its repr instead.
        stamp = record.get("timestamp")
        if type(stamp) is not str and stamp is not None:
            stamp = repr(stamp)
        shape = hash((record["type"], stamp, above, length))
        here = (uuid, line.offset)
        alike = self.shapes.get(shape)
        if alike is None:
            # Tuples, not lists: the garbage collector stops tracking a tuple of strings and
            # numbers, and there is one per line.
            self.shapes[shape] = (here,)
        else:
            for original, offset in alike:
                if self._same_record(offset, record):
                    self.up[uuid] = original
                    self.ledger.skip("replay")
                    return True
            self.shapes[shape] = (*alike, here)
        self.written[uuid] = line.offset
        return False

    def _same_record(self, offset: int, record: Mapping[str, Any]) -> bool:
        """Whether the line at ``offset`` has the type, time and content of ``record``."""
        with closing(iter_lines(self.path, start=offset)) as lines:
            earlier = next(lines, None)
        if not isinstance(earlier, Line) or not isinstance(earlier.value, dict):
            return False
        return all(
            earlier.value.get(key) == record.get(key) for key in ("type", "timestamp")
        ) and content_of(earlier.value) == content_of(record)

    def forget(self) -> None:
        """Drop what only reading needed, once the file is read."""
        self.written.clear()
        self.shapes.clear()

    def warnings(self) -> Iterator[str]:
        """One warning per uuid reused by different records."""
        for uuid, lines in self.reused.items():
            shown = ", ".join(str(n) for n in lines[:_SHOWN_LINES])
            more = ", ..." if len(lines) > _SHOWN_LINES else ""
            yield (
                f"uuid {uuid} was reused by {len(lines)} different record(s) "
                f"(line {shown}{more}); each is kept under an id suffixed with its line number"
            )
