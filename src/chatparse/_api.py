"""The functions behind ``chatparse.detect``, ``scan``, ``parse`` and friends.

They only route work to adapters; every format-specific decision lives in an adapter.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable, Iterable, Iterator
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import Literal

from chatparse.adapter import BatchParser, PathSniffer, SourceAdapter
from chatparse.errors import (
    ChatparseWarning,
    ParseWarning,
    SourceUnavailableError,
    UnsupportedInputError,
)
from chatparse.host import Host
from chatparse.model import ConversationMeta, ParsedConversation, SourceInfo
from chatparse.registry import get_adapter, iter_adapters

__all__ = ["detect", "iter_conversations", "parse", "parse_path", "scan"]


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
    host: Host | None = None, *, sources: Iterable[str] | str | None = None
) -> Iterator[ConversationMeta]:
    """List every conversation of every detected source, without parsing them."""
    for found in _detect_with(host or Host(), sources):
        yield from get_adapter(found.source).scan(found)


def parse(meta: ConversationMeta) -> ParsedConversation:
    """Parse one conversation listed by :func:`scan`, with the adapter that listed it."""
    return get_adapter(meta.source).parse(meta)


def iter_conversations(
    host: Host | None = None,
    *,
    sources: Iterable[str] | str | None = None,
    errors: Literal["warn", "raise"] = "warn",
) -> Iterator[ParsedConversation]:
    """Parse every conversation of every detected source, one at a time.

    A conversation whose parse raises is skipped with a :class:`~chatparse.errors.ParseWarning`
    naming it, so one unreadable file cannot stop an export of thousands. Pass
    ``errors="raise"`` to stop at the first failure instead.
    """
    if errors not in ("warn", "raise"):
        msg = f"errors must be 'warn' or 'raise', got {errors!r}"
        raise ValueError(msg)
    for found in _detect_with(host or Host(), sources):
        adapter = get_adapter(found.source)
        # One parsing() block per source, around its whole scan: an adapter whose conversations
        # share a store keeps it open from the first parse to the last, and closes it when the
        # block ends, also when the caller stops iterating early (GeneratorExit).
        with _parsing(adapter) as parse_one:
            for meta in adapter.scan(found):
                try:
                    conversation = parse_one(meta)
                except Exception as exc:
                    if errors == "raise":
                        raise
                    warnings.warn(
                        f"skipped {meta.source} conversation {meta.id} ({meta.path}): "
                        f"{type(exc).__name__}: {exc}",
                        ParseWarning,
                        stacklevel=2,
                    )
                    continue
                yield conversation


def _parsing(
    adapter: SourceAdapter,
) -> AbstractContextManager[Callable[[ConversationMeta], ParsedConversation]]:
    """The adapter's batch parse function when it has one, else its ``parse``."""
    # A Protocol check only sees that an attribute named ``parsing`` exists.
    if isinstance(adapter, BatchParser) and callable(adapter.parsing):
        return adapter.parsing()
    return nullcontext(adapter.parse)


def _sniffers(source: str | None) -> list[tuple[SourceAdapter, PathSniffer]]:
    adapters = iter_adapters(None if source is None else [source])
    return [(adapter, adapter) for adapter in adapters if isinstance(adapter, PathSniffer)]


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
    target = Path(path)
    if not target.exists():
        raise SourceUnavailableError(str(target), "no such file or directory")
    if not os.access(target, os.R_OK):
        raise SourceUnavailableError(str(target), "not readable", "check its permissions")
    candidates = _sniffers(source)
    if source is not None and not candidates:
        raise UnsupportedInputError(
            str(target), f"the {source!r} adapter cannot read single paths; use scan() instead"
        )
    scored = [(sniffer.sniff(target), adapter.name, sniffer) for adapter, sniffer in candidates]
    if source is None:
        scored = [entry for entry in scored if entry[0] > 0]
    if not scored:
        raise UnsupportedInputError(
            str(target),
            "no installed adapter recognises this file; pass source= to choose one, "
            "or install the package that reads it",
        )
    _score, name, sniffer = max(scored, key=lambda entry: entry[0])
    adapter = get_adapter(name)
    return [adapter.parse(meta) for meta in sniffer.scan_path(target)]
