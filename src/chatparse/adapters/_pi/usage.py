"""Pi's per-response usage, in the shared meaning of :class:`~chatparse.model.Usage`.

Every assistant message (one API response) carries ``usage: {input, output, cacheRead,
cacheWrite, totalTokens, cost}``, never cumulative. Pi's ``input`` leaves out the tokens read from
and written to the prompt cache (Anthropic's convention: its providers subtract OpenAI's
``cached_tokens``), so ``input_tokens`` is ``input + cacheRead + cacheWrite``. Its ``output``
already includes reasoning tokens (its OpenAI and Gemini providers add them in); the reasoning
part is not recorded apart, so ``reasoning_tokens`` is ``None``.

Two exceptions, both read from Pi's providers: the Gemini and Vertex providers write Gemini's
``promptTokenCount`` as ``input``, which already includes the cached tokens; and an aborted or
failed request is written with every count 0, which records no usage at all (``None``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from chatparse.adapter import as_count, as_text, new_usage
from chatparse.model import Usage

__all__ = ["CACHE_READ_IN_INPUT", "FAILED_STOPS", "dedup_key", "response_usage"]

CACHE_READ_IN_INPUT: Final = frozenset({"google-generative-ai", "google-vertex"})
"""The wire APIs whose ``input`` already counts the cache reads."""

FAILED_STOPS: Final = frozenset({"aborted", "error"})
"""Stop reasons of requests that ended without a response: their all-zero usage is no usage."""


def response_usage(message: Mapping[str, Any], key: str | None) -> Usage | None:
    """The usage of one assistant message, or ``None`` when it records none."""
    usage = message.get("usage")
    if not isinstance(usage, dict):
        return None
    fresh = as_count(usage.get("input"))
    output = as_count(usage.get("output"))
    cache_read = as_count(usage.get("cacheRead"))
    cache_write = as_count(usage.get("cacheWrite"))
    counts = (fresh, output, cache_read, cache_write)
    if all(count is None for count in counts):
        return None
    if as_text(message.get("stopReason")) in FAILED_STOPS and not any(counts):
        return None
    input_tokens = None
    if fresh is not None:
        if as_text(message.get("api")) in CACHE_READ_IN_INPUT:
            input_tokens = max(fresh, cache_read or 0) + (cache_write or 0)
        else:
            input_tokens = fresh + (cache_read or 0) + (cache_write or 0)
    return new_usage(
        input_tokens=input_tokens,
        output_tokens=output,
        cache_read_tokens=cache_read,
        cache_write_tokens=cache_write,
        dedup_key=key,
    )


def dedup_key(source: str, message: Mapping[str, Any], fallback_time: str | None) -> str | None:
    """The same text on every copy of one response, in this file and in any fork of it.

    ``/fork`` and branch extraction copy entries verbatim into a new file, so the response's
    ``responseId`` (or, without one, its model) and its creation time (``message.timestamp``,
    else the entry's time) identify it wherever it is copied. ``None`` without any time.
    """
    created = message.get("timestamp")
    when = str(created) if as_count(created) is not None else fallback_time
    if when is None:
        return None
    response = as_text(message.get("responseId")) or as_text(message.get("model")) or ""
    return f"{source}:{response}:{when}"
