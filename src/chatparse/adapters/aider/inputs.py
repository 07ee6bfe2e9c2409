"""``.aider.input.history``: every line the person typed, in prompt_toolkit's history format.

Each entry is a line ``# <local date and time>`` followed by the input, each of its lines
prefixed ``+`` (``FileHistory.store_string``); newest last. Slash commands and the answers
to Aider's confirmations (``y``, ``all``) are ``command`` messages. The time has no zone, so
no entry has a time. Entries are the records; a line of any other shape inside the file is
malformed.

The chat history holds the same inputs with the answers around them, so this file is read only
where a project has no chat history (Aider run with ``--no-chat-history-file`` or one deleted).
"""

from __future__ import annotations

import re
from typing import Final

from chatparse.adapters.aider.history import Reading
from chatparse.model import MessageKind

__all__ = ["ENTRY", "read_inputs"]

ENTRY: Final = re.compile(rb"^# \d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+\r?\n\+", re.MULTILINE)
"""An entry's head, its time line and its first input line: how an input history is told from
a chat history when a variable gives it another name."""
_ENTRY: Final = "# "
_LINE: Final = "+"
_ANSWERS: Final = frozenset({"y", "yes", "n", "no", "a", "all", "s", "skip", "d", "don't"})
"""What Aider's confirmations take (``(Y)es/(N)o/(A)ll/(S)kip all/(D)on't ask again``): an entry
that is one of them answered the tool, not the model."""


def _flush(reading: Reading, start: int, lines: list[str]) -> None:
    text = "\n".join(lines)
    answer = text.strip().lower() in _ANSWERS
    kind: MessageKind = "command" if answer or text.lstrip().startswith("/") else "message"
    reading.add(start, "user", kind, text)
    reading.ledger.use()


def read_inputs(reading: Reading, text: str) -> Reading:
    """Read an input history's ``text`` into ``reading``: one user message per entry."""
    start: int | None = None
    lines: list[str] = []
    for number, line in enumerate(text.split("\n"), start=1):
        line = line.removesuffix("\r")  # noqa: PLW2901 -- the same line, without its CR
        if line.startswith(_ENTRY):
            if start is not None:
                _flush(reading, start, lines)
            start, lines = number, []
        elif line.startswith(_LINE) and start is not None:
            lines.append(line[len(_LINE) :])
        elif line.strip():
            reading.ledger.bad(f"line {number}", "neither an entry's time nor one of its lines")
    if start is not None:
        _flush(reading, start, lines)
    return reading
