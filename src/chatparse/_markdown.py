"""Render a parsed conversation as a Markdown transcript that is safe to open anywhere.

What people and models wrote is Markdown already, and stays as written: code blocks stay code
blocks, lists stay lists, emphasis stays emphasis. Three things are changed, because a transcript
embeds many such texts in one document of its own:

- Headings in a message are moved below the message's own heading (``# Plan`` in an answer
  under ``## Assistant`` becomes ``### Plan``), so no text can break the transcript's outline.
- A code block left open at the end of a message is closed there, so it cannot swallow the
  rest of the transcript.
- No raw HTML passes: every ``<`` that could open a tag, a comment or a declaration is
  backslash-escaped outside code, so ``<script>`` is shown as text, never handed to a renderer.

Telling code from text needs the block structure of CommonMark (block quotes, list items, fenced
and indented code, paragraphs continued lazily); :class:`_Blocks` follows the spec's algorithm
for exactly those. Metadata (titles, tool names) is plain text and fully escaped; tool inputs and
outputs go into fenced blocks whose fence is longer than any backtick run inside them.
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterator
from datetime import datetime
from typing import Final

from attrs import define, field

from chatparse.model import Message, ParsedConversation, ToolCall
from chatparse.serialize import json_text

__all__ = ["escape", "fence", "markdown", "render"]

# Punctuation that can start Markdown or HTML structure anywhere in a line. Backslash-escaping
# any ASCII punctuation is valid CommonMark and renders as the character itself.
_INLINE = re.compile(r"([\\`*_\[\]<>#|~!&$])")
# Characters that only make structure at the start of a line: list bullets, setext underlines,
# block quotes are covered above; ordered list markers need their digits' delimiter escaped.
_LINE_START = re.compile(r"^([-+=])")
_ORDERED_START = re.compile(r"^(\d{1,9})([.)])")
_LEADING_SPACE = re.compile(r"^ +")
_BACKTICKS = re.compile(r"`+")

# CommonMark block syntax, matched at the first non-space column of what is left of a line.
_FENCE_OPEN = re.compile(r"(`{3,})([^`]*)$|(~{3,})(.*)$")
_ATX = re.compile(r"(#{1,6})(?=[ \t]|$)")
_SETEXT = re.compile(r"(=+|-+)[ \t]*$")
_THEMATIC = re.compile(r"(?:(?:\*[ \t]*){3,}|(?:-[ \t]*){3,}|(?:_[ \t]*){3,})$")
_BULLET = re.compile(r"[-+*](?=[ \t]|$)")
_ORDERED = re.compile(r"(\d{1,9})[.)](?=[ \t]|$)")
# What may begin a link reference definition: a label closed by ``]:``, or still open at the end
# of the line (a label may run over lines).
_DEFINITION = re.compile(r"\[(?:[^\]\\]|\\.)*(?:\]:|$)")
# What makes ``<`` the start of raw HTML: a tag, a closing tag, a comment, a declaration,
# a processing instruction or CDATA all continue with one of these.
_HTML_START = frozenset(string.ascii_letters + "/!?")
_ASCII_PUNCTUATION = frozenset(string.punctuation)
_CODE_INDENT: Final = 4
_MAX_MARKER_INDENT: Final = 3
_DEEPEST_OWN_HEADING: Final = 5
"""The transcript's own headings stop at level 5, so a message's headings always fit below."""

_ROLE_TITLES = {"user": "User", "assistant": "Assistant", "system": "System"}


def escape(text: str) -> str:
    """Make plain text (a title, a tool name) inert Markdown that renders as the same characters.

    Line breaks are kept as hard breaks; leading spaces become entities so they cannot start an
    indented code block.
    """
    lines = []
    for line in text.splitlines():
        escaped = _INLINE.sub(r"\\\1", line)
        escaped = _LINE_START.sub(r"\\\1", escaped)
        escaped = _ORDERED_START.sub(r"\1\\\2", escaped)
        escaped = _LEADING_SPACE.sub(lambda m: "&#32;" * len(m.group()), escaped)
        lines.append(escaped)
    # A trailing backslash is a hard line break in CommonMark; blank lines separate paragraphs.
    out: list[str] = []
    for index, line in enumerate(lines):
        next_blank = index + 1 >= len(lines) or not lines[index + 1].strip()
        out.append(line if not line.strip() or next_blank else f"{line}\\")
    return "\n".join(out)


def fence(content: str, info: str = "") -> str:
    """A fenced code block that ``content`` cannot close early, whatever backticks it holds."""
    longest = max((len(run) for run in _BACKTICKS.findall(content)), default=0)
    marker = "`" * max(3, longest + 1)
    return f"{marker}{info}\n{content}\n{marker}"


def _inline(text: str) -> str:
    """One line of inline Markdown with every start of raw HTML escaped, code spans as written.

    Code spans are paired as CommonMark pairs them (a run of backticks closes at the next run of
    the same length), within the line; a run left unpaired is escaped, which renders the same.
    Pairing line by line gives up code spans that run over a line break (their backticks show)
    but makes the pairing certain: with no unescaped backtick outside a pair, a renderer cannot
    pair them otherwise, wherever its paragraphs begin and end, so a ``<`` left as written is
    always inside code.
    """
    runs = _BacktickRuns(text)
    out: list[str] = []
    index, end = 0, len(text)
    while index < end:
        char = text[index]
        if char == "\\" and index + 1 < end and text[index + 1] in _ASCII_PUNCTUATION:
            out.append(text[index : index + 2])
            index += 2
        elif char == "`":
            length, closing = runs.span_from(index)
            if closing is None:
                out.append("\\`" * length)
                index += length
            else:
                out.append(_code_span(text[index : closing + length]))
                index = closing + length
        elif char == "<" and index + 1 < end and text[index + 1] in _HTML_START:
            out.append("\\<")
            index += 1
        else:
            out.append(char)
            index += 1
    return "".join(out)


@define
class _BacktickRuns:
    """The backtick runs of one text, to pair code span delimiters in linear time."""

    text: str
    lengths_absent: set[int] = field(factory=set)
    """Run lengths known to occur nowhere after some earlier position, so nowhere later."""

    def span_from(self, start: int) -> tuple[int, int | None]:
        """The run starting at ``start``: its length, and where its closing run begins."""
        opening = _BACKTICKS.match(self.text, start)
        length = len(opening.group()) if opening else 1
        if length not in self.lengths_absent:
            for match in _BACKTICKS.finditer(self.text, start + length):
                if len(match.group()) == length:
                    return length, match.start()
            self.lengths_absent.add(length)
        return length, None


def _code_span(span: str) -> str:
    # GitHub splits a table row at every `|`, even inside a code span, which would leave the
    # span's content as inline text: there, a tag start is escaped as anywhere else.
    if "|" not in span:
        return span
    return "".join(
        "\\<" if char == "<" and following in _HTML_START else char
        for char, following in zip(span, [*span[1:], ""], strict=True)
    )


@define
class _Container:
    quote: bool
    """A block quote (``>``) when true, else a list item."""
    width: int = 0
    """For a list item: the columns its continuation lines must be indented by."""
    empty: bool = True
    """Nothing but blank lines in it yet: a list item that began with a blank line ends at
    the next blank line."""


@define
class _Fence:
    char: str
    length: int
    top_level: bool


@define
class _ParagraphLine:
    index: int
    """Where the line is in the output."""
    prefix: str
    content: str


@define
class _Blocks:
    """The CommonMark block structure of one message, enough to tell code from text.

    Each line is matched against the open containers, may open new ones, and then continues or
    starts a leaf: a fenced or indented code block (kept verbatim), a heading (moved down), a
    thematic break, or a paragraph (its text made HTML-free, and its lines kept until the
    paragraph ends, because a setext underline turns them into a heading).
    """

    shift: int
    out: list[str | None] = field(factory=list)
    stack: list[_Container] = field(factory=list)
    paragraph: list[_ParagraphLine] = field(factory=list)
    fenced: _Fence | None = None

    def feed(self, raw: str) -> None:
        line = raw.expandtabs(4)
        position, matched = self._match_containers(line)
        all_matched = matched == len(self.stack)
        if self.fenced is not None and all_matched:
            self._continue_fence(raw, line, position)
            return
        self.fenced = None
        deep_quote_marker = not all_matched and self._deep_quote_marker(line, position, matched)
        interrupting = all_matched and bool(self.paragraph)
        position, opened = self._open_containers(line, position, interrupting=interrupting)
        rest = line[position:]
        indent = len(rest) - len(rest.lstrip(" "))
        if not opened and not all_matched and self.paragraph and self._lazy(rest, indent):
            # The unmatched containers stay open: a lazy line belongs to their paragraph. A
            # deep ">" is escaped: it renders the same, and markdown-it can no longer take it
            # for the open quote's marker.
            start = position + indent
            if deep_quote_marker:
                line = f"{line[:start]}\\{line[start:]}"
            self._add_paragraph_line(line, start)
            return
        if deep_quote_marker:
            # Indented code by the spec, but markdown-it continues the open quote with it: a
            # blank line ends the quote first for both (inside a list item it makes the list
            # loose, which changes spacing only).
            self.out.append(line[:position].rstrip())
        if opened or not all_matched:
            self._end_paragraph()
            self.stack[matched:] = opened
        # A container holding another one, or any text, is not empty.
        for container in self.stack if rest.strip() else self.stack[:-1]:
            container.empty = False
        self._leaf(raw, line, position, indent)

    def finish(self) -> list[str]:
        self._end_paragraph()
        if self.fenced is not None and self.fenced.top_level:
            # A top-level fence left open would swallow the rest of the transcript. (One inside
            # a list item or quote ends with it, at the transcript's next unindented line.)
            self.out.append(self.fenced.char * self.fenced.length)
        return [line for line in self.out if line is not None]

    def _match_containers(self, line: str) -> tuple[int, int]:
        position = 0
        for matched, container in enumerate(self.stack):
            rest = line[position:]
            stripped = rest.lstrip(" ")
            indent = len(rest) - len(stripped)
            if container.quote:
                if indent > _MAX_MARKER_INDENT or not stripped.startswith(">"):
                    return position, matched
                position += indent + 1
                position += line[position : position + 1] == " "
            elif stripped:
                if indent < container.width:
                    return position, matched
                position += container.width
            elif container.empty:
                return position, matched
            # A blank line continues a list item that has content.
        return position, len(self.stack)

    def _deep_quote_marker(self, line: str, position: int, matched: int) -> bool:
        """Whether an open quote failed to match only because its ``>`` is indented 4 or more.

        CommonMark allows at most 3 spaces before a quote marker; markdown-it (and so every
        renderer built on it) continues an open quote with a ``>`` at any indentation.
        """
        stripped = line[position:].lstrip(" ")
        return self.stack[matched].quote and stripped.startswith(">")

    def _open_containers(
        self, line: str, position: int, *, interrupting: bool
    ) -> tuple[int, list[_Container]]:
        opened: list[_Container] = []
        while True:
            rest = line[position:]
            stripped = rest.lstrip(" ")
            indent = len(rest) - len(stripped)
            if indent > _MAX_MARKER_INDENT:
                return position, opened
            if stripped.startswith(">"):
                position += indent + 1
                position += line[position : position + 1] == " "
                opened.append(_Container(quote=True))
                continue
            marker = self._list_marker(stripped, interrupting=interrupting and not opened)
            if marker is None:
                return position, opened
            after = stripped[marker:]
            spaces = len(after) - len(after.lstrip(" "))
            if not after.strip() or spaces > _CODE_INDENT:
                spaces = 1
            width = indent + marker + spaces
            position += min(width, len(rest))
            opened.append(_Container(quote=False, width=width))

    @staticmethod
    def _list_marker(text: str, *, interrupting: bool) -> int | None:
        """The length of the list item marker ``text`` starts with, if it starts one."""
        if _THEMATIC.match(text):
            return None
        bullet = _BULLET.match(text)
        ordered = _ORDERED.match(text)
        match = bullet or ordered
        if match is None:
            return None
        # A list item may interrupt a paragraph only when it has content, and (ordered) starts
        # at 1; otherwise the line continues the paragraph.
        if interrupting and (not text[match.end() :].strip() or (ordered and ordered[1] != "1")):
            return None
        return match.end()

    def _lazy(self, rest: str, indent: int) -> bool:
        """Whether the line continues the open paragraph although its containers did not match."""
        if not rest.strip():
            return False
        if indent >= _CODE_INDENT:
            return True
        text = rest[indent:]
        return not (_FENCE_OPEN.match(text) or _ATX.match(text) or _THEMATIC.match(text))

    def _continue_fence(self, raw: str, line: str, position: int) -> None:
        assert self.fenced is not None  # noqa: S101 -- feed() checked it; this tells mypy
        rest = line[position:]
        stripped = rest.lstrip(" ")
        run = len(stripped) - len(stripped.lstrip(self.fenced.char))
        closes = (
            len(rest) - len(stripped) <= _MAX_MARKER_INDENT
            and run >= self.fenced.length
            and not stripped[run:].strip()
        )
        self.out.append(line if closes else _code_line(raw, line, position))
        if closes:
            self.fenced = None

    def _leaf(self, raw: str, line: str, position: int, indent: int) -> None:
        rest = line[position:]
        if not rest.strip():
            self._end_paragraph()
            self.out.append(line.rstrip())
            return
        if indent >= _CODE_INDENT:
            if self.paragraph:
                self._add_paragraph_line(line, position + indent)
            else:
                self.out.append(_code_line(raw, line, position + _CODE_INDENT))
            return
        text = rest[indent:]
        start = position + indent
        if opener := _FENCE_OPEN.match(text):
            self._end_paragraph()
            marker = opener[1] or opener[3]
            self.fenced = _Fence(marker[0], len(marker), top_level=not self.stack)
            self.out.append(line)
        elif heading := _ATX.match(text):
            self._end_paragraph()
            level = len(heading[1])
            self.out.append(line[:start] + self._heading(level, text[heading.end() :]))
        elif self.paragraph and (underline := _SETEXT.match(text)):
            self._setext(level=1 if underline[1][0] == "=" else 2)
        elif _THEMATIC.match(text):
            self._end_paragraph()
            self.out.append(line)
        else:
            self._add_paragraph_line(line, start)

    def _heading(self, level: int, title: str) -> str:
        return f"{'#' * min(level + self.shift, 6)}{_inline(title)}"

    def _setext(self, level: int) -> None:
        first = self.paragraph[0]
        title = " ".join(line.content.strip() for line in self.paragraph)
        for line in self.paragraph:
            self.out[line.index] = None
        self.out[first.index] = first.prefix + self._heading(level, f" {title}")
        self.paragraph.clear()

    def _add_paragraph_line(self, line: str, start: int) -> None:
        self.paragraph.append(_ParagraphLine(len(self.out), line[:start], line[start:]))
        self.out.append("")

    def _end_paragraph(self) -> None:
        for line in self.paragraph:
            content = _inline(line.content)
            # A link reference definition is escaped into the text it renders as anyway when it
            # is not one. As a definition it would resolve links in other messages, and whether
            # the lines after it continue a paragraph is answered differently by CommonMark
            # parsers (a definition is found before the paragraph in some, after in others).
            if _DEFINITION.match(content):
                content = "\\" + content
            self.out[line.index] = line.prefix + content
        self.paragraph.clear()


def _code_line(raw: str, line: str, column: int) -> str:
    """A line of code: its structure (``line``, tabs expanded) up to ``column``, then as written.

    Tabs are expanded where they decide the structure, because CommonMark parsers disagree on
    a tab right after a list marker; past that, a tab is code and stays one.
    """
    at = 0
    for index, char in enumerate(raw):
        if at >= column:
            return line[:column] + " " * (at - column) + raw[index:]
        at = at + 4 - at % 4 if char == "\t" else at + 1
    return line


def markdown(text: str, level: int) -> str:
    """Markdown written in a conversation, kept as written but safe to embed in a transcript.

    Args:
        text: What the person or model wrote.
        level: The level of the heading the text sits under; its own headings go below it.
    """
    blocks = _Blocks(shift=level)
    for line in text.splitlines():
        blocks.feed(line)
    return "\n".join(blocks.finish())


def _when(moment: datetime | None) -> str:
    return moment.strftime("%Y-%m-%d %H:%M:%S UTC") if moment else "time not recorded"


def _heading(level: int, text: str) -> str:
    return f"{'#' * min(level, _DEEPEST_OWN_HEADING)} {text}"


def _tool_call(call: ToolCall) -> Iterator[str]:
    status = {True: " (error)", False: "", None: ""}[call.is_error]
    yield f"**Tool call** {escape(call.name)}{status}"
    yield ""
    yield fence(json_text(call.input, indent=2), "json")
    if call.output is not None:
        yield ""
        yield "**Result**"
        yield ""
        yield fence(call.output)
    yield ""


def _message(message: Message, level: int) -> Iterator[str]:
    title = _ROLE_TITLES[message.role]
    if message.kind != "message":
        title += f" ({message.kind.replace('_', ' ')})"
    if message.is_sidechain:
        title += " (side chain)"
    level = min(level, _DEEPEST_OWN_HEADING)
    yield _heading(level, f"{title} · {_when(message.timestamp)}")
    yield ""
    if message.thinking:
        yield "<details><summary>Thinking</summary>"
        yield ""
        yield markdown(message.thinking, level)
        yield ""
        yield "</details>"
        yield ""
    if message.text:
        yield markdown(message.text, level)
        yield ""
    for image in message.images:
        size = f"{image.byte_size} bytes" if image.byte_size is not None else "size unknown"
        yield escape(f"[image: {image.media_type or 'unknown type'}, {size}]")
        yield ""
    for call in message.tool_calls:
        yield from _tool_call(call)


def _conversation(conversation: ParsedConversation, level: int) -> Iterator[str]:
    # A heading is one line: a multi-line title would spill its tail into the body.
    title = " ".join((conversation.title or conversation.id).split())
    yield _heading(level, escape(title))
    yield ""
    facts = [
        ("Source", conversation.source),
        ("Conversation", conversation.id),
        ("Project", conversation.project_path),
        ("Branch", conversation.git_branch),
        ("Started", _when(conversation.created_at) if conversation.created_at else None),
        ("Updated", _when(conversation.updated_at) if conversation.updated_at else None),
    ]
    for label, value in facts:
        if value:
            yield f"- **{label}:** {escape(value)}"
    yield ""
    for message in conversation.messages:
        yield from _message(message, level + 1)
    for subagent in conversation.subagents:
        yield _heading(level + 1, "Sub-agent")
        yield ""
        yield from _conversation(subagent, level + 2)


def render(conversation: ParsedConversation) -> str:
    """The whole conversation, sub-agents nested, as one Markdown document."""
    return "\n".join(_conversation(conversation, 1)).rstrip() + "\n"
