"""Copilot Chat's own event stream of a session: ``transcripts/<session id>.jsonl``.

One JSON object per line, ``{type, data, id, timestamp, parentId}``, routed by ``type`` through
:data:`_EVENTS`. A transcript is a conversation of its own when no chat session shares its id;
beside one, it only fills what the chat session's tool calls lack (:meth:`Session.merge
<chatparse.adapters.copilot.session.Session.merge>`).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any, Final

from attrs import define

from chatparse.adapter import (
    Ledger,
    SourceAdapter,
    UniqueIds,
    as_datetime,
    as_text,
    build_conversation,
    dig,
)
from chatparse.adapters.copilot.calls import result_text, sent_call
from chatparse.adapters.copilot.drafts import MessageDraft, ToolCallDraft
from chatparse.decoders.jsonl import Malformed, iter_lines
from chatparse.model import ConversationMeta, ParsedConversation

__all__ = ["SKIPPED_EVENTS", "TOLD_BY_SESSION", "Transcript", "read_transcript"]

SKIPPED_EVENTS: Final = frozenset({"assistant.turn_start", "assistant.turn_end"})
"""Transcript events that mark turn boundaries only."""
TOLD_BY_SESSION: Final = "transcript event told by the chat session"
"""Why a transcript event merged into a chat session that filled nothing is skipped."""


@define
class _Where:
    """Where a transcript event is: its id, line and time."""

    id: str
    line_no: int
    timestamp: datetime | None


class Transcript:
    """Copilot Chat's event stream of one session, read event by event.

    The events read into messages are counted in the ledger only by :meth:`settle`, once it is
    known whether they are the conversation or fill a chat session's.
    """

    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger
        self.drafts: list[MessageDraft] = []
        self.calls: dict[str, ToolCallDraft] = {}
        self.lines: dict[int, set[int]] = {}
        """``id(call)``: the lines of the events that told of it."""
        self.read_lines: set[int] = set()
        """The lines of the events read into :attr:`drafts`, to be counted by :meth:`settle`."""
        self.version: str | None = None
        self.started: datetime | None = None
        self.ids = UniqueIds()

    def event(self, event: dict[str, Any], line_no: int) -> bool:
        """Read one event; return whether it was known (read or skipped)."""
        kind, data = event.get("type"), event.get("data")
        # ``isinstance`` first: a list or object as the type is unhashable and crashed the lookup.
        if isinstance(kind, str) and kind in SKIPPED_EVENTS:
            self.ledger.skip(f"transcript event: {kind}")
            return True
        read = _EVENTS.get(kind) if isinstance(kind, str) else None
        if read is None or not isinstance(data, dict):
            return False
        stamp = as_datetime(event.get("timestamp"))
        ident = as_text(event.get("id")) or f"L{line_no}"
        if not read(self, data, _Where(ident, line_no, stamp)):
            return False
        self.read_lines.add(line_no)
        return True

    def session_start(self, data: dict[str, Any], at: _Where) -> bool:
        """``session.start``: when the session began, and the Copilot Chat version."""
        self.version = as_text(data.get("copilotVersion"))
        self.started = as_datetime(data.get("startTime")) or at.timestamp
        return True

    def user_message(self, data: dict[str, Any], at: _Where) -> bool:
        """``user.message``: a prompt."""
        content = data.get("content")
        if not isinstance(content, str):
            return False
        draft = MessageDraft(id=self.ids.take(at.id), role="user", timestamp=at.timestamp)
        draft.pieces.append(content)
        self.drafts.append(draft)
        return True

    def assistant_message(self, data: dict[str, Any], at: _Where) -> bool:
        """``assistant.message``: an answer, with the tool calls it requested."""
        draft = MessageDraft(id=self.ids.take(at.id), role="assistant", timestamp=at.timestamp)
        draft.pieces.append(as_text(data.get("content")) or "")
        for request in data.get("toolRequests") or ():
            call = self._call(request, at.line_no)
            if call is not None:
                draft.calls.append(call)
        self.drafts.append(draft)
        return True

    def tool_started(self, data: dict[str, Any], at: _Where) -> bool:
        """``tool.execution_start``: the arguments of a requested call."""
        call = self._known_call(data, at)
        if call is not None and call.input is None:
            call.input = data.get("arguments")
        return call is not None

    def tool_completed(self, data: dict[str, Any], at: _Where) -> bool:
        """``tool.execution_complete``: a requested call's result and success."""
        call = self._known_call(data, at)
        if call is None:
            return False
        if isinstance(data.get("success"), bool):
            call.is_error = not data["success"]
        call.output = call.output or result_text(data.get("result"))
        return True

    def _known_call(self, data: dict[str, Any], at: _Where) -> ToolCallDraft | None:
        call = self.calls.get(as_text(data.get("toolCallId")) or "")
        if call is not None:
            self.lines.setdefault(id(call), set()).add(at.line_no)
        return call

    def _call(self, request: object, line_no: int) -> ToolCallDraft | None:
        name, ident = as_text(dig(request, "name")), as_text(dig(request, "toolCallId"))
        if name is None:
            return None
        call = sent_call(ident, name, dig(request, "arguments"))
        if ident is not None:
            call.keys.add(ident)
            self.calls[ident] = call
        self.lines[id(call)] = {line_no}
        return call

    def settle(self, filled: set[int] | None = None) -> Ledger:
        """Count the events read, once, and return the ledger.

        Read alone (``filled`` is ``None``), every event read went into the conversation. Merged
        into a chat session, only the events on the lines in ``filled`` did; the others told
        what the chat session already holds.
        """
        used = self.read_lines if filled is None else self.read_lines & filled
        self.ledger.use(len(used))
        told = len(self.read_lines) - len(used)
        if told:
            self.ledger.skip(TOLD_BY_SESSION, told)
        return self.ledger

    def conversation(self, meta: ConversationMeta, adapter: SourceAdapter) -> ParsedConversation:
        """The transcript as a conversation of its own, titled by its first prompt."""
        ledger = self.settle()
        return build_conversation(
            adapter,
            meta,
            [draft.freeze() for draft in self.drafts],
            ledger,
            created_at=self.started,
            producer_version=self.version,
        )


_EVENTS: Final[dict[str, Callable[[Transcript, dict[str, Any], _Where], bool]]] = {
    "session.start": Transcript.session_start,
    "user.message": Transcript.user_message,
    "assistant.message": Transcript.assistant_message,
    "tool.execution_start": Transcript.tool_started,
    "tool.execution_complete": Transcript.tool_completed,
}
"""The reader of each type of event; it returns whether the event had what its type needs."""


def read_transcript(path: Path, ledger: Ledger) -> Transcript:
    """Read a ``transcripts/<id>.jsonl`` event stream; a bad line is malformed and skipped.

    The events read into messages are counted in ``ledger`` by the transcript's
    :meth:`~Transcript.settle`, once it is known what they went into.
    """
    transcript = Transcript(ledger)
    for record in iter_lines(path):
        if isinstance(record, Malformed) or not isinstance(record.value, dict):
            ledger.bad()
            continue
        if not transcript.event(record.value, record.line_no):
            ledger.keep_span(
                f"line {record.line_no}",
                as_text(record.value.get("type")),
                path,
                start=record.offset,
                end=record.end_offset,
            )
    return transcript
