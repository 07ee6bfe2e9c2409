"""Conversations written as Parquet files, one per Arrow table, in bounded memory.

:func:`write_parquet` streams: it turns a batch of conversations at a time into Arrow tables
(:func:`~chatparse.interop.to_arrow`) and appends each to its file as a row group, so a home of
any size is written holding one batch. The files are ``conversations.parquet``,
``messages.parquet``, ``tool_calls.parquet`` and ``usage.parquet``, in the schemas of
:data:`~chatparse.interop.ARROW_SCHEMAS`, readable by DuckDB, polars, pandas and Spark.

Needs the ``arrow`` extra (``pip install 'chatparse[arrow]'``).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from contextlib import ExitStack
from itertools import islice
from pathlib import Path
from typing import Any, Final

import pyarrow as pa
import pyarrow.parquet as pq

from chatparse.interop.arrow import ARROW_SCHEMAS, to_arrow
from chatparse.model import ParsedConversation

__all__ = ["COMPRESSIONS", "write_parquet"]

COMPRESSIONS: Final = ("snappy", "zstd", "lz4", "gzip", "none")
"""The codecs :func:`write_parquet` writes with (every Parquet reader reads them)."""
COMPRESSION: Final = "snappy"

BATCH: Final = 500
"""Conversations turned into tables at a time: a few MB of Arrow data for typical sessions."""

_REPEATED: Final = frozenset(
    {"source", "role", "kind", "model", "name", "parser_version", "producer_version", "git_branch"}
)
"""Columns of few distinct values, dictionary-encoded. Text columns are not: trying to build a
dictionary of every message's text costs more than the rest of the write."""


def _options(schema: pa.Schema) -> dict[str, Any]:
    """How to write a table: dictionaries for repeated values, no min/max of long text."""
    return {
        "use_dictionary": [name for name in schema.names if name in _REPEATED],
        "write_statistics": [f.name for f in schema if f.type != pa.large_string()],
    }


def write_parquet(
    conversations: Iterable[ParsedConversation],
    directory: str | os.PathLike[str],
    *,
    batch: int = BATCH,
    compression: str = COMPRESSION,
) -> dict[str, Path]:
    """Write ``conversations`` as one Parquet file per table into ``directory``.

    The directory is created if needed; files of the same names are replaced. Every file is
    written, with its schema, also for no conversations at all. ``compression`` is one of
    :data:`COMPRESSIONS`: ``"snappy"`` (the default, as DuckDB, pandas and Spark write) costs
    little and makes the files of chat text about a third of their size; ``"zstd"`` makes them
    smaller and costs more; ``"none"`` writes fastest.

    Raises:
        ValueError: ``batch`` is below 1, or ``compression`` is not one of :data:`COMPRESSIONS`.

    Returns:
        The path of each table's file, by table name.

    .. versionadded:: 0.2
    """
    if batch < 1:
        msg = f"batch must be at least 1, got {batch}"
        raise ValueError(msg)
    if compression not in COMPRESSIONS:
        msg = f"compression must be one of {', '.join(COMPRESSIONS)}, got {compression!r}"
        raise ValueError(msg)
    folder = Path(directory)
    folder.mkdir(parents=True, exist_ok=True)
    paths = {name: folder / f"{name}.parquet" for name in ARROW_SCHEMAS}
    with ExitStack() as stack:
        writers = {
            name: stack.enter_context(
                pq.ParquetWriter(paths[name], schema, compression=compression, **_options(schema))
            )
            for name, schema in ARROW_SCHEMAS.items()
        }
        for chunk in _chunks(conversations, batch):
            for name, table in to_arrow(chunk).items():
                if table.num_rows:
                    writers[name].write_table(table)
    return paths


def _chunks(items: Iterable[ParsedConversation], size: int) -> Iterator[list[ParsedConversation]]:
    iterator = iter(items)
    while chunk := list(islice(iterator, size)):
        yield chunk
