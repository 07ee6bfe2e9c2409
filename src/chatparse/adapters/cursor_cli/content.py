"""A message's content blocks, in both vocabularies the CLI writes, routed through one table.

Transcript lines carry Anthropic-style blocks (``text``, ``thinking``, ``tool_use`` without an
id, ``tool_result``); the store's message blobs carry Vercel-AI-SDK-style ones (``text``,
``reasoning``, ``tool-call``/``tool-result`` with a ``toolCallId``). Each block is a record:
one of a known type goes into the message (or is skipped, as redacted reasoning is), one of
another type is kept raw.

The person's text is wrapped by the CLI: the prompt is what ``<user_query>`` holds; a
``<timestamp>`` beside it (with a zone) is the prompt's time; a user text without
``<user_query>`` that is the CLI's context (``<user_info>``, ``<context>``) is a notice. The
``Workspace Path:`` line of ``<user_info>`` is the project, where nothing else names it.
Reasoning the CLI hides is written as ``[REDACTED]`` in the answer: taken out of the text.
A tool result with no call id answers the earliest unanswered call, by position (transcript
tool calls have no ids).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, Final

from attrs import define, field

from chatparse.adapter import (
    Ledger,
    MessageDraft,
    PendingCall,
    ToolCallPairing,
    UniqueIds,
    as_datetime,
    as_nonempty_text,
    as_text,
    dig,
    drop_payloads,
    image_ref,
    strip_images,
)
from chatparse.decoders.value import encode
from chatparse.model import Role

__all__ = ["BLOCKS", "Reading", "read_content"]

_QUERY: Final = re.compile(r"<user_query>(.*?)</user_query>", re.DOTALL)
_STAMP: Final = re.compile(r"<timestamp>(.*?)</timestamp>", re.DOTALL)
_WORKSPACE: Final = re.compile(r"^Workspace Path: (.+?)\s*$", re.MULTILINE)
_INJECTED: Final = ("<user_info>", "<context>", "<attached_files>", "<system_reminder>")
_REDACTED: Final = "[REDACTED]"


@define
class Reading:
    """What the records of one conversation have given so far."""

    ledger: Ledger = field(factory=Ledger)
    ids: UniqueIds = field(factory=UniqueIds)
    tools: ToolCallPairing = field(factory=ToolCallPairing)
    drafts: list[MessageDraft] = field(factory=list)
    project: str | None = None

    def draft(self, wanted: str, role: Role) -> MessageDraft:
        """A new message, its id ``wanted`` made unique (added to the list when it has content)."""
        return MessageDraft(id=self.ids.take(wanted), role=role)

    def orphan(self, wanted: str, output: str | None) -> None:
        """A result no call was waiting for, kept as its own message."""
        orphan = MessageDraft(
            id=self.ids.take(wanted), role="user", kind="tool_result", text=output or ""
        )
        self.drafts.append(orphan)


def _output(value: object) -> str | None:
    """A result's text: a string, the texts of a list of parts, else its JSON."""
    if value is None:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        texts = [as_text(dig(part, "text")) for part in value]
        if all(text is not None for text in texts):
            return "\n".join(t for t in texts if t is not None)
    return encode(drop_payloads(value)[0])


def _user_text(reading: Reading, draft: MessageDraft, text: str) -> None:
    workspace = _WORKSPACE.search(text) if "<user_info>" in text else None
    if workspace is not None and reading.project is None:
        reading.project = workspace[1]
    stamp = _STAMP.search(text)
    if stamp is not None:
        draft.timestamp = as_datetime(stamp[1].strip()) or draft.timestamp
    query = _QUERY.search(text)
    if query is not None:
        text = query[1].strip()
    elif text.lstrip().startswith(_INJECTED):
        draft.kind = "notice"
    _write(draft, text)


def _write(draft: MessageDraft, text: str) -> None:
    cleaned, images = strip_images(text)
    draft.images.extend(images)
    draft.text = f"{draft.text}\n\n{cleaned}" if draft.text else cleaned


def _text(reading: Reading, draft: MessageDraft, block: dict[str, Any]) -> bool:
    text = as_text(block.get("text"))
    if text is None:
        return False
    if draft.role == "user":
        _user_text(reading, draft, text)
    elif stripped := text.replace(_REDACTED, "").strip():
        _write(draft, stripped)
    return True


def _thinking(_reading: Reading, draft: MessageDraft, block: dict[str, Any]) -> bool:
    text = as_text(block.get("thinking")) or as_text(block.get("text"))
    if text is None:
        return False
    if text.strip() and text.strip() != _REDACTED:
        draft.thinking = f"{draft.thinking}\n\n{text}" if draft.thinking else text
    return True


def _call(reading: Reading, draft: MessageDraft, block: dict[str, Any]) -> bool:
    name = as_nonempty_text(block.get("name")) or as_nonempty_text(block.get("toolName"))
    if name is None:
        return False
    ident = as_nonempty_text(block.get("id")) or as_nonempty_text(block.get("toolCallId"))
    arguments = block.get("input") if "input" in block else block.get("args")
    draft.calls.append(reading.tools.call(ident, name, drop_payloads(arguments)[0]))
    return True


def _first_unanswered(reading: Reading) -> PendingCall | None:
    return next((c for c in reading.tools.calls if c.id is None and not c.answered), None)


def _result(reading: Reading, draft: MessageDraft, block: dict[str, Any]) -> bool:
    ident = as_nonempty_text(block.get("tool_use_id")) or as_nonempty_text(block.get("toolCallId"))
    raw = block.get("content") if "content" in block else block.get("result")
    if raw is None:
        raw = block.get("output")
    output = _output(raw)
    is_error = block.get("is_error", block.get("isError"))
    error = is_error if isinstance(is_error, bool) else None
    structured = drop_payloads(raw)[0] if isinstance(raw, dict | list) else None
    if ident is not None:
        if reading.tools.answer(ident, output, is_error=error, result=structured) is None:
            reading.orphan(f"{draft.id}:result", output)
        return True
    call = _first_unanswered(reading)
    if call is None:
        reading.tools.orphans += 1
        reading.orphan(f"{draft.id}:result", output)
    else:
        call.answer(output, is_error=error, result=structured)
    return True


def _image(_reading: Reading, draft: MessageDraft, block: dict[str, Any]) -> bool:
    data = block.get("image") or block.get("data") or dig(block, "source", "data")
    media = block.get("mimeType") or block.get("mediaType") or dig(block, "source", "media_type")
    draft.images.append(image_ref(media, data))
    return True


BLOCKS: Final[dict[str, Callable[[Reading, MessageDraft, dict[str, Any]], bool]]] = {
    "text": _text,
    "thinking": _thinking,
    "reasoning": _thinking,
    "tool_use": _call,
    "tool-call": _call,
    "tool_result": _result,
    "tool-result": _result,
    "command_output": _result,
    "image": _image,
}
"""Which reader takes a block, by its ``type``; ``False`` from a reader: not that shape."""
SKIPPED: Final = {
    "redacted": "redacted reasoning",
    "redacted-reasoning": "redacted reasoning",
    "redacted_thinking": "redacted reasoning",
}


def read_content(reading: Reading, draft: MessageDraft, content: object, where: str) -> None:
    """Read a message's ``content`` (text, or a list of blocks) into ``draft``, block by block.

    The draft joins the conversation when it got text, reasoning, images or calls.
    """
    ledger = reading.ledger
    if isinstance(content, str):
        _text(reading, draft, {"text": content})
        ledger.use()
    elif isinstance(content, list) and not content:
        ledger.skip("empty message")
    elif isinstance(content, list):
        for index, block in enumerate(content):
            kind = dig(block, "type")
            read = BLOCKS.get(kind) if isinstance(kind, str) else None
            if read is not None and read(reading, draft, block):
                ledger.use()
            elif isinstance(kind, str) and kind in SKIPPED:
                ledger.skip(SKIPPED[kind])
            else:
                ledger.keep(
                    f"{where}[{index}]", kind if isinstance(kind, str) else None, encode(block)
                )
    else:
        ledger.keep(where, None, encode(content))
    if draft.text or draft.thinking or draft.images or draft.calls:
        reading.drafts.append(draft)
