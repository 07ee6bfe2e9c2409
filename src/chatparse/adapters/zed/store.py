"""Zed's ``threads.db``, read through a read-only snapshot.

One table, ``threads(id, summary, updated_at, data_type, data, parent_id, folder_paths,
folder_paths_order, created_at)``: one row per thread, its messages in the ``data`` blob. The
last four columns were added in 2026 (``ALTER TABLE``), so they are selected only when the
table declares them. A row whose ``parent_id`` names another row is a sub-agent's thread.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Final

from attrs import frozen

from chatparse.adapter import digest_fingerprint
from chatparse.decoders.sqlite import Snapshot

__all__ = ["TABLE", "Head", "Store"]

TABLE: Final = "threads"
_HEAD_COLUMNS: Final = (
    "id",
    "summary",
    "updated_at",
    "data_type",
    "parent_id",
    "folder_paths",
    "folder_paths_order",
    "created_at",
)


@frozen
class Head:
    """A thread's row without its blob: what a scan lists."""

    rowid: int
    id: str
    summary: str | None
    updated_at: str | None
    data_type: str | None
    parent_id: str | None
    folder_paths: str | None
    folder_paths_order: str | None
    created_at: str | None

    @property
    def project_path(self) -> str | None:
        """The first of the project's folders (``folder_paths`` is one per line)."""
        paths = (self.folder_paths or "").splitlines()
        if not paths:
            return None
        order = (self.folder_paths_order or "").split(",")[0].strip()
        first = int(order) if order.isdigit() and int(order) < len(paths) else 0
        return paths[first] or None

    def stamp(self) -> str:
        """A change key for this row: Zed sets ``updated_at`` on every save."""
        return digest_fingerprint(str(self.rowid), *(str(v) for v in self._keyed()))

    def _keyed(self) -> tuple[str | None, ...]:
        return (self.id, self.updated_at, self.data_type, self.parent_id, self.folder_paths)


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None


class Store:
    """One ``threads.db``, open as a snapshot."""

    def __init__(self, snapshot: Snapshot) -> None:
        self.snapshot = snapshot
        rows = snapshot.iter_rows("sqlite_master", ("name", "sql"), where="type = 'table'")
        tables = {str(r.values[0]): str(r.values[1] or "") for r in rows}
        create = tables.get(TABLE)
        self.readable = create is not None
        self._columns = tuple(
            c for c in _HEAD_COLUMNS if create and re.search(rf"\b{c}\b", create, re.IGNORECASE)
        )

    def heads(self) -> Iterator[Head]:
        """Every thread's row, without its blob, in ``rowid`` order."""
        if not self.readable or "id" not in self._columns:
            return
        for row in self.snapshot.iter_rows(TABLE, self._columns):
            values = dict(zip(self._columns, row.values, strict=True))
            ident = _text(values.get("id"))
            if ident is None:
                continue
            yield Head(
                rowid=row.rowid,
                id=ident,
                summary=_text(values.get("summary")),
                updated_at=_text(values.get("updated_at")),
                data_type=_text(values.get("data_type")),
                parent_id=_text(values.get("parent_id")),
                folder_paths=_text(values.get("folder_paths")),
                folder_paths_order=_text(values.get("folder_paths_order")),
                created_at=_text(values.get("created_at")),
            )

    def blob(self, ident: str) -> tuple[object, bytes] | None:
        """The ``data_type`` and ``data`` of thread ``ident``, or ``None`` when it is gone."""
        typed = "data_type" in self._columns
        columns = ("data_type", "data") if typed else ("data",)
        for row in self.snapshot.iter_rows_raw(TABLE, columns, where="id = ?", params=(ident,)):
            kind = row[1] if typed else None
            data = row[-1]
            decoded = kind.decode("utf-8", "replace") if isinstance(kind, bytes) else kind
            return decoded, data if isinstance(data, bytes) else b""
        return None
