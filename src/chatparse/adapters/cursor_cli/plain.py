"""The plain-text transcripts of the oldest builds (``agent-transcripts/<session id>.txt``).

Known from third-party readers only (no sample under a permissive licence): turns start with a
line ``user:`` or ``assistant:`` (``A:`` in some files); inside an answer, a line starting
``[Thinking]`` begins reasoning (to the next blank line), ``[Tool call] <name>`` a call whose
arguments follow as indented ``key: value`` lines, and ``[Tool result] <name>`` that call's
output, up to the next marker or turn (nothing else ends it).
A user turn is read as a transcript's user text (``<user_query>``, context).

Each turn is a record; text before the first turn is kept raw. Nothing carries an id: a result
answers the earliest unanswered call of its tool's name, **by position**, and message ids are
the line numbers of the turns.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Final

from chatparse.adapter import MessageDraft, PendingCall, require_file
from chatparse.adapters.cursor_cli.content import Reading, read_content
from chatparse.decoders.jsonl import read_spans

__all__ = ["read_plain"]

_TURN: Final = re.compile(r"^(user|assistant|A):\s*$")
_MARKER: Final = re.compile(r"^\[(Thinking|Tool call|Tool result)\]\s?(.*)$")
_ROLES: Final = {"user": "user", "assistant": "assistant", "A": "assistant"}


class _Answer:
    """An answer turn being read: which part the next plain line belongs to."""

    def __init__(self, reading: Reading, draft: MessageDraft) -> None:
        self.reading = reading
        self.draft = draft
        self.part = "text"
        self.lines: dict[str, list[str]] = {"text": [], "thinking": []}
        self.call: PendingCall | None = None
        self.result: tuple[str, list[str]] | None = None

    def close(self) -> None:
        """End the part being read: a result is given to its call."""
        if self.result is not None:
            name, lines = self.result
            output = "\n".join(lines).strip("\n")
            waiting = [c for c in self.reading.tools.calls if c.id is None and not c.answered]
            call = next((c for c in waiting if c.name == name), waiting[0] if waiting else None)
            if call is None:
                self.reading.tools.orphans += 1
                self.reading.orphan(f"{self.draft.id}:result", output)
            else:
                call.answer(output)
        self.call, self.result = None, None

    def marker(self, kind: str, rest: str) -> None:
        self.close()
        if kind == "Thinking":
            self.part = "thinking"
            self.lines["thinking"].append(rest)
        elif kind == "Tool call":
            self.part = "call"
            self.call = self.reading.tools.call(None, rest.strip() or "unknown", {})
            self.draft.calls.append(self.call)
        else:
            self.part = "result"
            self.result = (rest.strip(), [])

    def line(self, line: str) -> None:
        if self.part == "call" and self.call is not None and line.startswith((" ", "\t")):
            key, _, value = line.strip().partition(":")
            if isinstance(self.call.input, dict) and key:
                self.call.input[key.strip()] = value.strip()
            return
        if self.part == "result" and self.result is not None:
            self.result[1].append(line)
            return
        if self.part == "call" or (self.part == "thinking" and not line.strip()):
            self.part = "text"  # arguments end at an unindented line, reasoning at a blank one
        self.lines[self.part].append(line)

    def finish(self) -> None:
        self.close()
        text, thinking = ("\n".join(self.lines[k]).strip() for k in ("text", "thinking"))
        self.draft.thinking = thinking or None
        read_content(self.reading, self.draft, text, self.draft.id)


def _turns(text: str) -> list[tuple[int, str | None, list[str]]]:
    """Each turn's first line number, role and lines; the text before the first has no role."""
    turns: list[tuple[int, str | None, list[str]]] = [(1, None, [])]
    for number, line in enumerate(text.split("\n"), start=1):
        line = line.removesuffix("\r")  # noqa: PLW2901 -- the same line, without its CR
        turn = _TURN.match(line)
        if turn is not None:
            turns.append((number, _ROLES[turn[1]], []))
        else:
            turns[-1][2].append(line)
    return turns


def _user(reading: Reading, draft: MessageDraft, lines: list[str]) -> None:
    read_content(reading, draft, "\n".join(lines).strip(), draft.id)


def _assistant(reading: Reading, draft: MessageDraft, lines: list[str]) -> None:
    answer = _Answer(reading, draft)
    for line in lines:
        marker = _MARKER.match(line)
        if marker is not None:
            answer.marker(marker[1], marker[2])
        else:
            answer.line(line)
    answer.finish()


_READERS: Final[dict[str, Callable[[Reading, MessageDraft, list[str]], None]]] = {
    "user": _user,
    "assistant": _assistant,
}


def read_plain(path: Path, reading: Reading) -> Reading:
    """Read the plain-text transcript at ``path`` into ``reading``, turn by turn."""
    file = require_file(path, "transcript")
    (text,) = read_spans(file, [(0, file.stat().st_size)])  # invalid UTF-8 replaced
    for number, role, lines in _turns(text):
        if role is None:
            if "".join(lines).strip():
                reading.ledger.keep("before the first turn", None, "\n".join(lines))
            continue
        draft = reading.draft(f"line-{number}", "user" if role == "user" else "assistant")
        _READERS[role](reading, draft, lines)
    return reading
