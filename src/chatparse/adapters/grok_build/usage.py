"""A turn's usage, as ``turn_completed.usage`` records it, in the shared meaning.

Grok Build's own wire contract (``PromptUsage`` in xai-grok-shell) already counts like chatparse:
``inputTokens`` is the whole prompt, cache reads (``cachedReadTokens``) and cache writes
(``cacheCreationTokens``) included; ``outputTokens`` is every generated token and
``reasoningTokens`` its reasoning part. The counts are per turn (a prompt and every model call
it caused, sub-agents folded in), not cumulative.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Final

from chatparse.adapter import Ledger, as_count, new_usage, parts_within_wholes
from chatparse.model import Usage

__all__ = ["turn_usage"]

_FIELDS: Final = {
    "input_tokens": "inputTokens",
    "output_tokens": "outputTokens",
    "cache_read_tokens": "cachedReadTokens",
    "cache_write_tokens": "cacheCreationTokens",
    "reasoning_tokens": "reasoningTokens",
}


def _sum(values: Iterable[int | None]) -> int | None:
    known = [value for value in values if value is not None]
    return sum(known) if known else None


def turn_usage(
    payloads: Mapping[str, dict[str, Any]], session_id: str, ledger: Ledger, *, counted: bool
) -> Usage:
    """The usage of one turn from its ``turn_completed`` payloads, by ``prompt_id``.

    A turn the tool woke up on its own (a finished background task) has a ``prompt_id`` of its
    own but no prompt in the chat history: its payload is added to the turn it follows. A part
    larger than its whole (a damaged payload) is dropped, with a warning.
    """
    counts = {
        name: _sum(as_count(payload.get(key)) for payload in payloads.values())
        for name, key in _FIELDS.items()
    }
    problems: list[str] = []
    kept = parts_within_wholes(counts, problems)
    for problem in problems:
        ledger.warn_once(f"turn {'+'.join(payloads)}: {problem}")
    return new_usage(
        **kept,
        dedup_key=f"grok-build:{session_id}:{'+'.join(payloads)}",
        counted=counted,
    )
