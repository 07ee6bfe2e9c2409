"""Conversations as OpenAI chat-completions messages, the shape fine-tuning sets are made of.

:func:`to_openai_messages` gives the ``messages`` list of a chat-completions request: ``system``,
``user`` and ``assistant`` messages in conversation order, each assistant's tool calls as
``tool_calls`` (JSON-string ``arguments``) followed by one ``role: "tool"`` message per recorded
result. Reasoning goes in ``reasoning_content``: not part of OpenAI's API, but the de facto field
of DeepSeek, vLLM and Qwen chat templates. Images become text placeholders, since chatparse never
keeps image data. What the format cannot hold is listed in ``docs/interop.md``.

The rules every export of ``chatparse.interop`` shares live here too, outside ``__all__``: the id
of a call the source recorded without one (:func:`tool_call_ids`), tool input as a JSON object
(:func:`tool_arguments`) and the text that stands for an image (:func:`image_placeholder`,
:func:`message_texts`).

Needs no extra.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from typing import Any, Final

from chatparse.model import ImageRef, Message, ParsedConversation, Role, ToolCall

__all__ = ["to_openai_messages"]


def to_openai_messages(
    conversation: ParsedConversation, *, main_thread: bool = False
) -> list[dict[str, Any]]:
    """The conversation as chat-completions messages, in conversation order.

    Args:
        conversation: The conversation; its sub-agents are conversations of their own and are
            not included (export each of ``conversation.subagents`` the same way).
        main_thread: Only the messages of :meth:`~chatparse.model.ParsedConversation.main_thread`
            (root to newest leaf), leaving out abandoned branches; by default every message.

    Returns:
        Plain JSON-ready dicts that validate as ``openai.types.chat.ChatCompletionMessageParam``
        (plus ``reasoning_content`` on assistant messages that have reasoning).

    .. versionadded:: 0.2
    """
    messages = conversation.main_thread() if main_thread else conversation.messages
    out: list[dict[str, Any]] = []
    for message in messages:
        out.append(_BY_ROLE[message.role](message))
        if message.role == "assistant":
            out += _tool_results(message)
    return out


def tool_call_ids(message: Message) -> tuple[str, ...]:
    """The id each of the message's tool calls is known by in an export.

    The source's own id, or ``{message id}.call{n}`` (``n`` counting the message's calls from 1)
    for a call the source recorded without one: every export must pair a result with its call.
    """
    return tuple(
        call.id if call.id is not None else f"{message.id}.call{position}"
        for position, call in enumerate(message.tool_calls, start=1)
    )


def tool_arguments(call: ToolCall) -> dict[str, Any]:
    """The call's input as a JSON object, as tool-call formats require.

    An object is kept as it is; no recorded input becomes ``{}``; any other value (a string,
    as Codex's free-form tools take, a list, a number) becomes ``{"input": value}``.
    """
    if isinstance(call.input, dict):
        return call.input
    return {} if call.input is None else {"input": call.input}


def image_placeholder(image: ImageRef) -> str:
    """The text that stands for an image: ``[image: image/png, 1234 bytes]``.

    The same wording adapters leave in message text where an inline image was; an unknown type
    or size is left out (``[image: unknown type]``).
    """
    size = "" if image.byte_size is None else f", {image.byte_size} bytes"
    return f"[image: {image.media_type or 'unknown type'}{size}]"


def message_texts(message: Message) -> list[str]:
    """The message's text (when not empty), then a placeholder for each image it does not show.

    An adapter that stripped an inline image left its placeholder in the text already; showing
    it twice would say there were two images.
    """
    wanted: Counter[str] = Counter()
    texts = [message.text] if message.text else []
    for image in message.images:
        placeholder = image_placeholder(image)
        wanted[placeholder] += 1
        if message.text.count(placeholder) < wanted[placeholder]:
            texts.append(placeholder)
    return texts


def _content(message: Message) -> str | list[dict[str, str]]:
    """The message's text, as text parts when images add placeholders to it."""
    texts = message_texts(message)
    if texts == ([message.text] if message.text else []):  # no image placeholder added
        return message.text
    return [{"type": "text", "text": text} for text in texts]


def _plain(role: str) -> Callable[[Message], dict[str, Any]]:
    def convert(message: Message) -> dict[str, Any]:
        return {"role": role, "content": _content(message)}

    return convert


def _assistant(message: Message) -> dict[str, Any]:
    content = _content(message)
    out: dict[str, Any] = {
        "role": "assistant",
        # The API wants no content rather than empty content beside tool calls.
        "content": None if content == "" and message.tool_calls else content,
    }
    if message.tool_calls:
        out["tool_calls"] = [
            {
                "id": call_id,
                "type": "function",
                "function": {
                    "name": call.name,
                    "arguments": json.dumps(tool_arguments(call), ensure_ascii=False),
                },
            }
            for call, call_id in zip(message.tool_calls, tool_call_ids(message), strict=True)
        ]
    if message.thinking is not None:
        out["reasoning_content"] = message.thinking
    return out


def _tool_results(message: Message) -> list[dict[str, Any]]:
    return [
        {"role": "tool", "tool_call_id": call_id, "content": call.output}
        for call, call_id in zip(message.tool_calls, tool_call_ids(message), strict=True)
        if call.output is not None
    ]


_BY_ROLE: Final[dict[Role, Callable[[Message], dict[str, Any]]]] = {
    "system": _plain("system"),
    "user": _plain("user"),
    "assistant": _assistant,
}
