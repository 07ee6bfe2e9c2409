"""A session's title, project and last time, for ``scan(peek=True)``, when it is small.

A session is a JSON document, or a log whose first line is the whole session as it was and whose
later lines patch it, with an optional transcript beside it: neither end alone tells the title
(set by a patch anywhere, or taken from the first request) or the last time. So a session whose
files together fit in the window is parsed, which reads no more than the window and gives
exactly what ``parse`` finds; a larger one is left as scanned.
"""

from __future__ import annotations

from pathlib import Path

from attrs import evolve

from chatparse.adapter import PEEK_BYTES, SourceAdapter
from chatparse.adapters.copilot.document import LEGACY_FORMAT
from chatparse.model import ConversationMeta

__all__ = ["peek_session"]


def peek_session(adapter: SourceAdapter, meta: ConversationMeta) -> ConversationMeta:
    """``meta`` with the title, project and last time of its session, if it fits the window.

    Sessions kept in VS Code's database (before file storage) are left as scanned: the scan
    read what the database says of them.
    """
    if meta.locator.get("format") == LEGACY_FORMAT or _size(meta) > PEEK_BYTES:
        return meta
    try:
        found = adapter.parse(meta)
    except OSError:  # gone since the scan (SourceUnavailableError is one): parse will say so
        return meta
    return evolve(
        meta,
        title=found.title or meta.title,
        project_path=found.project_path or meta.project_path,
        updated_at=found.updated_at or meta.updated_at,
    )


def _size(meta: ConversationMeta) -> int:
    """The bytes of the session's files; more than the window when one cannot be measured."""
    files = [meta.path, meta.locator.get("transcript")]
    try:
        return sum(Path(name).stat().st_size for name in files if name and Path(name).is_file())
    except OSError:
        return PEEK_BYTES + 1
