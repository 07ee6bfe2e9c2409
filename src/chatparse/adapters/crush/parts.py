"""One Crush message row into drafts: its ``parts`` routed by type through :data:`_PARTS`.

``parts`` is ``[{type, data}]``. Tool calls sit on assistant rows (``tool_call``, its
``input`` a JSON **string**), their results on the following ``role: "tool"`` row
(``tool_result``), paired by ``tool_call_id``; a result whose call is not in the session
becomes a message of kind ``tool_result``. Every row ends with a ``finish`` part: its reason
is bookkeeping, but an error it carries (``message``, ``details``: a failed API call) is text
worth keeping, and a row holding nothing else becomes a ``notice``. A ``shell_command`` part
(a command the user ran) becomes a ``command`` message and its output a ``command_output``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from attrs import define, field

from chatparse.adapter import (
    MessageDraft,
    as_nonempty_text,
    as_text,
    dig,
    drop_payloads,
    image_ref,
    strip_images,
)
from chatparse.adapters.crush.store import epoch
from chatparse.adapters.goose.content import Drafting, Reading
from chatparse.decoders.value import Invalid, decode, encode
from chatparse.model import Role

__all__ = ["Reading", "read_row"]

_ROLES: Final[dict[str, Role]] = {
    "user": "user",
    "assistant": "assistant",
    "system": "system",
    "tool": "user",
}


@define
class _Row(Drafting):
    """A row being read: its draft, its texts, and what the parts add after it."""

    notes: list[str] = field(factory=list)
    after: list[MessageDraft] = field(factory=list)


def _text(row: _Row, data: dict[str, Any]) -> None:
    text, images = strip_images(as_text(data.get("text")) or "")
    row.texts.append(text)
    row.draft.images += images


def _reasoning(row: _Row, data: dict[str, Any]) -> None:
    thought = as_text(data.get("thinking"))
    if thought:
        previous = row.draft.thinking
        row.draft.thinking = thought if previous is None else f"{previous}\n\n{thought}"


def _image_url(row: _Row, data: dict[str, Any]) -> None:
    url = as_text(data.get("url")) or ""
    text, images = strip_images(url)
    row.draft.images += images or (image_ref(),)
    if not images:
        row.texts.append(f"[image: {text}]")


def _binary(row: _Row, data: dict[str, Any]) -> None:
    media = as_nonempty_text(data.get("MIMEType"))
    if media is not None and media.startswith("image/"):
        row.draft.images.append(image_ref(media, data.get("Data")))
    else:
        row.texts.append(f"[attachment: {as_text(data.get('Path')) or media or 'file'}]")


def _tool_call(row: _Row, data: dict[str, Any]) -> None:
    raw = data.get("input")
    arguments = decode(raw) if isinstance(raw, str) and raw.strip() else raw
    if isinstance(arguments, Invalid):
        arguments = raw  # a call cut off while streaming: its text as written
    name = as_nonempty_text(data.get("name")) or "unknown"
    pending = row.reading.pairing.call(
        as_nonempty_text(data.get("id")), name, drop_payloads(arguments)[0]
    )
    row.draft.calls.append(pending)


def _tool_result(row: _Row, data: dict[str, Any]) -> None:
    output = strip_images(as_text(data.get("content")) or "")[0]
    media = as_nonempty_text(data.get("mime_type"))
    if media is not None and data.get("data"):
        ref = image_ref(media, data.get("data"))
        what = "image" if media.startswith("image/") else "base64"
        output += f"\n[{what}: {media}, {ref.byte_size} bytes]"
    metadata = data.get("metadata")
    result = decode(metadata) if isinstance(metadata, str) and metadata else None
    structured = None if isinstance(result, Invalid) else drop_payloads(result)[0]
    flag = data.get("is_error")
    ident = as_nonempty_text(data.get("tool_call_id"))
    reading = row.reading
    is_error = flag if isinstance(flag, bool) else None
    if reading.pairing.answer(ident, output, is_error=is_error, result=structured) is None:
        row.after.append(
            MessageDraft(
                id=reading.ids.take(f"{row.draft.id}:result:{ident}"),
                role="user",
                kind="tool_result",
                text=output,
                timestamp=row.draft.timestamp,
            )
        )


def _finish(row: _Row, data: dict[str, Any]) -> None:
    message = as_nonempty_text(data.get("message"))
    if message is not None:
        details = as_nonempty_text(data.get("details"))
        row.notes.append(f"{message}: {details}" if details else message)


def _shell_command(row: _Row, data: dict[str, Any]) -> None:
    row.draft.kind = "command"
    row.texts.append(as_text(data.get("command")) or "")
    output = as_text(data.get("output"))
    if output is not None:
        row.after.append(
            MessageDraft(
                id=row.reading.ids.take(f"{row.draft.id}:output"),
                role="system",
                kind="command_output",
                text=strip_images(output)[0],
                timestamp=row.draft.timestamp,
            )
        )


_PARTS: Final[dict[str, Callable[[_Row, dict[str, Any]], None]]] = {
    "text": _text,
    "reasoning": _reasoning,
    "image_url": _image_url,
    "binary": _binary,
    "tool_call": _tool_call,
    "tool_result": _tool_result,
    "finish": _finish,
    "shell_command": _shell_command,
}


def read_row(reading: Reading, record: dict[str, Any], *, summary: bool) -> None:
    """Read one ``messages`` row into ``reading`` (it counts the row)."""
    where = f"messages row {record['rowid']}"
    kind = record.get("role")
    role = _ROLES.get(kind) if isinstance(kind, str) else None
    parts = decode(record["parts"]) if isinstance(record.get("parts"), str) else None
    if isinstance(parts, Invalid) or not isinstance(parts, list):
        reading.ledger.bad(where, "parts are not a JSON list")
        return
    if role is None:
        reading.ledger.keep(where, as_text(record.get("role")), encode(parts))
        return
    draft = MessageDraft(
        id=reading.ids.take(str(record.get("id") or f"row-{record['rowid']}")),
        role=role,
        timestamp=epoch(record.get("created_at")),
        model=as_nonempty_text(record.get("model")) if role == "assistant" else None,
        kind="compaction_summary" if summary else "message",
    )
    row = _Row(reading=reading, draft=draft)
    for index, part in enumerate(parts):
        kind = dig(part, "type")
        reader = _PARTS.get(kind) if isinstance(kind, str) else None
        data = dig(part, "data")
        if reader is None or not isinstance(data, dict):
            reading.ledger.keep(f"{where} part {index}", as_text(kind), encode(part))
            continue
        reader(row, data)
    reading.ledger.use()
    _settle(reading, row)


def _settle(reading: Reading, row: _Row) -> None:
    draft = row.draft
    texts = [t for t in row.texts if t]
    if not texts and not draft.calls and row.notes and draft.kind == "message":
        draft.kind = "notice"
    draft.text = "\n".join(texts + row.notes)
    if draft.text or draft.thinking or draft.images or draft.calls:
        reading.drafts.append(draft)
    reading.drafts += row.after
