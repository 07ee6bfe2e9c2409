"""Parsing a batch of conversations in one go, wherever the batch runs.

A batch is what one worker gets: a process of ``iter_conversations(workers=N)``, a Dask
partition, a Ray block. Its metas may come from several sources; each source's metas are parsed
inside one ``parsing()`` block of its adapter (see :class:`~chatparse.adapter.BatchParser`), so a
shared store is opened once per batch, not once per conversation. A conversation that fails is
reported and left out; the rest of the batch goes on.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, closing, nullcontext
from itertools import groupby
from typing import TypeVar

from attrs import field, frozen

from chatparse._collector import pacing
from chatparse.adapter import BatchParser, SourceAdapter
from chatparse.errors import ParseWarning
from chatparse.model import ConversationMeta, ParsedConversation, SourceInfo
from chatparse.registry import get_adapter

__all__ = [
    "Failure",
    "batch_parse_function",
    "iter_parse_results",
    "iter_results_then",
    "iter_scan_results",
    "parse_batch",
    "raise_or_warn",
    "results_then",
    "try_parse_batch",
]

_T = TypeVar("_T")


@frozen
class Failure:
    """A conversation that could not be parsed: which, and why.

    ``error`` says it as text; ``exception`` is the exception itself where there is one that can
    be raised again (a worker process sends it only when it pickles).
    """

    meta: ConversationMeta
    error: str
    exception: BaseException | None = field(default=None, eq=False)

    def warning(self) -> str:
        meta = self.meta
        return f"skipped {meta.source} conversation {meta.id} ({meta.path}): {self.error}"


def batch_parse_function(
    adapter: SourceAdapter,
) -> AbstractContextManager[Callable[[ConversationMeta], ParsedConversation]]:
    """The adapter's batch parse function when it has one, else its ``parse``."""
    # A Protocol check only sees that an attribute named ``parsing`` exists.
    if isinstance(adapter, BatchParser) and callable(adapter.parsing):
        return adapter.parsing()
    return nullcontext(adapter.parse)


def iter_parse_results(
    metas: Iterable[ConversationMeta],
) -> Generator[tuple[ConversationMeta, ParsedConversation | Failure], None, None]:
    """Each meta with its conversation, or a :class:`Failure` in its place, one at a time.

    Consecutive metas of one source are parsed in one ``parsing()`` block.
    """
    for source, group in groupby(metas, key=lambda meta: meta.source):
        try:
            adapter = get_adapter(source)
        except Exception as exc:  # noqa: BLE001 -- a broken plugin fails its conversations only
            yield from ((meta, Failure(meta, _describe(exc), exc)) for meta in group)
            continue
        with batch_parse_function(adapter) as parse_one:
            yield from _parse_each(parse_one, group)


def iter_scan_results(
    found: Iterable[SourceInfo],
) -> Generator[tuple[ConversationMeta, ParsedConversation | Failure], None, None]:
    """Each source scanned and its conversations parsed, all inside one ``parsing()`` block.

    The block is entered before the scan's first step, so that a scan can leave what it read
    for the block's parse function (Trae's scan parses the store it decodes, and the parse
    takes the session from there); the next source is scanned once this block has ended.
    """
    for info in found:
        adapter = get_adapter(info.source)
        with batch_parse_function(adapter) as parse_one:
            yield from _parse_each(parse_one, adapter.scan(info))


def _parse_each(
    parse_one: Callable[[ConversationMeta], ParsedConversation], metas: Iterable[ConversationMeta]
) -> Iterator[tuple[ConversationMeta, ParsedConversation | Failure]]:
    for meta in metas:
        try:
            with pacing():
                result: ParsedConversation | Failure = parse_one(meta)
        except Exception as exc:  # noqa: BLE001 -- reported for its conversation
            result = Failure(meta, _describe(exc), exc)
        yield meta, result


def iter_results_then(
    metas: Iterable[ConversationMeta], then: Callable[[ParsedConversation], _T]
) -> Generator[tuple[ConversationMeta, _T | Failure], None, None]:
    """:func:`iter_parse_results` with ``then`` applied to each conversation as it is parsed."""
    return results_then(iter_parse_results(metas), then)


def results_then(
    results: Generator[tuple[ConversationMeta, ParsedConversation | Failure], None, None],
    then: Callable[[ParsedConversation], _T],
) -> Generator[tuple[ConversationMeta, _T | Failure], None, None]:
    """``then`` applied to each conversation of ``results`` as it comes.

    An exception ``then`` raises is that conversation's :class:`Failure`, as a parse error is.
    Each conversation is dropped once ``then`` has made its result. Closing this generator
    closes ``results`` at once, and with it the ``parsing()`` block it is in.
    """
    with closing(results):
        for meta, parsed in results:
            if isinstance(parsed, Failure):
                yield meta, parsed
            else:
                yield meta, _then(then, meta, parsed)


def _then(
    then: Callable[[ParsedConversation], _T], meta: ConversationMeta, parsed: ParsedConversation
) -> _T | Failure:
    try:
        return then(parsed)
    except Exception as exc:  # noqa: BLE001 -- reported for its conversation
        return Failure(meta, _describe(exc), exc)


def try_parse_batch(metas: Sequence[ConversationMeta]) -> list[ParsedConversation | Failure]:
    """Each meta's conversation, or a :class:`Failure` in its place, in the order given."""
    return [result for _meta, result in iter_parse_results(metas)]


def parse_batch(metas: Sequence[ConversationMeta]) -> list[ParsedConversation]:
    """The conversations of ``metas``; each failure is a :class:`ParseWarning`, here."""
    conversations: list[ParsedConversation] = []
    for result in try_parse_batch(metas):
        if isinstance(result, Failure):
            warnings.warn(result.warning(), ParseWarning, stacklevel=2)
        else:
            conversations.append(result)
    return conversations


def raise_or_warn(failure: Failure, errors: str) -> None:
    """Report a failed conversation as ``errors`` asks: its exception raised, or a warning.

    The warning points at the caller's loop when this is called from a generator that
    :func:`chatparse.map_conversations` returns, the way ``iter_conversations`` is consumed.
    """
    if errors == "raise":
        raise failure.exception or RuntimeError(failure.error)
    warnings.warn(failure.warning(), ParseWarning, stacklevel=4)


def _describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"
