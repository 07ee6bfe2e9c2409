"""A transcript's title, project and last time from its two ends, for ``scan(peek=True)``.

The lines at each end are read by the same routes as a full parse, into a transcript of their
own, so the title rule, the launch directory and the message times are the parse's: for a file
that fits in the window they are exactly what ``parse`` finds. For a longer one, the head gives
the first prompt, the slug and the launch directory, and the tail the last rename
(``custom-title``, ``ai-title``) and the last message time.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from attrs import evolve

from chatparse.adapter import SourceAdapter, read_window
from chatparse.adapters.claude_code.records import ROUTES
from chatparse.adapters.claude_code.transcript import Transcript
from chatparse.decoders.jsonl import Line, Malformed
from chatparse.errors import SourceUnavailableError
from chatparse.model import ConversationMeta

__all__ = ["peek_transcript"]

_RENAMES = ("custom-title", "ai-title")
"""The title lines, in the order the title rule prefers them over anything else."""


def peek_transcript(adapter: SourceAdapter, meta: ConversationMeta) -> ConversationMeta:
    """``meta`` with the title, project and last time read from its file's two ends."""
    try:
        window = read_window(meta.path)
    except SourceUnavailableError:
        return meta  # gone since the scan: parse will say so
    agent = meta.locator.get("layout") == "legacy-flat"
    head = _read(Path(meta.path), window.head_lines(), agent=agent, session_id=meta.id)
    renames = dict(head.titles)
    found = head.finish(adapter, meta, ())
    updated_at = found.updated_at
    if not window.whole:
        tail = _read(Path(meta.path), window.tail_lines(), agent=agent, session_id=meta.id)
        renames |= tail.titles
        updated_at = tail.finish(adapter, meta, ()).updated_at or updated_at
    title = next((renames[kind] for kind in _RENAMES if kind in renames), found.title)
    return evolve(
        meta,
        title=title or meta.title,
        project_path=found.project_path or meta.project_path,
        updated_at=updated_at or meta.updated_at,
    )


def _read(
    path: Path, lines: Iterable[Line | Malformed], *, agent: bool, session_id: str
) -> Transcript:
    """Route ``lines`` as :meth:`Transcript.read` routes a file's; unknown lines are passed by.

    Unknown lines cannot change a title, project or time, and keeping them would read their
    text again when the transcript is finished.
    """
    transcript = Transcript(path, agent=agent, session_id=None if agent else session_id)
    for line in lines:
        if isinstance(line, Line) and isinstance(line.value, dict):
            record = line.value
            kind = record.get("type")
            if isinstance(kind, str):
                transcript.envelope(record)
                ROUTES.get(kind, _pass_by)(transcript, line, record)
    return transcript


def _pass_by(_transcript: Transcript, _line: Line, _record: dict[str, Any]) -> None:
    """A line of a type not known: not read."""
