"""One item of a Continue session's ``history``, read into message drafts.

An item is ``{message, contextItems, editorState?, toolCallStates?, toolCallState?, reasoning?,
promptLogs?, conversationSummary?}``; its ``message.role`` routes it:

* ``user``: a prompt. ``content`` is text or a list of parts (``text``, ``imageUrl``).
  ``contextItems`` (files and snippets attached with ``@``) are what Continue added to the
  prompt, not what was typed: they are not kept.
* ``assistant``: an answer; its ``toolCalls`` (OpenAI-shaped ``function.name/arguments``) are
  answered by the item's ``toolCallStates[]`` (``toolCallState`` before 2025-07), whose
  ``output[].content`` is the result, or by later ``tool`` items. ``reasoning.text`` is its
  thinking and ``reasoning.startAt`` (epoch ms) its time, the only time Continue records per
  message. ``usage`` is its token counts; ``promptLogs[].modelTitle`` the model.
* ``thinking``: the reasoning shown before an answer, merged into that answer.
* ``tool``: a result, for the call ``toolCallId`` names.
* ``system``: a system message, kept as a ``notice``.

``conversationSummary`` on an item is the summary a compaction wrote there: a
``compaction_summary`` message after the item's own.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from attrs import define, field

from chatparse.adapter import (
    ImagePart,
    Ledger,
    MessageDraft,
    ToolCallPairing,
    UniqueIds,
    as_epoch,
    as_nonempty_text,
    as_text,
    content_text,
    dig,
    drop_payloads,
    image_at,
)
from chatparse.adapters.continue_dev.usage import message_usage
from chatparse.decoders.value import Invalid, decode, encode
from chatparse.model import ImageRef

__all__ = ["Reading", "read_item"]

_ERROR_STATES: Final = {"errored": True, "done": False}
_JUNK: Final = "[object Object]"


@define
class Reading:
    """What the items of one session have given so far."""

    session: str
    ledger: Ledger = field(factory=Ledger)
    ids: UniqueIds = field(factory=UniqueIds)
    tools: ToolCallPairing = field(factory=ToolCallPairing)
    drafts: list[MessageDraft] = field(factory=list)
    odd_parts: set[str] = field(factory=set)
    thinking: MessageDraft | None = None
    """The answer that ``thinking`` items started, waiting for the ``assistant`` item that
    completes it (it keeps the id of the first thinking item, so that a file cut short after
    the thinking gives the same message ids as the whole file)."""


def _image_url(part: dict[str, Any]) -> list[tuple[str, ImageRef]]:
    """An ``imageUrl`` part: ``{imageUrl: {url}}``, or (older) ``{imageUrl: url}``."""
    return [image_at(as_text(dig(part, "imageUrl", "url")) or as_text(part.get("imageUrl")) or "")]


_IMAGES: Final[dict[str, ImagePart]] = {"imageUrl": _image_url}


def content_of(content: object, odd: set[str]) -> tuple[str, list[ImageRef]] | None:
    """Text and images of a ``content``; ``None`` when it is neither text nor a list of parts."""
    return ("", []) if content is None else content_text(content, _IMAGES, odd)


def _arguments(value: object) -> Any:
    if isinstance(value, str) and value.strip():
        decoded = decode(value)
        value = value if isinstance(decoded, Invalid) else decoded
    return drop_payloads(value)[0]


def _output(state: dict[str, Any]) -> str | None:
    output = state.get("output")
    if isinstance(output, str):
        output = [{"content": output}]
    if not isinstance(output, list):
        return None
    texts = [t for t in (as_text(dig(item, "content")) for item in output) if t is not None]
    if not texts:
        return None
    text: str = drop_payloads("\n\n".join(texts))[0]
    return text


def _states(item: dict[str, Any]) -> list[dict[str, Any]]:
    plural = item.get("toolCallStates")
    if isinstance(plural, list):
        return [s for s in plural if isinstance(s, dict)]
    single = item.get("toolCallState")  # before parallel tool calls (2025-07)
    return [single] if isinstance(single, dict) else []


def _call(reading: Reading, draft: MessageDraft, request: object) -> None:
    if not isinstance(request, dict):
        reading.ledger.warn_once("tool calls that are not objects were not read")
        return
    name = as_nonempty_text(dig(request, "function", "name")) or "unknown"
    ident = as_nonempty_text(dig(request, "id"))
    arguments = _arguments(dig(request, "function", "arguments"))
    draft.calls.append(reading.tools.call(ident, name, arguments))


def _answer_states(reading: Reading, draft: MessageDraft, item: dict[str, Any]) -> None:
    for state in _states(item):
        ident = as_nonempty_text(state.get("toolCallId"))
        if ident is not None and reading.tools.find(ident) is None:
            _call(reading, draft, state.get("toolCall"))  # a call only its state names
        output = _output(state)
        status = state.get("status")
        if output is None and status not in _ERROR_STATES:
            continue  # still generating or calling, or cancelled: no result
        error = _ERROR_STATES.get(status) if isinstance(status, str) else None
        reading.tools.answer(ident, output, is_error=error)


def _model(item: dict[str, Any]) -> str | None:
    logs = item.get("promptLogs")
    titles = [dig(log, "modelTitle") for log in logs] if isinstance(logs, list) else []
    found = [t for t in titles if isinstance(t, str) and t and t != _JUNK]
    return found[-1] if found else None


@define
class Found:
    """One history item being read: the item, its message, and what its content gave."""

    item: dict[str, Any]
    message: dict[str, Any]
    wanted: str
    """The id its message should have (the message's own, else its place)."""
    text: str
    images: list[ImageRef]


def _new(reading: Reading, wanted: str, role: Any, **fields: Any) -> MessageDraft:
    draft = MessageDraft(id=reading.ids.take(wanted), role=role, **fields)
    reading.drafts.append(draft)
    return draft


def _user(reading: Reading, found: Found) -> None:
    _new(reading, found.wanted, "user", text=found.text, images=found.images)


def _assistant(reading: Reading, found: Found) -> None:
    item = found.item
    draft = reading.thinking or _new(reading, found.wanted, "assistant")
    reading.thinking = None
    draft.text, draft.images = found.text, found.images
    _think(draft, as_text(dig(item, "reasoning", "text")))
    draft.timestamp = as_epoch(dig(item, "reasoning", "startAt"), "ms")
    draft.model = _model(item)
    calls = found.message.get("toolCalls")
    for request in calls if isinstance(calls, list) else ():
        _call(reading, draft, request)
    _answer_states(reading, draft, item)
    problems: list[str] = []
    key = f"continue:{reading.session}:{draft.id}"
    draft.usage = message_usage(found.message.get("usage"), key, problems)
    for problem in problems:
        reading.ledger.warn(f"{draft.id}: {problem}")


def _think(draft: MessageDraft, text: str | None) -> None:
    if text:
        draft.thinking = f"{draft.thinking}\n\n{text}" if draft.thinking else text


def _thinking(reading: Reading, found: Found) -> None:
    # A redacted block (``redactedThinking``) is encrypted: nothing readable to keep.
    reading.thinking = reading.thinking or _new(reading, found.wanted, "assistant")
    _think(reading.thinking, found.text)


def _system(reading: Reading, found: Found) -> None:
    _new(reading, found.wanted, "system", kind="notice", text=found.text, images=found.images)


def _tool(reading: Reading, found: Found) -> None:
    ident = as_nonempty_text(found.message.get("toolCallId"))
    replays = reading.tools.repeated
    if reading.tools.answer(ident, drop_payloads(found.text)[0]) is None:
        _new(
            reading, found.wanted, "user", kind="tool_result", text=found.text, images=found.images
        )
    if reading.tools.repeated > replays:
        reading.ledger.skip("repeated tool result")  # the first result stays
    else:
        reading.ledger.use()


_Reader = Callable[[Reading, Found], None]
_READERS: Final[dict[str, _Reader]] = {
    "user": _user,
    "assistant": _assistant,
    "thinking": _thinking,
    "system": _system,
    "tool": _tool,
}
_COUNTED_BY_READER: Final = frozenset({"tool"})
_ANSWERING: Final = frozenset({"thinking", "assistant"})


def read_item(reading: Reading, item: object, index: int) -> None:
    """Read ``history[index]``: one record."""
    where = f"history[{index}]"
    message = dig(item, "message")
    if not isinstance(item, dict) or not isinstance(message, dict):
        reading.ledger.bad(where, "not a history item with a message")
        return
    role = message.get("role")
    reader = _READERS.get(role) if isinstance(role, str) else None
    if reader is None:
        reading.ledger.keep(where, role if isinstance(role, str) else None, encode(item))
        return
    content = content_of(message.get("content"), reading.odd_parts)
    if content is None:
        reading.ledger.bad(where, "content is neither text nor a list of parts")
        return
    if role not in _ANSWERING:
        reading.thinking = None  # the reasoning shown had no answer after it
    wanted = as_nonempty_text(message.get("id")) or f"history-{index}"
    reader(reading, Found(item, message, wanted, *content))
    summary = as_nonempty_text(item.get("conversationSummary"))
    if summary is not None:
        _new(reading, f"{wanted}-summary", "system", kind="compaction_summary", text=summary)
    if role not in _COUNTED_BY_READER:
        reading.ledger.use()
