"""One thread being read: its state, and the moves that put its records into messages.

:meth:`Thread.feed` takes the records in file order and routes each through the tables of
:mod:`~chatparse.adapters.codex.records`, whose readers call the moves here: a prompt, a piece
of a model response, a notice. :meth:`Thread.conversation` makes the result.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, Final

from chatparse.adapter import Ledger, ToolCallPairing, as_time, build_conversation, prompt_title
from chatparse.adapters.codex.content import INJECTED_CONTEXT, cwd_in_context, typed_request
from chatparse.adapters.codex.drafts import (
    EVENT,
    REASONING,
    TEXT,
    UNKNOWN,
    Copies,
    Draft,
    Replay,
    Shape,
    Turn,
    owner,
)
from chatparse.adapters.codex.records import RECORDS, read_item, read_unknown, session_meta
from chatparse.adapters.codex.usage import TokenLedger
from chatparse.model import ImageRef, MessageKind, Role

if TYPE_CHECKING:
    from chatparse._streaming import IdHorizons
    from chatparse.adapter import SourceAdapter
    from chatparse.decoders.jsonl import Line, Malformed
    from chatparse.model import ConversationMeta, Message, ParsedConversation

__all__ = ["REPLAY_BURST_GAP", "Thread"]

ROLLBACK: Final = "thread_rolled_back"
"""The event that marks earlier turns as a side chain: while one is ahead, nothing settles."""
ECHO: Final = "user_message"
"""The event that echoes a typed prompt (see :meth:`Thread.is_context`)."""

# The replayed parent history at the top of a fork is written in one burst, within
# milliseconds; the fork's own first line follows seconds later.
REPLAY_BURST_GAP: Final = timedelta(seconds=1)


class Thread:
    """The state of one rollout being read; ``feed`` it records in file order."""

    def __init__(self) -> None:
        self.ledger = Ledger()
        self.drafts: list[Draft] = []
        self.id_prefix = "L"
        """Message ids are ``L<line number>``, or ``I<item index>`` in a TypeScript document."""
        self.calls = ToolCallPairing()
        self.turn = Turn()
        self.turn_starts: list[int] = []
        self.model: str | None = None
        self.tokens = TokenLedger()
        self.replay: Replay | None = None
        self.meta_seen = False
        self.id: str | None = None
        self.cwd: str | None = None
        self.branch: str | None = None
        self.version: str | None = None
        self.created_at: datetime | None = None
        self.updated_at: datetime | None = None
        self.thread_name: str | None = None
        self.echoes = False
        """Whether the thread's own typed prompts have ``user_message`` echoes: then a prompt
        item without one is context (:meth:`is_context`)."""
        self.stamp: object = None
        """The current record's raw timestamp, parsed only when something needs it."""
        self.last_stamp: object = None
        self.parsed: tuple[object, datetime | None] = (None, None)
        self.lines_read = 0
        """Lines decoded so far: the first may be an early-Rust rollout's bare meta."""

    @property
    def now(self) -> datetime | None:
        """The current record's time; consecutive records often share one, parsed once."""
        raw, parsed = self.parsed
        if raw is not self.stamp and raw != self.stamp:
            parsed = as_time(self.stamp, "s")
            self.parsed = (self.stamp, parsed)
            if parsed is not None and (self.updated_at is None or parsed > self.updated_at):
                self.updated_at = parsed
        return parsed

    def _latest(self) -> datetime | None:
        """The latest time in the file, the last record's included."""
        self.stamp = self.last_stamp
        return max(filter(None, (self.now, self.updated_at)), default=None)

    # -- taking records --

    def feed(self, value: object, line: int) -> bool:
        """Read one record and account for it; ``False`` when it is unknown.

        The caller then keeps it in the :attr:`ledger`, which knows where its text is. A record
        that went into a message is counted when the message is finished (it may yet end empty).
        """
        if not isinstance(value, dict):
            return False
        kind = value.get("type")
        if "payload" in value and isinstance(kind, str):
            stamp = self.stamp = value.get("timestamp")
            if stamp is not None:
                self.last_stamp = stamp
            if self.replay is not None:
                self._follow_replay()
            payload = value["payload"]
            read = RECORDS.get(kind, read_unknown) if isinstance(payload, dict) else read_unknown
            outcome = read(self, payload, line)
        elif value.get("record_type") == "state":
            outcome = "record_type: state"
        else:  # a bare response item: the early-Rust and TypeScript formats
            self.stamp = None
            outcome = read_item(self, value, line) if isinstance(kind, str) else UNKNOWN
        # Counted here, not in a helper: this runs once per record.
        if outcome is None:
            self.ledger.use()
        elif isinstance(outcome, Draft):
            outcome.records += 1
        elif isinstance(outcome, str):
            self.ledger.skip(outcome)
        else:
            return False
        return True

    def feed_bare_meta(self, meta: Mapping[str, Any]) -> None:
        """The bare first line of an early-Rust rollout, or a TypeScript rollout's session."""
        self.stamp = None
        skipped = session_meta(self, meta, 0)
        if skipped is None:
            self.ledger.use()
        else:
            self.ledger.skip(skipped)

    def _follow_replay(self) -> None:
        """End the replayed burst at the first line written well after the one before it."""
        replay = self.replay
        if replay is None:
            return
        if self.now is None or not (replay.last <= self.now <= replay.last + REPLAY_BURST_GAP):
            self.replay = None
            self.new_turn()
        else:
            replay.last = self.now

    def note_context(self, texts: Iterable[str]) -> None:
        """Injected context: its ``<cwd>`` is the project, unless one is known already."""
        if self.cwd is None:
            self.cwd = cwd_in_context(texts)

    # -- building messages --

    def add(self, line: int, role: Role, kind: MessageKind = "message") -> Draft:
        """A new message, opened by the current record."""
        draft = Draft(line, role, self.now, kind, sidechain=self.replay is not None)
        self.drafts.append(draft)
        return draft

    def new_turn(self) -> None:
        """Later records belong to a new turn; nothing waits for a partner across it."""
        self.turn = Turn(start=len(self.drafts))

    def prompt(self, shape: Shape, text: str, images: tuple[ImageRef, ...], line: int) -> Draft:
        """A typed prompt: the partner of the other copy of it, or the start of a new turn."""
        copies = self.turn.user.partner(shape) if not self.turn.responses else None
        if copies is None:
            self.new_turn()
            self.turn_starts.append(len(self.drafts))
            draft = self.add(line, "user")
            copies = draft.text = Copies()
            self.turn.user.wait(shape, copies)
        draft = self.drafts[self.turn.start]
        copies.put(shape, typed_request(text))
        if shape == EVENT:
            # Only the thread's own echoes count: a sub-agent replays its parent's, echoed,
            # then gets its task as an item alone.
            self.echoes = self.echoes or self.replay is None
            draft.event_images = images
        else:
            draft.item_images = images
        return draft

    def response(self, stage: int, line: int) -> Draft:
        """The model response an item of ``stage`` belongs to: the current one, or a new one."""
        draft = self.turn.current
        if draft is None or draft.closed or stage < draft.stage or stage == draft.stage == TEXT:
            draft = self.add(line, "assistant")
            draft.model = self.model
            self.turn.current = draft
            self.turn.responses.append(draft)
        draft.stage = max(draft.stage, stage)
        return draft

    def answer(self, shape: Shape, text: str, line: int) -> Draft:
        """An answer's text: the partner of its other copy, or the text of a response."""
        copies = self.turn.texts.partner(shape)
        if copies is not None:
            copies.put(shape, text)
            return owner(copies)
        draft = self.response(TEXT, line)
        draft.text = Copies(owner=draft)
        draft.text.put(shape, text)
        self.turn.texts.wait(shape, draft.text)
        return draft

    def thoughts(self, shape: Shape, texts: list[str], line: int) -> Draft:
        """Reasoning summaries, each the partner of its other copy or thinking of a response."""
        draft: Draft | None = None
        for text in texts:
            copies = self.turn.thinking.partner(shape)
            if copies is not None:
                copies.put(shape, text)
                draft = owner(copies)
                continue
            draft = self.response(REASONING, line)
            copies = Copies(owner=draft)
            copies.put(shape, text)
            draft.thinking.append(copies)
            self.turn.thinking.wait(shape, copies)
        return draft or self.response(REASONING, line)

    def end_response(self) -> None:
        """The current response is complete: the next item starts another."""
        if self.turn.current is not None:
            self.turn.current.closed = True
        self.turn.current = None

    def notice(self, text: str, line: int) -> Draft:
        """A notice where it happened (an abort, an error, another agent's message)."""
        draft = self.add(line, "system", "notice")
        draft.text = Copies(text=text)
        return draft

    def compaction(self, summary: str, line: int) -> Draft:
        """The history was compacted: its summary, as a message of its own, starts a new turn."""
        self.end_response()
        self.new_turn()
        draft = self.add(line, "system", "compaction_summary")
        draft.text = Copies(text=summary)
        return draft

    def roll_back(self, turns: int, line: int) -> Draft:
        """The last ``turns`` turns were undone: they stay, marked as a side chain."""
        self.end_response()
        # Context known by its structure opened a turn of its own: it is not a turn undone.
        starts = [i for i in self.turn_starts if not self.is_context(self.drafts[i])]
        if turns and starts:
            first = starts[-min(turns, len(starts))]
            for draft in self.drafts[first:]:
                draft.sidechain = True
        self.new_turn()
        return self.notice(f"Rolled back {turns} turn(s)", line)

    # -- streaming --

    def settled(self, index: int, line: Line | Malformed, horizons: IdHorizons) -> bool:
        """Whether no line after ``line`` can change the message the draft at ``index`` becomes.

        A rollback may mark any earlier turn as a side chain; within its turn a message may
        still get its other copy or its usage; a call waits for its result (by its id); a
        prompt without an echo is context if the thread turns out to echo its prompts.
        """
        draft, offset = self.drafts[index], line.end_offset
        if not horizons.word_passed(ROLLBACK, offset):
            return False
        if index >= self.turn.start and not self._done_in_turn(draft):
            return False
        for call in draft.calls:
            if not call.answered and call.id is not None and not horizons.passed(call.id, offset):
                return False
        return self.echoes or not self._unechoed_prompt(draft) or horizons.word_passed(ECHO, offset)

    def _done_in_turn(self, draft: Draft) -> bool:
        """Whether the rest of the current turn can no longer change ``draft``."""
        turn = self.turn
        if draft is turn.current or (draft.role == "assistant" and draft.usage is None):
            return False  # a token_count goes to the latest response still without usage
        mine = [draft.text, *draft.thinking]
        return not any(
            copies in queue
            for waiting in (turn.user, turn.texts, turn.thinking)
            for queue in (waiting.event, waiting.item)
            for copies in mine
        )

    @staticmethod
    def _unechoed_prompt(draft: Draft) -> bool:
        return (
            draft.role == "user"
            and draft.kind == "message"
            and draft.text is not None
            and not draft.text.from_event
        )

    def release(self, index: int) -> Message | None:
        """The message of the settled draft at ``index``, if it is one; the draft is let go."""
        draft = self.drafts[index]
        self.drafts[index] = _RELEASED
        message = None if self.is_context(draft) else draft.message(self.id_prefix)
        for call in draft.calls:
            # Spent: its result can no longer arrive, and the message holds what it had.
            call.input = call.output = call.result = None
        return message

    # -- the result --

    def is_context(self, draft: Draft) -> bool:
        """Whether a user message is context the harness injected, known by its structure.

        Where typed prompts are echoed by ``user_message`` events, a prompt item that got no
        echo was not typed: AGENTS.md, environment or skill context whose tag a redacted file
        no longer shows (re-injected, identical, after each resume). Only known once every
        record is read: the echo follows its item.
        """
        return (
            self.echoes
            and draft.role == "user"
            and draft.kind == "message"
            and draft.text is not None
            and not draft.text.from_event
        )

    def conversation(self, meta: ConversationMeta, adapter: SourceAdapter) -> ParsedConversation:
        """The conversation read, every record of it accounted for."""
        messages = []
        used = 0  # the records of every message, told to the ledger at once
        for draft in self.drafts:
            message = draft.message(self.id_prefix)
            if self.is_context(draft):
                self.ledger.skip(INJECTED_CONTEXT, draft.records)
            elif message is None:
                self.ledger.skip("empty message", draft.records)
            else:
                used += draft.records
                messages.append(message)
        self.ledger.use(used)
        for problem in sorted(set(self.tokens.problems)):
            count = self.tokens.problems.count(problem)
            self.ledger.warn(f"token_count: {problem} ({count} record(s))")
        own = (m for m in messages if not m.is_sidechain)
        return build_conversation(
            adapter,
            meta,
            messages,
            self.ledger,
            title=meta.title or self.thread_name or prompt_title(own),
            project_path=self.cwd,
            git_branch=self.branch,
            created_at=self.created_at,
            updated_at=self._latest(),
            producer_version=self.version,
        )


_RELEASED: Final = Draft(0, "system", None)
"""What stands in the list of drafts for one whose message was handed out."""
