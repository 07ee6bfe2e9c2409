"""The hook transcript: one Cascade step a line, read into messages.

Each line is ``{"type": T, "status": S, T: {...}}``: the step's payload sits under a key named
after its type. Routed by type through :data:`READERS`: ``user_input`` is a prompt,
``planner_response`` an answer, and each tool step (:data:`TOOL_STEPS`) is one tool call *and*
its result, made by the answer before it in the same turn. There are no ids, times, usage,
models or thinking. Cascade can write raw control characters inside JSON strings; such a line
is read with them escaped (see :func:`escape_controls`), as every reader of these files does.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

from attrs import define, field

from chatparse.adapter import (
    Ledger,
    MessageDraft,
    PendingCall,
    UniqueIds,
    as_nonempty_text,
    as_text,
    drop_payloads,
    strip_images,
    strip_payloads,
)
from chatparse.adapters.windsurf.records import keep_line
from chatparse.decoders.jsonl import Malformed, iter_lines, read_spans
from chatparse.decoders.value import Invalid, decode
from chatparse.model import Role

__all__ = ["READERS", "TOOL_STEPS", "Transcript", "escape_controls", "read_transcript"]

TOOL_STEPS: Final = frozenset(
    {
        "code_action",
        "find",
        "grep_search",
        "list_directory",
        "list_resources",
        "run_command",
        "view_file",
    }
)
"""Step types that are a tool's call and result in one; other types are kept raw."""
OUTPUT_FIELDS: Final = ("output", "content")
"""Payload fields holding the tool's text result (``content`` of ``view_file``)."""
RESULT_FIELDS: Final = ("exit_code", "total_results", "user_rejected", "acknowledgement_type")
"""Payload fields that tell how the tool ended: the structured result, not the call's input."""
_STATUS_FAILED: Final = {"done": False, "error": True}
"""``is_error`` by step status; another status (running, cancelled) says nothing."""


@define
class Transcript:
    """What the lines of one transcript have given so far."""

    ledger: Ledger = field(factory=Ledger)
    ids: UniqueIds = field(factory=UniqueIds)
    drafts: list[MessageDraft] = field(factory=list)
    answer: MessageDraft | None = None
    """The latest answer of the current turn: the tool steps that follow are its calls."""
    cwd: str | None = None
    """The working folder of the first command Cascade ran."""
    escaped: int = 0
    """Lines read only once their raw control characters were escaped."""

    def add(self, line: int, role: Role, text: str = "") -> MessageDraft:
        """A new message from the line ``line``, its images taken out of ``text``."""
        cleaned, images = strip_images(text)
        draft = MessageDraft(
            id=self.ids.take(f"line-{line}"), role=role, text=cleaned, images=list(images)
        )
        self.drafts.append(draft)
        return draft


def _prompt(transcript: Transcript, payload: dict[str, Any], line: int, _status: object) -> bool:
    text = as_text(payload.get("user_response"))
    if text is None:
        return False
    transcript.add(line, "user", text)
    transcript.answer = None
    return True


def _answer(transcript: Transcript, payload: dict[str, Any], line: int, _status: object) -> bool:
    text = as_text(payload.get("response"))
    if text is None:
        return False
    transcript.answer = transcript.add(line, "assistant", text)
    return True


def _failed(payload: dict[str, Any], status: object) -> bool | None:
    exit_code = payload.get("exit_code")
    if payload.get("user_rejected") is True or (type(exit_code) is int and exit_code != 0):
        return True
    return _STATUS_FAILED.get(status) if isinstance(status, str) else None


def _tool(kind: str) -> Callable[[Transcript, dict[str, Any], int, object], bool]:
    def read(transcript: Transcript, payload: dict[str, Any], line: int, status: object) -> bool:
        arguments = {
            key: value
            for key, value in payload.items()
            if key not in OUTPUT_FIELDS and key not in RESULT_FIELDS
        }
        output = next(filter(None, map(as_text, map(payload.get, OUTPUT_FIELDS))), None)
        ended = {key: payload[key] for key in RESULT_FIELDS if key in payload}
        if kind == "run_command":
            transcript.cwd = transcript.cwd or as_nonempty_text(payload.get("cwd"))
        caller = transcript.answer or transcript.add(line, "assistant")
        transcript.answer = caller
        call = PendingCall(id=None, name=kind, input=drop_payloads(arguments)[0])
        call.answer(
            strip_payloads(output)[0] if output is not None else None,
            is_error=_failed(payload, status),
            result=drop_payloads(ended)[0] if ended else None,
        )
        caller.calls.append(call)
        return True

    return read


READERS: Final[dict[str, Callable[[Transcript, dict[str, Any], int, object], bool]]] = {
    "user_input": _prompt,
    "planner_response": _answer,
    **{kind: _tool(kind) for kind in sorted(TOOL_STEPS)},
}
"""The reader of each step type; it returns whether the payload had what its type needs (a
step that has not is kept raw as unknown)."""


def escape_controls(text: str) -> str:
    r"""``text`` with raw control characters inside JSON strings written as ``\u00XX``.

    Outside strings they are left alone: there a tab or a carriage return is JSON whitespace.
    """
    out: list[str] = []
    in_string = escaped = False
    for char in text:
        if in_string and not escaped and char < " ":
            out.append(f"\\u{ord(char):04x}")
            continue
        out.append(char)
        if escaped:
            escaped = False
        elif char == "\\" and in_string:
            escaped = True
        elif char == '"':
            in_string = not in_string
    return "".join(out)


def _repaired(path: Path, record: Malformed) -> object:
    """The line's value once its control characters are escaped; ``None`` if still not JSON."""
    if record.end_offset == record.offset:  # torn: its writer may still finish it
        return None
    (raw,) = read_spans(path, [(record.offset, record.end_offset)])
    value = decode(escape_controls(raw))
    return None if isinstance(value, Invalid) else value


def read_transcript(path: Path) -> Transcript:
    """Read the transcript at ``path``; a line that is no JSON object of a known step is kept."""
    transcript = Transcript()
    ledger = transcript.ledger
    for line in iter_lines(path):
        if isinstance(line, Malformed):
            record = _repaired(path, line)
            if record is None:
                ledger.bad(f"line {line.line_no}", line.reason)
                continue
            transcript.escaped += 1
        else:
            record = line.value
        kind = record.get("type") if isinstance(record, dict) else None
        reader = READERS.get(kind) if isinstance(kind, str) else None
        payload = record.get(kind) if isinstance(record, dict) and reader is not None else None
        if reader is not None and isinstance(payload, dict):
            status = record.get("status") if isinstance(record, dict) else None
            if reader(transcript, payload, line.line_no, status):
                ledger.use()
                continue
        keep_line(ledger, path, line, kind)
    if transcript.escaped:
        ledger.warn(
            f"{transcript.escaped} line(s) held raw control characters inside strings; "
            "read with them escaped"
        )
    return transcript
