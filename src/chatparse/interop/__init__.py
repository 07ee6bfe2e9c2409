"""Exports to the formats other tools already read.

``to_arrow`` and ``ARROW_SCHEMAS`` (extra ``arrow``): conversations as Arrow tables, for DuckDB,
polars, pandas and Parquet. Each export is imported the first time it is used, so
``import chatparse.interop`` costs nothing and needs no extra; a missing extra raises
:class:`~chatparse.errors.MissingExtraError` naming it.

.. versionadded:: 0.2
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from chatparse._optional import import_extra

if TYPE_CHECKING:
    from chatparse.interop.arrow import ARROW_SCHEMAS, to_arrow
    from chatparse.interop.parquet import write_parquet

__all__ = ["ARROW_SCHEMAS", "to_arrow", "write_parquet"]

# name -> (module, the third-party package it needs, the extra that installs it)
_HOMES = {
    "ARROW_SCHEMAS": ("chatparse.interop.arrow", "pyarrow", "arrow"),
    "to_arrow": ("chatparse.interop.arrow", "pyarrow", "arrow"),
    "write_parquet": ("chatparse.interop.parquet", "pyarrow.parquet", "arrow"),
}


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        msg = f"module 'chatparse.interop' has no attribute {name!r}"
        raise AttributeError(msg)
    module, needs, extra = _HOMES[name]
    import_extra(needs, extra)
    value = getattr(__import__(module, fromlist=(name,)), name)
    globals()[name] = value  # later lookups skip __getattr__
    return value


def __dir__() -> list[str]:
    return sorted({*__all__, *globals()})
