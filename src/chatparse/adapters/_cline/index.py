"""The task indexes of the Cline family: hints for a scan, never the list of tasks itself.

Indexes drift from the folders (entries without a folder, folders without an entry), so a scan
lists ``tasks/*/`` and takes from an index only what a folder's files do not say cheaply: the
title (``task``, the first prompt), the project (``cwdOnTaskInitialization``, Roo's
``workspace``), the last activity (``ts``) and Roo's parent task (``parentTaskId``). Where
several indexes name one task, the first of this order wins:

1. ``tasks/<id>/history_item.json`` (Roo Code 3.49+: one HistoryItem per task, the source of
   truth);
2. ``tasks/_index.json`` (Roo Code 3.49+: ``{version, updatedAt, entries}``, a cache);
3. ``state/taskHistory.json`` (Cline 3.26.7+: an array of HistoryItems);
4. the extension's row in VS Code's global ``state.vscdb`` (``ItemTable``, keyed by the
   extension id, a JSON object whose ``taskHistory`` is the array): Cline before 3.26.7, Roo
   Code before 3.49, Kilo Code 4.x-5.x.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from datetime import datetime
from pathlib import Path
from typing import Any, Final

from attrs import frozen

from chatparse.adapter import as_epoch, as_nonempty_text, is_file, title_from
from chatparse.adapters._cline.files import read_document
from chatparse.decoders.sqlite import open_snapshot
from chatparse.errors import SourceUnavailableError

__all__ = ["HISTORY_ITEM", "Hint", "folder_hint", "hint_of", "read_hints"]

HISTORY_ITEM: Final = "history_item.json"
_ROO_INDEX: Final = Path("tasks") / "_index.json"
_CLINE_INDEX: Final = Path("state") / "taskHistory.json"
_ITEM_TABLE: Final = "ItemTable"


@frozen
class Hint:
    """What an index says of one task."""

    title: str | None = None
    project: str | None = None
    updated_at: datetime | None = None
    model: str | None = None
    parent: str | None = None


def hint_of(item: Mapping[str, Any]) -> Hint:
    """A HistoryItem's hint."""
    return Hint(
        title=title_from(as_nonempty_text(item.get("task"))),
        project=as_nonempty_text(item.get("cwdOnTaskInitialization"))
        or as_nonempty_text(item.get("workspace")),
        updated_at=as_epoch(item.get("ts"), "ms"),
        model=as_nonempty_text(item.get("modelId")),
        parent=as_nonempty_text(item.get("parentTaskId")),
    )


def _items(value: object) -> Iterable[Mapping[str, Any]]:
    if isinstance(value, dict):
        value = value.get("entries", value.get("taskHistory"))
    if isinstance(value, list):
        yield from (item for item in value if isinstance(item, dict))


def _add(hints: dict[str, Hint], items: Iterable[Mapping[str, Any]]) -> None:
    for item in items:
        ident = as_nonempty_text(item.get("id"))
        if ident is not None and ident not in hints:
            hints[ident] = hint_of(item)


def _global_state(database: Path, extension_ids: Iterable[str]) -> list[Mapping[str, Any]]:
    """The ``taskHistory`` of the extension's row in a global ``state.vscdb``."""
    if not is_file(database):
        return []
    try:
        with open_snapshot(database) as snapshot:
            if _ITEM_TABLE not in snapshot.tables():
                return []
            for key in extension_ids:
                row = snapshot.get(_ITEM_TABLE, key)
                if row is not None:
                    return list(_items(_decoded(row.values[0])))
    except SourceUnavailableError:
        return []
    return []


def _decoded(value: object) -> object:
    text = value.decode("utf-8", "replace") if isinstance(value, bytes) else value
    if not isinstance(text, str):
        return None
    try:
        return json.loads(text)
    except ValueError:
        return None


def read_hints(base: Path, extension_ids: Iterable[str] = ()) -> dict[str, Hint]:
    """The hints of every index of one storage folder (``<...>/globalStorage/<extension>``).

    ``extension_ids`` are the keys the extension's globalState row may have (VS Code keeps the
    publisher's spelling); the database is the ``state.vscdb`` beside the extension's folder.
    """
    hints: dict[str, Hint] = {}
    _add(hints, _items(read_document(base / _ROO_INDEX)))
    _add(hints, _items(read_document(base / _CLINE_INDEX)))
    ids = tuple(extension_ids)
    if ids:
        _add(hints, _global_state(base.parent / "state.vscdb", ids))
    return hints


def folder_hint(folder: Path) -> Hint | None:
    """The hint of a task folder's own ``history_item.json`` (Roo Code 3.49+)."""
    path = folder / HISTORY_ITEM
    if not is_file(path):
        return None
    item = read_document(path)
    return hint_of(item) if isinstance(item, dict) else None
