r"""The content of one message of the Cline family: Anthropic-shaped blocks, read into parts.

A message's ``content`` is a string or a list of blocks: ``text``, ``thinking``,
``redacted_thinking``, ``image`` (a base64 ``source``, measured and left out), ``document``,
``tool_use`` and ``tool_result`` (native tool calling), and Cline 4.x's ``file`` (a file the
person attached, its content sent to the model). Unknown block types are named in the message's
warnings, not read.

Scaffolding the extension adds to what a person typed is taken out of the visible text: the
first prompt comes wrapped in ``<task>``, follow-ups in ``<feedback>``, ``<answer>`` or Roo's
``<user_message>``, and ``<environment_details>`` (open files, the time, the working directory)
is appended to most user turns.

Before native tool calling (Cline 3.35, Roo Code 3.36), the model wrote its tool calls as XML
tags in its text (``<read_file><path>a.py</path></read_file>``), its reasoning in
``<thinking>`` tags, and the results came back as user text blocks starting ``[read_file for
'a.py'] Result:`` (the output in that block or the text blocks after it). Those tags become
tool calls without ids (their parameters the input) and thinking, and those blocks answer the
calls by position: the oldest unanswered call of that tool.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any, Final

from attrs import define, field

from chatparse.adapter import as_nonempty_text, as_text, drop_payloads, image_ref, strip_images
from chatparse.model import ImageRef

__all__ = ["XML_TOOLS", "Parts", "environment_cwd", "read_content"]

XML_TOOLS: Final = frozenset(
    {
        "access_mcp_resource",
        "apply_diff",
        "ask_followup_question",
        "attempt_completion",
        "browser_action",
        "codebase_search",
        "condense",
        "execute_command",
        "fetch_instructions",
        "insert_content",
        "list_code_definition_names",
        "list_files",
        "load_mcp_documentation",
        "new_rule",
        "new_task",
        "plan_mode_respond",
        "read_file",
        "replace_in_file",
        "report_bug",
        "search_and_replace",
        "search_files",
        "summarize_task",
        "switch_mode",
        "update_todo_list",
        "use_mcp_tool",
        "web_fetch",
        "write_to_file",
    }
)
"""The tool tags of the XML era (Cline's and Roo's): a tag of another name is text."""

_TOOL_TAG: Final = re.compile(r"<([a-z_]+)>(.*?)</\1>", re.DOTALL)
_PARAM: Final = re.compile(r"<([a-z_]+)>\n?(.*?)\n?</\1>", re.DOTALL)
_RESULT: Final = re.compile(r"\A\[([a-z_]+)(?: for [^\]]*)?\] Result:\s*", re.DOTALL)
_THINKING: Final = re.compile(r"<thinking>\s*(.*?)\s*</thinking>", re.DOTALL)
_WRAPPERS: Final = re.compile(r"</?(?:task|feedback|answer|user_message)>")
_ENVIRONMENT: Final = re.compile(
    r"<environment_details>.*?(?:</environment_details>|\Z)", re.DOTALL
)
_CWD: Final = re.compile(r"# Current (?:Working Directory|Workspace Directory) \((.+?)\)")


@define
class Parts:
    """What the blocks of one message hold."""

    text: list[str] = field(factory=list)
    thinking: list[str] = field(factory=list)
    images: list[ImageRef] = field(factory=list)
    calls: list[tuple[str | None, str, Any]] = field(factory=list)
    """Tool calls: id (``None`` for an XML one), name, input."""
    results: list[tuple[str | None, str, str | None, bool | None]] = field(factory=list)
    """Tool results: the call's id (``None`` for an XML one), the tool's name, text, error."""
    unknown: list[str] = field(factory=list)
    """Block types not known, for a warning."""
    environment: str | None = None
    """The first ``<environment_details>`` seen, for the working directory it names."""
    open_result: bool = False
    """Whether the last text block began an XML-era tool result (its output may follow)."""

    @property
    def joined_text(self) -> str:
        """The visible text, blocks apart by a blank line."""
        return "\n\n".join(part for part in self.text if part)


def environment_cwd(environment: str | None) -> str | None:
    """The working directory an ``<environment_details>`` block names."""
    found = _CWD.search(environment) if environment else None
    return found.group(1).strip() if found else None


def _clean(text: str, parts: Parts) -> str:
    found = _ENVIRONMENT.search(text)
    if found is not None and parts.environment is None:
        parts.environment = found.group()
    return _WRAPPERS.sub("", _ENVIRONMENT.sub("", text)).strip()


def _xml_calls(text: str, parts: Parts) -> str:
    """``text`` without its XML tool tags, each made a call in ``parts``."""

    def take(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in XML_TOOLS:
            return match.group()
        params = dict(_PARAM.findall(match.group(2)))
        parts.calls.append((None, name, drop_payloads(params)[0]))
        return ""

    return _TOOL_TAG.sub(take, text).strip() if "<" in text else text


def _result_text(content: object) -> tuple[str | None, list[ImageRef]]:
    """A ``tool_result``'s content as text, and the images in it."""
    if isinstance(content, str):
        cleaned, inline = strip_images(content)
        return cleaned, list(inline)
    if not isinstance(content, list):
        return None, []
    texts: list[str] = []
    images: list[ImageRef] = []
    for block in content:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "image":
            images.append(_image(block))
        elif (text := as_text(block.get("text"))) is not None:
            cleaned, inline = strip_images(text)
            texts.append(cleaned)
            images += inline
    return "\n".join(texts), images


def _image(block: dict[str, Any]) -> ImageRef:
    source = block.get("source")
    if isinstance(source, dict):
        return image_ref(source.get("media_type"), source.get("data"))
    return image_ref(block.get("mediaType") or block.get("mimeType"), block.get("data"))


def _text_block(block: dict[str, Any], parts: Parts, *, role: str) -> None:
    text = as_text(block.get("text")) or ""
    text, images = strip_images(text)
    parts.images += images
    if role == "assistant":
        parts.thinking += [found for found in _THINKING.findall(text) if found]
        parts.text.append(_xml_calls(_THINKING.sub("", text), parts).strip())
        return
    if (result := _RESULT.match(text)) is not None:
        parts.results.append((None, result.group(1), _clean(text[result.end() :], parts), None))
        parts.open_result = True
        return
    if parts.open_result and not text.lstrip().startswith("<"):
        # The text blocks after a result's "[tool for 'x'] Result:" block are its output.
        ident, name, output, error = parts.results[-1]
        parts.results[-1] = (ident, name, "\n".join(filter(None, (output, text.strip()))), error)
        return
    parts.open_result = False
    parts.text.append(_clean(text, parts))


def _tool_use(block: dict[str, Any], parts: Parts) -> None:
    name = as_nonempty_text(block.get("name")) or "unknown"
    parts.calls.append(
        (as_nonempty_text(block.get("id")), name, drop_payloads(block.get("input"))[0])
    )


def _tool_result(block: dict[str, Any], parts: Parts) -> None:
    text, images = _result_text(block.get("content"))
    parts.images += images
    error = block.get("is_error")
    parts.results.append(
        (
            as_nonempty_text(block.get("tool_use_id")),
            as_text(block.get("name")) or "",
            text,
            error if isinstance(error, bool) else None,
        )
    )


def _thinking(block: dict[str, Any], parts: Parts) -> None:
    thinking = as_nonempty_text(block.get("thinking"))
    if thinking is not None:
        parts.thinking.append(thinking)


def _summary(block: dict[str, Any], parts: Parts) -> None:
    """An OpenAI reasoning item (Roo): its summary texts; the encrypted content is left out."""
    summary = block.get("summary")
    texts = (
        [as_text(item.get("text")) for item in summary if isinstance(item, dict)]
        if isinstance(summary, list)
        else []
    )
    parts.thinking += [text for text in texts if text]


def _image_block(block: dict[str, Any], parts: Parts) -> None:
    parts.images.append(_image(block))


def _ignored(_block: dict[str, Any], _parts: Parts) -> None:
    """A block kept out on purpose: encrypted reasoning, an attached file's or document's body."""


_BLOCKS: Final = {
    "thinking": _thinking,
    "reasoning": _summary,
    "redacted_thinking": _ignored,
    "image": _image_block,
    "document": _ignored,
    "file": _ignored,
    "media": _ignored,
    "tool_use": _tool_use,
    "tool_result": _tool_result,
}


def read_content(content: object, role: str) -> Parts:
    """The parts of a message's ``content`` (a string, or a list of blocks)."""
    parts = Parts()
    blocks: Iterable[object] = (
        [{"type": "text", "text": content}]
        if isinstance(content, str)
        else content
        if isinstance(content, list)
        else ()
    )
    for block in blocks:
        if not isinstance(block, dict):
            parts.unknown.append(type(block).__name__)
            continue
        kind = block.get("type")
        if kind == "text":
            _text_block(block, parts, role=role)
        elif isinstance(kind, str) and kind in _BLOCKS:
            _BLOCKS[kind](block, parts)
        else:
            parts.unknown.append(str(kind))
    return parts
