"""Messages of the first agent's threads (``version`` ``0.1.0``, ``0.2.0``, and none at all).

``{id, role: user|assistant|system, segments: [{type: text|thinking|RedactedThinking, text}],
tool_uses: [{id, name, input}], tool_results: [{tool_use_id, is_error, content, output}],
context, creases, is_hidden}``; the unversioned form has ``text`` instead of ``segments``.
Version ``0.1.0`` kept a call's results on the *next* user message: results are paired by id
wherever they are, and a user message that carried nothing but results is no prompt. The
``context`` Zed attached to a prompt (files, rules) is not what was typed and is not kept.
"""

from __future__ import annotations

from typing import Any, Final

from chatparse.adapter import as_nonempty_text, as_text, dig, drop_payloads, strip_images
from chatparse.adapters.zed.reading import Reading, result_text, tool_input
from chatparse.model import MessageKind, Role

__all__ = ["read_agent1"]

_ROLES: Final[dict[str, Role]] = {"user": "user", "assistant": "assistant", "system": "system"}
_TEXT: Final = "text"
_THINKING: Final = "thinking"
_REDACTED: Final = "RedactedThinking"


def _segments(reading: Reading, body: dict[str, Any]) -> tuple[str, str | None]:
    texts: list[str] = []
    thoughts: list[str] = []
    plain = as_text(body.get("text"))
    if plain:
        texts.append(plain)
    segments = body.get("segments")
    for segment in segments if isinstance(segments, list) else ():
        kind = dig(segment, "type")
        text = as_text(dig(segment, "text"))
        if kind == _TEXT and text is not None:
            texts.append(text)
        elif kind == _THINKING and text is not None:
            thoughts.append(text)
        elif kind != _REDACTED:
            reading.odd_parts.add(kind if isinstance(kind, str) else type(segment).__name__)
    return "\n\n".join(t for t in texts if t), "\n\n".join(t for t in thoughts if t) or None


def _results(reading: Reading, body: dict[str, Any]) -> bool:
    results = body.get("tool_results")
    found = False
    for result in results if isinstance(results, list) else ():
        error = dig(result, "is_error")
        output = dig(result, "output")
        reading.answer(
            as_nonempty_text(dig(result, "tool_use_id")),
            result_text(dig(result, "content")),
            is_error=error if isinstance(error, bool) else None,
            result=None if output is None else drop_payloads(output)[0],
        )
        found = True
    return found


def read_agent1(reading: Reading, body: dict[str, Any], index: int) -> bool:
    """Read one message; ``False`` (nothing read) when its role is not one Zed wrote."""
    role = _ROLES.get(body["role"]) if isinstance(body.get("role"), str) else None
    if role is None:
        return False
    text, thinking = _segments(reading, body)
    text, images = strip_images(text)
    uses = body.get("tool_uses")
    calls = [
        reading.tools.call(
            as_nonempty_text(dig(use, "id")),
            as_nonempty_text(dig(use, "name")) or "unknown",
            tool_input(dig(use, "input"), None),
        )
        for use in (uses if isinstance(uses, list) else ())
        if isinstance(use, dict)
    ]
    ident = str(body.get("id", f"message-{index}"))
    if role == "user" and not (text or images or calls) and body.get("tool_results"):
        _results(reading, body)  # a carrier of results for the answer before it (0.1.0)
        return True
    kind: MessageKind = "notice" if body.get("is_hidden") is True or role == "system" else "message"
    draft = reading.add(
        ident,
        role,
        kind,
        text=text,
        thinking=thinking,
        images=list(images),
        calls=calls,
        model=reading.model if role == "assistant" else None,
    )
    _results(reading, body)
    if role == "assistant":
        reading.answers[str(index)] = draft
    return True
