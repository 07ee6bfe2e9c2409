"""Render a parsed conversation as a Markdown transcript that is safe to open anywhere.

Transcripts are written by people and models and may hold anything: HTML, ``<script>``, runs of
backticks, lines that look like headings or lists. Everything taken from a transcript is escaped,
so that nothing in it becomes live HTML or Markdown structure; only what this module writes
(headings, the ``<details>`` wrappers, fences) is structure. Code-like content (tool input and
output) goes into fenced blocks whose fence is longer than any backtick run inside them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime

from chatparse.model import Message, ParsedConversation, ToolCall
from chatparse.serialize import json_text

__all__ = ["escape", "fence", "render"]

# Punctuation that can start Markdown or HTML structure anywhere in a line. Backslash-escaping
# any ASCII punctuation is valid CommonMark and renders as the character itself.
_INLINE = re.compile(r"([\\`*_\[\]<>#|~!&$])")
# Characters that only make structure at the start of a line: list bullets, setext underlines,
# block quotes are covered above; ordered list markers need their digits' delimiter escaped.
_LINE_START = re.compile(r"^([-+=])")
_ORDERED = re.compile(r"^(\d{1,9})([.)])")
_LEADING_SPACE = re.compile(r"^ +")
_BACKTICKS = re.compile(r"`+")

_ROLE_TITLES = {"user": "User", "assistant": "Assistant", "system": "System"}


def escape(text: str) -> str:
    """Make transcript text inert Markdown that renders as the same characters.

    Line breaks are kept as hard breaks; leading spaces become entities so they cannot start an
    indented code block.
    """
    lines = []
    for line in text.splitlines():
        escaped = _INLINE.sub(r"\\\1", line)
        escaped = _LINE_START.sub(r"\\\1", escaped)
        escaped = _ORDERED.sub(r"\1\\\2", escaped)
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


def _when(moment: datetime | None) -> str:
    return moment.strftime("%Y-%m-%d %H:%M:%S UTC") if moment else "time not recorded"


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
    yield f"{'#' * level} {title} · {_when(message.timestamp)}"
    yield ""
    if message.thinking:
        yield "<details><summary>Thinking</summary>"
        yield ""
        yield escape(message.thinking)
        yield ""
        yield "</details>"
        yield ""
    if message.text:
        yield escape(message.text)
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
    yield f"{'#' * level} {escape(title)}"
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
        yield from _message(message, min(level + 1, 6))
    for subagent in conversation.subagents:
        yield f"{'#' * min(level + 1, 6)} Sub-agent"
        yield ""
        yield from _conversation(subagent, min(level + 2, 6))


def render(conversation: ParsedConversation) -> str:
    """The whole conversation, sub-agents nested, as one Markdown document."""
    return "\n".join(_conversation(conversation, 1)).rstrip() + "\n"
