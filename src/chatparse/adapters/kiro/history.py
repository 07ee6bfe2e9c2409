"""The CLI database's ``ConversationState``: one JSON document per conversation, read into drafts.

The document is the CLI's Rust state serialised by serde, so its enums are externally tagged
(``{"Prompt": {...}}``) and its fields are snake_case:

* ``history``: the turns, each ``{user, assistant, request_metadata}`` (older builds: a pair
  ``[user, assistant]``). ``user.content`` is ``Prompt {prompt}``, ``ToolUseResults
  {tool_use_results}`` or ``CancelledToolUses {prompt, tool_use_results}``; ``user.timestamp``
  is RFC 3339 with an offset (absent in old builds); ``user.images`` are ``{format, source:
  {Bytes: [...]}}``. ``assistant`` is ``Response {message_id, content}`` or ``ToolUse
  {message_id, content, tool_uses: [{id, name, args, ...}]}``. ``request_metadata`` has the
  request id, the model and the stream's end (unix ms).
* ``latest_summary``: ``[summary, request_metadata]`` after a ``/compact``.
* ``next_message``: a prompt not yet answered.
* ``tangent_state``: the main history kept aside while a tangent runs (not read).
* ``model_info.model_id`` (``model`` before): the model chosen for the conversation.

The ``transcript`` (the terminal's rendering of the same turns) and the tool, context and
checkpoint state are not read.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from chatparse.adapter import (
    as_datetime,
    as_epoch,
    as_nonempty_text,
    as_text,
    dig,
    drop_payloads,
    new_image,
)
from chatparse.adapters.kiro.common import Reading, structured_text
from chatparse.decoders.value import encode
from chatparse.model import ImageRef

__all__ = ["StateInfo", "read_state"]

_CANCELLED: Final = "the tool use was cancelled"
_ANSWERS: Final = frozenset({"Response", "ToolUse"})


class StateInfo:
    """What the document says of the conversation as a whole."""

    def __init__(self, state: dict[str, Any]) -> None:
        self.model = as_nonempty_text(dig(state, "model_info", "model_id")) or as_nonempty_text(
            state.get("model")
        )
        self.cwd: str | None = None
        """The working directory of the first prompt that recorded one."""


def _variant(value: object) -> tuple[str, dict[str, Any]] | None:
    """An externally tagged enum: its one variant name and fields."""
    if isinstance(value, dict) and len(value) == 1:
        ((name, fields),) = value.items()
        if isinstance(fields, dict):
            return str(name), fields
    return None


def _images(user: dict[str, Any]) -> tuple[str, list[ImageRef]]:
    """A prompt's images: references (the byte arrays measured, never kept) and placeholders."""
    found = []
    for image in user.get("images") or ():
        kind = as_text(dig(image, "format"))
        media = f"image/{kind.lower()}" if kind else None
        data = dig(image, "source", "Bytes")
        found.append(
            new_image(media_type=media, byte_size=len(data) if isinstance(data, list) else None)
        )
    text = "\n".join(f"[image: {i.media_type or 'unknown'}, {i.byte_size} bytes]" for i in found)
    return text, found


def _result_text(result: dict[str, Any]) -> str:
    """A result's ``content`` blocks (``{"Text": ...}`` or ``{"Json": ...}``) as one text."""
    parts = []
    for block in result.get("content") or ():
        if isinstance(block, dict) and len(block) == 1:
            ((name, value),) = block.items()
            text = value if name == "Text" and isinstance(value, str) else structured_text(value)
            parts.append(text)
    return "\n".join(parts)


def _results(reading: Reading, results: object, ident: str) -> None:
    for result in results if isinstance(results, list) else ():
        if not isinstance(result, dict):
            continue
        status = as_text(result.get("status"))
        is_error = None if status is None else status == "Error"
        call_id = as_nonempty_text(result.get("tool_use_id"))
        reading.result(call_id, _result_text(result), is_error=is_error, ident=f"{ident}-result")


def _prompt(reading: Reading, user: dict[str, Any], text: str, ident: str, info: StateInfo) -> None:
    placeholders, images = _images(user)
    if info.cwd is None:
        info.cwd = as_nonempty_text(
            dig(user, "env_context", "env_state", "current_working_directory")
        )
    reading.add(
        ident,
        "user",
        text="\n".join(filter(None, [text, placeholders])),
        images=images,
        timestamp=as_datetime(user.get("timestamp")),
    )


def _user(reading: Reading, user: object, ident: str, info: StateInfo) -> str | None:
    if not isinstance(user, dict):
        return "a turn without its user message"
    content = _variant(user.get("content"))
    if content is None:
        return "a user message whose content is not one variant"
    name, fields = content
    reader = _USER_CONTENT.get(name)
    if reader is None:
        return f"a user message of content {name!r}"
    reader(reading, user, fields, ident, info)
    return None


def _prompt_content(
    reading: Reading, user: dict[str, Any], fields: dict[str, Any], ident: str, info: StateInfo
) -> None:
    _prompt(reading, user, as_text(fields.get("prompt")) or "", ident, info)


def _results_content(
    reading: Reading, _user: dict[str, Any], fields: dict[str, Any], ident: str, _info: StateInfo
) -> None:
    _results(reading, fields.get("tool_use_results"), ident)


def _cancelled_content(
    reading: Reading, user: dict[str, Any], fields: dict[str, Any], ident: str, info: StateInfo
) -> None:
    for result in fields.get("tool_use_results") or ():
        call_id = as_nonempty_text(dig(result, "tool_use_id"))
        reading.result(call_id, _CANCELLED, is_error=True, ident=f"{ident}-result")
    prompt = as_nonempty_text(fields.get("prompt"))
    if prompt is not None:
        _prompt(reading, user, prompt, ident, info)


_UserReader = Callable[[Reading, dict[str, Any], dict[str, Any], str, StateInfo], None]
_USER_CONTENT: Final[dict[str, _UserReader]] = {
    "Prompt": _prompt_content,
    "ToolUseResults": _results_content,
    "CancelledToolUses": _cancelled_content,
}


def _answer_fields(assistant: object) -> dict[str, Any] | None:
    """The fields of a ``Response`` or ``ToolUse`` answer; ``None`` for any other shape."""
    variant = _variant(assistant)
    return variant[1] if variant is not None and variant[0] in _ANSWERS else None


def _assistant(
    reading: Reading, fields: dict[str, Any], metadata: object, ident: str, info: StateInfo
) -> None:
    calls = []
    for use in fields.get("tool_uses") or ():
        name = as_nonempty_text(dig(use, "name"))
        if name is not None:
            arguments = drop_payloads(dig(use, "args"))[0]
            calls.append(reading.tools.call(as_nonempty_text(dig(use, "id")), name, arguments))
    reading.add(
        as_nonempty_text(fields.get("message_id")) or ident,
        "assistant",
        text=as_text(fields.get("content")) or "",
        calls=calls,
        timestamp=as_epoch(dig(metadata, "stream_end_timestamp_ms"), "ms"),
        model=as_nonempty_text(dig(metadata, "model_id")) or info.model,
        request_id=as_nonempty_text(dig(metadata, "request_id")),
    )


def _turn(reading: Reading, entry: object, position: int, info: StateInfo) -> str | None:
    if isinstance(entry, list) and len(entry) == 2:  # the older (user, assistant) pair
        user, assistant, metadata = entry[0], entry[1], None
    elif isinstance(entry, dict):
        user, assistant = entry.get("user"), entry.get("assistant")
        metadata = entry.get("request_metadata")
    else:
        return "a turn that is neither an object nor a pair"
    fields = _answer_fields(assistant)
    if fields is None:
        return "an answer that is neither Response nor ToolUse"
    ident = f"turn-{position}"
    problem = _user(reading, user, f"{ident}-user", info)
    if problem is None:
        _assistant(reading, fields, metadata, f"{ident}-assistant", info)
    return problem


def _summary(reading: Reading, summary: object) -> None:
    if summary is None:
        return
    if not (isinstance(summary, list) and summary and as_nonempty_text(summary[0])):
        reading.ledger.bad("latest_summary", "not a [summary, metadata] pair")
        return
    text = summary[0]
    metadata = summary[1] if len(summary) > 1 else None
    stamp = as_epoch(dig(metadata, "stream_end_timestamp_ms"), "ms")
    reading.add("summary", "system", "compaction_summary", text=text, timestamp=stamp)
    reading.ledger.use()


def read_state(state: dict[str, Any], reading: Reading) -> StateInfo:
    """Read one ``ConversationState`` into ``reading``; each turn is one record."""
    info = StateInfo(state)
    _summary(reading, state.get("latest_summary"))
    history = state.get("history")
    if not isinstance(history, list):
        reading.ledger.bad("history", "not a list of turns")
        history = []
    for position, entry in enumerate(history):
        problem = _turn(reading, entry, position, info)
        if problem is None:
            reading.ledger.use()
        else:
            reading.ledger.keep(f"history[{position}]", problem, encode(drop_payloads(entry)[0]))
    pending = state.get("next_message")
    if pending is not None:
        problem = _user(reading, pending, "next-message", info)
        if problem is None:
            reading.ledger.use()
        else:
            reading.ledger.bad("next_message", problem)
    if state.get("tangent_state") is not None:
        reading.ledger.skip("tangent checkpoint")
    return info
