"""Kimi CLI's logs: ``wire.jsonl`` (the event log, read when present) and ``context.jsonl``.

``wire.jsonl``: a ``{"type": "metadata", "protocol_version"}`` header (absent before protocol
1.2: those files are 1.1), then ``{timestamp: <unix seconds>, message: {type, payload}}``, one
event per line, as the UI saw them, stream pieces already merged. It is complete and
append-only: ``/undo`` and compaction cut the context, never the wire. Each step (one model
call) becomes one answer: its ``ContentPart`` texts and reasoning, its ``ToolCall`` calls, and
the ``token_usage`` of its ``StatusUpdate``.

``context.jsonl``: the model's context, ``{role, content, tool_calls?, tool_call_id?}`` per
line plus ``_system_prompt``, ``_checkpoint`` and ``_usage`` markers. No times and no usage; it
is read only for a session without a wire (written before the wire existed, or damaged).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

from attrs import define, field

from chatparse.adapter import (
    MessageDraft,
    PendingCall,
    as_epoch,
    as_nonempty_text,
    as_text,
    dig,
)
from chatparse.adapters.kimi.parts import Parts, Transcript, arguments, read_parts, token_usage
from chatparse.decoders.jsonl import Line

__all__ = ["read_context", "read_wire"]


@define
class _Wire:
    """A wire being read: the transcript, and the step whose answer is being written."""

    transcript: Transcript = field(factory=Transcript)
    step: MessageDraft | None = None
    step_started: Line | None = None
    raw_arguments: dict[int, str] = field(factory=dict)
    calls: list[PendingCall] = field(factory=list)

    def answer(self, line: Line) -> MessageDraft:
        """The current step's answer, begun at its first content."""
        if self.step is None:
            started = self.step_started or line
            self.step = self.transcript.add(
                f"line-{started.line_no}",
                role="assistant",
                timestamp=as_epoch(dig(started.value, "timestamp"), "s"),
            )
        return self.step

    def end_step(self, line: Line | None = None) -> None:
        self.step, self.step_started = None, line


def _prompt(wire: _Wire, payload: dict[str, Any], line: Line) -> str | None:
    parts = read_parts(payload.get("user_input"))
    if parts is None:
        return "a prompt whose user_input is neither text nor parts"
    wire.end_step()
    wire.transcript.add(
        f"line-{line.line_no}",
        role="user",
        text="\n".join(parts.text),
        images=parts.images,
        timestamp=as_epoch(dig(line.value, "timestamp"), "s"),
    )
    return None


def _step_begin(wire: _Wire, _payload: dict[str, Any], line: Line) -> str | None:
    wire.end_step(line)
    return None


def _content(wire: _Wire, payload: dict[str, Any], line: Line) -> str | None:
    parts = Parts()
    parts.add(payload)
    parts.extend(wire.answer(line))
    return None


def _tool_call(wire: _Wire, payload: dict[str, Any], line: Line) -> str | None:
    name = as_nonempty_text(dig(payload, "function", "name"))
    if name is None:
        return "a tool call without a name"
    call = wire.transcript.tools.call(as_nonempty_text(payload.get("id")), name)
    wire.answer(line).calls.append(call)
    wire.calls.append(call)
    wire.raw_arguments[id(call)] = as_text(dig(payload, "function", "arguments")) or ""
    return None


def _tool_call_part(wire: _Wire, payload: dict[str, Any], _line: Line) -> str | None:
    if not wire.calls:
        return "a piece of tool arguments before any tool call"
    key = id(wire.calls[-1])
    wire.raw_arguments[key] += as_text(payload.get("arguments_part")) or ""
    return None


def _tool_result(wire: _Wire, payload: dict[str, Any], line: Line) -> str | None:
    value = payload.get("return_value")
    is_error = dig(value, "is_error")
    output = dig(value, "output")
    if not output and dig(value, "message"):
        output = dig(value, "message")
    wire.transcript.result(
        as_nonempty_text(payload.get("tool_call_id")),
        output,
        f"line {line.line_no}",
        is_error=is_error if isinstance(is_error, bool) else None,
    )
    return None


def _status(wire: _Wire, payload: dict[str, Any], line: Line) -> str | None:
    message_id = as_nonempty_text(payload.get("message_id"))
    usage = token_usage(
        payload.get("token_usage"),
        "snake",
        f"kimi:{message_id or f'{line.line_no}'}",
        wire.transcript.ledger,
    )
    if usage is None:
        wire.transcript.ledger.skip("status update")
        return None
    draft = wire.answer(line)
    draft.usage, draft.request_id = usage, message_id
    wire.transcript.ledger.use()
    return None


_Reader = Callable[[_Wire, dict[str, Any], Line], "str | None"]
_READERS: Final[dict[str, _Reader]] = {
    "TurnBegin": _prompt,
    "SteerInput": _prompt,
    "StepBegin": _step_begin,
    "ContentPart": _content,
    "ToolCall": _tool_call,
    "ToolCallPart": _tool_call_part,
    "ToolResult": _tool_result,
    "StatusUpdate": _status,
}
"""The reader of each event; it returns why the event is malformed, or ``None``."""
_COUNTED_BY_READER: Final = frozenset({"ToolResult", "StatusUpdate"})
_NOISE: Final = {
    "TurnEnd": "turn and step markers",
    "StepInterrupted": "turn and step markers",
    "StepRetry": "turn and step markers",
    "CompactionBegin": "compaction markers (the summary is in the context only)",
    "CompactionEnd": "compaction markers (the summary is in the context only)",
    "SubagentEvent": "sub-agent events (read from the sub-agent's own wire)",
    **dict.fromkeys(
        (
            "ApprovalRequest",
            "ApprovalResponse",
            "QuestionRequest",
            "QuestionResponse",
            "HookTriggered",
            "HookResolved",
            "HookRequest",
            "HookResponse",
            "Notification",
            "PlanDisplay",
            "MCPLoadingBegin",
            "MCPLoadingEnd",
            "BtwBegin",
            "BtwEnd",
            "ToolCallRequest",
        ),
        "interface events",
    ),
}
"""Events known and left out, by the reason counted for them."""


def read_wire(path: Path) -> tuple[Transcript, str | None]:
    """The transcript of a ``wire.jsonl``, and its protocol version."""
    wire = _Wire()
    ledger = wire.transcript.ledger
    version = None
    for line in ledger.decoded_lines(path):
        where = f"line {line.line_no}"
        record = line.value
        if dig(record, "type") == "metadata":
            version = as_nonempty_text(record.get("protocol_version"))
            ledger.use()
            continue
        kind = dig(record, "message", "type")
        payload = dig(record, "message", "payload")
        reader = _READERS.get(kind) if isinstance(kind, str) else None
        if reader is not None and isinstance(payload, dict):
            problem = reader(wire, payload, line)
            if problem is not None:
                ledger.bad(where, problem)
            elif kind not in _COUNTED_BY_READER:
                ledger.use()
        elif isinstance(kind, str) and kind in _NOISE:
            ledger.skip(_NOISE[kind])
        elif not isinstance(record, dict):
            ledger.bad(where, "not a JSON object")
        else:
            ledger.keep_span(where, as_text(kind), path, start=line.offset, end=line.end_offset)
    for call in wire.calls:
        call.input = arguments(wire.raw_arguments[id(call)])
    return wire.transcript, version or "1.1"


# --- context.jsonl ---


def _context_message(transcript: Transcript, record: dict[str, Any], line: Line) -> str | None:
    role = record.get("role")
    where = f"line {line.line_no}"
    if role == "tool":
        transcript.result(
            as_nonempty_text(record.get("tool_call_id")), record.get("content"), where
        )
        return None
    parts = read_parts(record.get("content"))
    if parts is None:
        return "a message whose content is neither text nor parts"
    draft = transcript.add(
        f"line-{line.line_no}",
        role="system" if role == "system" else role,
        kind="notice" if role == "system" else "message",
        text="\n".join(parts.text),
        images=parts.images,
        thinking=parts.joined_thinking,
    )
    for request in record.get("tool_calls") or ():
        name = as_nonempty_text(dig(request, "function", "name"))
        if name is not None:
            ident = as_nonempty_text(dig(request, "id"))
            call_input = arguments(dig(request, "function", "arguments"))
            draft.calls.append(transcript.tools.call(ident, name, call_input))
    transcript.ledger.use()
    return None


_CONTEXT_ROLES: Final = frozenset({"user", "assistant", "tool", "system"})
_CONTEXT_MARKERS: Final = {
    "_system_prompt": "system prompt",
    "_checkpoint": "undo checkpoints",
    "_usage": "context size markers (not billing)",
}


def read_context(path: Path) -> Transcript:
    """The transcript of a ``context.jsonl`` (or a flat ``<session id>.jsonl`` before 2025-11)."""
    transcript = Transcript()
    ledger = transcript.ledger
    for line in ledger.decoded_lines(path):
        where = f"line {line.line_no}"
        role = as_text(dig(line.value, "role"))  # a list or an object is no role
        if not isinstance(line.value, dict):
            ledger.bad(where, "not a JSON object")
        elif role in _CONTEXT_ROLES:
            problem = _context_message(transcript, line.value, line)
            if problem is not None:
                ledger.bad(where, problem)
        elif role in _CONTEXT_MARKERS:
            ledger.skip(_CONTEXT_MARKERS[role])
        else:
            ledger.keep_span(where, role, path, start=line.offset, end=line.end_offset)
    return transcript
