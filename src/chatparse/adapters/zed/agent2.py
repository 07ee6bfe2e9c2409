"""Messages of the current thread format (``version`` ``0.3.0``, Zed's agent since 2025-08).

Each message is an externally tagged enum:

* ``{"User": {id, content: [{"Text": s} | {"Mention": {uri, content}} | {"Image": {source}}]}}``:
  a prompt. A mention (a file, symbol, thread, URL... attached with ``@``) is written into the
  text as ``@`` and what it names; its ``content`` (what Zed sent the model) is not kept.
* ``{"Agent": {content: [{"Text": s} | {"Thinking": {text}} | {"RedactedThinking": s} |
  {"ToolUse": {id, name, input, raw_input}}], tool_results: {id: {tool_use_id, is_error,
  content, output}}}}``: an answer, with its tool calls' results inside it. A redacted
  thinking block is encrypted and not kept.
* ``"Resume"``: the "continue where you left off" Zed sends for the user, kept as a ``notice``
  with that text.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from chatparse.adapter import as_nonempty_text, as_text, dig, drop_payloads
from chatparse.adapters.zed.reading import Reading, image_part, result_text, tool_input

__all__ = ["RESUME_TEXT", "STRING_MESSAGES", "TAGGED_MESSAGES"]

RESUME_TEXT: Final = "Continue where you left off"
_MENTION_NAMES: Final = ("abs_path", "path", "url", "name", "id")


def _mention(mention: object) -> str:
    target = dig(mention, "uri")
    inner = next(iter(target.values()), None) if isinstance(target, dict) else target
    if isinstance(inner, str):
        return f"@{inner}"
    for key in _MENTION_NAMES:
        name = as_nonempty_text(dig(inner, key))
        if name is not None:
            return f"@{name}"
    return "@mention"


def _user(reading: Reading, body: dict[str, Any], index: int) -> None:
    texts: list[str] = []
    images = []
    parts = body.get("content")
    for part in parts if isinstance(parts, list) else ():
        if isinstance(text := dig(part, "Text"), str):
            texts.append(text)
        elif isinstance(dig(part, "Mention"), dict):
            texts.append(_mention(part["Mention"]))
        elif isinstance(picture := dig(part, "Image"), dict):
            placeholder, image = image_part(picture)
            texts.append(f"\n{placeholder}\n" if texts else f"{placeholder}\n")  # its own line
            images.append(image)
        else:
            reading.odd_parts.add(_tag(part))
    ident = as_nonempty_text(body.get("id")) or f"message-{index}"
    reading.add(ident, "user", text="".join(texts).strip("\n"), images=images)
    reading.current_prompt = ident


def _tag(part: object) -> str:
    if isinstance(part, dict) and len(part) == 1:
        return str(next(iter(part)))
    return type(part).__name__


def _agent(reading: Reading, body: dict[str, Any], index: int) -> None:
    draft = reading.add(f"message-{index}", "assistant", model=reading.model)
    texts: list[str] = []
    thoughts: list[str] = []
    parts = body.get("content")
    for part in parts if isinstance(parts, list) else ():
        if isinstance(text := dig(part, "Text"), str):
            texts.append(text)
        elif isinstance(thought := dig(part, "Thinking", "text"), str):
            thoughts.append(thought)
        elif isinstance(use := dig(part, "ToolUse"), dict):
            name = as_nonempty_text(use.get("name")) or "unknown"
            arguments = tool_input(use.get("input"), use.get("raw_input"))
            draft.calls.append(reading.tools.call(as_text(use.get("id")), name, arguments))
        elif dig(part, "RedactedThinking") is None:
            reading.odd_parts.add(_tag(part))
    draft.text = "\n\n".join(t for t in texts if t)
    draft.thinking = "\n\n".join(t for t in thoughts if t) or None
    results = body.get("tool_results")
    for key, result in results.items() if isinstance(results, dict) else ():
        error = dig(result, "is_error")
        output = dig(result, "output")
        reading.answer(
            as_nonempty_text(dig(result, "tool_use_id")) or str(key),
            result_text(dig(result, "content")),
            is_error=error if isinstance(error, bool) else None,
            result=None if output is None else drop_payloads(output)[0],
        )
    if reading.current_prompt is not None:
        reading.answers[reading.current_prompt] = draft


def _resume(reading: Reading, index: int) -> None:
    reading.add(f"message-{index}", "user", "notice", text=RESUME_TEXT)


TAGGED_MESSAGES: Final[dict[str, Callable[[Reading, dict[str, Any], int], None]]] = {
    "User": _user,
    "Agent": _agent,
}
STRING_MESSAGES: Final[dict[str, Callable[[Reading, int], None]]] = {"Resume": _resume}
