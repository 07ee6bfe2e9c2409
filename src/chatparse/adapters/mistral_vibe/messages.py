"""Vibe's ``LLMMessage`` records (a line of ``messages.jsonl``, an element of a 1.x file).

``{role, content, message_id, images?, injected?, reasoning_content?, tool_calls?:[{id, index,
type, function:{name, arguments}}], name?, tool_call_id?}``: ``content`` is text (older files may
hold a list of text parts); ``arguments`` is JSON text (some writers put the object itself);
tool results are ``role: "tool"`` with the ``tool_call_id`` they answer and no ``message_id``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from attrs import define, field

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
from chatparse.decoders.value import Invalid, decode
from chatparse.model import ImageRef

__all__ = ["Transcript", "read_message"]


@define
class Transcript:
    """What the messages of one session have given so far."""

    model: str | None = None
    """The session's active model (``meta.json``'s ``config.active_model``), for its answers."""
    ledger: Ledger = field(factory=Ledger)
    ids: UniqueIds = field(factory=UniqueIds)
    tools: ToolCallPairing = field(factory=ToolCallPairing)
    drafts: list[MessageDraft] = field(factory=list)

    def add(self, wanted_id: str, **fields: Any) -> MessageDraft:
        """A new message, its id made unique."""
        draft = MessageDraft(id=self.ids.take(wanted_id), **fields)
        self.drafts.append(draft)
        return draft


def _text(content: object) -> tuple[str, list[ImageRef]] | None:
    """Text and inline images of ``content``: text, or a list of text parts; else ``None``."""
    if content is None:
        return "", []
    if isinstance(content, list):
        content = "\n".join(t for t in (as_text(dig(part, "text")) for part in content) if t)
    if not isinstance(content, str):
        return None
    text, images = strip_images(content)
    return text, list(images)


def _attachment(item: object) -> ImageRef:
    """An ``ImageAttachment``: a file Vibe saved (its path is not kept), or inline data."""
    media_type = dig(item, "mime_type")
    data = dig(item, "source", "data") or dig(item, "data")
    return image_ref(media_type, data) if data else image_ref(media_type)


def _arguments(value: object) -> object:
    """Tool arguments: JSON text decoded (text that is not JSON kept); an object as it is."""
    if isinstance(value, str) and value.strip():
        decoded = decode(value)
        value = value if isinstance(decoded, Invalid) else decoded
    return drop_payloads(value)[0]


def _user(transcript: Transcript, record: dict[str, Any], wanted_id: str) -> str | None:
    read = _text(record.get("content"))
    if read is None:
        return "a user message whose content is neither text nor parts"
    text, images = read
    images += [_attachment(item) for item in record.get("images") or () if isinstance(item, dict)]
    kind = "notice" if record.get("injected") is True else "message"
    transcript.add(wanted_id, role="user", kind=kind, text=text, images=images)
    return None


def _assistant(transcript: Transcript, record: dict[str, Any], wanted_id: str) -> str | None:
    read = _text(record.get("content"))
    if read is None:
        return "an assistant message whose content is neither text nor parts"
    text, images = read
    thinking = _text(record.get("reasoning_content"))
    draft = transcript.add(
        wanted_id,
        role="assistant",
        text=text,
        images=images,
        thinking=(thinking[0] or None) if thinking is not None else None,
        model=transcript.model,
    )
    for request in record.get("tool_calls") or ():
        name = as_nonempty_text(dig(request, "function", "name"))
        if name is not None:
            ident = as_nonempty_text(dig(request, "id"))
            arguments = _arguments(dig(request, "function", "arguments"))
            draft.calls.append(transcript.tools.call(ident, name, arguments))
    return None


def _tool(transcript: Transcript, record: dict[str, Any], wanted_id: str) -> str | None:
    read = _text(record.get("content"))
    if read is None:
        return "a tool result whose content is neither text nor parts"
    text, images = read
    output = drop_payloads(text)[0]
    replays = transcript.tools.repeated
    if transcript.tools.answer(as_nonempty_text(record.get("tool_call_id")), output) is None:
        transcript.add(wanted_id, role="user", kind="tool_result", text=output, images=images)
    if transcript.tools.repeated > replays:
        transcript.ledger.skip("repeated tool result")  # the first result stays
        return None
    transcript.ledger.use()
    return None


def _system(transcript: Transcript, _record: dict[str, Any], _wanted_id: str) -> str | None:
    transcript.ledger.skip("system prompt")  # Vibe's own instructions (1.x files keep them)
    return None


_Reader = Callable[[Transcript, dict[str, Any], str], "str | None"]
_READERS: Final[dict[str, _Reader]] = {
    "user": _user,
    "assistant": _assistant,
    "tool": _tool,
    "system": _system,
}
"""The reader of each role; it returns why the record is malformed, or ``None``."""
_COUNTED_BY_READER: Final = frozenset({"tool", "system"})


def read_message(transcript: Transcript, record: object, where: str) -> bool:
    """Read one ``LLMMessage`` record; ``False`` when its role is unknown (the caller keeps it).

    ``where`` names the record (``line 3``, ``messages[2]``): a malformed one is reported under
    it, and a message without ``message_id`` takes it as its id.
    """
    role = dig(record, "role")
    reader = _READERS.get(role) if isinstance(role, str) else None
    if reader is None or not isinstance(record, dict):
        return False
    wanted_id = as_nonempty_text(record.get("message_id")) or where.replace(" ", "-")
    problem = reader(transcript, record, wanted_id)
    if problem is not None:
        transcript.ledger.bad(where, problem)
    elif role not in _COUNTED_BY_READER:
        transcript.ledger.use()
    return True
