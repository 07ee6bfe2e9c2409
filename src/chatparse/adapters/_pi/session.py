"""One session, from its file (or the copies of it) to the parsed conversation."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from pathlib import Path

from chatparse.adapter import SourceAdapter, as_datetime, as_nonempty_text, build_conversation
from chatparse.adapters._pi.dialect import Dialect
from chatparse.adapters._pi.files import read_file
from chatparse.adapters._pi.reading import Reading
from chatparse.errors import SourceUnavailableError
from chatparse.model import ConversationMeta, Message, ParsedConversation

__all__ = ["finish", "read_session"]


def read_session(dialect: Dialect, primary: Path, copies: Sequence[Path] = ()) -> Reading:
    """Read a session file, after the older ``copies`` of it (archives, backups) if any.

    The copies are read first, oldest first, and the primary file last: an entry a later file
    repeats (by id) is counted as skipped, so the copies together give every entry once, and
    the main line ends at the primary file's last entry. A copy that cannot be read any more is
    named in a warning; the primary file that cannot be read raises
    :class:`~chatparse.errors.SourceUnavailableError`.
    """
    reading = Reading(dialect)
    files = [*copies, primary]
    for index, path in enumerate(files):
        reading.repeated = frozenset(reading.parents) if index else frozenset()
        where = f"{path.name}: " if copies else ""
        try:
            read_file(reading, path, where=where, line_ids=f"{index}." if index else "")
        except SourceUnavailableError as exc:
            if path is primary:
                raise
            reading.ledger.warn(f"{path.name}: not read ({exc.reason})")
    return reading


def finish(
    adapter: SourceAdapter,
    meta: ConversationMeta,
    reading: Reading,
    subagents: Iterable[ParsedConversation] = (),
) -> ParsedConversation:
    """The conversation ``reading`` read for ``meta``."""
    header = reading.header or {}
    messages = reading.messages()
    return build_conversation(
        adapter,
        meta,
        messages,
        reading.ledger,
        title=reading.title,
        project_path=as_nonempty_text(header.get("cwd")),
        created_at=_started(as_datetime(header.get("timestamp")), messages),
        subagents=subagents,
    )


def _started(header_time: datetime | None, messages: Sequence[Message]) -> datetime | None:
    """The header's time, or the first message's when earlier.

    Pi writes nothing before the first answer, then the header with everything else: in older
    files the header's time is that of the write, after the first prompt.
    """
    first = min((m.timestamp for m in messages if m.timestamp is not None), default=None)
    if header_time is None or (first is not None and first < header_time):
        return first
    return header_time
