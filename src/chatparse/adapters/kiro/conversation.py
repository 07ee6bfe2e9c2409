"""One Kiro conversation read, by the store it is in: a database row or session files."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Final

from chatparse.adapter import (
    Ledger,
    SourceAdapter,
    as_epoch,
    as_nonempty_text,
    build_conversation,
    is_file,
    require_file,
)
from chatparse.adapters.kiro.catalog import DATABASE_LAYOUT, metadata_of
from chatparse.adapters.kiro.common import Reading
from chatparse.adapters.kiro.history import read_state
from chatparse.adapters.kiro.ide import read_ide_session
from chatparse.adapters.kiro.journal import read_journal, read_metadata
from chatparse.adapters.kiro.locate import Found
from chatparse.adapters.kiro.store import find_row
from chatparse.decoders.sqlite import Snapshot, open_snapshot
from chatparse.decoders.value import Invalid, decode
from chatparse.errors import SourceUnavailableError, UnavailableCause
from chatparse.model import ConversationMeta, Message, ParsedConversation

__all__ = ["read_conversation"]


def _frozen(reading: Reading, model: str | None) -> list[Message]:
    """The drafts as messages, answers without a model of their own given ``model``."""
    for draft in reading.drafts:
        if draft.role == "assistant" and draft.model is None:
            draft.model = model
    return [draft.freeze() for draft in reading.drafts]


def _database(
    adapter: SourceAdapter, meta: ConversationMeta, snapshot: Snapshot
) -> ParsedConversation:
    table, key = meta.locator.get("table", ""), meta.locator.get("key", "")
    row = find_row(snapshot, table, key, meta.id)
    if row is None:
        raise SourceUnavailableError(
            meta.path,
            f"conversation {meta.id} is no longer in the database",
            "Scan again: the conversation was deleted or replaced.",
            UnavailableCause.MISSING,
        )
    reading = Reading()
    document = row.document()
    if isinstance(document, str):
        reading.ledger.bad(f"{table} row", document)
        return build_conversation(adapter, meta, [], reading.ledger)
    reading.ledger.use()  # the row: the conversation's own fields
    info = read_state(document, reading)
    messages = _frozen(reading, info.model)
    stamps = [m.timestamp for m in messages if m.timestamp is not None]
    return build_conversation(
        adapter,
        meta,
        messages,
        reading.ledger,
        project_path=row.key or info.cwd,
        # A row copied by the conversations_v2 migration has the migration's time as its
        # created_at: the messages' own times are preferred.
        created_at=min(stamps, default=None) or as_epoch(row.created_at, "ms"),
    )


def _session_files(adapter: SourceAdapter, meta: ConversationMeta) -> ParsedConversation:
    path = require_file(meta.path)
    layout = meta.locator.get("layout", "")
    found = Found(meta.id, path if path.suffix == ".jsonl" else _journal_of(path, layout), layout)
    reading = Reading()
    metadata_path = metadata_of(found)
    metadata = (
        read_metadata(metadata_path, main=metadata_path == path)
        if metadata_path is not None
        else None
    )
    if metadata is not None and metadata.problem is not None:
        reading.ledger.bad(metadata_path.name if metadata_path else "metadata", metadata.problem)
    elif metadata is not None:
        reading.ledger.use()
    if is_file(found.path):
        read_journal(found.path, reading)
    messages = _frozen(reading, metadata.model if metadata is not None else None)
    return build_conversation(
        adapter,
        meta,
        messages,
        reading.ledger,
        title=metadata.title if metadata is not None else None,
        project_path=metadata.cwd if metadata is not None else None,
        created_at=metadata.time("created_at", "createdAt") if metadata is not None else None,
        updated_at=metadata.time("updated_at", "updatedAt") if metadata is not None else None,
    )


def _journal_of(path: Path, layout: str) -> Path:
    """The journal beside a session's metadata file."""
    return path.with_suffix(".jsonl") if layout == "cli" else path.with_name("messages.jsonl")


def _ide(adapter: SourceAdapter, meta: ConversationMeta) -> ParsedConversation:
    path = require_file(meta.path)
    ledger = Ledger()
    reading = Reading(ledger=ledger)
    try:
        document = decode(path.read_bytes())
    except OSError as exc:
        raise SourceUnavailableError(meta.path, f"cannot be read ({exc.strerror or exc})") from exc
    if isinstance(document, Invalid) or not isinstance(document, dict):
        ledger.bad(path.name, document.reason if isinstance(document, Invalid) else "not an object")
        return build_conversation(adapter, meta, [], ledger)
    ledger.use()  # the document's own fields
    read_ide_session(document, reading)
    return build_conversation(
        adapter,
        meta,
        [draft.freeze() for draft in reading.drafts],
        ledger,
        title=as_nonempty_text(document.get("title")),
        project_path=as_nonempty_text(document.get("workspacePath")),
    )


_FILE_READERS: Final[dict[str, Callable[[SourceAdapter, ConversationMeta], ParsedConversation]]] = {
    "cli": _session_files,
    "workspace": _session_files,
    "ide": _ide,
}


def read_conversation(
    adapter: SourceAdapter, meta: ConversationMeta, snapshot: Snapshot | None = None
) -> ParsedConversation:
    """The conversation ``meta`` lists; a database one through ``snapshot`` when given."""
    layout = meta.locator.get("layout", "")
    if layout == DATABASE_LAYOUT:
        if snapshot is not None:
            return _database(adapter, meta, snapshot)
        with open_snapshot(meta.path) as opened:
            return _database(adapter, meta, opened)
    reader = _FILE_READERS.get(layout)
    if reader is None:
        raise SourceUnavailableError(meta.path, f"unknown Kiro layout {layout!r}", "Scan again.")
    return reader(adapter, meta)
