"""The plaintext transcript: one step a line, read into messages.

Each line is ``{step_index, source, type, status, created_at, content, thinking, tool_calls,
truncated_fields}``, routed by ``type`` through :data:`READERS`. A ``PLANNER_RESPONSE`` is an
answer whose ``tool_calls`` (``{name, args}``, no ids) are answered **by position**: each result
step that follows answers the earliest call of that answer still unanswered. The result types
are those of :data:`RESULT_TYPES` (one per tool), and new tools bring new types: the notes and
samples show no other kind of step from the model, so an unknown type whose ``source`` is
``MODEL`` is read as a result too; any other unknown step is kept raw.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any, Final, NamedTuple

from attrs import define, field

from chatparse.adapter import (
    Ledger,
    MessageDraft,
    PendingCall,
    UniqueIds,
    as_datetime,
    as_nonempty_text,
    as_text,
    dig,
    drop_payloads,
    strip_images,
    strip_payloads,
)
from chatparse.adapters.antigravity.prompts import model_chosen, split_prompt, system_text
from chatparse.adapters.windsurf.records import keep_line
from chatparse.decoders.value import Invalid, decode
from chatparse.model import MessageKind, Role

__all__ = ["READERS", "RESULT_TYPES", "Step", "Transcript", "read_transcript"]

_FAILED_COMMAND: Final = re.compile(r"^The command failed with exit code: -?\d+", re.MULTILINE)
"""How a failed shell command says so: its step's status is ``DONE`` all the same."""
_STATUS_FAILED: Final = {"DONE": False, "ERROR": True}
"""``is_error`` by step status; ``RUNNING`` says nothing yet."""


class Step(NamedTuple):
    """One step's envelope: its message id, type, time, status and clipped fields."""

    id: str
    kind: str
    timestamp: datetime | None
    status: object
    clipped: tuple[str, ...]


@define
class Transcript:
    """What the steps of one transcript have given so far."""

    double_encoded: bool
    """Whether tool arguments are JSON-encoded once more (``transcript.jsonl``)."""
    ledger: Ledger = field(factory=Ledger)
    ids: UniqueIds = field(factory=UniqueIds)
    drafts: list[MessageDraft] = field(factory=list)
    waiting: deque[PendingCall] = field(factory=deque)
    """The calls of the latest answer that no result has answered yet, in call order."""
    model: str | None = None
    clipped: list[str] = field(factory=list)
    """Steps whose text Antigravity clipped (``truncated_fields``), as ``<id> (<fields>)``."""

    def add(self, step: Step, role: Role, kind: MessageKind, text: str) -> MessageDraft:
        """A new message for ``step``, its images taken out of ``text``."""
        cleaned, images = strip_images(text)
        draft = MessageDraft(
            id=self.ids.take(step.id),
            role=role,
            kind=kind,
            text=cleaned,
            images=list(images),
            timestamp=step.timestamp,
        )
        self.drafts.append(draft)
        if step.clipped:
            self.clipped.append(f"{draft.id} ({', '.join(step.clipped)})")
        return draft


Reader = Callable[[Transcript, dict[str, Any], Step], bool | str]
"""Reads one step: ``True`` when used, a reason when skipped, ``False`` to keep it raw."""


def _prompt(transcript: Transcript, record: dict[str, Any], step: Step) -> bool | str:
    content = as_text(record.get("content"))
    if content is None:
        return False
    prompt = split_prompt(content)
    transcript.waiting.clear()
    transcript.add(step, "user", "message", prompt.text)
    if prompt.settings:
        transcript.model = model_chosen(prompt.settings) or transcript.model
        transcript.add(step, "system", "notice", "\n".join(prompt.settings))
    return True


def _arguments(transcript: Transcript, args: object) -> object:
    """A call's arguments, each value decoded once more where the file encodes them twice."""
    if not (transcript.double_encoded and isinstance(args, dict)):
        return drop_payloads(args)[0]
    decoded = {}
    for key, value in args.items():
        inner = decode(value) if isinstance(value, str) else Invalid("not text")
        decoded[key] = value if isinstance(inner, Invalid) else inner
    return drop_payloads(decoded)[0]


def _answer(transcript: Transcript, record: dict[str, Any], step: Step) -> bool | str:
    calls = record.get("tool_calls")
    content = record.get("content")
    if (calls is not None and not isinstance(calls, list)) or (
        content is not None and not isinstance(content, str)
    ):
        return False
    draft = transcript.add(step, "assistant", "message", content or "")
    draft.thinking = as_nonempty_text(record.get("thinking"))
    draft.model = transcript.model
    transcript.waiting.clear()  # calls of an earlier answer no result came for stay unanswered
    for request in calls or ():
        name = as_nonempty_text(dig(request, "name"))
        if name is not None:
            call = PendingCall(None, name, _arguments(transcript, dig(request, "args")))
            draft.calls.append(call)
            transcript.waiting.append(call)
    return True


def _result(transcript: Transcript, record: dict[str, Any], step: Step) -> bool | str:
    content = record.get("content")
    if content is not None and not isinstance(content, str):
        return False
    output = strip_payloads(content)[0] if content is not None else None
    failed = _STATUS_FAILED.get(step.status) if isinstance(step.status, str) else None
    if output is not None and step.kind == "RUN_COMMAND" and _FAILED_COMMAND.search(output):
        failed = True
    if transcript.waiting:
        transcript.waiting.popleft().answer(output, is_error=failed)
        if step.clipped:
            transcript.clipped.append(f"result of {step.id} ({', '.join(step.clipped)})")
    else:  # a result no call of the latest answer is waiting for: kept as its own message
        transcript.add(step, "user", "tool_result", output or "")
    return True


def _system(kind: MessageKind, unwrap: Callable[[str], str] = str) -> Reader:
    def read(transcript: Transcript, record: dict[str, Any], step: Step) -> bool | str:
        content = record.get("content")
        if content is None:
            return f"{step.kind}: no content"
        if not isinstance(content, str):
            return False
        transcript.add(step, "system", kind, unwrap(content))
        return True

    return read


READERS: Final[dict[str, Reader]] = {
    "USER_INPUT": _prompt,
    "PLANNER_RESPONSE": _answer,
    "CHECKPOINT": _system("compaction_summary"),
    "SYSTEM_MESSAGE": _system("notice", system_text),
    "CONVERSATION_HISTORY": _system("notice"),
}
"""The reader of each step type that is not a tool's result."""
RESULT_TYPES: Final = frozenset(
    {
        "ASK_QUESTION",
        "CODE_ACTION",
        "GENERATE_IMAGE",
        "GENERIC",
        "GREP_SEARCH",
        "INVOKE_SUBAGENT",
        "LIST_DIRECTORY",
        "READ_URL_CONTENT",
        "RUN_COMMAND",
        "SEARCH_WEB",
        "VIEW_FILE",
    }
)
"""The tool result types the format notes list; a type not listed is a result when its source
is :data:`MODEL`."""
MODEL: Final = "MODEL"


def _reader(kind: str, record: dict[str, Any]) -> Reader | None:
    if kind in RESULT_TYPES or (kind not in READERS and record.get("source") == MODEL):
        return _result
    return READERS.get(kind)


def _step(record: dict[str, Any], kind: str, line: int) -> Step:
    index = record.get("step_index")
    clipped = record.get("truncated_fields")
    return Step(
        id=f"step-{index}" if type(index) is int else f"line-{line}",
        kind=kind,
        timestamp=as_datetime(record.get("created_at")),
        status=record.get("status"),
        clipped=tuple(f for f in clipped if isinstance(f, str))
        if isinstance(clipped, list)
        else (),
    )


def read_transcript(path: Path, *, double_encoded: bool) -> Transcript:
    """Read the transcript at ``path``; a line that is no step of a known shape is kept raw."""
    transcript = Transcript(double_encoded)
    ledger = transcript.ledger
    for line in ledger.decoded_lines(path):
        record = line.value
        kind = record.get("type") if isinstance(record, dict) else None
        outcome: bool | str = False
        if isinstance(record, dict) and isinstance(kind, str):
            reader = _reader(kind, record)
            if reader is not None:
                outcome = reader(transcript, record, _step(record, kind, line.line_no))
        if outcome is True:
            ledger.use()
        elif outcome:
            ledger.skip(outcome)
        else:
            keep_line(ledger, path, line, kind)
    if transcript.clipped:
        ledger.warn(
            "clipped by Antigravity (truncated_fields), so incomplete: "
            + "; ".join(transcript.clipped)
        )
    return transcript
