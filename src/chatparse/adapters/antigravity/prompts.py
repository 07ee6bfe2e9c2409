"""What Antigravity wraps around a prompt, taken apart.

A ``USER_INPUT`` step's ``content`` is the prompt inside ``<USER_REQUEST>``, followed by blocks
the tool adds: ``<ADDITIONAL_METADATA>`` (the local time and the like: dropped) and
``<USER_SETTINGS_CHANGE>`` (a setting the user changed before sending, such as the model:
kept as a notice). A ``SYSTEM_MESSAGE`` step wraps its text in ``<SYSTEM_MESSAGE>`` after a
line saying the user did not send it.
"""

from __future__ import annotations

import re
from typing import Final, NamedTuple

__all__ = ["Prompt", "model_chosen", "split_prompt", "system_text"]

_BLOCK: Final = re.compile(
    r"<(USER_REQUEST|ADDITIONAL_METADATA|USER_SETTINGS_CHANGE)>(.*?)</\1>", re.DOTALL
)
_MODEL: Final = re.compile(r"`Model Selection` from .*? to (.+?)\.?\s*$", re.MULTILINE)
_OPEN: Final = "<SYSTEM_MESSAGE>"
_CLOSE: Final = "</SYSTEM_MESSAGE>"


class Prompt(NamedTuple):
    """A prompt as typed, and the settings changes sent with it."""

    text: str
    settings: list[str]


def split_prompt(content: str) -> Prompt:
    """The typed request (else everything outside the tool's blocks) and the settings changes."""
    blocks = [(match.group(1), match.group(2).strip()) for match in _BLOCK.finditer(content)]
    requests = [text for tag, text in blocks if tag == "USER_REQUEST"]
    text = "\n\n".join(requests) if requests else _BLOCK.sub("", content).strip()
    return Prompt(text, [text for tag, text in blocks if tag == "USER_SETTINGS_CHANGE" and text])


def model_chosen(settings: list[str]) -> str | None:
    """The model a settings change selected, as Antigravity names it (its display name)."""
    for change in reversed(settings):
        found = _MODEL.search(change)
        if found is not None:
            return found.group(1).strip() or None
    return None


def system_text(content: str) -> str:
    """The text inside the last ``<SYSTEM_MESSAGE>`` block, else the content as it is.

    The line before the block names the tag too ("The following is a <SYSTEM_MESSAGE> not
    actually sent by the user."): the block is the last opening tag before the closing one.
    """
    end = content.rfind(_CLOSE)
    start = content.rfind(_OPEN, 0, end) if end >= 0 else -1
    return content[start + len(_OPEN) : end].strip() if start >= 0 else content
