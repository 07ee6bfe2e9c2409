"""An Amp answer's token counts, in the shared meaning, from either place Amp wrote them.

Newer thread documents give each answer a ``usage`` object, Anthropic's counts renamed:
``inputTokens`` is the uncached part of the prompt, ``cacheCreationInputTokens`` and
``cacheReadInputTokens`` the cached parts, ``totalInputTokens`` their sum, and ``outputTokens``
every generated token (reasoning included; no part is given for it). So ``input_tokens`` is
``inputTokens`` plus both cache counts (``totalInputTokens`` when ``inputTokens`` is missing).

Older documents keep the counts apart, in ``usageLedger.events[]``: ``{timestamp, model,
tokens: {input, output}, fromMessageId, toMessageId}``, one event per model call, named by the
``messageId`` of the answer it produced. An event gives its answer the counts, model and time the
answer lacks; it has no cache breakdown, so ``input_tokens`` is ``tokens.input`` as written.
Where an answer has a ``usage`` of its own, that one (with its breakdown) is kept.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, Final

from chatparse.adapter import (
    Ledger,
    as_count,
    as_datetime,
    as_nonempty_text,
    as_token_count,
    dig,
    new_usage,
    parts_within_wholes,
)
from chatparse.model import Usage

if TYPE_CHECKING:
    from chatparse.adapters.amp.messages import Draft

__all__ = ["apply_ledger", "message_usage", "usage_key"]

_PARTS: Final = {
    "cache_read_tokens": "cacheReadInputTokens",
    "cache_write_tokens": "cacheCreationInputTokens",
}


def usage_key(thread_id: str, number: int | None, where: str) -> str:
    """The ``dedup_key`` of an answer's usage: its thread and ``messageId``."""
    return f"amp:{thread_id}:{number if number is not None else where}"


def message_usage(usage: Mapping[str, Any], key: str, problems: list[str]) -> Usage | None:
    """An answer's ``usage`` object in the shared meaning; ``None`` when it holds no count."""
    parts = {
        name: as_token_count(usage.get(field), problems, field) for name, field in _PARTS.items()
    }
    fresh = as_token_count(usage.get("inputTokens"), problems, "inputTokens")
    output = as_token_count(usage.get("outputTokens"), problems, "outputTokens")
    if fresh is not None:
        prompt: int | None = fresh + sum(value or 0 for value in parts.values())
    else:  # the cache counts can then exceed the total they are parts of (damage)
        prompt = as_token_count(usage.get("totalInputTokens"), problems, "totalInputTokens")
    counts = parts_within_wholes(
        {"input_tokens": prompt, "output_tokens": output, **parts}, problems
    )
    if all(value is None for value in counts.values()):
        return None
    return new_usage(
        input_tokens=counts["input_tokens"],
        output_tokens=counts["output_tokens"],
        cache_read_tokens=counts["cache_read_tokens"],
        cache_write_tokens=counts["cache_write_tokens"],
        dedup_key=key,
    )


def _sum(values: Iterable[int | None]) -> int | None:
    known = [value for value in values if value is not None]
    return sum(known) if known else None


def _counts(events: list[dict[str, Any]], key: str, problems: list[str]) -> Iterator[int | None]:
    for event in events:
        yield as_token_count(dig(event, "tokens", key), problems, f"tokens.{key}")


def apply_ledger(events: object, drafts: list[Draft], thread_id: str, ledger: Ledger) -> None:
    """Give the answers without a ``usage`` of their own the counts of their ledger events.

    Each event is one record: used when it went into its answer; skipped when its answer has
    counts of its own or is not in the thread; malformed when it is not an object.
    """
    answers = {d.number: d for d in drafts if d.role == "assistant" and d.number is not None}
    by_answer: dict[int, list[dict[str, Any]]] = {}
    for index, event in enumerate(events if isinstance(events, list) else ()):
        if not isinstance(event, dict):
            ledger.bad(f"usageLedger.events[{index}]", "not an event object")
            continue
        number = as_count(event.get("toMessageId"))
        target = answers.get(number) if number is not None else None
        if target is None or number is None:
            ledger.skip("usage ledger event for no answer in the thread")
        elif target.usage is not None:
            ledger.skip("usage ledger event (the answer's own usage is kept)")
        else:
            by_answer.setdefault(number, []).append(event)
    for number, found in by_answer.items():
        draft = answers[number]
        problems: list[str] = []
        draft.usage = new_usage(
            input_tokens=_sum(_counts(found, "input", problems)),
            output_tokens=_sum(_counts(found, "output", problems)),
            dedup_key=usage_key(thread_id, number, draft.id),
        )
        draft.model = draft.model or as_nonempty_text(found[-1].get("model"))
        draft.timestamp = draft.timestamp or as_datetime(found[-1].get("timestamp"))
        ledger.use(len(found))
        for problem in problems:
            ledger.warn(f"usage ledger, answer {number}: {problem}")
