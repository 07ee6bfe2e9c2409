"""``<session id>.settings.json``: the sidecar with the session's model and its token totals.

One JSON object, rewritten as the session goes: ``{model, reasoningEffort, autonomyLevel,
providerLock, providerLockTimestamp, tokenUsage: {inputTokens, outputTokens,
cacheCreationTokens, cacheReadTokens, thinkingTokens}}``. The totals are all the usage Droid
keeps (since CLI 0.123; older sessions have none): cumulative for the whole session, never per
message. In the shared meaning, following how the counts are split (Anthropic's way, as peer
readers take them): ``input_tokens`` is ``inputTokens`` plus both cache counts,
``output_tokens`` is ``outputTokens`` plus ``thinkingTokens``, and ``reasoning_tokens`` is
``thinkingTokens``. One record.
"""

from __future__ import annotations

from contextlib import closing
from pathlib import Path
from typing import Any, Final

from attrs import frozen

from chatparse.adapter import (
    Ledger,
    MessageDraft,
    as_nonempty_text,
    as_token_count,
    is_file,
    new_usage,
)
from chatparse.decoders import bigjson
from chatparse.model import Usage

__all__ = ["SUFFIX", "Settings", "give_totals", "read_settings"]

SUFFIX: Final = ".settings.json"
_FIELDS: Final = {
    "fresh": "inputTokens",
    "output": "outputTokens",
    "cache_write": "cacheCreationTokens",
    "cache_read": "cacheReadTokens",
    "thinking": "thinkingTokens",
}


@frozen
class Settings:
    """What the sidecar says: the session's model and its usage totals, as written."""

    model: str | None
    token_usage: dict[str, Any] | None


def read_settings(path: Path, ledger: Ledger) -> Settings | None:
    """The sidecar at ``path``, one record in ``ledger``; ``None`` when absent or damaged."""
    if not is_file(path):
        return None
    fields: dict[str, Any] = {}
    with closing(bigjson.iter_kvitems(path, "")) as items:
        for item in items:
            if isinstance(item, bigjson.Malformed):
                ledger.bad(path.name, f"cut short or damaged ({item.reason})")
                return None
            fields[str(item.key)] = item.value
    ledger.use()
    usage = fields.get("tokenUsage")
    return Settings(
        as_nonempty_text(fields.get("model")), usage if isinstance(usage, dict) else None
    )


def _totals(counts: dict[str, Any], key: str, problems: list[str]) -> Usage | None:
    found = {
        name: as_token_count(counts.get(field), problems, field) for name, field in _FIELDS.items()
    }
    if all(value is None for value in found.values()):
        return None
    fresh, output, thinking = found["fresh"], found["output"], found["thinking"]
    cache_read, cache_write = found["cache_read"], found["cache_write"]
    return new_usage(
        input_tokens=None if fresh is None else fresh + (cache_read or 0) + (cache_write or 0),
        output_tokens=None if output is None else output + (thinking or 0),
        cache_read_tokens=cache_read,
        cache_write_tokens=cache_write,
        reasoning_tokens=thinking,
        dedup_key=key,
    )


def give_totals(
    settings: Settings | None, drafts: list[MessageDraft], session_id: str, ledger: Ledger
) -> None:
    """The session's totals (and model) go to its last answer; without one, a warning says so."""
    if settings is None or settings.token_usage is None:
        return
    problems: list[str] = []
    usage = _totals(settings.token_usage, f"factory-droid:{session_id}", problems)
    for problem in problems:
        ledger.warn(f"{session_id}{SUFFIX}: {problem}")
    answers = [draft for draft in drafts if draft.role == "assistant"]
    if usage is None:
        return
    if not answers:
        ledger.warn(f"session {session_id}: token totals recorded, but no answer to carry them")
        return
    answers[-1].usage = usage
    answers[-1].model = answers[-1].model or settings.model
