"""The functions behind ``chatparse.detect``, ``scan``, ``parse`` and friends.

They only route work to adapters; every format-specific decision lives in an adapter.

While a parse runs, the garbage collector is paced for it: see :mod:`chatparse._collector`.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable, Iterable, Iterator
from contextlib import closing
from pathlib import Path
from typing import Final, Literal, TypeVar

from attrs import frozen

from chatparse._batch import (
    Failure,
    batch_parse_function,
    iter_scan_results,
    raise_or_warn,
    results_then,
)
from chatparse._collector import pacing
from chatparse.adapter import PathSniffer, Peeker, SourceAdapter
from chatparse.errors import (
    ChatparseWarning,
    SourceUnavailableError,
    UnsupportedInputError,
)
from chatparse.host import Host
from chatparse.model import ConversationMeta, ParsedConversation, SourceInfo
from chatparse.registry import adapter_specs, get_adapter, iter_adapters

__all__ = [
    "PYTHON_ADVICE",
    "PathAdvice",
    "detect",
    "iter_conversations",
    "map_conversations",
    "parse",
    "parse_path",
    "parse_path_advising",
    "scan",
]

_T = TypeVar("_T")


def _names(sources: Iterable[str] | str | None) -> list[str] | None:
    if isinstance(sources, str):  # a lone name, not an iterable of one-letter names
        return [sources]
    return None if sources is None else list(sources)


def _detect_with(host: Host, sources: Iterable[str] | str | None) -> Iterator[SourceInfo]:
    names = _names(sources)
    for adapter in iter_adapters(names):
        try:
            found = adapter.detect(host)
        except Exception as exc:
            if names is not None:
                raise
            warnings.warn(
                f"skipping {adapter.name!r}: detect() raised {type(exc).__name__}: {exc}",
                ChatparseWarning,
                stacklevel=4,
            )
            continue
        if found is not None:
            yield found


def detect(
    host: Host | None = None, *, sources: Iterable[str] | str | None = None
) -> list[SourceInfo]:
    """Which sources this machine (or ``host``) has, one :class:`SourceInfo` each.

    Args:
        host: Where to look; default: this machine.
        sources: Adapter names to ask; default: every registered adapter. Over every adapter, one
            that fails to load or raises is skipped with a warning; a named one raises instead.
    """
    return list(_detect_with(host or Host(), sources))


def scan(
    host: Host | None = None, *, sources: Iterable[str] | str | None = None, peek: bool = False
) -> Iterator[ConversationMeta]:
    """List every conversation of every detected source, without parsing them.

    Args:
        host: Where to look; default: this machine.
        sources: Adapter names to list; default: every registered adapter.
        peek: Fill each meta's ``title``, ``project_path`` and ``updated_at`` from a bounded
            read of its conversation (at most 64 KiB of each end), for adapters that can
            (:class:`~chatparse.adapter.Peeker`); the others' metas are as their scan made them.
            Default: the stat-only scan, which reads no conversation's content.

    .. versionchanged:: 0.2
       ``peek``.
    """
    for found in _detect_with(host or Host(), sources):
        adapter = get_adapter(found.source)
        metas = adapter.scan(found)
        if peek and isinstance(adapter, Peeker):
            metas = map(adapter.peek, metas)
        yield from metas


def parse(meta: ConversationMeta) -> ParsedConversation:
    """Parse one conversation listed by :func:`scan`, with the adapter that listed it.

    To parse by id, find the meta first (a scan reads no content, so this stays cheap):
    ``parse(next(m for m in scan() if m.id == wanted))``. To parse a file, use
    :func:`parse_path`.

    While it runs, the garbage collector collects its young generation every 50,000 new
    containers instead of CPython's default (``gc.get_threshold()[0]``), which is put back
    afterwards: a parse keeps nearly all it allocates, and frequent collections would scan again
    and again a result that grows with the file.

    Raises:
        TypeError: ``meta`` is not a :class:`~chatparse.model.ConversationMeta` (an id or a
            path, say); the message says what to call instead.
    """
    if not isinstance(meta, ConversationMeta):
        raise TypeError(_not_a_meta(meta))
    adapter = get_adapter(meta.source)
    with pacing():
        return adapter.parse(meta)


def _not_a_meta(value: object) -> str:
    given = type(value).__name__
    advice = (
        "to parse by id, scan first: parse(next(m for m in scan() if m.id == ID)); "
        "to parse a file or database, call parse_path(PATH)"
    )
    return f"parse() takes a ConversationMeta listed by scan(), not a {given}; {advice}"


def iter_conversations(
    host: Host | None = None,
    *,
    sources: Iterable[str] | str | None = None,
    errors: Literal["warn", "raise"] = "warn",
    workers: int | None = None,
) -> Iterator[ParsedConversation]:
    """Parse every conversation of every detected source, one at a time.

    A conversation whose parse raises is skipped with a :class:`~chatparse.errors.ParseWarning`
    naming it, so one unreadable file cannot stop an export of thousands. Pass
    ``errors="raise"`` to stop at the first failure instead.

    Conversations come source by source, in the order :func:`detect` finds the sources, each
    source's in the order its ``scan`` lists them.

    Args:
        host: Whose files; ``None`` for this machine.
        sources: Adapter names to read; ``None`` for all.
        errors: ``"warn"`` to skip a failing conversation, ``"raise"`` to stop there.
        workers: Parse in this many processes (``0``: one per core); ``None`` or ``1`` parses
            here. The same conversations come out in the same order; conversations of adapters
            registered at run time (:func:`~chatparse.register_adapter`), which other processes
            do not have, are parsed here, after the others.

    .. versionchanged:: 0.2
       ``workers``.
    """
    # Returned, not yielded from: no frame of ours between the caller and the generator, so a
    # ParseWarning points at the caller's loop.
    return map_conversations(_itself, host, sources=sources, errors=errors, workers=workers)


def _itself(conversation: ParsedConversation) -> ParsedConversation:
    return conversation


def map_conversations(
    func: Callable[[ParsedConversation], _T],
    host: Host | None = None,
    *,
    sources: Iterable[str] | str | None = None,
    errors: Literal["warn", "raise"] = "warn",
    workers: int | None = None,
) -> Iterator[_T]:
    """``func`` of every conversation :func:`iter_conversations` gives, done where it is parsed.

    The same as ``map(func, iter_conversations(...))``, in the same order, with one difference
    that matters with ``workers``: ``func`` runs in the worker process that parsed the
    conversation, so only its result comes back to this process. A whole conversation costs
    about as much to send back as to parse; a summary, a row or rendered bytes cost little, which
    is what makes the workers pay (see ``docs/scale-out.md``).

    Wherever ``func`` runs, an exception it raises fails that conversation as a failed parse
    does (``errors``).

    Args:
        func: Called with each conversation. With ``workers``, it must pickle: a module-level
            function, or a :func:`functools.partial` of one (not a lambda or a nested function).
        host: As :func:`iter_conversations`.
        sources: As :func:`iter_conversations`.
        errors: As :func:`iter_conversations`.
        workers: As :func:`iter_conversations`.

    Raises:
        TypeError: ``workers`` asks for other processes and ``func`` cannot be sent to them.

    .. versionadded:: 0.2
    """
    if errors not in ("warn", "raise"):
        msg = f"errors must be 'warn' or 'raise', got {errors!r}"
        raise ValueError(msg)
    count = worker_count(workers)
    if count > 1:
        _check_picklable(func)
    return _map(func, host or Host(), sources, errors, count)


def _check_picklable(func: Callable[..., object]) -> None:
    import pickle  # noqa: PLC0415 -- only workers= pays for it (a first use's import time)

    try:
        pickle.dumps(func)
    except Exception as exc:
        msg = (
            f"func must pickle to run in the worker processes (a module-level function, or a "
            f"functools.partial of one), and {func!r} does not: {type(exc).__name__}: {exc}"
        )
        raise TypeError(msg) from exc


def _map(
    then: Callable[[ParsedConversation], _T],
    host: Host,
    sources: Iterable[str] | str | None,
    errors: Literal["warn", "raise"],
    count: int,
) -> Iterator[_T]:
    found = list(_detect_with(host, sources))
    if count == 1:
        yield from _parse_here(found, errors, then)
        return
    from chatparse._workers import parse_in_workers  # noqa: PLC0415 -- only workers= pays for it

    registered = {spec.name for spec in adapter_specs() if spec.origin == "registered"}
    elsewhere = [info for info in found if info.source not in registered]
    metas = (meta for info in elsewhere for meta in get_adapter(info.source).scan(info))
    yield from parse_in_workers(metas, count, errors=errors, then=then)
    here = [info for info in found if info.source in registered]
    yield from _parse_here(here, errors, then)


def worker_count(workers: int | None) -> int:
    """How many processes ``workers=`` asks for: 1 (this one) for ``None``, every core for 0."""
    if workers is None:
        return 1
    if isinstance(workers, bool) or not isinstance(workers, int):
        msg = f"workers must be a whole number of processes, got {workers!r}"
        raise TypeError(msg)
    if workers < 0:
        msg = f"workers must be 0 (one per core) or more, got {workers}"
        raise ValueError(msg)
    return workers or os.cpu_count() or 1


def _parse_here(
    found: Iterable[SourceInfo], errors: str, then: Callable[[ParsedConversation], _T]
) -> Iterator[_T]:
    # Each source's conversations are parsed in one parsing() block around its whole scan: an
    # adapter whose conversations share a store keeps it open from the first parse to the last,
    # and closes it when the block ends, also when the caller stops early (GeneratorExit).
    with closing(results_then(iter_scan_results(found), then)) as results:  # parsing() ends here
        for _meta, result in results:
            if isinstance(result, Failure):
                raise_or_warn(result, errors)
            else:
                yield result


def _sniffers(source: str | None) -> list[tuple[SourceAdapter, PathSniffer]]:
    adapters = iter_adapters(None if source is None else [source])
    return [(adapter, adapter) for adapter in adapters if isinstance(adapter, PathSniffer)]


@frozen
class PathAdvice:
    """What to tell someone whose path could not be matched to an adapter.

    The Python API and the command line name their own ways of choosing an adapter
    (``source=`` here, ``--source NAME`` there).
    """

    choose: str
    """How to name the adapter that should read the path."""
    scan_instead: str
    """What to do when the named adapter cannot read single paths."""


PYTHON_ADVICE: Final = PathAdvice(
    choose="pass source= to choose one (adapter_names() lists them)",
    scan_instead="use scan() and parse() instead",
)


def parse_path(
    path: str | os.PathLike[str], *, source: str | None = None
) -> list[ParsedConversation]:
    """Parse every conversation in one file or database, outside any home directory.

    Args:
        path: A session file or database, as the tool wrote it.
        source: The adapter to use. Default: the adapter most confident the path is its own.

    Raises:
        SourceUnavailableError: the path does not exist or cannot be read.
        UnsupportedInputError: no adapter recognises the path (or the named adapter cannot
            read single paths).
    """
    return parse_path_advising(path, source=source, advice=PYTHON_ADVICE)


def parse_path_advising(
    path: str | os.PathLike[str], *, source: str | None, advice: PathAdvice
) -> list[ParsedConversation]:
    """:func:`parse_path`, with error messages that give ``advice``."""
    target = Path(path)
    if not target.exists():
        raise SourceUnavailableError(str(target), "no such file or directory")
    if not os.access(target, os.R_OK):
        raise SourceUnavailableError(str(target), "not readable", "check its permissions")
    candidates = _sniffers(source)
    if source is not None and not candidates:
        raise UnsupportedInputError(
            str(target), f"the {source!r} adapter cannot read single paths; {advice.scan_instead}"
        )
    scored = [(sniffer.sniff(target), adapter.name, sniffer) for adapter, sniffer in candidates]
    if source is None:
        scored = [entry for entry in scored if entry[0] > 0]
    if not scored:
        raise UnsupportedInputError(
            str(target),
            f"no installed adapter recognises this file; {advice.choose}, "
            "or install the package that reads it",
        )
    _score, name, sniffer = max(scored, key=lambda entry: entry[0])
    adapter = get_adapter(name)
    # In one parsing() block: a store that holds many conversations is read once, not once each.
    with batch_parse_function(adapter) as parse_one, pacing():
        return [parse_one(meta) for meta in sniffer.scan_path(target)]
