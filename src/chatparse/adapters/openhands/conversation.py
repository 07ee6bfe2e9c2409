"""One conversation folder read into a conversation: its state, its events, then its usage."""

from __future__ import annotations

from pathlib import Path

from chatparse.adapter import (
    Ledger,
    SourceAdapter,
    build_conversation,
    new_usage,
    parts_within_wholes,
    require_file,
)
from chatparse.adapters.openhands.events import Draft, read_events
from chatparse.adapters.openhands.locate import BASE_STATE, event_files, folder_of
from chatparse.adapters.openhands.state import ResponseUsage, State, read_state
from chatparse.errors import SourceUnavailableError, UnavailableCause
from chatparse.model import ConversationMeta, ParsedConversation, Usage

__all__ = ["read_conversation"]


def _sum(first: Usage, second: Usage, problems: list[str]) -> Usage:
    """Two usages as one: each count added where either has it; the keys joined.

    Where one lacks a whole the other has (a damaged count), the summed parts can exceed the
    summed whole: such a part is left out and described in ``problems``, as anywhere else.
    """

    def add(a: int | None, b: int | None) -> int | None:
        return None if a is None and b is None else (a or 0) + (b or 0)

    counts = parts_within_wholes(
        {
            "input_tokens": add(first.input_tokens, second.input_tokens),
            "output_tokens": add(first.output_tokens, second.output_tokens),
            "cache_read_tokens": add(first.cache_read_tokens, second.cache_read_tokens),
            "cache_write_tokens": add(first.cache_write_tokens, second.cache_write_tokens),
            "reasoning_tokens": add(first.reasoning_tokens, second.reasoning_tokens),
        },
        problems,
    )
    return new_usage(
        input_tokens=counts["input_tokens"],
        output_tokens=counts["output_tokens"],
        cache_read_tokens=counts["cache_read_tokens"],
        cache_write_tokens=counts["cache_write_tokens"],
        reasoning_tokens=counts["reasoning_tokens"],
        dedup_key=f"{first.dedup_key}+{second.dedup_key}",
    )


def give_usage(drafts: list[Draft], responses: list[ResponseUsage], ledger: Ledger) -> None:
    """Each response's usage to the answer it made, by response id.

    A response no event names (the condenser's, or an LLM that lists only totals) goes to the
    last answer, added to what it has: it was spent in this conversation, and is not lost.
    """
    answers = [d for d in drafts if d.role == "assistant"]
    by_response: dict[str, Draft] = {}
    for answer in answers:  # a response's usage goes to the first answer it made
        if answer.response_id is not None:
            by_response.setdefault(answer.response_id, answer)
    loose: list[ResponseUsage] = []
    for response in responses:
        made = by_response.get(response.response_id) if response.response_id else None
        if made is None or made.usage is not None:
            loose.append(response)
            continue
        made.usage = response.usage
        made.model = made.model or response.model
    if not loose:
        return
    if not answers:
        ledger.warn(f"usage of {len(loose)} response(s) recorded, but no answer to carry it")
        return
    last = answers[-1]
    problems: list[str] = []
    for response in loose:
        summed = (
            response.usage if last.usage is None else _sum(last.usage, response.usage, problems)
        )
        last.usage = summed
        last.model = last.model or response.model
    for problem in problems:
        ledger.warn(f"usage added to the last answer: {problem}")


def _state_record(state: State, ledger: Ledger) -> None:
    if state.malformed is not None:
        ledger.bad(BASE_STATE, state.malformed)
    elif state.present:
        ledger.use()


def _readable(path: str) -> Path:
    """The file a scan named, when it is still there and can be opened."""
    found = require_file(path)
    try:
        with found.open("rb"):
            pass
    except OSError as exc:
        raise SourceUnavailableError(
            path,
            f"cannot read: {exc.strerror or exc}",
            "Check its permissions.",
            UnavailableCause.of(exc),
        ) from exc
    return found


def read_conversation(adapter: SourceAdapter, meta: ConversationMeta) -> ParsedConversation:
    """The conversation of the folder ``meta.path`` is in (its state, or its first event)."""
    folder = folder_of(_readable(meta.path))
    ledger = Ledger()
    state = read_state(folder)
    _state_record(state, ledger)
    events = read_events(event_files(folder))
    give_usage(events.drafts, state.responses(meta.id), ledger)
    for draft in events.drafts:
        if draft.role == "assistant" and draft.model is None:
            draft.model = state.model
    for problem in state.problems:
        ledger.warn(f"{BASE_STATE}: {problem}")
    ledger.merge(events.ledger, "events/")
    return build_conversation(
        adapter,
        meta,
        [draft.freeze() for draft in events.drafts],
        ledger,
        project_path=state.working_dir,
    )
