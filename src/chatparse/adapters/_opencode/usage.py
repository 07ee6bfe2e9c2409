"""Token usage of an assistant message, in the shared meaning of :class:`~chatparse.model.Usage`.

OpenCode writes ``tokens: {total?, input, output, reasoning, cache: {read, write}}`` on every
assistant message, and again on every ``step-finish`` part (one per call to the model).

- ``input`` leaves out the prompt tokens read from or written to the cache: OpenCode subtracts
  them from the provider's count (``getUsage``) and prices the three apart. So ``input_tokens``
  is ``input + cache.read + cache.write``.
- ``output`` held the reasoning tokens up to v1.3.15; from v1.3.16 (anomalyco/opencode#21047)
  it is the output without them, and ``reasoning`` is written beside it. A record says which
  where it can: its ``total`` (written since late 2025) equals ``input + cache + output +
  reasoning`` when reasoning is apart and ``input + cache + output`` when it is included, and a
  ``reasoning`` above ``output`` can only be apart. Otherwise the session's version decides
  (a version we cannot read is taken as the current writer's). ``output_tokens`` is then
  ``output + reasoning`` when reasoning was apart, else ``output``.
- A message written since v1 holds one step, and its tokens equal its ``step-finish`` part's.
  Older messages hold several steps, and OpenCode overwrote the message's tokens with each
  step's, so they count the last call only: a message with ``step-finish`` parts has the sum of
  its steps as its usage; one without has its own tokens.
- Counts that are all zero record no usage (a request that failed or was aborted): ``None``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any, Final, TypeAlias

from attrs import frozen

from chatparse.adapter import as_count, as_nonempty_text, dig, new_usage
from chatparse.adapters._opencode.records import millis
from chatparse.model import Usage

__all__ = ["REASONING_APART_SINCE", "Counting", "message_usage", "reasoning_apart_by_version"]

REASONING_APART_SINCE: Final = (1, 3, 16)
"""The first OpenCode version whose ``output`` leaves the reasoning tokens out."""

_VERSION: Final = re.compile(r"(\d+)\.(\d+)\.(\d+)")

Counts: TypeAlias = tuple[int | None, int | None, int | None, int | None, int | None]
"""``input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens``."""


@frozen
class Counting:
    """How the usage of one session's messages is read.

    Attributes:
        source: The adapter's name, which starts every ``dedup_key``.
        apart: What :func:`reasoning_apart_by_version` says of the session's version.
    """

    source: str
    apart: bool


def reasoning_apart_by_version(version: str | None) -> bool:
    """Whether a session of this OpenCode ``version`` writes reasoning apart from output.

    Unreadable versions and ``0.0.0-…`` (builds from a checkout, of any date) count as the
    current writer's.
    """
    match = _VERSION.match(version or "")
    if match is None:
        return True
    number = tuple(map(int, match.groups()))
    return number == (0, 0, 0) or number >= REASONING_APART_SINCE


def _apart(counts: tuple[int, int, int, int], total: int | None, *, default: bool) -> bool:
    """Whether ``output`` leaves the ``reasoning`` out, from the record where it can tell."""
    fresh, output, reasoning, cached = counts
    base = fresh + cached + output
    if total is not None:
        if total == base + reasoning:
            return True
        if total == base:
            return False
    return reasoning > output or default


def step_counts(tokens: object, *, apart: bool) -> Counts | None:
    """The counts of one ``tokens`` object, in the shared meaning; ``None`` when it has none.

    ``apart`` is what the session's version says, for a record that does not say itself.
    """
    if not isinstance(tokens, dict):
        return None
    fresh = as_count(tokens.get("input"))
    output = as_count(tokens.get("output"))
    reasoning = as_count(tokens.get("reasoning"))
    read = as_count(dig(tokens, "cache", "read"))
    write = as_count(dig(tokens, "cache", "write"))
    if not (fresh or output or reasoning or read or write):
        return None  # nothing recorded, or all zero: a call that never answered
    cached = (read or 0) + (write or 0)
    input_tokens = None if fresh is None else fresh + cached
    output_tokens = output
    if reasoning:
        shape = (fresh or 0, output or 0, reasoning, cached)
        if _apart(shape, as_count(tokens.get("total")), default=apart):
            output_tokens = (output or 0) + reasoning
    return input_tokens, output_tokens, read, write, reasoning


def _summed(steps: Iterable[Counts]) -> Counts:
    totals: list[int | None] = [None] * 5
    for counts in steps:
        for index, count in enumerate(counts):
            if count is not None:
                totals[index] = (totals[index] or 0) + count
    first, second, third, fourth, fifth = totals
    return first, second, third, fourth, fifth


def dedup_key(info: Mapping[str, Any], source: str) -> str | None:
    """``<source>:<provider>/<model>:<created ms>``: the same on every copy of one response.

    A fork copies a message with its creation time under a new id, so the id cannot tell
    copies apart, and the time can. ``None`` without a creation time.
    """
    created = millis(dig(info, "time", "created"))
    if created is None:
        return None
    provider = as_nonempty_text(info.get("providerID")) or ""
    model = as_nonempty_text(info.get("modelID")) or ""
    return f"{source}:{provider}/{model}:{created}"


def message_usage(
    info: Mapping[str, Any], steps: Iterable[object], *, apart: bool, source: str
) -> Usage | None:
    """The usage of an assistant message (its ``info``), from its steps' tokens or its own.

    ``apart`` is what :func:`reasoning_apart_by_version` says of the session's version;
    ``source`` starts the ``dedup_key``.
    """
    per_step = [c for tokens in steps if (c := step_counts(tokens, apart=apart)) is not None]
    if len(per_step) > 1:
        counts: Counts | None = _summed(per_step)
    else:  # one step (every message since v1): its counts are the message's own
        counts = per_step[0] if per_step else step_counts(info.get("tokens"), apart=apart)
    if counts is None:
        return None
    input_tokens, output_tokens, read, write, reasoning = counts
    return new_usage(
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        cache_read_tokens=read,
        cache_write_tokens=write,
        reasoning_tokens=reasoning,
        dedup_key=dedup_key(info, source),
    )
