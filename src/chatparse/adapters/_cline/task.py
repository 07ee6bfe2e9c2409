"""One task folder (``tasks/<id>/``) to a conversation.

The folder holds ``api_conversation_history.json`` (exact model input and output),
``ui_messages.json`` (the UI event log: times and per-request usage; ``claude_messages.json``
in 2024 builds) and ``task_metadata.json`` (models used over time, and since late 2025 the
extension's version). With an API history, its messages are the conversation and the UI log
adds requests (:mod:`~chatparse.adapters._cline.history`); without one (missing, or nothing in
it readable), the UI log is read as the conversation (:mod:`~chatparse.adapters._cline.ui`).
Other files (``context_history.json``, ``settings.json``, checklists, temporary files of the
atomic writer, lock folders) are not read.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from pathlib import Path
from typing import Final

from chatparse.adapter import (
    SourceAdapter,
    as_epoch,
    as_nonempty_text,
    build_conversation,
    is_file,
)
from chatparse.adapters._cline.build import Builder
from chatparse.adapters._cline.content import environment_cwd
from chatparse.adapters._cline.files import Element, read_array, read_document
from chatparse.adapters._cline.history import read_history
from chatparse.adapters._cline.ui import read_log, read_requests, row_time
from chatparse.errors import SourceUnavailableError, UnavailableCause
from chatparse.model import ConversationMeta, ParsedConversation

__all__ = ["API_HISTORY", "METADATA", "TASK_FILES", "UI_LOG", "UI_LOG_2024", "read_task"]

API_HISTORY: Final = "api_conversation_history.json"
UI_LOG: Final = "ui_messages.json"
UI_LOG_2024: Final = "claude_messages.json"
METADATA: Final = "task_metadata.json"
TASK_FILES: Final = (API_HISTORY, UI_LOG, UI_LOG_2024, METADATA)
_EPOCH_MS_DIGITS: Final = 13
"""The files of a task folder that are read (and that its fingerprint watches)."""


def _ui_path(folder: Path) -> Path | None:
    for name in (UI_LOG, UI_LOG_2024):
        if is_file(folder / name):
            return folder / name
    return None


def _metadata(folder: Path, builder: Builder) -> tuple[list[tuple[datetime, str]], str | None]:
    """The models over time and the producer's version ``task_metadata.json`` records."""
    path = folder / METADATA
    if not is_file(path):
        return [], None
    document = read_document(path)
    if not isinstance(document, dict):
        builder.ledger.bad(METADATA, "not a JSON object")
        return [], None
    builder.ledger.use()
    models = [
        (when, model)
        for entry in document.get("model_usage") or ()
        if isinstance(entry, dict)
        and (when := as_epoch(entry.get("ts"), "ms")) is not None
        and (model := as_nonempty_text(entry.get("model_id"))) is not None
    ]
    versions = [
        version
        for entry in document.get("environment_history") or ()
        if isinstance(entry, dict) and (version := as_nonempty_text(entry.get("cline_version")))
    ]
    return sorted(models), versions[-1] if versions else None


def _created(task_id: str) -> datetime | None:
    """The creation time a Cline task id is (``Date.now()`` when the task began).

    Read only when no message has a time (an API history without its UI log); Roo Code's newer
    ids are UUIDs and give none.
    """
    return (
        as_epoch(task_id, "ms")
        if len(task_id) == _EPOCH_MS_DIGITS and task_id.isdecimal()
        else None
    )


def _read(path: Path | None, builder: Builder) -> list[Element]:
    if path is None or not is_file(path):
        return []
    return list(read_array(path, builder.ledger, path.name))


def read_task(
    adapter: SourceAdapter,
    meta: ConversationMeta,
    folder: Path,
    subagents: Iterable[ParsedConversation] = (),
    notes: Iterable[str] = (),
) -> ParsedConversation:
    """The conversation of the task folder ``folder``.

    Raises:
        SourceUnavailableError: The file the meta names is gone, and with it the API history or
            the UI log (the other alone would give another conversation).
    """
    ui_path = _ui_path(folder)
    if not is_file(Path(meta.path)) and (ui_path is None or not is_file(folder / API_HISTORY)):
        raise SourceUnavailableError(
            meta.path, "the task's file is gone", "Scan again.", UnavailableCause.MISSING
        )
    builder = Builder()
    for note in notes:
        builder.ledger.warn(note)
    rows = _read(ui_path, builder)
    history = _read(folder / API_HISTORY, builder)
    models, version = _metadata(folder, builder)

    def usage_key(element: Element) -> str:
        return f"{adapter.name}:{meta.id}:{element[1].get('ts')}"

    if history:
        requests = read_requests(rows, builder, usage_key)
        first = row_time(rows[0][1]) if rows else None
        read_history(history, requests, builder, first_time=first, models=models)
    else:
        read_log(rows, builder, usage_key)
    messages = builder.messages()
    return build_conversation(
        adapter,
        meta,
        messages,
        builder.ledger,
        project_path=meta.project_path or environment_cwd(builder.environment),
        created_at=_created(meta.id) if all(m.timestamp is None for m in messages) else None,
        producer_version=version,
        subagents=subagents,
    )
