"""Token usage: ``token_count`` events turned into each model response's own usage."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final, TypeAlias

from attrs import define, field

from chatparse.adapter import as_token_count, new_usage, parts_within_wholes
from chatparse.model import Usage

__all__ = ["Counts", "TokenLedger"]

Counts: TypeAlias = tuple[int | None, ...]
"""A usage object's counts, in the order of :data:`_COUNT_FIELDS`."""

# Input (cached included), cached input, output (reasoning included), reasoning output, cache
# writes, total.
_COUNT_FIELDS: Final = (
    "input_tokens",
    "cached_input_tokens",
    "output_tokens",
    "reasoning_output_tokens",
    "cache_write_input_tokens",
    "total_tokens",
)
_NO_COUNTS: Final = (None,) * len(_COUNT_FIELDS)


def _counts(usage: object, problems: list[str]) -> Counts | None:
    if not isinstance(usage, dict):
        return None
    counts = tuple(as_token_count(usage.get(name), problems, name) for name in _COUNT_FIELDS)
    return None if counts == _NO_COUNTS else counts


@define
class TokenLedger:
    """Turns ``token_count`` events into per-response usage.

    ``total_token_usage`` is cumulative, so a response's usage is the growth of the total since
    the previous event; an event whose total has not grown repeats the previous one and is
    ignored. A total that shrinks started again from zero (a fork's own counter after its
    replayed history), so it is taken whole. Without a total, ``last_token_usage`` (or, in the
    earliest files, usage fields at the top of the payload) is the response's own usage, and an
    exact repeat of the previous one is ignored. Cached input and reasoning output are parts of
    input and output, kept as such, never added to them.
    """

    total: Counts | None = None
    last: Counts | None = None
    problems: list[str] = field(factory=list)
    """Counts that were no counts (negative, fractional, absurd...): left out, and said."""

    def usage(self, payload: Mapping[str, Any], owner: str, *, counted: bool) -> Usage | str:
        """The usage of the response a ``token_count`` payload follows, or why it gives none.

        The usage is in the thread ``owner``'s tokens: its ``dedup_key`` is
        ``codex:<owner>:<cumulative total>``, so the same usage seen in a parent and in its
        fork's replay shares a key.
        """
        info = payload.get("info", payload)
        if info is None:
            return "event_msg/token_count: rate limits only"
        fields = info if isinstance(info, dict) else {}
        total = _counts(fields.get("total_token_usage"), self.problems)
        counts = self._growth(total) if total is not None else self._own(fields, payload)
        if isinstance(counts, str):
            return counts
        usage = {
            "input_tokens": counts[0],
            "cache_read_tokens": counts[1],
            "output_tokens": counts[2],
            "reasoning_tokens": counts[3],
            "cache_write_tokens": counts[4],
        }
        return new_usage(
            **parts_within_wholes(usage, self.problems),
            dedup_key=f"codex:{owner}:{counts[-1]}" if counts[-1] is not None else None,
            counted=counted,
        )

    def _growth(self, total: Counts) -> Counts | str:
        """The growth of the cumulative total since the previous event."""
        previous, self.total = self.total, total
        if total == previous:
            return "event_msg/token_count: total unchanged (re-emitted)"
        if previous is None:
            return total
        grown: list[int | None] = []
        for n, p in zip(total, previous, strict=True):
            if n is not None and p is not None and n < p:
                return total  # a count shrank: the total started again from zero
            # A count the previous total lacked (a damaged event) has no known growth.
            grown.append(None if n is None or p is None else n - p)
        grown[-1] = total[-1]
        return tuple(grown)

    def _own(self, fields: Mapping[str, Any], payload: Mapping[str, Any]) -> Counts | str:
        """The response's own usage, from an event without a cumulative total."""
        last = _counts(fields.get("last_token_usage"), self.problems) or _counts(
            payload, self.problems
        )
        if last is None:
            return "event_msg/token_count: no usage"
        previous, self.last = self.last, last
        if last == previous:
            return "event_msg/token_count: usage unchanged (re-emitted)"
        return (*last[:-1], None)
