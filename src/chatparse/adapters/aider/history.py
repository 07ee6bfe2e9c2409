r"""One session of ``.aider.chat.history.md``: its blocks, routed into messages.

Aider writes Markdown by prefix (``aider/io.py``): ``#### `` before each line the person typed,
``> `` before each line of its own output, nothing before the model's answer; a line ends in two
spaces. The *records* of a session are its blocks: the header line, a run of ``#### `` lines
(one input), a run of ``> `` lines (one burst of output), and the answer text between them
(blank lines included). Blank lines between blocks only separate them.

Nothing in the file carries an id, a time with a zone or a link between blocks, so blocks are
paired **by position**: the ``Tokens:`` line of an output block is the usage of the answer just
before it; the output block after a slash command is that command's output. Edits stay as the
answer's SEARCH/REPLACE text, and what Aider did with them (``Applied edit to``, ``Commit``) is
in the output notices: the log records no tool call of its own.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Final, NamedTuple

from attrs import define, field

from chatparse.adapter import (
    Ledger,
    MessageDraft,
    UniqueIds,
    as_token_count,
    new_usage,
    strip_images,
)
from chatparse.adapters.aider.sessions import HEADER
from chatparse.model import MessageKind, Role

__all__ = ["Reading", "read_session"]

_USER: Final = "#### "
_TOOL: Final = "> "
_VERSION: Final = re.compile(r"^Aider v(\S+)")
_MODEL: Final = re.compile(r"^(?:Main model|Model|Models): (\S+)")
_NUMBER: Final = r"[\d.,]+[kM]?"
_TOKENS: Final = re.compile(
    rf"^Tokens: (?P<sent>{_NUMBER}) sent(?:, (?P<write>{_NUMBER}) cache write)?"
    rf"(?:, (?P<hit>{_NUMBER}) cache hit)?, (?P<received>{_NUMBER}) received\."
)
_CONFIRMATION: Final = re.compile(r"\(Y\)es/\(N\)o.*\[[^\]]*\]: ?\S*$")
_MODE_LINE: Final = re.compile(r"-\*-.*-\*-")
_THINKING: Final = re.compile(
    r"<(?P<tag>thinking-content-[0-9a-f]+|think|thinking|reasoning)>(?P<body>.*?)</(?P=tag)>",
    re.DOTALL,
)
_SCALE: Final = {"k": 1_000, "M": 1_000_000}


class Block(NamedTuple):
    """A run of lines of one kind, and the line number (from 1, in the file) it starts on."""

    kind: str
    line: int
    lines: list[str]


@define
class Reading:
    """What the blocks of one session have given so far."""

    ident: str
    ledger: Ledger = field(factory=Ledger)
    ids: UniqueIds = field(factory=UniqueIds)
    drafts: list[MessageDraft] = field(factory=list)
    model: str | None = None
    version: str | None = None
    last: MessageDraft | None = None
    """The latest message: an answer takes the usage line after it, a command its output."""

    def add(self, line: int, role: Role, kind: MessageKind, text: str) -> MessageDraft:
        """A new message from the block or entry that starts on ``line`` of the file."""
        cleaned, images = strip_images(text)
        draft = MessageDraft(id=self.ids.take(f"line-{line}"), role=role, kind=kind, text=cleaned)
        draft.images.extend(images)
        self.drafts.append(draft)
        self.last = draft
        return draft


def _kind_of(line: str) -> str:
    if line.startswith(_USER) or line.rstrip() == _USER.strip():
        return "user"
    if line.startswith(_TOOL) or line.rstrip() == _TOOL.strip():
        return "tool"
    if HEADER.match(line.encode("utf-8", "replace")):
        return "header"
    return "blank" if not line.strip() else "text"


def blocks_of(text: str, first_line: int) -> Iterator[Block]:
    """The blocks of a session's text; ``first_line`` is the number of its first line."""
    current: Block | None = None
    for number, line in enumerate(text.split("\n"), start=first_line):
        line = line.removesuffix("\r")  # noqa: PLW2901 -- the same line, without its CR
        kind = _kind_of(line)
        if current is not None and (
            kind == current.kind != "header" or (current.kind == "text" and kind == "blank")
        ):
            current.lines.append(line)
            continue
        if current is not None:
            yield current
        current = None if kind == "blank" else Block(kind, number, [line])
    if current is not None:
        yield current


def _unprefixed(block: Block, prefix: str) -> str:
    return "\n".join(
        line[len(prefix) :].removesuffix("  ") if line.startswith(prefix) else ""
        for line in block.lines
    )


def _count(text: str | None, problems: list[str], name: str) -> int | None:
    """A count as Aider prints it: ``653``, ``11,140``, ``1.8k``, ``12k``, ``1.2M``."""
    if text is None:
        return None
    scale = _SCALE.get(text[-1], 1)
    digits = text.rstrip("kM").replace(",", "")
    try:
        value: object = round(float(digits) * scale)
    except ValueError:
        value = text
    return as_token_count(value, problems, name)


def _usage(reading: Reading, match: re.Match[str], block: Block) -> None:
    answer = reading.last
    if answer is None or answer.role != "assistant" or answer.usage is not None:
        reading.ledger.warn(f"line {block.line}: a Tokens line with no answer before it; not kept")
        return
    problems: list[str] = []
    answer.usage = new_usage(
        input_tokens=_count(match["sent"], problems, "sent"),
        output_tokens=_count(match["received"], problems, "received"),
        cache_read_tokens=_count(match["hit"], problems, "cache hit"),
        cache_write_tokens=_count(match["write"], problems, "cache write"),
        dedup_key=f"aider:{reading.ident}:{answer.id}",
    )
    for problem in problems:
        reading.ledger.warn(f"line {block.line}: {problem}")


def _header(reading: Reading, _block: Block) -> None:
    reading.last = None
    reading.ledger.use()


def _user(reading: Reading, block: Block) -> None:
    text = _unprefixed(block, _USER)
    stripped = text.strip()
    kind: MessageKind = (
        "command" if stripped.startswith("/") or _CONFIRMATION.search(stripped) else "message"
    )
    reading.add(block.line, "user", kind, text)
    reading.ledger.use()


def _tool(reading: Reading, block: Block) -> None:
    text = _unprefixed(block, _TOOL)
    before = reading.last
    for line in text.split("\n"):
        if (version := _VERSION.match(line)) is not None:
            reading.version = version[1]
        elif (model := _MODEL.match(line)) is not None:
            reading.model = model[1]
        elif (tokens := _TOKENS.match(line)) is not None:
            _usage(reading, tokens, block)
    if text.strip():
        command = before is not None and before.kind == "command"
        role: Role = "user" if command else "system"
        reading.add(block.line, role, "command_output" if command else "notice", text)
    reading.last = before if before is not None and before.role == "assistant" else reading.last
    reading.ledger.use()


def _answer(reading: Reading, block: Block) -> None:
    lines = block.lines
    if block.line == 1 and _MODE_LINE.search(lines[0]):  # an editor's mode line, not Aider's
        lines = lines[1:]
        if not "".join(lines).strip():
            reading.ledger.skip("editor mode line")
            return
    text = "\n".join(lines).strip("\n")
    thoughts = [m["body"].strip() for m in _THINKING.finditer(text)]
    draft = reading.add(block.line, "assistant", "message", _THINKING.sub("", text).strip())
    draft.thinking = "\n\n".join(t for t in thoughts if t) or None
    draft.model = reading.model
    reading.ledger.use()


READERS: Final[dict[str, Callable[[Reading, Block], None]]] = {
    "header": _header,
    "user": _user,
    "tool": _tool,
    "text": _answer,
}
"""Which reader takes a block, by its kind."""


def read_session(reading: Reading, text: str, first_line: int) -> Reading:
    """Read the blocks of one session's ``text`` into ``reading``."""
    for block in blocks_of(text, first_line):
        READERS[block.kind](reading, block)
    return reading
