"""Constructors for the model objects an adapter builds once per record.

``new_message(id=..., role=...)`` builds the same :class:`~chatparse.model.Message` as
``Message(id=..., role=...)``: the same keywords, defaults, conversions and checks, and the same
errors. They are plain functions rather than the classes because a parse builds a message, a
usage and tool calls for every record, and these cost a fraction of the class call (the figures
are in ``docs/benchmarks.md``). Objects built once per conversation, such as the
:class:`~chatparse.model.ParsedConversation` itself, are built with the classes (see
:func:`~chatparse.adapter.build_conversation`).
"""

from __future__ import annotations

from typing import Final

from chatparse.adapter._construct import fast_constructor
from chatparse.model import ConversationMeta, ImageRef, Message, ToolCall, Usage

__all__ = ["new_image", "new_message", "new_meta", "new_tool_call", "new_usage"]

new_message: Final = fast_constructor(Message)
"""Build a :class:`~chatparse.model.Message`, as calling the class does."""
new_tool_call: Final = fast_constructor(ToolCall)
"""Build a :class:`~chatparse.model.ToolCall`, as calling the class does."""
new_usage: Final = fast_constructor(Usage)
"""Build a :class:`~chatparse.model.Usage`, as calling the class does."""
new_image: Final = fast_constructor(ImageRef)
"""Build an :class:`~chatparse.model.ImageRef`, as calling the class does."""
new_meta: Final = fast_constructor(ConversationMeta)
"""Build a :class:`~chatparse.model.ConversationMeta`, as calling the class does: a scan builds
one per file."""
