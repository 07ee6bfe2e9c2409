"""What one bubble says: its text, thinking, tool call, images, model, usage and time.

A bubble carries many optional fields, and most bubbles leave most of them absent or empty
(``codeBlocks``, ``images``, ``toolFormerData``, thinking, the model). Each costs a lookup and
a truth test then: the function that reads one is called only when it is there.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any, Final

from chatparse.adapter import (
    UniqueIds,
    as_count,
    as_epoch,
    as_nonempty_text,
    as_time,
    drop_payloads,
    new_image,
    new_message,
    new_tool_call,
    new_usage,
    strip_images,
    strip_payloads,
)
from chatparse.adapters.cursor.store import loads
from chatparse.decoders import value as jsonvalue
from chatparse.model import ImageRef, Message, Role, ToolCall, Usage

# ``toolFormerData.status`` values that mean the call did not succeed. The tables here are tuples,
# not sets: a value of any JSON type is looked up in them, and a list does not hash.
FAILED_STATUSES: Final = ("error", "cancelled", "canceled", "aborted", "rejected")
SUCCEEDED_STATUSES: Final = ("completed", "success", "succeeded")
# ``timingInfo`` fields in order of preference; only epoch milliseconds (>= 1e12) are times.
TIMING_FIELDS: Final = ("clientRpcSendTime", "clientSettleTime", "clientEndTime", "clientStartTime")
_EPOCH_MS_MIN: Final = 1e12
# Lexical node types that end a line of text when flattening ``richText``.
_LEXICAL_BLOCKS: Final = ("paragraph", "heading", "quote", "listitem", "code")


def bubble_message(
    bubble: dict[str, Any], role: Role, bubble_id: str, ids: UniqueIds, conversation_id: str
) -> Message | None:
    """The message of one bubble; ``None`` when it shows nothing (no text, thinking, call, image).

    ``bubble_id`` becomes the message's id, made unique by ``ids`` when the message is made.
    """
    text = bubble.get("text")
    if type(text) is not str or not text or text.isspace():
        text = _text_when_blank(bubble)
    # Pasted images out, each left as a placeholder: the only cleaning a bubble's strings
    # need, as the decoder repaired them (no lone surrogates).
    text, pasted = strip_images(text)
    blocks = bubble.get("codeBlocks")
    if blocks:
        text = _with_code_blocks(text, blocks)
    has_thinking = bubble.get("allThinkingBlocks") or bubble.get("thinking")
    thinking = _thinking(bubble) if has_thinking else None
    tool = bubble.get("toolFormerData")
    call = _tool_call(tool) if tool else None
    context = bubble.get("context")
    has_attached = bubble.get("images") or (type(context) is dict and context.get("selectedImages"))
    images = _with_attached(pasted, bubble) if has_attached else pasted
    if (not text or text.isspace()) and not (thinking or call or images):
        return None
    counts = bubble.get("tokenCount")
    request_id = bubble.get("requestId")  # legacy bubbles only
    return new_message(
        id=ids.take(bubble_id),
        role=role,
        text=text,
        thinking=thinking,
        tool_calls=() if call is None else (call,),
        images=images,
        timestamp=bubble_time(bubble),
        model=_model(bubble) if "modelInfo" in bubble or "modelType" in bubble else None,
        usage=_usage(counts, conversation_id, bubble_id) if counts else None,
        request_id=as_nonempty_text(request_id) if request_id else None,
    )


def bubble_time(bubble: Mapping[str, Any]) -> datetime | None:
    """``createdAt`` (ISO text or epoch ms), else the first ``timingInfo`` time in epoch ms."""
    stamp = as_time(bubble.get("createdAt"), "ms")
    if stamp is not None:
        return stamp
    timing = bubble.get("timingInfo")
    if isinstance(timing, dict):
        for name in TIMING_FIELDS:
            value = timing.get(name)
            if (
                isinstance(value, (int, float))
                and not isinstance(value, bool)
                and value >= _EPOCH_MS_MIN
            ):
                return as_epoch(value, "ms")
    return None


def _text_when_blank(bubble: Mapping[str, Any]) -> str:
    """A bubble's text when ``text`` is blank: ``rawText`` (legacy), else ``richText`` flattened."""
    raw = bubble.get("rawText")
    if isinstance(raw, str) and not _blank(raw):
        return raw
    rich = bubble.get("richText")
    if isinstance(rich, str) and not _blank(rich):
        ok, state = loads(rich)
        if ok and isinstance(state, dict):
            return _lexical_text(state.get("root")).strip()
        return rich  # not Lexical JSON: plain text stored under that name
    return ""


def _lexical_text(node: object) -> str:
    """The visible text of a Lexical editor-state node: text leaves, line breaks, blocks."""
    if not isinstance(node, dict):
        return ""
    if node.get("type") == "linebreak":
        return "\n"
    text = node.get("text")
    if isinstance(text, str):
        return text
    children = node.get("children")
    parts = [_lexical_text(child) for child in (children if isinstance(children, list) else ())]
    blocks = [
        isinstance(child, dict) and child.get("type") in _LEXICAL_BLOCKS
        for child in (children if isinstance(children, list) else ())
    ]
    return "".join(p + ("\n" if block else "") for p, block in zip(parts, blocks, strict=True))


def _with_code_blocks(text: str, blocks: object) -> str:
    """Append each code block whose ``content`` is not already in the text, fenced.

    Late-2024 bubbles write their code into ``text`` and list only URIs in ``codeBlocks``; newer
    ones may hold the code only in ``codeBlocks[].content``. Either way the code ends up in the
    message text once.
    """
    for block in blocks if isinstance(blocks, list) else ():
        content = block.get("content") if isinstance(block, dict) else None
        if not isinstance(content, str) or not content.strip() or content.strip() in text:
            continue
        language = block.get("languageId")
        fence = "```" + (language if isinstance(language, str) else "")
        text = (
            f"{text}\n\n{fence}\n{content.rstrip()}\n```"
            if text.strip()
            else f"{fence}\n{content.rstrip()}\n```"
        )
    return text


def _thinking(bubble: Mapping[str, Any]) -> str | None:
    """``allThinkingBlocks`` joined, else ``thinking`` as a string or a ``{text, signature}``."""
    blocks = bubble.get("allThinkingBlocks")
    if blocks and isinstance(blocks, list):
        texts = [text for text in map(_thought, blocks) if text]
        if texts:
            return "\n\n".join(texts)
    thinking = bubble.get("thinking")
    return _thought(thinking) if thinking else None  # most bubbles have none


def _thought(value: object) -> str | None:
    if isinstance(value, str):
        return None if _blank(value) else value
    if isinstance(value, dict):
        for name in ("text", "thinking"):
            text = value.get(name)
            if isinstance(text, str) and not _blank(text):
                return text
    return None


def _tool_call(data: object) -> ToolCall | None:
    """``toolFormerData`` as a call: arguments decoded from ``params`` (else ``rawArgs``)."""
    if not isinstance(data, dict) or not data:
        return None
    name = data.get("name")
    status = data.get("status")
    failed = True if status in FAILED_STATUSES else False if status in SUCCEEDED_STATUSES else None
    arguments, _ = drop_payloads(_arguments(data))
    return new_tool_call(
        id=as_nonempty_text(data.get("toolCallId")),
        name=name if isinstance(name, str) and name else f"tool {data.get('tool', '?')}",
        input=arguments,
        output=_output(data.get("result")),
        is_error=failed,
    )


def _output(result: object) -> str | None:
    """A call's result as text, its base64 payloads (an MCP tool's screenshot) left out.

    Cursor writes it as text, most often JSON text: the payloads are found in the text.
    """
    if result is None:
        return None
    if not isinstance(result, str):
        result = jsonvalue.encode(drop_payloads(result)[0])
    return strip_payloads(result)[0]


def _arguments(data: dict[str, Any]) -> Any:
    """The call's arguments: ``params`` (else ``rawArgs``), decoded when it is JSON text."""
    for source in ("params", "rawArgs"):
        value = data.get(source)
        if isinstance(value, str) and not _blank(value):
            ok, decoded = loads(value)
            return decoded if ok else value
        if isinstance(value, (dict, list)):
            return value
    return None


def _with_attached(pasted: tuple[ImageRef, ...], bubble: Mapping[str, Any]) -> tuple[ImageRef, ...]:
    """The images pasted into the text, then those attached, counted only.

    Attached images are ``images``, else ``context.selectedImages``: nothing about them but
    their number is known.
    """
    attached = bubble.get("images")
    if not (attached and isinstance(attached, list)):
        context = bubble.get("context")
        attached = context.get("selectedImages") if isinstance(context, dict) else None
        if not (attached and isinstance(attached, list)):
            return pasted
    return (*pasted, *(new_image() for _ in attached))


def _model(bubble: Mapping[str, Any]) -> str | None:
    info = bubble.get("modelInfo")
    name = info.get("modelName") if isinstance(info, dict) else None
    if isinstance(name, str) and name:
        return name
    return as_nonempty_text(bubble.get("modelType"))


def _usage(counts: object, conversation_id: str, bubble_id: str) -> Usage | None:
    """``tokenCount``, when it holds anything but zeros (which Cursor writes almost always)."""
    if type(counts) is not dict:
        return None
    input_tokens = as_count(counts.get("inputTokens"))
    output_tokens = as_count(counts.get("outputTokens"))
    if not (input_tokens or output_tokens):
        return None
    return new_usage(
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        dedup_key=f"cursor:{conversation_id}:{bubble_id}",
    )


def _blank(text: str) -> bool:
    """``not text.strip()``, without copying a long text to find out."""
    return not text or text.isspace()
