"""Kiro's session files: a metadata JSON beside a JSON Lines journal, read into drafts.

Two layouts share the reader: the CLI's ``sessions/cli/<id>.json`` + ``<id>.jsonl``, and the
workspace sessions' ``sessions/<hash>/sess_<id>/session.json`` + ``messages.jsonl`` (Kiro IDE
1.x and the CLI's v3 engine). Each journal line is one record, either an envelope
``{"version": "v1", "kind": ..., "data": {"message_id", "content": [blocks], "meta":
{"timestamp"}}}`` or a flat ``{"role", "content", "timestamp"}`` message:

* ``Prompt``: a prompt (``text`` and ``image`` blocks).
* ``AssistantMessage``: an answer (``text``, ``reasoning``/``thinking`` and ``toolUse``
  ``{toolUseId, name, input}`` blocks).
* ``ToolResults``: ``toolResult`` ``{toolUseId, content: [blocks], status}`` blocks, each the
  output of its call.

Any other envelope kind is kept raw. Envelope times are unix seconds (or ISO text with a zone).
The metadata file is one record: title, working directory, times, model, parent session.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any, Final

from chatparse.adapter import (
    as_nonempty_text,
    as_text,
    as_time,
    dig,
    drop_payloads,
    image_ref,
    is_file,
    strip_images,
)
from chatparse.adapters.kiro.common import Reading, structured_text
from chatparse.decoders.jsonl import Line
from chatparse.decoders.value import Invalid, decode
from chatparse.errors import SourceUnavailableError, UnavailableCause
from chatparse.model import ImageRef

__all__ = ["Metadata", "read_journal", "read_metadata"]

_FLAT_ROLES: Final = frozenset({"user", "assistant"})
_THINKING: Final = frozenset({"reasoning", "thinking"})


class Metadata:
    """A session's metadata file, as far as the adapter uses it."""

    def __init__(self, fields: dict[str, Any], problem: str | None = None) -> None:
        self.fields = fields
        self.problem = problem
        """Why the file could not be read; ``None`` when it could (or is absent)."""

    def first(self, *paths: tuple[str, ...]) -> str | None:
        """The first non-empty text found at one of ``paths``."""
        for path in paths:
            found = as_nonempty_text(dig(self.fields, *path))
            if found is not None:
                return found
        return None

    @property
    def title(self) -> str | None:
        """``title``."""
        return self.first(("title",))

    @property
    def cwd(self) -> str | None:
        """``cwd`` (the CLI's), else ``workspaceDirectory`` or ``workspacePath``."""
        return self.first(("cwd",), ("workspaceDirectory",), ("workspacePath",))

    @property
    def model(self) -> str | None:
        """The model of ``session_state.rts_model_state``, else ``model``."""
        state = ("session_state", "rts_model_state")
        return self.first((*state, "model_info", "model_id"), (*state, "model_id"), ("model",))

    @property
    def parent(self) -> str | None:
        """The session this one was made from."""
        return self.first(("parent_session_id",), ("parentSessionId",))

    def time(self, *keys: str) -> datetime | None:
        """The first of ``keys`` as a time (ISO with a zone, or unix milliseconds)."""
        for key in keys:
            stamp = as_time(self.fields.get(key), "ms")
            if stamp is not None:
                return stamp
        return None


def read_metadata(path: Path, *, main: bool) -> Metadata | None:
    """The metadata file at ``path``; ``None`` when there is none.

    ``main``: whether it is the file the scan named; then one that cannot be read raises
    :class:`~chatparse.errors.SourceUnavailableError` (else it is one malformed record).
    """
    if not is_file(path):
        return None
    try:
        value = decode(path.read_bytes())
    except OSError as exc:
        if main:
            raise SourceUnavailableError(
                str(path),
                f"cannot read: {exc.strerror or exc}",
                "Check its permissions.",
                UnavailableCause.of(exc),
            ) from exc
        return Metadata({}, f"cannot be read ({exc.strerror or exc})")
    if isinstance(value, Invalid):
        return Metadata({}, value.reason)
    if not isinstance(value, dict):
        return Metadata({}, "not a JSON object")
    return Metadata(value)


def _image(data: object) -> tuple[str, ImageRef]:
    kind = as_nonempty_text(dig(data, "format"))
    payload = dig(data, "source", "bytes")
    image = image_ref(f"image/{kind.lower()}" if kind else None, payload)
    return f"[image: {image.media_type or 'unknown'}, {image.byte_size} bytes]", image


def _blocks(content: object) -> dict[str, list[Any]]:
    """A line's content blocks by kind: texts, images, thinking, tool uses and results."""
    found: dict[str, list[Any]] = {
        "text": [],
        "images": [],
        "thinking": [],
        "calls": [],
        "results": [],
    }
    if isinstance(content, str):
        content = [{"kind": "text", "data": content}]
    for block in content if isinstance(content, list) else ():
        kind = as_text(dig(block, "kind")) or as_text(dig(block, "type"))
        data = dig(block, "data")
        if kind == "text" and isinstance(
            text := data if data is not None else dig(block, "text"), str
        ):
            cleaned, images = strip_images(text)
            found["text"].append(cleaned)
            found["images"] += images
        elif kind == "image":
            placeholder, image = _image(data)
            found["text"].append(placeholder)
            found["images"].append(image)
        elif kind == "json":
            found["text"].append(structured_text(data))
        elif kind in _THINKING and isinstance(data, str):
            found["thinking"].append(data)
        elif kind == "toolUse" and isinstance(data, dict):
            found["calls"].append(data)
        elif kind == "toolResult" and isinstance(data, dict):
            found["results"].append(data)
    return found


def _when(line: dict[str, Any]) -> datetime | None:
    return as_time(dig(line, "data", "meta", "timestamp") or line.get("timestamp"), "s")


def _prompt(reading: Reading, line: dict[str, Any], ident: str) -> str | None:
    blocks = _blocks(dig(line, "data", "content"))
    reading.add(
        ident,
        "user",
        text="\n".join(blocks["text"]),
        images=blocks["images"],
        timestamp=_when(line),
    )
    return None


def _answer(reading: Reading, line: dict[str, Any], ident: str) -> str | None:
    blocks = _blocks(dig(line, "data", "content"))
    calls = []
    for use in blocks["calls"]:
        name = as_nonempty_text(use.get("name"))
        if name is not None:
            arguments = drop_payloads(use.get("input"))[0]
            calls.append(
                reading.tools.call(as_nonempty_text(use.get("toolUseId")), name, arguments)
            )
    reading.add(
        ident,
        "assistant",
        text="\n".join(blocks["text"]),
        thinking="\n\n".join(blocks["thinking"]) or None,
        images=blocks["images"],
        calls=calls,
        timestamp=_when(line),
    )
    return None


def _results(reading: Reading, line: dict[str, Any], ident: str) -> str | None:
    results = _blocks(dig(line, "data", "content"))["results"]
    if not results:
        return "tool results without a toolResult block"
    repeated = reading.tools.repeated
    for result in results:
        text = "\n".join(_blocks(result.get("content"))["text"])
        status = as_text(result.get("status"))
        is_error = None if status is None else status.lower() == "error"
        call_id = as_nonempty_text(result.get("toolUseId"))
        reading.result(call_id, text, is_error=is_error, ident=ident)
    if reading.tools.repeated - repeated == len(results):
        reading.ledger.skip("repeated tool result")  # the first results stay
    else:
        reading.ledger.use()
    return None


def _flat(reading: Reading, line: dict[str, Any], ident: str) -> str | None:
    reader = _prompt if line.get("role") == "user" else _answer
    return reader(reading, {"data": {"content": line.get("content")}, **line}, ident)


_Reader = Callable[[Reading, dict[str, Any], str], "str | None"]
_READERS: Final[dict[str, _Reader]] = {
    "Prompt": _prompt,
    "AssistantMessage": _answer,
    "ToolResults": _results,
}
"""The reader of each envelope kind; it returns why the line is malformed, or ``None``."""


def _reader(line: dict[str, Any]) -> tuple[str | None, _Reader | None]:
    kind = as_text(line.get("kind"))
    if kind is not None:
        return kind, _READERS.get(kind)
    role = as_text(line.get("role"))
    return role, _flat if role in _FLAT_ROLES else None


def read_journal(path: Path, reading: Reading) -> None:
    """Read the journal at ``path`` line by line into ``reading``."""
    ledger = reading.ledger
    for line in ledger.decoded_lines(path):
        _read_line(reading, path, line)


def _read_line(reading: Reading, path: Path, line: Line) -> None:
    record = line.value
    kind, reader = _reader(record) if isinstance(record, dict) else (None, None)
    if reader is None:
        reading.ledger.keep_span(
            f"line {line.line_no}", kind, path, start=line.offset, end=line.end_offset
        )
        return
    ident = as_nonempty_text(dig(record, "data", "message_id")) or f"line-{line.line_no}"
    problem = reader(reading, record, ident)
    if problem is None and reader is not _results:
        reading.ledger.use()
    elif problem is not None:
        reading.ledger.bad(f"line {line.line_no}", problem)
