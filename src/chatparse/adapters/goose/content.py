"""One Goose message (a ``messages`` row, or a line of a legacy session file) into drafts.

A message is ``{role, content: [part...], metadata}``: the parts are tagged by ``type`` and
routed through :data:`_PARTS`. Tool results sit on the next **user** message
(``toolResponse``) and are paired with their call (``toolRequest``) by ``id``; a result whose
call is not in the session becomes a message of kind ``tool_result``. Streamed reasoning is
stored one ``thinking`` part per chunk (often one word): consecutive chunks are joined.

``metadata`` says who sees a message. Compaction keeps the old messages for the user only and
adds a summary (a user message) and a continuation note (an assistant message) for the agent
only: an agent-only user message is read as a ``compaction_summary``, an agent-only assistant
message as a ``notice``; a message neither sees (a prompt Goose re-sent after compacting) is
kept off the main line.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any, Final

from attrs import define, field, frozen

from chatparse.adapter import (
    Ledger,
    MessageDraft,
    ToolCallPairing,
    UniqueIds,
    as_nonempty_text,
    as_text,
    dig,
    drop_payloads,
    image_ref,
    strip_images,
)
from chatparse.decoders.value import Invalid, encode
from chatparse.model import MessageKind, Role, Usage

__all__ = ["Drafting", "Found", "Reading", "read_message"]

_ROLES: Final[dict[str, Role]] = {"user": "user", "assistant": "assistant"}


@define
class Reading:
    """What one conversation's messages have given so far."""

    ledger: Ledger = field(factory=Ledger)
    ids: UniqueIds = field(factory=UniqueIds)
    pairing: ToolCallPairing = field(factory=ToolCallPairing)
    drafts: list[MessageDraft] = field(factory=list)


@frozen
class Found:
    """One message record, its fields already read from its row or line."""

    where: str
    wanted_id: str
    role: object
    content: object
    metadata: object
    timestamp: datetime | None
    model: str | None
    usage: Usage | None


@define
class Drafting:
    """A record being read into a draft: where it goes, and its texts so far."""

    reading: Reading
    draft: MessageDraft
    texts: list[str] = field(factory=list)


@define
class _Turn(Drafting):
    """A message being read: its draft, and its text and reasoning in pieces."""

    thoughts: list[str] = field(factory=list)
    in_thought: bool = False


def _text(turn: _Turn, part: dict[str, Any]) -> None:
    text, images = strip_images(as_text(part.get("text")) or "")
    turn.texts.append(text)
    turn.draft.images += images


def _image(turn: _Turn, part: dict[str, Any]) -> None:
    turn.draft.images.append(image_ref(part.get("mimeType"), part.get("data")))


def _thinking(turn: _Turn, part: dict[str, Any]) -> None:
    chunk = as_text(part.get("thinking")) or ""
    if turn.in_thought:
        turn.thoughts[-1] += chunk
    else:
        turn.thoughts.append(chunk)


def _tool_request(turn: _Turn, part: dict[str, Any]) -> None:
    call = part.get("toolCall")
    value = dig(call, "value")
    name = as_nonempty_text(dig(value, "name")) or "unknown"
    if dig(call, "status") == "error":
        arguments: Any = {"error": dig(call, "error")}
    else:
        arguments, _ = drop_payloads(dig(value, "arguments"))
    pending = turn.reading.pairing.call(as_nonempty_text(part.get("id")), name, arguments)
    turn.draft.calls.append(pending)


def _result_text(items: object) -> str | None:
    """The text of a tool result's content items; images leave a placeholder."""
    if not isinstance(items, list):
        return None
    pieces: list[str] = []
    for item in items:
        kind = dig(item, "type")
        if kind == "text":
            pieces.append(strip_images(as_text(dig(item, "text")) or "")[0])
        elif kind == "image":
            ref = image_ref(dig(item, "mimeType"), dig(item, "data"))
            pieces.append(f"[image: {ref.media_type}, {ref.byte_size} bytes]")
        elif kind == "resource":
            pieces.append(as_text(dig(item, "resource", "text")) or "")
    return "\n".join(pieces)


def _tool_response(turn: _Turn, part: dict[str, Any]) -> None:
    result = part.get("toolResult")
    value = dig(result, "value")
    if dig(result, "status") == "error":  # the call never ran
        output, is_error, structured = as_text(dig(result, "error")), True, None
    elif isinstance(value, list):  # before results carried isError: the content itself
        output, is_error, structured = _result_text(value), False, None
    else:
        flag = dig(value, "isError")
        output = _result_text(dig(value, "content"))
        is_error = flag if isinstance(flag, bool) else False
        structured, _ = drop_payloads(dig(value, "structuredContent"))
    ident = as_nonempty_text(part.get("id"))
    reading = turn.reading
    if reading.pairing.answer(ident, output, is_error=is_error, result=structured) is None:
        orphan = MessageDraft(
            id=reading.ids.take(f"{turn.draft.id}:result:{ident}"),
            role="user",
            kind="tool_result",
            text=output or "",
            timestamp=turn.draft.timestamp,
        )
        reading.drafts.append(orphan)


def _notice(kind: MessageKind) -> Callable[[_Turn, dict[str, Any]], None]:
    def read(turn: _Turn, part: dict[str, Any]) -> None:
        turn.draft.kind = kind
        turn.texts.append(as_text(part.get("msg")) or "")

    return read


def _ignored(turn: _Turn, part: dict[str, Any]) -> None:
    """A part for the interface only (a confirmation prompt), or reasoning withheld."""


_PARTS: Final[dict[str, Callable[[_Turn, dict[str, Any]], None]]] = {
    "text": _text,
    "image": _image,
    "thinking": _thinking,
    "toolRequest": _tool_request,
    "frontendToolRequest": _tool_request,
    "toolResponse": _tool_response,
    "systemNotification": _notice("notice"),
    "contextLengthExceeded": _notice("notice"),
    "summarizationRequested": _notice("notice"),
    "conversationCompacted": _notice("compaction_summary"),
    "redactedThinking": _ignored,
    "toolConfirmationRequest": _ignored,
    "actionRequired": _ignored,
}


def _visibility(draft: MessageDraft, metadata: object) -> None:
    user, agent = dig(metadata, "userVisible"), dig(metadata, "agentVisible")
    if user is False and agent is False:
        draft.is_sidechain = True
    elif user is False and draft.kind == "message":
        draft.kind = "compaction_summary" if draft.role == "user" else "notice"


def read_message(reading: Reading, found: Found) -> None:
    """Read one message record into ``reading`` (it counts the record)."""
    if isinstance(found.content, Invalid):
        reading.ledger.bad(found.where, f"content is not JSON ({found.content.reason})")
        return
    role = _ROLES.get(found.role) if isinstance(found.role, str) else None
    if role is None or not isinstance(found.content, list):
        reading.ledger.keep(found.where, as_text(found.role), _raw(found))
        return
    draft = MessageDraft(
        id=reading.ids.take(found.wanted_id),
        role=role,
        timestamp=found.timestamp,
        model=found.model if role == "assistant" else None,
        usage=found.usage if role == "assistant" else None,
    )
    turn = _Turn(reading=reading, draft=draft)
    for index, part in enumerate(found.content):
        kind = dig(part, "type")
        reader = _PARTS.get(kind) if isinstance(kind, str) else None
        if reader is None:
            reading.ledger.keep(f"{found.where} part {index}", as_text(kind), encode(part))
            turn.in_thought = False
            continue
        reader(turn, part)
        turn.in_thought = reader is _thinking
    reading.ledger.use()
    draft.text = "\n".join(t for t in turn.texts if t)
    draft.thinking = "\n\n".join(turn.thoughts) if turn.thoughts else None
    _visibility(draft, found.metadata)
    if draft.text or draft.thinking or draft.images or draft.calls or draft.kind != "message":
        reading.drafts.append(draft)


def _raw(found: Found) -> str:
    return encode({"role": found.role, "content": found.content, "metadata": found.metadata})
