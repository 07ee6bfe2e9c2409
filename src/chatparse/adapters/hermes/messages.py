r"""Hermes messages, OpenAI-shaped wherever they are stored, read into message drafts.

A message is ``{role, content, tool_calls?, tool_call_id?, reasoning?, reasoning_content?,
reasoning_details?, finish_reason?, timestamp}``, whether it is a row of ``state.db`` (its
columns), a line of a gateway transcript or an element of a session snapshot; one reader
serves all three:

* ``user``: a prompt. Its ``content`` is text, or a list of parts (``text``, ``image_url``);
  the database keeps such a list as JSON text after a ``\\x00json:`` or ``\\x01json:`` marker.
  A context compression summary (text starting ``[CONTEXT COMPACTION`` or ``[CONTEXT
  SUMMARY]:``, or a row flagged ``_compressed_summary``) is a ``system`` ``compaction_summary``;
  the background review prompts older builds stored (``Review the conversation above and ...``)
  are ``notice`` messages, and the answer that follows each is off the main line.
* ``assistant``: an answer, with ``reasoning`` (else ``reasoning_content``, else the texts of
  ``reasoning_details``) as its thinking and ``tool_calls[].function`` as its tool calls.
* ``tool``: the result of the call ``tool_call_id`` names.
* ``system``: text Hermes put into the conversation, a ``notice``.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any, Final

from attrs import define, field

from chatparse.adapter import (
    ImagePart,
    Ledger,
    MessageDraft,
    ToolCallPairing,
    UniqueIds,
    as_nonempty_text,
    as_text,
    content_text,
    dig,
    image_at,
)
from chatparse.decoders.value import Invalid, decode
from chatparse.model import ImageRef, MessageKind, Role

__all__ = ["Draft", "Found", "Reading", "read_message", "text_of"]

_JSON_MARKERS: Final = ("\x00json:", "\x01json:")
_SUMMARIES: Final = ("[CONTEXT COMPACTION", "[CONTEXT SUMMARY]:")
_HARNESS: Final = (
    "Review the conversation above and update the skill library",
    "Review the conversation above and consider saving to memory",
)


@define(kw_only=True, eq=False)
class Draft(MessageDraft):
    """A message being read; its usage may still be given by its session's totals."""

    session: str
    """The id of the session (in a compression chain, of the part) the message is from."""


@define
class Reading:
    """What the messages of one conversation have given so far."""

    ledger: Ledger = field(factory=Ledger)
    ids: UniqueIds = field(factory=UniqueIds)
    tools: ToolCallPairing = field(factory=ToolCallPairing)
    drafts: list[Draft] = field(factory=list)
    after_harness: bool = False


@define
class Found:
    """One message record, with where it is and what its store says beside it."""

    record: dict[str, Any]
    where: str
    wanted_id: str
    session: str
    timestamp: datetime | None
    model: str | None = None
    sidechain: bool = False
    summary: bool = False
    hidden: bool = False


class _NotJson(str):
    """Text behind the JSON marker that is not JSON: kept as text, without the marker."""

    __slots__ = ()


def _content(content: object) -> object:
    """A database ``content``: JSON parts behind a marker decoded, anything else as it is."""
    if isinstance(content, str) and content.startswith(_JSON_MARKERS):
        body = content[len(_JSON_MARKERS[0]) :]
        decoded = decode(body)
        return _NotJson(body) if isinstance(decoded, Invalid) else decoded
    return content


def _image_url(part: dict[str, Any]) -> list[tuple[str, ImageRef]]:
    """An image part: ``image_url`` as ``{url}`` or a URL, else ``url`` (a data URI, or a link)."""
    url = as_text(dig(part, "image_url", "url")) or as_text(part.get("image_url"))
    return [image_at(url or as_text(part.get("url")) or "")]


_IMAGES: Final[dict[str, ImagePart]] = dict.fromkeys(
    ("image_url", "input_image", "image"), _image_url
)


def text_of(content: object) -> tuple[str, list[ImageRef]] | None:
    """Text and images of a content value; ``None`` when it is neither text nor parts."""
    content = _content(content)
    if content is None:
        return "", []
    if isinstance(content, str):
        content = str(content)  # plain text, not the marker's subclass
    elif isinstance(content, list):  # a bare string part is text
        content = [{"text": part} if isinstance(part, str) else part for part in content]
    return content_text(content, _IMAGES)


def _add(reading: Reading, found: Found, role: Role, kind: MessageKind, **fields: Any) -> Draft:
    draft = Draft(
        id=reading.ids.take(found.wanted_id),
        role=role,
        kind=kind,
        session=found.session,
        timestamp=found.timestamp,
        is_sidechain=found.sidechain,
        **fields,
    )
    reading.drafts.append(draft)
    return draft


def _user(reading: Reading, found: Found, text: str, images: list[ImageRef]) -> None:
    stripped = text.lstrip()
    if found.summary or stripped.startswith(_SUMMARIES):
        _add(reading, found, "system", "compaction_summary", text=text, images=images)
        return
    harness = stripped.startswith(_HARNESS)
    kind: MessageKind = "notice" if harness or found.hidden else "message"
    _add(reading, found, "user", kind, text=text, images=images)
    reading.after_harness = harness


def _thinking(record: dict[str, Any]) -> str | None:
    direct = as_nonempty_text(record.get("reasoning")) or as_nonempty_text(
        record.get("reasoning_content")
    )
    if direct is not None:
        return direct
    details = _content(record.get("reasoning_details"))
    if isinstance(details, str):
        details = decode(details)
    texts = [as_text(dig(item, "text")) for item in details] if isinstance(details, list) else []
    return "\n\n".join(t for t in texts if t) or None


def _assistant(reading: Reading, found: Found, text: str, images: list[ImageRef]) -> None:
    calls = _content(found.record.get("tool_calls"))
    if isinstance(calls, str):
        calls = decode(calls) if calls.strip() else []
    if isinstance(calls, Invalid | _NotJson):
        reading.ledger.warn(f"{found.where}: tool_calls are not JSON; the calls are lost")
    pending = []
    for request in calls if isinstance(calls, list) else ():
        name = as_nonempty_text(dig(request, "function", "name")) or as_nonempty_text(
            dig(request, "name")
        )
        if name is None:
            continue
        arguments = dig(request, "function", "arguments")
        if isinstance(arguments, str) and arguments.strip():
            decoded = decode(arguments)
            arguments = arguments if isinstance(decoded, Invalid) else decoded
        pending.append(reading.tools.call(as_nonempty_text(dig(request, "id")), name, arguments))
    draft = _add(
        reading,
        found,
        "assistant",
        "notice" if found.hidden else "message",
        text=text,
        images=images,
        thinking=_thinking(found.record),
        calls=pending,
        model=found.model,
    )
    draft.is_sidechain = draft.is_sidechain or reading.after_harness  # the curator's reply
    reading.after_harness = False


def _tool(reading: Reading, found: Found, text: str, images: list[ImageRef]) -> None:
    replays = reading.tools.repeated
    ident = as_nonempty_text(found.record.get("tool_call_id"))
    if reading.tools.answer(ident, text) is None:  # an orphan: its text is kept
        _add(reading, found, "user", "tool_result", text=text, images=images)
    if reading.tools.repeated > replays:
        reading.ledger.skip("repeated tool result")  # the first result stays
    else:
        reading.ledger.use()


def _system(reading: Reading, found: Found, text: str, images: list[ImageRef]) -> None:
    if found.summary or text.lstrip().startswith(_SUMMARIES):
        _add(reading, found, "system", "compaction_summary", text=text, images=images)
    else:
        _add(reading, found, "system", "notice", text=text, images=images)


_READERS: Final[dict[str, Callable[[Reading, Found, str, list[ImageRef]], None]]] = {
    "user": _user,
    "assistant": _assistant,
    "tool": _tool,
    "system": _system,
}
_COUNTED_BY_READER: Final = frozenset({"tool"})


def read_message(reading: Reading, found: Found, raw: Callable[[], str]) -> None:
    """Read one message record; ``raw`` gives its text when it must be kept as unknown."""
    role = found.record.get("role")
    reader = _READERS.get(role) if isinstance(role, str) else None
    if reader is None:
        reading.ledger.keep(found.where, role if isinstance(role, str) else None, raw())
        return
    content = text_of(found.record.get("content"))
    if content is None:
        reading.ledger.bad(found.where, "content is neither text nor a list of parts")
        return
    if isinstance(_content(found.record.get("content")), _NotJson):
        reading.ledger.warn(f"{found.where}: content marked as JSON is not JSON; kept as text")
    reader(reading, found, *content)
    if role not in _COUNTED_BY_READER:
        reading.ledger.use()
