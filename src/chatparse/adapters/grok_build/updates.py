"""``updates.jsonl``: the session's notification log, read for the times and usage of its turns.

One line per notification, appended as it was sent: ``{timestamp: <unix seconds>, method:
"session/update" | "_x.ai/session/update", params: {sessionId, update: {sessionUpdate: <kind>,
...}}}``. The messages themselves are read from ``chat_history.jsonl``; this log gives what that
file lacks:

* **when each prompt was sent**: the first ``user_message_chunk`` of a run of them opens the
  turn of its ``_meta.promptIndex`` (written since Grok Build stamps chunks; before that, the
  next index in order). Chunks marked ``_meta.hostTurn`` are the tool's own wake-ups, not
  prompts. A ``rewind_marker`` sets the next index back to its ``target_prompt_index``: the log
  is append-only, so the turns after it replace the rewound ones.
* **when each tool call was made**: the first ``tool_call`` with that ``toolCallId``; and
  **whether it failed**: its first ``tool_call_update`` with status ``completed`` or ``failed``
  (the chat history's tool results do not say).
* **when the final answer of a turn began**: the first ``agent_message_chunk`` or
  ``agent_thought_chunk`` after the turn's last tool event (or after its prompt).
* **each turn's usage**: ``turn_completed.usage``, by ``prompt_id``; a later copy for the same
  ``prompt_id`` replaces an earlier one.

A line is used when what it offered went into a message, and skipped (``update: <kind>``)
otherwise: the rest of the log retells what the chat history holds, or is UI state.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any, Final, NamedTuple

from attrs import define, field

from chatparse.adapter import Ledger, as_count, as_epoch, as_nonempty_text, as_text, dig

__all__ = ["Offer", "Timeline", "Turn", "Where", "read_updates"]


@define
class Offer:
    """A value one line offers a message: taken, the line is used; else it is skipped."""

    line: int
    kind: str
    value: Any
    taken: bool = False

    def take(self) -> Any:
        """The value, its line now used."""
        self.taken = True
        return self.value


@define
class Turn:
    """One prompt's turn: when it started, when its final answer began, and its usage."""

    started: Offer
    answer: Offer | None = None
    waiting_for_answer: bool = True
    usage: dict[str, Offer] = field(factory=dict)
    """``turn_completed`` offers by ``prompt_id``, the last copy of each."""


@define
class Timeline:
    """What ``updates.jsonl`` says of the session's turns."""

    ledger: Ledger = field(factory=Ledger)
    turns: dict[int, Turn] = field(factory=dict)
    call_times: dict[str, Offer] = field(factory=dict)
    call_outcomes: dict[str, Offer] = field(factory=dict)
    """``toolCallId`` to whether the call failed, from its final ``tool_call_update``."""
    offers: list[Offer] = field(factory=list)
    next_prompt: int = 0
    current: Turn | None = None
    in_prompt: bool = False
    skipped: Counter[str] = field(factory=Counter)

    def offer(self, at: Where, value: Any = None) -> Offer:
        """An offer from the line ``at``: its time, or ``value`` when given."""
        made = Offer(at.line, at.kind, at.time if value is None else value)
        self.offers.append(made)
        return made

    def settle(self) -> Ledger:
        """Count every line: used when its offer was taken, skipped otherwise."""
        for made in self.offers:
            if made.taken:
                self.ledger.use()
            else:
                self.skipped[made.kind] += 1
        for kind, count in sorted(self.skipped.items()):
            self.ledger.skip(f"update: {kind}", count)
        self.offers, self.skipped = [], Counter()
        return self.ledger


class Where(NamedTuple):
    """A notification's line, kind and time."""

    line: int
    kind: str
    time: datetime | None


def _user_chunk(timeline: Timeline, update: dict[str, Any], at: Where) -> bool:
    if dig(update, "_meta", "hostTurn") is True:  # the tool's own wake-up, not a prompt
        timeline.in_prompt = False
        return False
    index = as_count(dig(update, "_meta", "promptIndex"))
    if timeline.in_prompt and index in (None, timeline.next_prompt - 1):
        return False  # a further chunk of the same prompt
    index = timeline.next_prompt if index is None else index
    timeline.in_prompt = True
    turn = Turn(started=timeline.offer(at))
    timeline.turns[index] = turn
    timeline.current, timeline.next_prompt = turn, index + 1
    return True


def _agent_chunk(timeline: Timeline, _update: dict[str, Any], at: Where) -> bool:
    timeline.in_prompt = False
    turn = timeline.current
    if turn is None or not turn.waiting_for_answer:
        return False
    turn.answer, turn.waiting_for_answer = timeline.offer(at), False
    return True


def _tool_call(timeline: Timeline, update: dict[str, Any], at: Where) -> bool:
    _tool_event(timeline)
    ident = as_nonempty_text(update.get("toolCallId"))
    if ident is None or ident in timeline.call_times:
        return False
    timeline.call_times[ident] = timeline.offer(at)
    return True


def _tool_call_update(timeline: Timeline, update: dict[str, Any], at: Where) -> bool:
    status = update.get("status")
    if status not in ("completed", "failed"):
        return False
    _tool_event(timeline)
    ident = as_nonempty_text(update.get("toolCallId"))
    if ident is None or ident in timeline.call_outcomes:
        return False
    timeline.call_outcomes[ident] = timeline.offer(at, status == "failed")
    return True


def _tool_event(timeline: Timeline) -> None:
    """A tool ran: the answer, if any, comes after it."""
    timeline.in_prompt = False
    if timeline.current is not None:
        timeline.current.answer, timeline.current.waiting_for_answer = None, True


def _rewind(timeline: Timeline, update: dict[str, Any], _at: Where) -> bool:
    target = as_count(update.get("target_prompt_index"))
    if target is not None:
        for rewound in [index for index in timeline.turns if index >= target]:
            del timeline.turns[rewound]  # their lines are skipped: nothing takes their offers
        timeline.next_prompt, timeline.current, timeline.in_prompt = target, None, False
    return False


def _turn_completed(timeline: Timeline, update: dict[str, Any], at: Where) -> bool:
    usage = update.get("usage")
    turn = timeline.current
    if not isinstance(usage, dict) or turn is None:
        return False
    key = as_nonempty_text(update.get("prompt_id")) or f"turn-{timeline.next_prompt - 1}"
    replaced = turn.usage.pop(key, None)
    if replaced is not None:
        timeline.offers.remove(replaced)
        timeline.skipped["turn_completed (replaced by a later copy)"] += 1
    turn.usage[key] = timeline.offer(at, usage)
    return True


_Reader = Callable[[Timeline, dict[str, Any], Where], bool]
_READERS: Final[dict[str, _Reader]] = {
    "user_message_chunk": _user_chunk,
    "agent_message_chunk": _agent_chunk,
    "agent_thought_chunk": _agent_chunk,
    "tool_call": _tool_call,
    "tool_call_update": _tool_call_update,
    "rewind_marker": _rewind,
    "turn_completed": _turn_completed,
}
"""The readers of the kinds that give times or usage; each returns whether its line made an
offer. Every other kind of notification is skipped by kind."""
_METHODS: Final = frozenset({"session/update", "_x.ai/session/update"})


def read_updates(path: Path) -> Timeline:
    """Read ``updates.jsonl`` at ``path`` into a :class:`Timeline` (settle it when applied)."""
    timeline = Timeline()
    for line in timeline.ledger.decoded_lines(path):
        record = line.value
        update = dig(record, "params", "update")
        kind = as_text(dig(update, "sessionUpdate"))
        if kind is None or as_text(dig(record, "method")) not in _METHODS:
            shown = as_text(dig(record, "method")) if isinstance(record, dict) else None
            timeline.ledger.keep_span(
                f"line {line.line_no}", shown, path, start=line.offset, end=line.end_offset
            )
            continue
        reader = _READERS.get(kind)
        at = Where(line.line_no, kind, as_epoch(record.get("timestamp"), "s"))
        if reader is None or not reader(timeline, update, at):
            timeline.skipped[kind] += 1
    return timeline
