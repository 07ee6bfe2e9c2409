"""Kimi Code's operation log: ``agents/<agent id>/wire.jsonl``, one operation per line.

Line 1 is ``{"type": "metadata", "protocol_version", "created_at"}``; every other line is
``{type: <operation>, ...payload, time: <unix ms>, agentId?}``. The conversation is rebuilt as
Kimi Code rebuilds it (its ``context-projector``): ``context.append_message`` adds a user, tool
or injected message as it is; ``context.append_loop_event`` carries the model's side, a
``step.begin`` opening an answer that its ``content.part`` and ``tool.call`` events fill and its
``step.end`` closes (with the step's usage and the provider's message id); ``tool.result``
events answer the calls. The model is the ``model`` of the ``llm.request`` before the step;
``usage.record`` repeats the step's usage (or bills a call outside any step, a compaction).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any, Final

from attrs import define, field

from chatparse.adapter import (
    MessageDraft,
    as_count,
    as_epoch,
    as_nonempty_text,
    as_text,
    dig,
)
from chatparse.adapters.kimi.parts import Parts, Transcript, arguments, read_parts, token_usage
from chatparse.decoders.jsonl import Line
from chatparse.model import MessageKind, Role, Usage

__all__ = ["OpLog", "read_oplog"]

_ORIGINS: Final[dict[str, tuple[Role, MessageKind]]] = {
    "user": ("user", "message"),
    "compaction_summary": ("system", "compaction_summary"),
}
"""A user message's ``origin.kind``; any other origin is text the tool injected (a notice)."""
_TASKS: Final = frozenset({"subagent"})
"""``origin.name`` of a ``system_trigger`` that is the task a sub-agent was given: its prompt."""


@define
class OpLog:
    """An operation log being read."""

    key: str
    """The session and agent, for usage keys of steps without a message id."""
    transcript: Transcript = field(factory=Transcript)
    steps: dict[str, MessageDraft] = field(factory=dict)
    model: str | None = None
    cwd: str | None = None
    version: str | None = None
    last_step: MessageDraft | None = None
    loose_usage: list[Usage] = field(factory=list)

    def step(self, uuid: object, line: Line) -> MessageDraft:
        """The answer of step ``uuid``, begun here when its ``step.begin`` is missing."""
        key = uuid if isinstance(uuid, str) else f"line-{line.line_no}"
        draft = self.steps.get(key)
        if draft is None:
            draft = self.transcript.add(
                f"line-{line.line_no}",
                role="assistant",
                timestamp=as_epoch(dig(line.value, "time"), "ms"),
                model=self.model,
            )
            self.steps[key] = draft
        return draft


def _time(line: Line) -> datetime | None:
    return as_epoch(dig(line.value, "time"), "ms")


# --- context.append_loop_event ---


def _step_begin(log: OpLog, event: dict[str, Any], line: Line) -> str | None:
    log.step(event.get("uuid"), line)
    return None


def _content(log: OpLog, event: dict[str, Any], line: Line) -> str | None:
    parts = Parts()
    parts.add(event.get("part"))
    parts.extend(log.step(event.get("stepUuid"), line))
    return None


def _tool_call(log: OpLog, event: dict[str, Any], line: Line) -> str | None:
    name = as_nonempty_text(event.get("name"))
    if name is None:
        return "a tool call without a name"
    ident = as_nonempty_text(event.get("toolCallId"))
    call = log.transcript.tools.call(ident, name, arguments(event.get("args")))
    log.step(event.get("stepUuid"), line).calls.append(call)
    return None


def _tool_result(log: OpLog, event: dict[str, Any], line: Line) -> str | None:
    result = event.get("result")
    is_error = dig(result, "isError")
    log.transcript.result(
        as_nonempty_text(event.get("toolCallId")),
        dig(result, "output"),
        f"line {line.line_no}",
        is_error=is_error if isinstance(is_error, bool) else None,
    )
    return None


def _step_end(log: OpLog, event: dict[str, Any], line: Line) -> str | None:
    draft = log.step(event.get("uuid"), line)
    message_id = as_nonempty_text(event.get("messageId"))
    if message_id is not None:
        draft.request_id = message_id
    usage = token_usage(
        event.get("usage"), "camel", _usage_key(log, draft, line), log.transcript.ledger
    )
    if usage is not None:
        draft.usage = usage
    log.last_step = draft
    return None


def _usage_key(log: OpLog, draft: MessageDraft, line: Line) -> str:
    """``kimi:<provider message id>``, else the agent's log and the line (as Kimi Code has it)."""
    if draft.request_id is not None:
        return f"kimi:{draft.request_id}"
    return f"kimi-code:{log.key}:line-{line.line_no}"


_Reader = Callable[[OpLog, dict[str, Any], Line], "str | None"]
_EVENTS: Final[dict[str, _Reader]] = {
    "step.begin": _step_begin,
    "content.part": _content,
    "tool.call": _tool_call,
    "tool.result": _tool_result,
    "step.end": _step_end,
}
_EVENTS_COUNTED_BY_READER: Final = frozenset({"tool.result"})
_EVENT_NOISE: Final = {
    "step.retrying": "step retries",
    "turn.interrupted": "turn interruptions",
    "text.delta": "stream pieces",
    "thinking.delta": "stream pieces",
    "tool.call.delta": "stream pieces",
    "tool.progress": "tool progress",
}


def _loop_event(log: OpLog, record: dict[str, Any], line: Line) -> str | None:
    event = record.get("event")
    kind = dig(event, "type")
    reader = _EVENTS.get(kind) if isinstance(kind, str) else None
    if reader is not None and isinstance(event, dict):
        problem = reader(log, event, line)
        if problem is None and kind not in _EVENTS_COUNTED_BY_READER:
            log.transcript.ledger.use()
        return problem
    if isinstance(kind, str) and kind in _EVENT_NOISE:
        log.transcript.ledger.skip(_EVENT_NOISE[kind])
        return None
    return _UNKNOWN


# --- operations ---


def _append_message(log: OpLog, record: dict[str, Any], line: Line) -> str | None:
    message = record.get("message")
    role = dig(message, "role")
    where = f"line {line.line_no}"
    if role == "tool":
        log.transcript.result(
            as_nonempty_text(dig(message, "toolCallId")), dig(message, "content"), where
        )
        return None
    parts = read_parts(dig(message, "content"))
    if parts is None or role not in ("user", "assistant", "system"):
        return "a message whose role or content is not one Kimi Code writes"
    kind: MessageKind = "message" if role == "assistant" else "notice"
    if role == "user":
        origin = dig(message, "origin")
        origin_kind = as_text(dig(origin, "kind")) or ""
        role, kind = _ORIGINS.get(origin_kind, ("user", "notice"))
        if origin_kind == "system_trigger" and as_text(dig(origin, "name")) in _TASKS:
            kind = "message"
    draft = log.transcript.add(
        f"line-{line.line_no}",
        role=role,
        kind=kind,
        text="\n".join(parts.text),
        images=parts.images,
        thinking=parts.joined_thinking,
        timestamp=_time(line),
        model=log.model if role == "assistant" else None,
    )
    for request in dig(message, "toolCalls") or ():
        name = as_nonempty_text(dig(request, "name"))
        if name is not None:
            ident = as_nonempty_text(dig(request, "id"))
            draft.calls.append(
                log.transcript.tools.call(ident, name, arguments(dig(request, "arguments")))
            )
    log.transcript.ledger.use()
    return None


def _usage_record(log: OpLog, record: dict[str, Any], line: Line) -> str | None:
    step, ledger = log.last_step, log.transcript.ledger
    log.last_step = None
    if step is not None and step.usage is not None and record.get("usageScope") == "turn":
        ledger.skip("usage records repeating their step's usage")
        return None
    key = (
        _usage_key(log, step, line)
        if step is not None
        else f"kimi-code:{log.key}:line-{line.line_no}"
    )
    usage = token_usage(record.get("usage"), "camel", key, ledger)
    if usage is None:
        return "a usage record without token counts"
    if step is not None and step.usage is None:
        step.usage = usage
        ledger.use()
    else:  # counted when a compaction summary takes it, or at the end
        log.loose_usage.append(usage)
    return None


def _compaction(log: OpLog, record: dict[str, Any], line: Line) -> str | None:
    summary = as_text(record.get("summary"))
    if summary is None:
        return "a compaction without a summary"
    draft = log.transcript.add(
        f"line-{line.line_no}",
        role="system",
        kind="compaction_summary",
        text=summary,
        timestamp=_time(line),
    )
    if log.loose_usage:  # the compaction's own model call, billed just before
        draft.usage = log.loose_usage.pop()
        log.transcript.ledger.use()
    log.transcript.ledger.use()
    return None


def _undo(log: OpLog, record: dict[str, Any], _line: Line) -> str | None:
    """Take the last ``count`` prompts, and everything after them, off the main line."""
    count = as_count(record.get("count"))
    if count is None:
        return "an undo without a count"
    for draft in reversed(log.transcript.drafts):
        if count == 0 or draft.kind == "compaction_summary":
            break
        if draft.is_sidechain or draft.kind == "notice":
            continue
        draft.is_sidechain = True
        if draft.role == "user" and draft.kind == "message":
            count -= 1
    log.transcript.ledger.use()
    return None


def _settings(log: OpLog, record: dict[str, Any], _line: Line) -> str | None:
    cwd = as_nonempty_text(record.get("cwd")) or as_nonempty_text(
        dig(record, "environmentDisclosure", "cwd")
    )
    log.cwd = cwd or log.cwd
    log.transcript.ledger.use()
    return None


def _request(log: OpLog, record: dict[str, Any], _line: Line) -> str | None:
    log.model = as_nonempty_text(record.get("model")) or as_nonempty_text(record.get("modelAlias"))
    # The request follows its step's step.begin: the step's answer is by this model.
    opened = next(reversed(log.steps.values()), None)
    if opened is not None and opened.model is None:
        opened.model = log.model
    log.transcript.ledger.use()
    return None


def _header(log: OpLog, record: dict[str, Any], _line: Line) -> str | None:
    log.version = as_nonempty_text(record.get("protocol_version"))
    log.transcript.ledger.use()
    return None


_UNKNOWN: Final = "\x00unknown"
"""What a reader returns for a record it does not know after all: kept raw by the caller."""
_OPERATIONS: Final[dict[str, _Reader]] = {
    "metadata": _header,
    "config.update": _settings,
    "profile.bind": _settings,
    "llm.request": _request,
    "context.append_message": _append_message,
    "context.append_loop_event": _loop_event,
    "usage.record": _usage_record,
    "context.apply_compaction": _compaction,
    "context.undo": _undo,
}
"""The reader of each operation; it returns why the record is malformed, or ``None``. Each
counts its record itself."""
_NOISE: Final = {
    "turn.prompt": "prompts (their messages follow in the context)",
    "turn.steer": "prompts (their messages follow in the context)",
    "turn.cancel": "turn markers",
    "turn.ended": "turn markers",
    "context.clear": "context clears (the history before stays)",
    "context.update_token_count": "context size markers (not billing)",
    "micro_compaction.apply": "compaction markers",
    "forked": "fork markers",
    "llm.tools_snapshot": "tool lists",
}
_NOISE_FAMILIES: Final = {
    "tools.": "tool lists",
    "permission.": "permission and mode changes",
    "plan_mode.": "permission and mode changes",
    "swarm_mode.": "permission and mode changes",
    "full_compaction.": "compaction markers",
    "goal.": "goals",
    "plugin.": "runtime events",
    "runtime.": "runtime events",
    "mcp.": "runtime events",
    "token_counting.": "context size markers (not billing)",
}
"""Operations known and left out, by name and by family, with the reason counted."""


def _noise(kind: str) -> str | None:
    reason = _NOISE.get(kind)
    if reason is None:
        family = kind.partition(".")[0] + "."
        reason = _NOISE_FAMILIES.get(family)
    return reason


def read_oplog(path: Path, key: str) -> OpLog:
    """Read one agent's ``wire.jsonl``; ``key`` names the session and agent."""
    log = OpLog(key=key)
    ledger = log.transcript.ledger
    for line in ledger.decoded_lines(path):
        where = f"line {line.line_no}"
        record = line.value
        if not isinstance(record, dict):
            ledger.bad(where, "not a JSON object")
            continue
        kind = record.get("type")
        if kind != "usage.record":  # a step's usage record follows its step.end at once
            log.last_step = None
        reader = _OPERATIONS.get(kind) if isinstance(kind, str) else None
        reason = _noise(kind) if isinstance(kind, str) and reader is None else None
        problem = reader(log, record, line) if reader is not None else _UNKNOWN
        if reason is not None:
            ledger.skip(reason)
        elif problem == _UNKNOWN:
            ledger.keep_span(where, as_text(kind), path, start=line.offset, end=line.end_offset)
        elif problem is not None:
            ledger.bad(where, problem)
    if log.loose_usage:
        ledger.skip("usage records outside any step or compaction", len(log.loose_usage))
        ledger.warn(
            f"{len(log.loose_usage)} usage record(s) outside any step or compaction; not kept"
        )
    return log
