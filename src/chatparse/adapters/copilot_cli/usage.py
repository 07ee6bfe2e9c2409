"""Copilot CLI's usage: an output count per answer, and the session's totals at shutdown.

Each ``assistant.message`` records its ``outputTokens`` only. Full usage is written once, by
``session.shutdown`` (since 0.0.422): per model, ``modelMetrics.<model>.usage`` with
``inputTokens`` (cache reads and writes included), ``outputTokens``, ``cacheReadTokens``,
``cacheWriteTokens`` and ``reasoningTokens``; some captures carry ``tokenDetails`` (``input``,
``output``, ``cache_read``, ``cache_write``, each a ``tokenCount``) instead. A session resumed
and closed again has one shutdown per run.

How they are put together, so that nothing is counted twice:

* The answers before a shutdown are its *segment*. Their own output counts stay visible, as
  usage with ``counted=False``; the segment's totals go to its last answer, counted.
* A later shutdown may repeat the earlier totals (cumulative) or count its own run only. It is
  taken as cumulative when its output equals the earlier output plus the outputs of its own
  segment's answers; then the segment's usage is the difference.
* Answers after the last shutdown (a session killed, or still running) keep their output
  counts, counted: nothing else records them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Final

from chatparse.adapter import Ledger, as_count, dig, new_usage, parts_within_wholes
from chatparse.adapters.copilot_cli.drafts import Draft

__all__ = ["give_usage", "shutdown_totals"]

Totals = dict[str, int | None]

_MODEL_FIELDS: Final = {
    "input_tokens": "inputTokens",
    "output_tokens": "outputTokens",
    "cache_read_tokens": "cacheReadTokens",
    "cache_write_tokens": "cacheWriteTokens",
    "reasoning_tokens": "reasoningTokens",
}
_DETAIL_FIELDS: Final = {
    "input_tokens": "input",
    "output_tokens": "output",
    "cache_read_tokens": "cache_read",
    "cache_write_tokens": "cache_write",
}


def _sum(values: Iterable[int | None]) -> int | None:
    known = [v for v in values if v is not None]
    return sum(known) if known else None


def shutdown_totals(data: Mapping[str, Any]) -> Totals:
    """A shutdown's totals over every model; every count ``None`` when it records none."""
    metrics = data.get("modelMetrics")
    usages = [dig(m, "usage") for m in metrics.values()] if isinstance(metrics, dict) else []
    usages = [u for u in usages if isinstance(u, dict)]
    if usages:
        return {
            name: _sum(as_count(u.get(key)) for u in usages) for name, key in _MODEL_FIELDS.items()
        }
    details = data.get("tokenDetails")
    totals: Totals = dict.fromkeys(_MODEL_FIELDS)
    if isinstance(details, dict):
        for name, key in _DETAIL_FIELDS.items():
            totals[name] = as_count(dig(details, key, "tokenCount"))
    return totals


def _segment_usage(totals: Totals, before: Totals | None, outputs: int) -> Totals:
    """The totals of one segment, the earlier totals taken out when these repeat them."""
    output, earlier = totals["output_tokens"], before["output_tokens"] if before else None
    cumulative = (
        before is not None
        and output is not None
        and earlier is not None
        and output == earlier + outputs
        and output != outputs
    )
    if not cumulative or before is None:
        return totals
    difference: Totals = {}
    for name, value in totals.items():
        old = before.get(name)
        difference[name] = value - old if value is not None and old is not None else value
    return totals if any((v or 0) < 0 for v in difference.values()) else difference


def _checked(totals: Totals, where: str, ledger: Ledger) -> Totals:
    """``totals`` with a part larger than its whole (a damaged record) dropped, and said."""
    problems: list[str] = []
    checked = parts_within_wholes(totals, problems)
    for problem in problems:
        ledger.warn(f"{where}: {problem}")
    return checked


def give_usage(
    session_id: str,
    drafts: list[Draft],
    shutdowns: list[tuple[str, Totals]],
    ledger: Ledger,
) -> None:
    """Give every answer its usage, by the rules of this module."""
    answers = [d for d in drafts if d.role == "assistant"]
    for draft in answers:
        if draft.output is not None:
            draft.usage = new_usage(
                output_tokens=draft.output,
                dedup_key=f"copilot-cli:{session_id}:{draft.response}",
                counted=draft.segment >= len(shutdowns),
            )
    before: Totals | None = None
    for index, (event_id, totals) in enumerate(shutdowns):
        segment = [d for d in answers if d.segment == index]
        outputs = sum(d.output or 0 for d in segment)
        usage = _checked(_segment_usage(totals, before, outputs), f"shutdown {event_id}", ledger)
        before = totals
        if all(value is None for value in usage.values()):
            continue
        if not segment:
            ledger.warn(f"shutdown {event_id}: session totals, but no answer to carry them")
            continue
        carrier = next((d for d in reversed(segment) if d.agent is None), segment[-1])
        carrier.usage = new_usage(
            input_tokens=usage["input_tokens"],
            output_tokens=usage["output_tokens"],
            cache_read_tokens=usage["cache_read_tokens"],
            cache_write_tokens=usage["cache_write_tokens"],
            reasoning_tokens=usage["reasoning_tokens"],
            dedup_key=f"copilot-cli:{session_id}:shutdown:{event_id}",
        )
