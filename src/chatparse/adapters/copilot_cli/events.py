"""The event log (``events.jsonl``, and the flat ``<id>.jsonl`` of the first releases).

One JSON object per line, ``{type, data, id, timestamp, parentId}``; each line is one record,
routed by ``type`` through :data:`READERS`. ``parentId`` names the event before (the log is one
linear chain), so messages are a plain list. Events with ``data.parentToolCallId`` belong to the
sub-agent run that the tool call ``parentToolCallId`` started.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any, Final, NamedTuple

from chatparse.adapter import (
    as_count,
    as_datetime,
    as_nonempty_text,
    as_text,
    dig,
    new_image,
    strip_images,
)
from chatparse.adapters.copilot_cli.drafts import Session, arguments_of
from chatparse.adapters.copilot_cli.usage import shutdown_totals
from chatparse.model import ImageRef

__all__ = ["READERS", "SKIPPED", "read_events"]


class Event(NamedTuple):
    """One event's envelope: its id, time, line and the sub-agent run it belongs to."""

    id: str
    timestamp: datetime | None
    line: int
    agent: str | None


SKIPPED: Final = {
    "system.message": "system prompt",
    "assistant.turn_start": "turn boundary",
    "assistant.turn_end": "turn boundary",
    "assistant.message_delta": "streaming delta",
    "assistant.usage": "usage of one call (the session totals count it)",
    "session.resume": "session resumed",
    "session.idle": "session idle",
    "session.truncation": "context truncation counters",
    "session.compaction_start": "compaction started",
    "session.usage_checkpoint": "premium request counters",
    "session.auto_mode_resolved": "model routing",
    "hook.start": "hook",
    "hook.end": "hook",
    "tool.execution_partial_result": "partial tool output",
    "tool.execution_progress": "tool progress",
}
"""Events that are known and tell nothing the conversation needs, by the reason they are
skipped."""


def _start(session: Session, data: dict[str, Any], _at: Event) -> bool:
    session.version = as_nonempty_text(data.get("copilotVersion")) or session.version
    session.started = as_datetime(data.get("startTime")) or session.started
    session.model = as_nonempty_text(data.get("selectedModel")) or session.model
    session.cwd = as_nonempty_text(dig(data, "context", "cwd")) or session.cwd
    session.branch = as_nonempty_text(dig(data, "context", "branch")) or session.branch
    return True


def _model_change(session: Session, data: dict[str, Any], _at: Event) -> bool:
    model = as_nonempty_text(data.get("newModel"))
    session.model = model or session.model
    return model is not None


def _images(attachments: object) -> list[ImageRef]:
    """Image attachments, as references (their data is never in the log)."""
    if not isinstance(attachments, list):
        return []
    return [
        new_image(media_type=as_nonempty_text(dig(item, "mimeType")))
        for item in attachments
        if dig(item, "type") == "image"
    ]


def _user(session: Session, data: dict[str, Any], at: Event) -> bool:
    content = data.get("content")  # transformedContent adds the CLI's injections: not shown
    if not isinstance(content, str):
        return False
    text, images = strip_images(content)
    session.add(
        at.id,
        "user",
        "message",
        text=text,
        images=[*images, *_images(data.get("attachments"))],
        timestamp=at.timestamp,
        agent=at.agent,
    )
    return True


def _assistant(session: Session, data: dict[str, Any], at: Event) -> bool:
    content = data.get("content")
    if content is not None and not isinstance(content, str):
        return False
    calls = [call for r in data.get("toolRequests") or () if (call := session.call(r)) is not None]
    thinking = "\n\n".join([*session.thinking, *filter(None, [as_text(data.get("reasoningText"))])])
    # The answer takes the id of the reasoning before it: read alone (a log cut after it), that
    # reasoning was an answer of that id.
    wanted = session.thinking_from or at.id
    session.thinking, session.thinking_from = [], None
    text, images = strip_images(content or "")
    session.add(
        wanted,
        "assistant",
        "message",
        text=text,
        images=list(images),
        calls=calls,
        thinking=thinking or None,
        timestamp=at.timestamp,
        agent=at.agent,
        model=as_nonempty_text(data.get("model")) or session.model,
        request_id=as_nonempty_text(data.get("apiCallId"))
        or as_nonempty_text(data.get("requestId")),
        output=as_count(data.get("outputTokens")),
        response=as_nonempty_text(data.get("messageId")) or at.id,
    )
    return True


def _reasoning(session: Session, data: dict[str, Any], at: Event) -> bool:
    text = as_nonempty_text(data.get("content"))
    if text is not None:
        session.thinking.append(text)
        session.thinking_from = session.thinking_from or at.id
    return text is not None


def _tool_start(session: Session, data: dict[str, Any], at: Event) -> bool:
    ident = as_nonempty_text(data.get("toolCallId"))
    call = session.tools.find(ident) if ident is not None else None
    if call is not None:
        if call.input is None:
            call.input = arguments_of(data.get("arguments"))
        return True
    name = as_nonempty_text(data.get("toolName"))
    if name is None:
        return False
    # A call whose request is not in the log (cut by a truncation): an answer of its own.
    started = session.tools.call(ident, name, arguments_of(data.get("arguments")))
    session.add(
        at.id,
        "assistant",
        "message",
        calls=[started],
        timestamp=at.timestamp,
        agent=at.agent,
        model=as_nonempty_text(data.get("model")) or session.model,
    )
    return True


def _result_text(data: dict[str, Any]) -> str | None:
    result = data.get("result")
    text = as_text(dig(result, "content"))
    if text is None:
        text = as_text(dig(result, "detailedContent")) or as_text(result)
    return text if text is not None else as_text(dig(data, "error", "message"))


def _tool_complete(session: Session, data: dict[str, Any], at: Event) -> bool:
    success = data.get("success")
    is_error = (not success) if isinstance(success, bool) else None
    ident = as_nonempty_text(data.get("toolCallId"))
    text = _result_text(data)
    if session.tools.answer(ident, text, is_error=is_error) is None:  # an orphan: kept
        session.add(
            at.id, "user", "tool_result", text=text or "", timestamp=at.timestamp, agent=at.agent
        )
    return True


def _notice(key: str) -> Callable[[Session, dict[str, Any], Event], bool]:
    def read(session: Session, data: dict[str, Any], at: Event) -> bool:
        text = as_nonempty_text(data.get(key))
        if text is None:
            return False
        session.add(at.id, "system", "notice", text=text, timestamp=at.timestamp, agent=at.agent)
        return True

    return read


def _compaction(session: Session, data: dict[str, Any], at: Event) -> bool:
    summary = as_nonempty_text(data.get("summaryContent"))
    if summary is None:
        return data.get("success") is False  # a failed compaction wrote nothing
    session.add(at.id, "system", "compaction_summary", text=summary, timestamp=at.timestamp)
    return True


def _subagent(session: Session, data: dict[str, Any], _at: Event) -> bool:
    ident = as_nonempty_text(data.get("toolCallId"))
    if ident is None:
        return False
    name = as_nonempty_text(data.get("agentDisplayName")) or as_nonempty_text(data.get("agentName"))
    session.agents.setdefault(ident, name or ident)
    return True


def _shutdown(session: Session, data: dict[str, Any], at: Event) -> bool:
    session.shutdowns.append((at.id, shutdown_totals(data)))
    session.segment += 1
    return True


READERS: Final[dict[str, Callable[[Session, dict[str, Any], Event], bool]]] = {
    "session.start": _start,
    "session.model_change": _model_change,
    "user.message": _user,
    "assistant.message": _assistant,
    "assistant.reasoning": _reasoning,
    "tool.execution_start": _tool_start,
    "tool.execution_complete": _tool_complete,
    "session.info": _notice("message"),
    "session.warning": _notice("message"),
    "session.error": _notice("message"),
    "system.notification": _notice("content"),
    "abort": _notice("reason"),
    "session.task_complete": _notice("summary"),
    "session.compaction_complete": _compaction,
    "subagent.started": _subagent,
    "subagent.completed": _subagent,
    "session.shutdown": _shutdown,
}
"""The reader of each event type; it returns whether the event had what its type needs (an
event that has not is kept raw as unknown)."""


def read_events(path: Path, session: Session) -> Session:
    """Read the event log at ``path`` into ``session``; a bad line is malformed."""
    ledger = session.ledger
    for line in ledger.decoded_lines(path):
        where = f"line {line.line_no}"
        record = line.value
        kind = record.get("type") if isinstance(record, dict) else None
        data = record.get("data") if isinstance(record, dict) else None
        if isinstance(kind, str) and kind in SKIPPED:
            ledger.skip(f"{kind}: {SKIPPED[kind]}")
            continue
        reader = READERS.get(kind) if isinstance(kind, str) else None
        at = Event(
            id=as_nonempty_text(dig(record, "id")) or f"line-{line.line_no}",
            timestamp=as_datetime(dig(record, "timestamp")),
            line=line.line_no,
            agent=as_nonempty_text(dig(data, "parentToolCallId")),
        )
        if reader is not None and isinstance(data, dict) and reader(session, data, at):
            ledger.use()
        else:
            ledger.keep_span(
                where,
                kind if isinstance(kind, str) else None,
                path,
                start=line.offset,
                end=line.end_offset,
            )
    if session.thinking:  # reasoning no answer followed: an answer of its own
        session.add(
            session.thinking_from or "reasoning",
            "assistant",
            "message",
            thinking="\n\n".join(session.thinking),
            model=session.model,
        )
    return session
