"""Token usage: one per response, and which of its copies counts, across a session's files."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from chatparse.adapter import Ledger, as_token_count, new_usage
from chatparse.adapters.claude_code.draft import Draft
from chatparse.model import Usage

__all__ = ["count_usages", "settle_usages", "usage_key"]

_COUNTS = (
    "input_tokens",
    "output_tokens",
    "cache_read_input_tokens",
    "cache_creation_input_tokens",
)


def count_usages(transcripts: Iterable[tuple[Iterable[Draft], Ledger]]) -> None:
    """Mark which copy of each response's usage is counted, across a session and its agents.

    ``transcripts`` are the drafts of each file with its ledger, which is told of any count that
    is no count. The key is (``message.id``, ``requestId``), or
    ``message.id`` alone when there is no request id. Of the copies sharing a key, the last
    non-sidechain copy is counted (else the last copy). A sidechain copy of a response that
    also has a non-sidechain copy under another request id is a replay (side questions re-send
    the parent's messages) and is not counted.
    """
    copies: dict[str, list[Draft]] = {}
    main_responses: set[str] = set()
    problems: dict[int, tuple[Ledger, list[str]]] = {}
    for drafts, ledger in transcripts:
        noted = problems.setdefault(id(ledger), (ledger, []))[1]
        _group(drafts, noted, copies, main_responses)
    for key, drafts in copies.items():
        _count_copies(key, drafts, main_responses, counted_elsewhere=False)
    for ledger, noted in problems.values():
        for problem in sorted(set(noted)):
            ledger.warn(f"{problem} ({noted.count(problem)} line(s))")


def settle_usages(drafts: Iterable[Draft], counted_elsewhere: Callable[[str], bool]) -> None:
    """:func:`count_usages` for a stream: ``drafts`` are every copy of some responses in a file.

    Every message that carries one of their API message ids is among ``drafts``; the session's
    other files (its sub-agents') are asked through ``counted_elsewhere``: whether a copy under
    a key is written there, which then counts instead of a side-chain copy here.
    """
    copies: dict[str, list[Draft]] = {}
    main_responses: set[str] = set()
    _group(drafts, [], copies, main_responses)  # a stream keeps no diagnostics
    for key, group in copies.items():
        _count_copies(key, group, main_responses, counted_elsewhere=counted_elsewhere(key))


def usage_key(draft: Draft) -> str | None:
    """The key copies of one response's usage share: ``message.id[:requestId]``."""
    if draft.api_id is None:
        return None
    return draft.api_id if draft.request_id is None else f"{draft.api_id}:{draft.request_id}"


def _group(
    drafts: Iterable[Draft],
    noted: list[str],
    copies: dict[str, list[Draft]],
    main_responses: set[str],
) -> None:
    """Sort the drafts with a usage into ``copies`` by key; one without a key is counted."""
    for draft in drafts:
        if draft.usage_raw is None:
            continue
        draft.problems = noted
        key = usage_key(draft)
        if key is None:  # nothing to match copies by: counted
            draft.usage = _usage(draft.usage_raw, noted, dedup_key=None, counted=True)
            draft.usage_raw = None
            continue
        copies.setdefault(key, []).append(draft)
        if not draft.is_sidechain and draft.api_id is not None:
            main_responses.add(draft.api_id)


def _count_copies(
    key: str, drafts: list[Draft], main_responses: set[str], *, counted_elsewhere: bool
) -> None:
    """Give each copy under ``key`` its usage; the one that counts is decided here."""
    main = [draft for draft in drafts if not draft.is_sidechain]
    winner = main[-1] if main else None if counted_elsewhere else drafts[-1]
    for draft in drafts:
        replayed = draft.is_sidechain and not main and draft.api_id in main_responses
        counted = draft is winner and not replayed
        draft.usage = _usage(draft.usage_raw or {}, draft.problems, dedup_key=key, counted=counted)
        draft.usage_raw = None  # the API's whole usage object; only the counts are kept


def _usage(
    raw: Mapping[str, Any], problems: list[str], *, dedup_key: str | None, counted: bool
) -> Usage | None:
    """Token counts of one response, in the meaning every source shares.

    Anthropic's API reports the uncached prompt (``input_tokens``) apart from the prompt read
    from and written to the cache; chatparse's ``input_tokens`` is all three, and the cache
    counts are its parts. Without the uncached count the whole prompt is not known: ``None``.
    ``thinking_tokens`` is a part of ``output_tokens``.
    """
    details = raw.get("output_tokens_details")
    counts = (
        *(as_token_count(raw.get(name), problems, f"usage.{name}") for name in _COUNTS),
        as_token_count(details.get("thinking_tokens"), problems, "usage.thinking_tokens")
        if isinstance(details, dict)
        else None,
    )
    if counts == (None, None, None, None, None):
        return None
    uncached, _output, cache_read, cache_write, _reasoning = counts
    prompt = None if uncached is None else uncached + (cache_read or 0) + (cache_write or 0)
    return new_usage(
        input_tokens=prompt,
        output_tokens=counts[1],
        cache_read_tokens=counts[2],
        cache_write_tokens=counts[3],
        reasoning_tokens=counts[4],
        dedup_key=dedup_key,
        counted=counted,
    )
