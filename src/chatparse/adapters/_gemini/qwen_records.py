"""What each Qwen Code record becomes, routed by its ``type`` and ``subtype``.

* ``user`` records are prompts (``mid_turn_user_message`` and ``realtime_message`` too); their
  text is ``systemPayload.displayText`` (what was typed) when recorded, else the text parts
  without the ``<qwen:user-prompt-submit-context>`` hook context. ``notification``, ``cron``
  and ``goal_runtime`` ones are text the tool sent on its own: ``notice`` messages.
* ``assistant`` records are answers: text, ``thought`` parts, ``functionCall`` parts, model and
  ``usageMetadata``. A record repeating the uuid of an earlier record of its type adds to that
  message.
* ``tool_result`` records answer calls by id (``functionResponse`` parts, ``toolCallResult``);
  a record whose results answer no call seen is a ``tool_result`` message.
* ``system`` records: ``custom_title`` (the last one is the title), ``chat_compression`` (a
  ``compaction_summary``), ``slash_command`` (a ``command`` and its output),
  ``background_task_completed`` (a notice), ``ui_telemetry`` (see
  :mod:`~chatparse.adapters._gemini.qwen_session`); the bookkeeping subtypes in
  :data:`SKIPPED_SUBTYPES` are skipped, and any other subtype is kept raw.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

from chatparse.adapter import as_datetime, as_nonempty_text, as_text, dig, title_from
from chatparse.adapters._gemini.parts import Parts, read_parts, response_output, scrub
from chatparse.adapters._gemini.qwen_reading import QwenReading, Response
from chatparse.adapters._gemini.usage import OPENAI_COMPATIBLE, read_usage
from chatparse.decoders.jsonl import Line
from chatparse.decoders.text import strip_tags
from chatparse.model import MessageKind

__all__ = ["ROUTES", "SKIPPED_SUBTYPES"]

_HOOK_CONTEXT: Final = ("qwen:user-prompt-submit-context",)
_EVENT: Final = "event.name"
_RESPONSE_EVENT: Final = "qwen-code.api_response"
_TOOL_EVENT: Final = "qwen-code.tool_call"

SKIPPED_SUBTYPES: Final = frozenset(
    {
        "agent_bootstrap",
        "agent_launch_prompt",
        "agent_retry",
        "agent_session_ready",
        "at_command",
        "attribution_snapshot",
        "branch_checkpoint",
        "file_history_snapshot",
        "goal_state",
        "goal_turn_end",
        "managed_session_commit_v1",
        "managed_session_event_v1",
        "managed_session_header_v1",
        "omni_recall",
        "parent_session",
        "rewind",
        "session_approval_mode",
        "session_artifact_event",
        "session_artifact_snapshot",
        "session_execution_engine",
        "session_model",
        "session_notes",
        "session_source",
        "session_sources_snapshot",
        "turn_result",
        "user_text_elements",
    }
)
"""System records that hold the tool's own state (snapshots, settings, lineage, markers): known,
and left out of the conversation. ``rewind`` is among them: the tree already shows a rewind."""

_FAILED: Final[Mapping[str, bool]] = {"success": False, "error": True, "cancelled": True}

Route = Callable[[QwenReading, Line, dict[str, Any]], None]


def _parts(record: Mapping[str, Any]) -> Parts:
    return read_parts(dig(record, "message", "parts"))


def _typed(record: Mapping[str, Any], parts: Parts) -> Parts:
    """Keep the text a person typed: ``displayText``, else the parts' without hook context.

    Image placeholders stay.
    """
    shown = as_nonempty_text(dig(record, "systemPayload", "displayText"))
    if shown is not None:
        parts.texts = [shown, *(t for t in parts.texts if t.startswith("[image:"))]
    else:
        parts.texts = [strip_tags(t, _HOOK_CONTEXT) if "<qwen:" in t else t for t in parts.texts]
    return parts


def _visible(parts: Parts) -> bool:
    return bool(parts.images) or any(text.strip() for text in parts.texts)


def _user(kind: MessageKind) -> Route:
    def read(reading: QwenReading, line: Line, record: dict[str, Any]) -> None:
        parts = _typed(record, _parts(record))
        if kind == "message":
            reading.pending = None  # a new turn: an unclaimed response stays unclaimed
        orphans = _answer(reading, record, parts.responses)
        if not (_visible(parts) or parts.responses):
            reading.ledger.skip("empty message")
            return
        if _visible(parts):
            reading.add(line, record, "user", kind, parts)
        if orphans:
            uuid = as_nonempty_text(record.get("uuid")) or f"line-{line.line_no}"
            parent = as_nonempty_text(record.get("parentUuid"))
            stamp = as_datetime(record.get("timestamp"))
            orphan = reading.new(
                f"{uuid}:results",
                line.line_no,
                parent,
                role="user",
                kind="tool_result",
                timestamp=stamp,
            )
            orphan.texts += orphans
        reading.ledger.use()

    return read


def _answer_turn(reading: QwenReading, line: Line, record: dict[str, Any]) -> None:
    parts = _parts(record)
    draft = reading.add(line, record, "assistant", "message", parts)
    draft.model = as_nonempty_text(record.get("model")) or draft.model
    uuid = as_nonempty_text(record.get("uuid"))
    problems: list[str] = []
    own = read_usage(
        record.get("usageMetadata"),
        "api",
        thoughts_in_output=OPENAI_COMPATIBLE,
        dedup_key=uuid,
        problems=problems,
    )
    for problem in problems:
        reading.ledger.warn(f"line {line.line_no}: {problem}")
    draft.usage = own or draft.usage
    for call in parts.calls:
        name = as_nonempty_text(call.get("name")) or "unknown"
        arguments = scrub(call.get("args"), draft.images)
        draft.calls.append(reading.pairing.call(as_nonempty_text(call.get("id")), name, arguments))
    pending = reading.pending
    if pending is not None and not draft.sidechain and _same(pending.event, record):
        pending.answer, reading.pending = draft, None
    reading.ledger.use()


def _same(event: Mapping[str, Any], record: Mapping[str, Any]) -> bool:
    """Whether a response's telemetry counts agree with an assistant record's own."""
    own = record.get("usageMetadata")
    if not isinstance(own, dict):
        return True
    pairs = (
        ("input_token_count", "promptTokenCount"),
        ("output_token_count", "candidatesTokenCount"),
    )
    return all(event.get(a) == own.get(b) for a, b in pairs if a in event and b in own)


def _answer(
    reading: QwenReading, record: Mapping[str, Any], responses: list[dict[str, Any]]
) -> list[str]:
    """Pair ``functionResponse`` parts (or a bare ``toolCallResult``) into their calls.

    Returns the texts of the results that answered no call seen.
    """
    result = record.get("toolCallResult")
    summary = result if isinstance(result, dict) else {}
    status = summary.get("status")
    failed = _FAILED.get(status) if isinstance(status, str) else None
    display = summary.get("resultDisplay")
    call_id = as_nonempty_text(summary.get("callId"))
    if not responses and call_id is not None:
        responses = [{"id": call_id, "response": {"output": as_text(display) or ""}}]
    orphans: list[str] = []
    for response in responses:
        output, is_error = response_output(response)
        structured = scrub(display, []) if display not in (None, "", output) else None
        call = reading.pairing.answer(
            as_nonempty_text(response.get("id")) or call_id,
            output,
            is_error=failed if failed is not None else is_error,
            result=structured,
        )
        if call is None:
            orphans.append(output or "")
    return orphans


def _results(reading: QwenReading, line: Line, record: dict[str, Any]) -> None:
    orphans = _answer(reading, record, _parts(record).responses)
    if orphans:
        reading.add(line, record, "user", "tool_result", Parts(texts=orphans))
    reading.ledger.use()


def _telemetry(reading: QwenReading, line: Line, record: dict[str, Any]) -> None:
    event = dig(record, "systemPayload", "uiEvent")
    name = event.get(_EVENT) if isinstance(event, dict) else None
    if name == _RESPONSE_EVENT:
        uuid = as_nonempty_text(record.get("uuid")) or f"line-{line.line_no}"
        response = Response(
            record=uuid,
            parent=as_nonempty_text(record.get("parentUuid")),
            line=line.line_no,
            event=event,
            subagent=bool(event.get("subagent_name")),
            written=as_datetime(record.get("timestamp")),
        )
        reading.responses.append(response)
        if not response.subagent:
            reading.pending = response
    elif name == _TOOL_EVENT:
        reading.tool_events.append((line.line_no, event))
    else:
        reading.ledger.skip("ui_telemetry")
    # A response or tool event is counted once the file is read (see qwen_session).


def _title(reading: QwenReading, _line: Line, record: dict[str, Any]) -> None:
    title = title_from(as_text(dig(record, "systemPayload", "customTitle")))
    if title is None:
        reading.ledger.skip("empty title")
        return
    reading.titles.append(title)
    reading.ledger.use()


def _compression(reading: QwenReading, line: Line, record: dict[str, Any]) -> None:
    history = dig(record, "systemPayload", "compressedHistory")
    first = history[0] if isinstance(history, list) and history else None
    parts = read_parts(dig(first, "parts"))
    reading.add(line, record, "system", "compaction_summary", parts)
    reading.ledger.use()


def _slash(reading: QwenReading, line: Line, record: dict[str, Any]) -> None:
    payload = record.get("systemPayload")
    payload = payload if isinstance(payload, dict) else {}
    items = payload.get("outputHistoryItems")
    if payload.get("phase") == "result":
        shown = items if isinstance(items, list) else []
        texts = [as_text(item.get("text")) or "" for item in shown if isinstance(item, dict)]
        kind: MessageKind = "command_output"
    else:
        texts, kind = [as_text(payload.get("rawCommand")) or ""], "command"
    if not any(text.strip() for text in texts):
        reading.ledger.skip("slash_command")
        return
    reading.add(line, record, "user", kind, Parts(texts=texts))
    reading.ledger.use()


def _system_notice(reading: QwenReading, line: Line, record: dict[str, Any]) -> None:
    text = as_text(dig(record, "systemPayload", "displayText")) or ""
    if not text.strip():
        reading.ledger.skip("empty message")
        return
    reading.add(line, record, "system", "notice", Parts(texts=[text]))
    reading.ledger.use()


ROUTES: Final[Mapping[tuple[str, str | None], Route]] = {
    ("user", None): _user("message"),
    ("user", "mid_turn_user_message"): _user("message"),
    ("user", "realtime_message"): _user("message"),
    ("user", "notification"): _user("notice"),
    ("user", "cron"): _user("notice"),
    ("user", "goal_runtime"): _user("notice"),
    ("assistant", None): _answer_turn,
    ("assistant", "realtime_message"): _answer_turn,
    ("tool_result", None): _results,
    ("system", "ui_telemetry"): _telemetry,
    ("system", "custom_title"): _title,
    ("system", "chat_compression"): _compression,
    ("system", "slash_command"): _slash,
    ("system", "background_task_completed"): _system_notice,
}
"""Each known (type, subtype) and its reader; :data:`SKIPPED_SUBTYPES` of ``system`` aside."""
