"""One session folder read into a conversation: summary, chat history, then the update log."""

from __future__ import annotations

from pathlib import Path

from chatparse.adapter import Ledger, SourceAdapter, build_conversation, is_file
from chatparse.adapters.grok_build.history import Draft, History, read_history
from chatparse.adapters.grok_build.locate import CHAT_HISTORY, SUMMARY, UPDATES, read_summary
from chatparse.adapters.grok_build.updates import Offer, Timeline, read_updates
from chatparse.adapters.grok_build.usage import turn_usage
from chatparse.errors import SourceUnavailableError
from chatparse.model import ConversationMeta, ParsedConversation

__all__ = ["read_session"]


def _timed(draft: Draft, offer: Offer | None) -> None:
    """Give ``draft`` the time ``offer`` holds, when it has none and the offer has one."""
    if offer is not None and offer.value is not None and draft.timestamp is None:
        draft.timestamp = offer.take()


def apply_timeline(
    timeline: Timeline, drafts: list[Draft], session_id: str, *, counted: bool
) -> None:
    """Give the drafts the times and turn usage of the update log (see :mod:`.updates`).

    A prompt takes its turn's start; an answer with tool calls, the time of its first call, and
    each answered call whether it failed; the last answer of a turn without calls, the time its
    text began. The turn's usage goes to its last answer.
    """
    last_answers: dict[int, Draft] = {}
    for draft in drafts:
        if draft.prompt is not None and (turn := timeline.turns.get(draft.prompt)) is not None:
            _timed(draft, turn.started)
        if draft.role == "assistant" and draft.kind == "message":
            _answer(timeline, draft)
            if draft.turn is not None:
                last_answers[draft.turn] = draft
    for index, last in last_answers.items():
        turn = timeline.turns.get(index)
        if turn is None:
            continue
        if not last.calls:
            _timed(last, turn.answer)
        if turn.usage:
            payloads = {key: offer.take() for key, offer in turn.usage.items()}
            last.usage = turn_usage(payloads, session_id, timeline.ledger, counted=counted)


def _answer(timeline: Timeline, draft: Draft) -> None:
    """An answer's time from its first tool call, and whether each answered call failed."""
    first = next((c.id for c in draft.calls if c.id in timeline.call_times), None)
    if first is not None:
        _timed(draft, timeline.call_times[first])
    for call in draft.calls:
        outcome = timeline.call_outcomes.get(call.id or "")
        if outcome is not None and call.answered and call.is_error is None:
            call.is_error = outcome.take()


def read_session(
    adapter: SourceAdapter,
    meta: ConversationMeta,
    subagents: list[ParsedConversation],
    *,
    counted: bool = True,
) -> ParsedConversation:
    """The conversation in the session folder ``meta.path``.

    ``counted``: whether its usage counts in totals; a sub-agent's does not, because Grok Build
    folds a sub-agent's usage into the turn of its parent that started it.
    """
    if not is_file(Path(meta.path)):
        raise SourceUnavailableError(
            meta.path, "no such file", "Scan again: the session was moved or deleted."
        )
    folder = Path(meta.path).parent
    ledger = Ledger()
    summary = read_summary(folder)
    if summary is not None and summary.malformed is not None:
        ledger.bad(SUMMARY, summary.malformed)
    elif summary is not None:
        ledger.use()
    history = History()
    if is_file(folder / CHAT_HISTORY):
        read_history(folder / CHAT_HISTORY, history)
    if is_file(folder / UPDATES):
        timeline = read_updates(folder / UPDATES)
        apply_timeline(timeline, history.drafts, meta.id, counted=counted)
        ledger.merge(timeline.settle(), f"{UPDATES}: ")
    ledger.merge(history.ledger, f"{CHAT_HISTORY}: ")
    return build_conversation(
        adapter,
        meta,
        [draft.freeze() for draft in history.drafts],
        ledger,
        title=summary.title if summary is not None else None,
        project_path=summary.cwd if summary is not None else None,
        git_branch=summary.text("head_branch") if summary is not None else None,
        created_at=summary.created_at if summary is not None else None,
        updated_at=summary.updated_at if summary is not None else None,
        subagents=subagents,
    )
