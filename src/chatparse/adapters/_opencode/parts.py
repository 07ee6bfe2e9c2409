"""Parts: what each part adds to its message, routed by the part's ``type``.

``text``
    The message's text. ``synthetic`` text (added by OpenCode: a file read for the prompt, a
    reminder) and ``ignored`` text (never sent to the model) go to a ``notice`` message apart.
``reasoning``
    ``thinking``.
``file``
    An image (``ImageRef``) or a file, as a placeholder in the text; the payload is never kept.
``tool``
    A ``ToolCall``. The part holds the call and its whole lifecycle (``state``), so the call is
    paired with its result within the one record: ``completed`` gives ``output``, ``error``
    gives the error as ``output`` with ``is_error``; ``pending`` and ``running`` calls are
    unanswered. The state's ``title`` and ``metadata`` are the call's ``result``.
``step-finish``
    One call's token usage (see :mod:`~chatparse.adapters._opencode.usage`).
``compaction``
    The message asks for a compaction: a ``command`` when the person did (``auto: false``), a
    ``notice`` when OpenCode did.
``subtask``
    The sub-agent prompt of a command run as a sub-task, as the message's text.
``step-start``, ``snapshot``, ``patch``, ``agent``, ``retry``
    Skipped: step and git bookkeeping, an ``@agent`` mention already in the text, a failed call
    that was retried.

A part of any other type, or of a known type in a shape we do not know, is kept raw.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Final, TypeAlias

from attrs import define, field

from chatparse.adapter import Ledger, PendingCall, ToolCallPairing, as_nonempty_text, as_text
from chatparse.adapters._opencode.content import (
    clean_text,
    clean_value,
    file_placeholder,
    strip_text,
)
from chatparse.adapters._opencode.records import Record
from chatparse.model import ImageRef, MessageKind

__all__ = ["Body", "Draft", "Reading", "read_parts"]


@define
class Body:
    """Text and images for one message."""

    texts: list[str] = field(factory=list)
    images: list[ImageRef] = field(factory=list)


@define
class Draft:
    """One OpenCode message while its parts are read.

    Attributes:
        record: The message record.
        info: Its decoded JSON (``role``, ``time``, ``tokens``...).
        main: What the message says.
        injected: Text OpenCode added to it (``synthetic`` or ``ignored`` parts).
        thinking: Its reasoning parts.
        calls: Its tool calls.
        steps: The ``tokens`` of its ``step-finish`` parts.
        kind: What the message is (a compaction request, a command).
        reverted: Whether a pending revert undid it.
    """

    record: Record
    info: dict[str, Any]
    main: Body = field(factory=Body)
    injected: Body = field(factory=Body)
    thinking: list[str] = field(factory=list)
    calls: list[PendingCall] = field(factory=list)
    steps: list[object] = field(factory=list)
    kind: MessageKind = "message"
    reverted: bool = False


@define
class Reading:
    """What the part readers of one conversation share.

    Attributes:
        pairing: The conversation's tool calls.
        payload: Whether the part being read may hold a base64 payload
            (:func:`~chatparse.adapters._opencode.content.may_hold_payload`): when it may not,
            its text is only searched for inline images, and its structured data not at all.
    """

    pairing: ToolCallPairing = field(factory=ToolCallPairing)
    payload: bool = True

    def text(self, text: str, images: list[ImageRef]) -> str:
        """A text of the part, without payloads; its images go to ``images``."""
        return clean_text(text, images) if self.payload else strip_text(text, images)

    def value(self, value: Any, images: list[ImageRef]) -> Any:
        """Structured data of the part (a tool's input, result), without payloads."""
        return clean_value(value, images) if self.payload else value


Outcome: TypeAlias = str | None
"""What became of a part: ``""`` used, other text skipped for that reason, ``None`` unknown."""
PartReader: TypeAlias = Callable[[Draft, dict[str, Any], Reading], Outcome]


def _text(draft: Draft, part: dict[str, Any], reading: Reading) -> Outcome:
    text = as_text(part.get("text"))
    if text is None:
        return None
    body = (
        draft.injected
        if part.get("synthetic") is True or part.get("ignored") is True
        else draft.main
    )
    if not text.strip():
        return "part text (empty)"
    body.texts.append(reading.text(text, body.images))
    return ""


def _reasoning(draft: Draft, part: dict[str, Any], reading: Reading) -> Outcome:
    text = as_text(part.get("text"))
    if text is None:
        return None
    if not text.strip():  # encrypted reasoning keeps its payload in metadata, not in text
        return "part reasoning (empty)"
    draft.thinking.append(reading.text(text, draft.main.images))
    return ""


def _file(draft: Draft, part: dict[str, Any], _reading: Reading) -> Outcome:
    draft.main.texts.append(file_placeholder(part, draft.main.images))
    return ""


_STATUSES: Final = frozenset({"pending", "running", "completed", "error"})


def _result(state: dict[str, Any], images: list[ImageRef], reading: Reading) -> Any:
    """The state's ``title`` and ``metadata`` (a diff, a file path, a child session id)."""
    kept = {
        key: state[key] for key in ("title", "metadata") if state.get(key) not in (None, "", {})
    }
    return reading.value(kept, images) if kept else None


def _tool(draft: Draft, part: dict[str, Any], reading: Reading) -> Outcome:
    name = as_nonempty_text(part.get("tool"))
    state = part.get("state")
    if name is None or not isinstance(state, dict):
        return None
    status = state.get("status")
    if not isinstance(status, str) or status not in _STATUSES:
        return None
    images = draft.main.images
    arguments = reading.value(state.get("input"), images)
    call = reading.pairing.call(as_nonempty_text(part.get("callID")), name, arguments)
    draft.calls.append(call)
    if status in {"completed", "error"}:
        # Attachments (files a tool returned) add their images to the message; their payloads,
        # like any data: URL, are not kept.
        reading.value(state.get("attachments"), images)
        failed = status == "error"
        output = as_text(state.get("error" if failed else "output")) or ""
        result = _result(state, images, reading)
        call.answer(reading.text(output, images), is_error=failed, result=result)
    return ""


def _step_finish(draft: Draft, part: dict[str, Any], _reading: Reading) -> Outcome:
    draft.steps.append(part.get("tokens"))
    return ""


def _compaction(draft: Draft, part: dict[str, Any], _reading: Reading) -> Outcome:
    draft.kind = "command" if part.get("auto") is False else "notice"
    return ""


def _subtask(draft: Draft, part: dict[str, Any], reading: Reading) -> Outcome:
    prompt = as_text(part.get("prompt"))
    if prompt is None:
        return None
    if as_nonempty_text(part.get("command")) is not None:
        draft.kind = "command"
    draft.main.texts.append(reading.text(prompt, draft.main.images))
    return ""


def _skip(reason: str) -> PartReader:
    return lambda _draft, _part, _reading: reason


PART_READERS: Final[dict[str, PartReader]] = {
    "text": _text,
    "reasoning": _reasoning,
    "tool": _tool,
    "step-finish": _step_finish,
    "file": _file,
    "step-start": _skip("part step-start"),
    "snapshot": _skip("part snapshot"),
    "patch": _skip("part patch"),
    "agent": _skip("part agent"),
    "retry": _skip("part retry"),
    "compaction": _compaction,
    "subtask": _subtask,
}
"""The reader of each part ``type``; a type not listed is kept raw."""


def read_parts(
    draft: Draft, parts: Iterable[Record], reading: Reading, ledger: Ledger, version: str | None
) -> None:
    """Add a message's part records to its ``draft``, and tell ``ledger`` where each went."""
    used = 0
    for record in parts:
        part = record.data
        if part is None:
            ledger.bad(record.where, record.problem)
            continue
        kind = part.get("type")
        reader = PART_READERS.get(kind) if isinstance(kind, str) else None
        reading.payload = record.payload
        outcome = reader(draft, part, reading) if reader is not None else None
        if outcome is None:
            record.keep(ledger, f"part {kind}" if isinstance(kind, str) else "part", version)
        elif outcome:
            ledger.skip(outcome)
        else:
            used += 1
    ledger.use(used)
