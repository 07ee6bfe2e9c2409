"""Per-request usage of the Cline family, in the shared meaning of :class:`~chatparse.model.Usage`.

Two records carry it:

``api_req_started`` rows of ``ui_messages.json`` (Cline, Roo Code, Kilo Code)
    Their ``text`` is JSON: ``tokensIn``, ``tokensOut``, ``cacheWrites``, ``cacheReads``,
    ``cost``, one request each, never cumulative. Cline and its forks follow Anthropic's
    convention: ``tokensIn`` leaves out the tokens read from and written to the prompt cache (the
    extension adds all four to show the context size), so ``input_tokens`` is ``tokensIn +
    cacheReads + cacheWrites``. Roo Code records ``apiProtocol``: with ``"openai"`` its
    ``tokensIn`` already includes the cached tokens (Roo then counts the context as ``tokensIn
    + tokensOut``), and ``input_tokens`` is ``tokensIn`` (never less than the cached part).
    ``tokensOut`` includes reasoning; the reasoning part is not recorded apart.
``metrics`` of Cline 4.x (SDK) transcript messages
    ``inputTokens``, ``outputTokens``, ``cacheReadTokens``, ``cacheWriteTokens``, ``cost`` on the
    last assistant message of a turn. ``inputTokens`` already includes the cache reads (in the
    real sample it grows by the new turn's size while ``cacheReadTokens`` holds the rest), so
    ``input_tokens`` is ``inputTokens``, never less than the cached parts.

A count the record lacks is ``None``; a request recording no count at all has no usage.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from chatparse.adapter import as_text, as_token_count, new_usage
from chatparse.model import Usage

__all__ = ["CACHE_INCLUDED_PROTOCOLS", "metrics_usage", "request_usage"]

CACHE_INCLUDED_PROTOCOLS: Final = frozenset({"openai"})
"""Roo's ``apiProtocol`` values whose ``tokensIn`` already counts the cached tokens."""


def _usage(  # noqa: PLR0913 -- the four counts and how to add them up
    fresh: int | None,
    output: int | None,
    cache_read: int | None,
    cache_write: int | None,
    *,
    included: bool,
    key: str | None,
) -> Usage | None:
    if fresh is None and output is None and cache_read is None and cache_write is None:
        return None
    cached = (cache_read or 0) + (cache_write or 0)
    if fresh is None:
        input_tokens = None
    elif included:
        input_tokens = max(fresh, cached)
    else:
        input_tokens = fresh + cached
    return new_usage(
        input_tokens=input_tokens,
        output_tokens=output,
        cache_read_tokens=cache_read,
        cache_write_tokens=cache_write,
        dedup_key=key,
    )


def request_usage(info: Mapping[str, Any], key: str | None, problems: list[str]) -> Usage | None:
    """The usage an ``api_req_started`` row's decoded ``text`` records, or ``None``."""
    return _usage(
        as_token_count(info.get("tokensIn"), problems, "tokensIn"),
        as_token_count(info.get("tokensOut"), problems, "tokensOut"),
        as_token_count(info.get("cacheReads"), problems, "cacheReads"),
        as_token_count(info.get("cacheWrites"), problems, "cacheWrites"),
        included=as_text(info.get("apiProtocol")) in CACHE_INCLUDED_PROTOCOLS,
        key=key,
    )


def metrics_usage(metrics: object, key: str | None, problems: list[str]) -> Usage | None:
    """The usage a Cline 4.x message's ``metrics`` records, or ``None``."""
    if not isinstance(metrics, dict):
        return None
    return _usage(
        as_token_count(metrics.get("inputTokens"), problems, "inputTokens"),
        as_token_count(metrics.get("outputTokens"), problems, "outputTokens"),
        as_token_count(metrics.get("cacheReadTokens"), problems, "cacheReadTokens"),
        as_token_count(metrics.get("cacheWriteTokens"), problems, "cacheWriteTokens"),
        included=True,
        key=key,
    )
