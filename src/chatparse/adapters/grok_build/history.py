"""``chat_history.jsonl``: the model's context, one item per line, read into message drafts.

Two formats, told apart line by line (``summary.json``'s ``chat_format_version`` says which one
a file was written in, but a line says it too):

* **v1**, tagged by ``type``: ``system``, ``user`` (``content`` parts, ``synthetic_reason``,
  ``prompt_index``), ``assistant`` (``content`` text, ``tool_calls`` with ``arguments`` as JSON
  text, ``model_id``), ``tool_result`` (``tool_call_id``, ``content``, ``images``),
  ``reasoning`` (``summary`` texts; a sibling *before* its assistant item) and
  ``backend_tool_call`` (a server-side tool: web or X search, code interpreter).
* **v0**, OpenAI chat messages tagged by ``role``: ``system``, ``user``, ``assistant``
  (``tool_calls[].function``, ``reasoning_content``) and ``tool`` (``tool_call_id``).

The file holds no times and no usage (``updates.jsonl`` has them), and no message ids: a
message's id is its line, ``line-<n>``; an answer's is the line of its first part (the reasoning
or server-side call before it, when there is one).
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
    as_count,
    as_nonempty_text,
    as_text,
    content_text,
    dig,
    image_at,
)
from chatparse.decoders.jsonl import Line
from chatparse.decoders.value import Invalid, decode
from chatparse.model import ImageRef, MessageKind, Role

__all__ = ["Draft", "History", "read_history"]

_V0_TAGS: Final = {
    "system": "system",
    "user": "user",
    "assistant": "assistant",
    "tool": "tool_result",
}
"""A v0 line's ``role``, as the v1 ``type`` of the same shape."""

_PROMPTS: Final = frozenset({None, "interjection"})
"""``synthetic_reason`` of what a person typed: none, or text typed while the model ran."""
_SYNTHETIC: Final[dict[str, tuple[Role, MessageKind]]] = {
    "compaction_meta": ("system", "compaction_summary"),
}
"""Injected user items that are not notices; every other ``synthetic_reason`` is one."""


@define(kw_only=True, eq=False)
class Draft(MessageDraft):
    """A message being read, with what ``updates.jsonl`` may still add to it."""

    prompt: int | None = None
    """For a typed prompt that starts a turn: its prompt index."""
    turn: int | None = None
    """The prompt index of the turn the message is part of (``None`` before the first)."""


@define
class History:
    """What the lines of one ``chat_history.jsonl`` have given so far."""

    ledger: Ledger = field(factory=Ledger)
    ids: UniqueIds = field(factory=UniqueIds)
    tools: ToolCallPairing = field(factory=ToolCallPairing)
    drafts: list[Draft] = field(factory=list)
    prompts: int = 0
    turn: int | None = None
    # Reasoning and server-side tool calls wait for the assistant item they precede.
    thinking: list[str] = field(factory=list)
    backend_calls: list[PendingCall] = field(factory=list)
    waiting_since: int | None = None

    def add(self, line: int, role: Role, kind: MessageKind, **fields: Any) -> Draft:
        """A message from the item on ``line``, in the current turn."""
        draft = Draft(id=self.ids.take(f"line-{line}"), role=role, kind=kind, **fields)
        draft.turn = self.turn
        self.drafts.append(draft)
        return draft

    def flush(self) -> None:
        """Reasoning or server-side calls no assistant item followed: an answer of their own."""
        if self.waiting_since is None:
            return
        self.add(self.waiting_since, "assistant", "message", **self.take_waiting())

    def take_waiting(self) -> dict[str, Any]:
        """The reasoning and server-side calls waiting for an assistant item, taken."""
        taken = {"thinking": "\n\n".join(self.thinking) or None, "calls": self.backend_calls}
        self.thinking, self.backend_calls, self.waiting_since = [], [], None
        return taken


def _image(part: dict[str, Any]) -> list[tuple[str, ImageRef]]:
    """An image part (``url``: a data URI, or a link): its placeholder and reference."""
    return [image_at(as_text(part.get("url")) or as_text(dig(part, "image_url", "url")) or "")]


_IMAGES: Final[dict[str, ImagePart]] = {"image": _image, "image_url": _image}


def _user(history: History, record: dict[str, Any], line: Line) -> str | None:
    read = content_text(record.get("content"), _IMAGES)
    if read is None:
        return "a user item without content"
    history.flush()
    reason = as_nonempty_text(record.get("synthetic_reason"))
    text, images = read
    if reason in _PROMPTS:
        prompt = None
        if reason is None:
            prompt = as_count(record.get("prompt_index"))
            prompt = history.prompts if prompt is None else prompt
            history.prompts, history.turn = prompt + 1, prompt
        history.add(line.line_no, "user", "message", text=text, images=images, prompt=prompt)
    else:
        role, kind = _SYNTHETIC.get(reason or "", ("user", "notice"))
        history.add(line.line_no, role, kind, text=text, images=images)
    return None


def _arguments(value: object) -> object:
    """Tool arguments: JSON text decoded; text that is not JSON kept as it is."""
    if not isinstance(value, str):
        return value
    decoded = decode(value) if value.strip() else value
    return value if isinstance(decoded, Invalid) else decoded


def _assistant(history: History, record: dict[str, Any], line: Line) -> str | None:
    read = content_text(record.get("content") or "", _IMAGES)
    if read is None:
        return "an assistant item whose content is neither text nor parts"
    text, images = read
    calls = []
    for request in record.get("tool_calls") or ():
        name = as_nonempty_text(dig(request, "name")) or as_nonempty_text(
            dig(request, "function", "name")
        )
        if name is None:
            continue
        arguments = dig(request, "arguments")
        if arguments is None:
            arguments = dig(request, "function", "arguments")
        ident = as_nonempty_text(dig(request, "id"))
        calls.append(history.tools.call(ident, name, _arguments(arguments)))
    # The answer's id is the line of its first part: reasoning or a server-side call read before
    # it was, alone, an answer of that id (a file cut after it), and stays one.
    first_line = history.waiting_since or line.line_no
    waiting = history.take_waiting() if history.waiting_since is not None else {}
    inline = as_nonempty_text(record.get("reasoning_content"))
    thinking = "\n\n".join(filter(None, [waiting.get("thinking"), inline])) or None
    history.add(
        first_line,
        "assistant",
        "message",
        text=text,
        images=images,
        thinking=thinking,
        calls=[*waiting.get("calls", ()), *calls],
        model=as_nonempty_text(record.get("model_id")),
    )
    return None


def _tool_result(history: History, record: dict[str, Any], line: Line) -> str | None:
    ident = as_nonempty_text(record.get("tool_call_id"))
    read = content_text(record.get("content") or "", _IMAGES)
    if read is None:
        return "a tool result whose content is neither text nor parts"
    history.flush()
    text, images = read
    extra = content_text(record.get("images") or [], _IMAGES)
    if extra is not None and extra[0]:
        text, images = "\n".join(filter(None, [text, extra[0]])), [*images, *extra[1]]
    replays = history.tools.repeated
    if history.tools.answer(ident, text) is None:  # an orphan: its text is kept
        history.add(line.line_no, "user", "tool_result", text=text, images=images)
    if history.tools.repeated > replays:
        history.ledger.skip("repeated tool result")  # the first result stays
    else:
        history.ledger.use()
    return None


def _reasoning(history: History, record: dict[str, Any], line: Line) -> str | None:
    texts = [as_text(dig(part, "text")) for part in record.get("summary") or ()]
    texts += [as_text(dig(part, "text")) for part in record.get("content") or ()]
    text = "\n\n".join(t.strip() for t in texts if t and t.strip())
    if text:
        history.thinking.append(text)
    if history.waiting_since is None:
        history.waiting_since = line.line_no
    return None  # an encrypted-only item still marks where the reasoning was


def _backend_call(history: History, record: dict[str, Any], line: Line) -> str | None:
    kind = record.get("kind")
    name = as_nonempty_text(dig(kind, "tool_type"))
    if name is None:
        return "a server-side tool call without a tool_type"
    call = PendingCall(id=as_nonempty_text(dig(kind, "id")), name=name, input=dig(kind, "action"))
    status = as_text(dig(kind, "status"))
    if status in ("completed", "failed"):
        call.answer(None, is_error=status == "failed")
    history.backend_calls.append(call)
    if history.waiting_since is None:
        history.waiting_since = line.line_no
    return None


def _system(history: History, _record: dict[str, Any], _line: Line) -> str | None:
    history.ledger.skip("system prompt")  # Grok Build's own instructions, not the conversation
    return None


_Reader = Callable[[History, dict[str, Any], Line], "str | None"]
_READERS: Final[dict[str, _Reader]] = {
    "system": _system,
    "user": _user,
    "assistant": _assistant,
    "tool_result": _tool_result,
    "reasoning": _reasoning,
    "backend_tool_call": _backend_call,
}
"""The reader of each item type; it returns why the item is malformed, or ``None``."""
_COUNTED_BY_READER: Final = frozenset({"system", "tool_result"})


def _tag(record: dict[str, Any]) -> str | None:
    kind = record.get("type")
    if isinstance(kind, str):
        return kind
    role = record.get("role")
    return _V0_TAGS.get(role) if isinstance(role, str) else None


def read_history(path: Path, history: History) -> History:
    """Read ``chat_history.jsonl`` at ``path`` line by line into ``history``."""
    ledger = history.ledger
    for line in ledger.decoded_lines(path):
        record = line.value
        tag = _tag(record) if isinstance(record, dict) else None
        reader = _READERS.get(tag) if tag is not None else None
        if reader is None:
            kind = as_text(record.get("type")) if isinstance(record, dict) else None
            ledger.keep_span(
                f"line {line.line_no}", kind, path, start=line.offset, end=line.end_offset
            )
            continue
        problem = reader(history, record, line)
        if problem is not None:
            ledger.bad(f"line {line.line_no}", problem)
        elif tag not in _COUNTED_BY_READER:
            ledger.use()
    history.flush()
    return history
