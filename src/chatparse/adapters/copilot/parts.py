"""The parts of a response: each is text, thinking, a tool call, a notice, noise, or unknown.

A part's ``kind`` routes it through :data:`_PARTS` to the reader of its kind, which adds it to
the answer being assembled and says whether it could (a part of a known kind without the field
its kind needs is unknown).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import PurePosixPath
from typing import Any, Final

from chatparse.adapter import Ledger, as_nonempty_text, as_text, dig
from chatparse.adapters.copilot.calls import prepare_tool, tool_invocation, uri_path
from chatparse.adapters.copilot.drafts import MessageDraft
from chatparse.decoders import value as jsonvalue

__all__ = ["NOTICE_PARTS", "SKIPPED_PARTS", "read_part"]

NOTICE_PARTS: Final = frozenset(
    {
        "progressMessage",
        "progressTaskSerialized",
        "warning",
        "info",
        "systemNotification",
        "confirmation",
        "elicitationSerialized",
        "command",
    }
)
"""Response parts whose text is shown as a paragraph of its own in the answer."""
SKIPPED_PARTS: Final = frozenset(
    {
        "textEditGroup",
        "notebookEditGroup",
        "codeblockUri",
        "undoStop",
        "multiDiffData",
        "workspaceEdit",
        "externalEdit",
        "mcpServersStarting",
        "clearToPreviousToolInvocation",
        "extensions",
        "pullRequest",
        "questionCarousel",
        "planReview",
        "hook",
        "autoModeResolution",
        "disabledClaudeHooks",
        "treeData",
    }
)
"""Response parts that are edits or UI bookkeeping: nothing to read."""
# Response parts that continue the running text (markdown has no kind).
_RUNNING_TEXT: Final = frozenset({None, "markdownContent", "markdownVuln", "inlineReference"})


def read_part(answer: MessageDraft, part: object, at: tuple[int, int], ledger: Ledger) -> None:
    """One response part, added to ``answer`` and counted in ``ledger``.

    ``at`` is the request's and the part's index; the ``where`` of an unknown part is written
    from it only when one is kept, not for every part.
    """
    if isinstance(part, str):  # very old sessions: bare markdown
        answer.write(part)
        ledger.use()
        return
    if part is None:  # a slot emptied by a Delete
        ledger.skip("response part: empty slot")
        return
    if not isinstance(part, dict):
        ledger.keep(_part_where(at), None, jsonvalue.encode(part))
        return
    kind = part.get("kind")
    if kind is not None and not isinstance(kind, str):
        kind = str(kind)  # damage: a kind that is no name (a list, say) is an unknown kind
    if kind not in _RUNNING_TEXT:
        answer.broken = True  # a block (tool call, edit, notice) ends the running text
    if kind is None:
        _read_kindless(answer, part, at, ledger)
        return
    read = _PARTS.get(kind)
    if read is not None and read(answer, part):
        ledger.use()
    elif kind in SKIPPED_PARTS:
        ledger.skip(f"response part: {kind}")
    else:
        ledger.keep(_part_where(at), kind, jsonvalue.encode(part))


def _read_kindless(
    answer: MessageDraft, part: dict[str, Any], at: tuple[int, int], ledger: Ledger
) -> None:
    """A part without a kind: markdown (VS Code writes none for it), or file-tree data."""
    if isinstance(part.get("value"), str):
        answer.write(part["value"])
        ledger.use()
    elif "uri" in part or "label" in part:
        ledger.skip("response part: file tree")
    else:
        ledger.keep(_part_where(at), None, jsonvalue.encode(part))


def _part_where(at: tuple[int, int]) -> str:
    """Where a response part is, from its request's and its own index."""
    return f"requests[{at[0]}].response[{at[1]}]"


def _markdown_content(answer: MessageDraft, part: dict[str, Any]) -> bool:
    text = _markdown(part.get("content"))
    if text is None:
        return False
    answer.write(text)
    return True


def _inline_reference(answer: MessageDraft, part: dict[str, Any]) -> bool:
    name = _reference_name(part)
    if name is None:
        return False
    answer.pieces.append(f"`{name}`")
    return True


def _thinking(answer: MessageDraft, part: dict[str, Any]) -> bool:
    value = part.get("value")
    if isinstance(value, list):
        value = "".join(v for v in value if isinstance(v, str))
    if not isinstance(value, str):
        return False
    if value.strip():
        answer.thinking.append(value.strip())
    return True


def _notice_part(answer: MessageDraft, part: dict[str, Any]) -> bool:
    kind = part.get("kind")
    if kind in ("confirmation", "elicitationSerialized"):
        texts = [_markdown(part.get("title")), _markdown(part.get("message"))]
        text = "\n".join(t for t in texts if t)
    elif kind == "command":
        text = as_text(dig(part, "command", "title")) or ""
    else:
        text = _markdown(part.get("content")) or ""
    if not text:
        return False
    answer.paragraph(f"Warning: {text}" if kind == "warning" else text)
    answer.pieces.append("\n\n")
    return True


_PARTS: Final[dict[str, Callable[[MessageDraft, dict[str, Any]], bool]]] = {
    "markdownContent": _markdown_content,
    "markdownVuln": _markdown_content,
    "inlineReference": _inline_reference,
    "thinking": _thinking,
    "prepareToolInvocation": prepare_tool,
    "toolInvocationSerialized": tool_invocation,
    "toolInvocation": tool_invocation,
    **dict.fromkeys(NOTICE_PARTS, _notice_part),
}
"""The reader of each kind of part; it returns whether the part had what its kind needs."""


def _reference_name(part: Mapping[str, Any]) -> str | None:
    """The file or symbol an ``inlineReference`` names, as VS Code shows it."""
    name = as_nonempty_text(part.get("name"))
    if name is not None:
        return name
    target = part.get("inlineReference")
    if isinstance(target, dict):
        if isinstance(target.get("name"), str) and "location" in target:  # a symbol
            return str(target["name"])
        path = uri_path(target.get("uri") if "uri" in target else target)
        if path:
            return PurePosixPath(path.replace("\\", "/")).name or path
    return None


def _markdown(value: object) -> str | None:
    """A string, or the ``value`` of a markdown-string object."""
    if isinstance(value, str):
        return value
    inner = dig(value, "value")
    return inner if isinstance(inner, str) else None
