"""Which columns a table of a SQLite store has, from its ``CREATE TABLE`` statement.

Goose's and Crush's schemas grow by numbered migrations, and a database in the wild may stop
at any of them: rows are read by column name, only the columns the table declares, and a column
a version lacks reads as absent. Shared by the ``goose`` and ``crush`` adapters.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import Any, Final

from chatparse.decoders.sqlite import Snapshot

__all__ = ["Tables", "row_dicts"]

_CONSTRAINTS: Final = frozenset({"constraint", "primary", "foreign", "unique", "check"})
_NAME: Final = re.compile(r"\s*[`\"\[]?([^`\"\]\s(]+)")


def _declared(create: str) -> frozenset[str]:
    """The names of the columns a ``CREATE TABLE`` statement declares, in lower case."""
    body = create[create.find("(") + 1 : create.rfind(")")]
    pieces: list[str] = []
    current: list[str] = []
    depth = 0
    for char in body:
        depth += {"(": 1, ")": -1}.get(char, 0)
        if char == "," and depth == 0:
            pieces.append("".join(current))
            current = []
        else:
            current.append(char)
    pieces.append("".join(current))
    found = (_NAME.match(piece) for piece in pieces)
    names = (match.group(1).lower() for match in found if match is not None)
    return frozenset(name for name in names if name not in _CONSTRAINTS)


class Tables:
    """The tables of one database and the columns each declares."""

    def __init__(self, snapshot: Snapshot) -> None:
        rows = snapshot.iter_rows("sqlite_master", ("name", "sql"), where="type = 'table'")
        self.columns = {str(r.values[0]): _declared(str(r.values[1] or "")) for r in rows}

    def has(self, table: str, *columns: str) -> bool:
        """Whether ``table`` exists and declares every one of ``columns``."""
        declared = self.columns.get(table)
        return declared is not None and all(c in declared for c in columns)

    def present(self, table: str, wanted: Sequence[str]) -> tuple[str, ...]:
        """The columns of ``wanted`` that ``table`` declares, in the order of ``wanted``."""
        declared = self.columns.get(table, frozenset())
        return tuple(c for c in wanted if c in declared)


def row_dicts(
    snapshot: Snapshot,
    table: str,
    columns: tuple[str, ...],
    *,
    where: str = "",
    params: Sequence[str] = (),
) -> Iterator[dict[str, Any]]:
    """The rows of ``table`` as ``{column: value}`` with their ``rowid``, in ``rowid`` order."""
    for row in snapshot.iter_rows(table, columns, where=where, params=params):
        yield {"rowid": row.rowid, **dict(zip(columns, row.values, strict=True))}
