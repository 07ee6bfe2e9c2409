"""The event files of one conversation, read in index order into message drafts.

Each file is one event, tagged by ``kind``:

* ``MessageEvent``: ``llm_message`` (``role``, ``content`` parts: ``text``, ``image`` with
  ``image_urls``; ``reasoning_content``, ``thinking_blocks``), a prompt or an answer.
* ``ActionEvent``: a tool call the model made (``tool_call`` with ``arguments`` as JSON text,
  ``tool_call_id``, ``action``), with the text written before it (``thought``), its reasoning
  and the ``llm_response_id`` of the response. Actions of one response are one answer.
* ``ObservationEvent``, ``UserRejectObservation``, ``AgentErrorEvent``: a tool's result, a
  refusal, a failure; paired to the call by ``tool_call_id``, else by ``action_id`` (the id of
  the action event).
* ``Condensation`` and ``CondensationSummaryEvent``: compaction summaries.
* ``SystemPromptEvent``, ``PauseEvent``, ``ConversationStateUpdateEvent``,
  ``CondensationRequest``: known, not part of the conversation (skipped).

Any other kind is kept raw. Times are ISO text without a zone (the machine's local time), so
none is read as a time.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

from attrs import define, field

from chatparse.adapter import (
    ImagePart,
    Ledger,
    MessageDraft,
    PendingCall,
    ToolCallPairing,
    UniqueIds,
    as_nonempty_text,
    as_text,
    content_text,
    dig,
    drop_payloads,
    image_at,
)
from chatparse.decoders.value import Invalid, decode
from chatparse.model import ImageRef, MessageKind, Role

__all__ = ["Draft", "Events", "read_events"]

_ROLES: Final[dict[str, tuple[Role, MessageKind]]] = {
    "user": ("user", "message"),
    "assistant": ("assistant", "message"),
    "system": ("system", "notice"),
}
"""A message event's ``llm_message.role``, as the message it becomes."""
_SOURCES: Final[dict[str, str]] = {"user": "user", "agent": "assistant"}
"""The event's ``source``, for a message whose ``llm_message`` has no role."""
_SKIPPED: Final = {
    "SystemPromptEvent": "system prompt",
    "PauseEvent": "pause",
    "ConversationStateUpdateEvent": "state update",
    "CondensationRequest": "condensation request",
}
"""Event kinds that are known and not part of the conversation, with the reason counted."""


@define(kw_only=True, eq=False)
class Draft(MessageDraft):
    """A message being read, with the response whose usage it takes."""

    response_id: str | None = None


@define
class Events:
    """What the event files of one conversation have given so far."""

    ledger: Ledger = field(factory=Ledger)
    ids: UniqueIds = field(factory=UniqueIds)
    tools: ToolCallPairing = field(factory=ToolCallPairing)
    drafts: list[Draft] = field(factory=list)
    by_action: dict[str, PendingCall] = field(factory=dict)
    """Each call by the id of the action event that made it."""
    answer: Draft | None = None
    """The answer the last action event went into, while the next one may join it."""

    def add(self, ident: str, role: Role, kind: MessageKind, **fields: Any) -> Draft:
        """A message of its own; an answer being built by actions is complete."""
        draft = Draft(id=self.ids.take(ident), role=role, kind=kind, **fields)
        self.drafts.append(draft)
        self.answer = None
        return draft


def _images(part: dict[str, Any]) -> list[tuple[str, ImageRef]]:
    """An ``image`` part: the placeholder and reference of each of its ``image_urls``."""
    return [image_at(url) for url in part.get("image_urls") or () if isinstance(url, str)]


_IMAGES: Final[dict[str, ImagePart]] = {"image": _images}


def text_and_images(content: object) -> tuple[str, list[ImageRef]]:
    """Text and images of a string or of ``text`` and ``image`` parts (others are ignored)."""
    return content_text(content, _IMAGES) or ("", [])


def _thinking(*holders: object) -> str | None:
    """``reasoning_content`` and the ``thinking`` of ``thinking_blocks``, of each holder."""
    texts = []
    for holder in holders:
        texts.append(as_nonempty_text(dig(holder, "reasoning_content")))
        blocks = dig(holder, "thinking_blocks")
        texts += [as_nonempty_text(dig(b, "thinking")) for b in blocks or () if b]
    return "\n\n".join(t.strip() for t in texts if t and t.strip()) or None


def _message(events: Events, event: dict[str, Any], ident: str) -> str | None:
    message = event.get("llm_message")
    if not isinstance(message, dict):
        return "a message event without llm_message"
    role = as_text(message.get("role")) or _SOURCES.get(as_text(event.get("source")) or "")
    mapped = _ROLES.get(role or "")
    if mapped is None:
        return f"a message of role {role!r}"
    text, images = text_and_images(message.get("content"))
    response = as_nonempty_text(event.get("llm_response_id"))
    events.add(
        ident,
        *mapped,
        text=text,
        images=images,
        thinking=_thinking(message, event) if mapped[0] == "assistant" else None,
        request_id=response,
        response_id=response,
    )
    return None


def _arguments(event: dict[str, Any]) -> object:
    """The call's arguments: ``tool_call.arguments`` decoded, else the ``action`` itself."""
    arguments = dig(event, "tool_call", "arguments")
    if isinstance(arguments, str):
        decoded = decode(arguments) if arguments.strip() else arguments
        arguments = arguments if isinstance(decoded, Invalid) else decoded
    if arguments is None:
        action = event.get("action")
        arguments = (
            {k: v for k, v in action.items() if k != "kind"} if isinstance(action, dict) else None
        )
    return drop_payloads(arguments)[0]


def _action(events: Events, event: dict[str, Any], ident: str) -> str | None:
    name = as_nonempty_text(event.get("tool_name")) or as_nonempty_text(
        dig(event, "tool_call", "name")
    )
    if name is None:
        return "an action event without a tool name"
    call_id = as_nonempty_text(event.get("tool_call_id")) or as_nonempty_text(
        dig(event, "tool_call", "id")
    )
    call = events.tools.call(call_id, name, _arguments(event))
    if (action_id := as_nonempty_text(event.get("id"))) is not None:
        events.by_action[action_id] = call
    thought, images = text_and_images(event.get("thought"))
    thinking = _thinking(event)
    response = as_nonempty_text(event.get("llm_response_id"))
    answer = events.answer
    if answer is not None and response is not None and answer.response_id == response:
        answer.text = "\n\n".join(filter(None, [answer.text, thought]))
        answer.thinking = "\n\n".join(filter(None, [answer.thinking, thinking])) or None
        answer.images += images
        answer.calls.append(call)
        return None
    draft = events.add(
        ident,
        "assistant",
        "message",
        text=thought,
        images=images,
        thinking=thinking,
        calls=[call],
        request_id=response,
        response_id=response,
    )
    events.answer = draft
    return None


def _result(
    events: Events, event: dict[str, Any], ident: str, text: str, *, is_error: bool | None
) -> None:
    """Give a result to the call it answers; an orphan is kept as a message of its own."""
    text = drop_payloads(text)[0]
    call_id = as_nonempty_text(event.get("tool_call_id"))
    call = events.tools.find(call_id) if call_id is not None else None
    if call is None:
        call = events.by_action.get(as_nonempty_text(event.get("action_id")) or "")
    if call is None:
        events.add(ident, "user", "tool_result", text=text)
        events.ledger.use()
    elif call.answer(text, is_error=is_error):
        events.ledger.use()
    else:
        events.ledger.skip("repeated tool result")  # the first result stays


def _observation(events: Events, event: dict[str, Any], ident: str) -> str | None:
    observation = event.get("observation")
    if not isinstance(observation, dict):
        return "an observation event without an observation"
    text, _images = text_and_images(observation.get("content"))
    is_error = observation.get("is_error")
    _result(events, event, ident, text, is_error=is_error if isinstance(is_error, bool) else None)
    return None


def _rejection(events: Events, event: dict[str, Any], ident: str) -> str | None:
    reason = as_nonempty_text(event.get("rejection_reason")) or "rejected by the user"
    _result(events, event, ident, reason, is_error=True)
    return None


def _agent_error(events: Events, event: dict[str, Any], ident: str) -> str | None:
    error = as_text(event.get("error"))
    if error is None:
        return "an agent error without an error"
    if as_nonempty_text(event.get("tool_call_id")) is None:
        events.add(ident, "system", "notice", text=error)
        events.ledger.use()
        return None
    _result(events, event, ident, error, is_error=True)
    return None


def _summary(events: Events, event: dict[str, Any], ident: str) -> str | None:
    summary = as_nonempty_text(event.get("summary"))
    if summary is None:
        events.ledger.skip("condensation without a summary")
        return None
    events.add(ident, "system", "compaction_summary", text=summary)
    events.ledger.use()
    return None


_Reader = Callable[[Events, dict[str, Any], str], "str | None"]
_READERS: Final[dict[str, _Reader]] = {
    "MessageEvent": _message,
    "ActionEvent": _action,
    "ObservationEvent": _observation,
    "UserRejectObservation": _rejection,
    "AgentErrorEvent": _agent_error,
    "Condensation": _summary,
    "CondensationSummaryEvent": _summary,
}
"""The reader of each event kind; it returns why the event is malformed, or ``None``."""
_COUNTED_BY_READER: Final = frozenset(
    {"ObservationEvent", "UserRejectObservation", "AgentErrorEvent"}
    | {"Condensation", "CondensationSummaryEvent"}
)


def _read_one(events: Events, index: int, path: Path) -> None:
    where = path.name
    try:
        raw = path.read_bytes()
    except OSError as exc:
        events.ledger.bad(where, f"cannot be read ({exc.strerror or exc})")
        return
    event = decode(raw)
    if isinstance(event, Invalid):
        events.ledger.bad(where, event.reason)
        return
    if not isinstance(event, dict):
        events.ledger.bad(where, "not a JSON object")
        return
    kind = as_text(event.get("kind"))
    if kind in _SKIPPED:
        events.ledger.skip(_SKIPPED[kind])
        return
    reader = _READERS.get(kind or "")
    if reader is None:
        events.ledger.keep(where, kind, raw.decode("utf-8", errors="replace"))
        return
    ident = as_nonempty_text(event.get("id")) or f"event-{index}"
    problem = reader(events, event, ident)
    if problem is not None:
        events.ledger.bad(where, problem)
    elif kind not in _COUNTED_BY_READER:
        events.ledger.use()


def read_events(files: list[tuple[int, Path]]) -> Events:
    """Read the event files, in the order given (their index), into drafts."""
    events = Events()
    for index, path in files:
        _read_one(events, index, path)
    return events
