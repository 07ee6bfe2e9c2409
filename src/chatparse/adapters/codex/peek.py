"""A rollout's title, project and last time from its two ends, for ``scan(peek=True)``.

The records at each end are fed to a :class:`~chatparse.adapters.codex.thread.Thread` of their
own, as a full parse feeds them, so which lines are typed prompts (not injected context), the
working directory and the record times follow the parse's rules: for a rollout that fits in the
window they are exactly what ``parse`` finds. For a longer one, the head gives the first prompt
and the ``session_meta`` cwd, and the tail the last rename and the latest record time.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from pathlib import Path

from attrs import evolve

from chatparse.adapter import PEEK_BYTES, SourceAdapter, read_window
from chatparse.adapters.codex.containers import read_document
from chatparse.adapters.codex.locate import is_bare_meta
from chatparse.adapters.codex.thread import Thread
from chatparse.decoders.jsonl import Line, Malformed
from chatparse.errors import SourceUnavailableError
from chatparse.model import ConversationMeta, ParsedConversation

__all__ = ["peek_rollout"]


def peek_rollout(adapter: SourceAdapter, meta: ConversationMeta) -> ConversationMeta:
    """``meta`` with the title, project and last time read from its rollout's two ends.

    A TypeScript ``.json`` document cannot be read in pieces: it is read when it is no longer
    than the window, and left as scanned otherwise.
    """
    try:
        if Path(meta.path).suffix == ".json":
            found, renamed, updated_at = _peek_document(adapter, meta), None, None
        else:
            found, renamed, updated_at = _peek_lines(adapter, meta)
    except (SourceUnavailableError, OSError):
        return meta  # gone since the scan: parse will say so
    if found is None:
        return meta
    return evolve(
        meta,
        title=meta.title or renamed or found.title,
        project_path=found.project_path or meta.project_path,
        updated_at=updated_at or found.updated_at or meta.updated_at,
    )


def _peek_lines(
    adapter: SourceAdapter, meta: ConversationMeta
) -> tuple[ParsedConversation, str | None, datetime | None]:
    """The head's conversation; the tail's last rename and latest time, when it has its own."""
    window = read_window(meta.path)
    found = _fed(window.head_lines(), first=True).conversation(meta, adapter)
    if window.whole:
        return found, None, None
    tail = _fed(window.tail_lines(), first=False)
    return found, tail.thread_name, tail.conversation(meta, adapter).updated_at


def _peek_document(adapter: SourceAdapter, meta: ConversationMeta) -> ParsedConversation | None:
    path = Path(meta.path)
    if path.stat().st_size > PEEK_BYTES:
        return None
    thread = Thread()
    read_document(path, thread)
    return thread.conversation(meta, adapter)


def _fed(lines: Iterable[Line | Malformed], *, first: bool) -> Thread:
    """A thread fed ``lines`` as ``read_lines`` feeds a rollout's; unknown records passed by.

    ``first``: the lines start the file, so the first may be an early-Rust bare session meta.
    """
    thread = Thread()
    for line in lines:
        if isinstance(line, Malformed):
            continue
        if first and isinstance(line.value, dict) and is_bare_meta(line.value):
            thread.feed_bare_meta(line.value)
        else:
            thread.feed(line.value, line.line_no)
        first = False
    return thread
