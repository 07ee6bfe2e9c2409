"""Parsing on existing distributed engines: a Dask bag, a Ray dataset.

A team's history is many homes' worth of sessions, collected from many machines. These functions
hand the parse to an engine the caller already runs, partitioned by conversation (a scanned
:class:`~chatparse.model.ConversationMeta`) or by file (``paths=``), never by byte range: a
conversation is parsed whole where it lands. Metas and conversations pickle, so they travel
between processes and machines.

* :func:`dask_bag` gives a ``dask.bag.Bag`` of :class:`~chatparse.model.ParsedConversation`
  (extra ``dask``).
* :func:`ray_dataset` gives a ``ray.data.Dataset`` whose rows follow one table of
  :data:`~chatparse.interop.ARROW_SCHEMAS` (extras ``ray`` and ``arrow``).

A conversation that fails to parse is left out with a :class:`~chatparse.errors.ParseWarning`
raised where it was parsed (an engine's worker log), as :func:`chatparse.iter_conversations`
does; the others go on. The engine is imported when one of these is called, never before.

.. versionadded:: 0.2
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterable, Sequence
from typing import Any, Final

from chatparse._api import parse_path, scan
from chatparse._batch import parse_batch
from chatparse._optional import import_extra
from chatparse.errors import ParseWarning
from chatparse.host import Host
from chatparse.model import ConversationMeta, ParsedConversation

__all__ = ["dask_bag", "ray_dataset"]

PARTITION: Final = 16
"""Conversations (or paths) per task: one per task costs more in scheduling than small ones
take to parse."""


def dask_bag(
    host: Host | None = None,
    *,
    sources: Iterable[str] | str | None = None,
    paths: Iterable[str | os.PathLike[str]] | None = None,
    partition_size: int = PARTITION,
) -> Any:
    """A ``dask.bag.Bag`` of the conversations of ``host`` (scanned here), or of ``paths``.

    With ``paths`` (session files or stores gathered from anywhere; no home needed), each path
    is read by :func:`chatparse.parse_path`, with ``sources`` naming at most one adapter to read
    them with. Otherwise the conversations are scanned here, on the calling machine, and parsed
    in the engine's workers, ``partition_size`` to a task.
    """
    bag = import_extra("dask.bag", "dask")
    items, work = _work(host, sources, paths)
    return bag.from_sequence(items, partition_size=partition_size).map_partitions(work)


def ray_dataset(
    host: Host | None = None,
    *,
    sources: Iterable[str] | str | None = None,
    paths: Iterable[str | os.PathLike[str]] | None = None,
    table: str = "conversations",
    batch_size: int = PARTITION,
) -> Any:
    """A ``ray.data.Dataset`` of one Arrow table of the conversations, made in Ray's workers.

    ``table`` is one of :data:`~chatparse.interop.ARROW_SCHEMAS` (``conversations``,
    ``messages``, ``tool_calls``, ``usage``); the rows follow its schema. ``host``, ``sources``
    and ``paths`` choose the conversations as in :func:`dask_bag`.
    """
    data = import_extra("ray.data", "ray")
    import_extra("pyarrow", "arrow")
    from chatparse.interop.arrow import ARROW_SCHEMAS  # noqa: PLC0415 -- needs the arrow extra

    if table not in ARROW_SCHEMAS:
        msg = f"table must be one of {', '.join(ARROW_SCHEMAS)}; got {table!r}"
        raise ValueError(msg)
    items, work = _work(host, sources, paths)
    dataset = data.from_items([{"item": item} for item in items])
    return dataset.map_batches(
        _ArrowTable(work, table), batch_size=batch_size, batch_format="numpy"
    )


class _ArrowTable:
    """A Ray batch function: the items of a batch parsed, as one table (picklable)."""

    def __init__(self, work: Any, table: str) -> None:
        self.work = work
        self.table = table

    def __call__(self, batch: dict[str, Any]) -> Any:
        from chatparse.interop.arrow import to_arrow  # noqa: PLC0415 -- in the worker

        return to_arrow(self.work(list(batch["item"])))[self.table]


def _work(
    host: Host | None,
    sources: Iterable[str] | str | None,
    paths: Iterable[str | os.PathLike[str]] | None,
) -> tuple[list[Any], Any]:
    """What to partition, and the function that parses one partition of it."""
    if paths is None:
        return list(scan(host, sources=sources)), _parse_metas
    if host is not None:
        msg = "give host or paths, not both: paths are read without a home"
        raise ValueError(msg)
    names = [sources] if isinstance(sources, str) else list(sources or ())
    if len(names) > 1:
        msg = f"with paths, sources names at most one adapter; got {names}"
        raise ValueError(msg)
    return [os.fspath(p) for p in paths], _PathReader(names[0] if names else None)


def _parse_metas(metas: Sequence[ConversationMeta]) -> list[ParsedConversation]:
    return parse_batch(metas)


class _PathReader:
    """A partition function reading whole files or stores (picklable, unlike a lambda)."""

    def __init__(self, source: str | None) -> None:
        self.source = source

    def __call__(self, paths: Sequence[str]) -> list[ParsedConversation]:
        conversations: list[ParsedConversation] = []
        for path in paths:
            try:
                conversations += parse_path(path, source=self.source)
            except Exception as exc:  # noqa: BLE001 -- one unreadable path must not stop the rest
                warnings.warn(
                    f"skipped {path}: {type(exc).__name__}: {exc}", ParseWarning, stacklevel=2
                )
        return conversations
