"""What OpenClaw's gateway wraps around the texts of a conversation, and how it is removed.

A prompt that came through the gateway (a chat channel, the TUI, the control UI) starts with
blocks of metadata about the sender and the chat, each a label such as ``Sender (untrusted
metadata):`` followed by a fenced JSON block, and with the time the gateway received it, such as
``[Sun 2026-03-08 22:03 GMT+9]``. Nobody typed them: they are removed from the prompt's text (a
prompt that is nothing else keeps them all). An answer may start with a reply directive,
``[[reply_to_current]]`` or ``[[reply_to:<id>]]``, which the gateway acts on and removes before
delivery: it is removed here too.
"""

from __future__ import annotations

import re
from typing import Final

__all__ = ["GATEWAY_MODELS", "answer_text", "prompt_text"]

GATEWAY_MODELS: Final = frozenset(
    {("openclaw", "gateway-injected"), ("openclaw", "delivery-mirror")}
)
"""``(provider, model)`` of assistant messages the gateway writes itself: its errors
(``gateway-injected``) and copies of replies delivered elsewhere (``delivery-mirror``)."""

_ENVELOPE: Final = re.compile(
    # A labelled, fenced metadata block: "Sender (untrusted metadata):\n```json\n{...}\n```".
    r"[^\n]{0,80}\(untrusted[^)\n]*\):[ \t]*\n```[^\n]*\n.*?\n```[ \t]*(?:\n|$)"
    # A labelled block of plain lines up to a blank line.
    r"|Untrusted context \([^)\n]*\):[ \t]*\n(?:[^\n]+\n)*"
    # The time the gateway received the message.
    r"|\[(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) \d{4}-\d\d-\d\d \d\d:\d\d(?::\d\d)? [^\]\n]{1,40}\][ \t]*",
    re.DOTALL,
)
_REPLY_DIRECTIVE: Final = re.compile(r"\s*\[\[reply_to(?:_current|:[^\]\n]*)\]\][ \t]*")


def prompt_text(text: str) -> str:
    """``text`` without the gateway's metadata blocks and time at its start."""
    if "ntrusted " not in text and not text.startswith("["):  # (u|U)ntrusted: most prompts
        return text
    position = 0
    while True:
        while text.startswith(("\n", " "), position):
            position += 1
        found = _ENVELOPE.match(text, position)
        if found is None or found.end() == position:
            break
        position = found.end()
    rest = text[position:]
    return rest if rest.strip() else text


def answer_text(text: str) -> str:
    """``text`` without a reply directive at its start."""
    if "[[reply_to" not in text:
        return text
    found = _REPLY_DIRECTIVE.match(text)
    return text[found.end() :] if found else text
