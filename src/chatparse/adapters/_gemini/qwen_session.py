"""One Qwen Code session file, from its records to the parsed conversation; and its usage.

**Usage.** ``usageMetadata`` is written only on ``assistant`` records, and a model response that
ended without one (an empty reply Qwen Code retried, a call made by one of its own sub-agents,
such as the memory extractor) leaves no usage there at all. Every response is in the
``ui_telemetry`` records instead (``qwen-code.api_response`` events, whose sums match
``usage_record.jsonl``). So usage is read from them: a response is claimed by the next
``assistant`` record of the main conversation whose own counts agree (before the next prompt),
and its counts are that message's usage; a response no record claimed becomes an ``assistant``
message of its own, with its model, time, counts, its ``response_text`` when recorded, and the
tool calls its ``qwen-code.tool_call`` events name (a sub-agent's are marked
``is_sidechain``). The main conversation's last response, when nothing came after it, is
skipped: its answer may be the next line the tool writes, and a message made of it now would
vanish then. A file without telemetry (older writers) gives each answer its own
``usageMetadata``. The dedup key is the uuid of the record the counts came from, which a
``/branch`` copy keeps.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Final

from chatparse.adapter import (
    SourceAdapter,
    as_datetime,
    as_nonempty_text,
    as_text,
    build_conversation,
)
from chatparse.adapters._gemini.drafts import Draft, Links, freeze_all
from chatparse.adapters._gemini.parts import scrub
from chatparse.adapters._gemini.qwen_reading import CONVERSATION_TYPES, QwenReading, Response
from chatparse.adapters._gemini.qwen_records import ROUTES, SKIPPED_SUBTYPES
from chatparse.adapters._gemini.usage import OPENAI_COMPATIBLE, read_usage
from chatparse.decoders.jsonl import Line, Malformed, iter_lines
from chatparse.model import ConversationMeta, ParsedConversation, Usage

__all__ = ["qwen_conversation", "read_qwen_session"]

_IN_PROGRESS: Final = "response without its answer yet"


def read_qwen_session(path: Path) -> QwenReading:
    """Read a session file; every line lands in one place of the ledger."""
    reading = QwenReading(path)
    for line in iter_lines(path):
        if isinstance(line, Malformed) or not isinstance(line.value, dict):
            reading.ledger.bad()
            continue
        record = line.value
        kind, subtype = record.get("type"), record.get("subtype")
        if not isinstance(kind, str) or not (subtype is None or isinstance(subtype, str)):
            reading.ledger.bad()
            continue
        reading.envelope(record)
        route = ROUTES.get((kind, subtype))
        if route is not None:
            route(reading, line, record)
        elif kind == "system" and subtype in SKIPPED_SUBTYPES:
            reading.ledger.skip(subtype)
        else:
            _keep(reading, line, kind if subtype is None else f"{kind}/{subtype}")
        uuid = as_nonempty_text(record.get("uuid"))
        if kind in CONVERSATION_TYPES and uuid is not None:
            reading.leaf = uuid
    _settle_telemetry(reading)
    return reading


def _keep(reading: QwenReading, line: Line, kind: str) -> None:
    reading.ledger.keep_span(
        f"line {line.line_no}", kind, reading.path, start=line.offset, end=line.end_offset
    )


def _usage(reading: QwenReading, response: Response) -> Usage | None:
    problems: list[str] = []
    usage = read_usage(
        response.event,
        "qwen-telemetry",
        thoughts_in_output=OPENAI_COMPATIBLE,
        dedup_key=response.record,
        problems=problems,
    )
    for problem in problems:
        reading.ledger.warn(f"line {response.line}: {problem}")
    return usage


def _settle_telemetry(reading: QwenReading) -> None:
    """Give each response its message, and each tool event its call (or skip it)."""
    made: dict[str, Draft] = {}  # response id -> the message the last such response made
    for response in reading.responses:
        if response.answer is None and response is reading.pending:
            reading.ledger.skip(_IN_PROGRESS)  # its answer may be the next line written
            continue
        usage = _usage(reading, response)
        if response.answer is not None:
            response.answer.usage = usage or response.answer.usage
        else:
            event = response.event
            draft = reading.new(
                response.record,
                response.line,
                response.parent,
                role="assistant",
                kind="message",
                timestamp=as_datetime(event.get("event.timestamp")) or response.written,
            )
            reading.message_of[response.record] = draft.id
            draft.texts.append(as_text(event.get("response_text")) or "")
            draft.model = as_nonempty_text(event.get("model"))
            draft.usage = usage
            draft.sidechain = response.subagent
            made[str(event.get("response_id"))] = draft
        reading.ledger.use()
    for _line_no, event in reading.tool_events:
        _tool_event(reading, event, made)


def _tool_event(reading: QwenReading, event: Mapping[str, Any], made: Mapping[str, Draft]) -> None:
    """A tool call's telemetry: the call of a response that made a message, or a copy."""
    call_id = as_nonempty_text(event.get("call_id"))
    draft = made.get(str(event.get("response_id")))
    known = call_id is not None and reading.pairing.find(call_id) is not None
    if draft is None or known:
        reading.ledger.skip("ui_telemetry")
        return
    name = as_nonempty_text(event.get("function_name")) or "unknown"
    call = reading.pairing.call(call_id, name, scrub(event.get("function_args"), draft.images))
    success = event.get("success")
    failed = (not success) if isinstance(success, bool) else None
    call.answer(as_text(event.get("error")) if failed else None, is_error=failed)
    draft.calls.append(call)
    reading.ledger.use()


def qwen_conversation(
    adapter: SourceAdapter,
    meta: ConversationMeta,
    reading: QwenReading,
    subagents: Iterable[ParsedConversation] = (),
) -> ParsedConversation:
    """The conversation a read session file holds."""
    drafts = sorted(reading.drafts, key=lambda d: reading.line_of[d.id])
    links = Links(reading.up, reading.message_of)
    parents = {d.id: links.parent(d.id, reading.raw_parent[d.id]) for d in drafts}
    messages, cut = freeze_all(drafts, parents, links.above(reading.leaf))
    if reading.odd:
        count, kinds = sum(reading.odd.values()), ", ".join(sorted(reading.odd))
        reading.ledger.warn(f"{count} content part(s) of unknown kind were not read ({kinds})")
    if cut:
        reading.ledger.warn(
            f"{cut} message(s) had parents in a loop; the link closing each was cut"
        )
    return build_conversation(
        adapter,
        meta,
        messages,
        reading.ledger,
        title=reading.titles[-1] if reading.titles else None,
        project_path=reading.cwd,
        git_branch=reading.git_branch,
        producer_version=reading.version,
        subagents=subagents,
    )
