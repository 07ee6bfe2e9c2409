"""Constructors for the model objects an adapter builds by the thousand.

``_build.message(id=..., role=...)`` builds the same :class:`~chatparse.model.Message` as
``Message(id=..., role=...)``: the same keywords, defaults, conversions and checks. It is a
plain function rather than the class because CPython spends about 6k instructions calling a
class with keywords before ``__init__`` even starts, against about 2k for a function: a
``Message`` takes 7.9k instructions this way, 13.4k through the class and took 21.9k through
attrs' own ``__init__``. With a message, a usage and tool calls per record, that was a large
part of a parse (see ``chatparse._fastinit`` and ``docs/benchmarks.md``). Objects built once
per conversation use the classes themselves.
"""

from __future__ import annotations

from typing import Final

from chatparse._fastinit import fast_constructor
from chatparse.model import ConversationMeta, ImageRef, Message, ToolCall, Usage

__all__ = ["conversation_meta", "image", "message", "tool_call", "usage"]

message: Final = fast_constructor(Message)
tool_call: Final = fast_constructor(ToolCall)
usage: Final = fast_constructor(Usage)
image: Final = fast_constructor(ImageRef)
conversation_meta: Final = fast_constructor(ConversationMeta)
"""A scan builds one per file: 10,000 of them for a large Claude Code home."""
