"""Messages of a Copilot CLI session while they are read.

Shared by the event log and the legacy document.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from attrs import define, field

from chatparse.adapter import (
    Ledger,
    MessageDraft,
    PendingCall,
    ToolCallPairing,
    UniqueIds,
    as_nonempty_text,
    dig,
)
from chatparse.decoders.value import Invalid, decode
from chatparse.model import MessageKind, Role

__all__ = ["Draft", "Session", "arguments_of"]


@define(kw_only=True, eq=False)
class Draft(MessageDraft):
    """A message being read, and what its usage will be made from."""

    agent: str | None = None
    """The ``toolCallId`` of the sub-agent run the message belongs to; ``None``: the session."""
    output: int | None = None
    """``outputTokens`` of an answer."""
    response: str | None = None
    """The answer's own id (``messageId``), for its usage's dedup key."""
    segment: int = 0
    """How many ``session.shutdown`` events came before the message."""


@define
class Session:
    """What the records of one session have given so far."""

    ledger: Ledger = field(factory=Ledger)
    ids: UniqueIds = field(factory=UniqueIds)
    tools: ToolCallPairing = field(factory=ToolCallPairing)
    drafts: list[Draft] = field(factory=list)
    model: str | None = None
    version: str | None = None
    started: datetime | None = None
    cwd: str | None = None
    branch: str | None = None
    segment: int = 0
    thinking: list[str] = field(factory=list)
    """``assistant.reasoning`` texts waiting for the answer they precede."""
    thinking_from: str | None = None
    """The id of the first of them."""
    agents: dict[str, str] = field(factory=dict)
    """Sub-agent runs, by the ``toolCallId`` that started them: their display name."""
    shutdowns: list[tuple[str, dict[str, int | None]]] = field(factory=list)
    """Each ``session.shutdown``: its event id and its totals."""

    def add(self, wanted: str, role: Role, kind: MessageKind, **fields: Any) -> Draft:
        """A new message, its id ``wanted`` made unique."""
        draft = Draft(id=self.ids.take(wanted), role=role, kind=kind, segment=self.segment)
        for name, value in fields.items():
            setattr(draft, name, value)
        self.drafts.append(draft)
        return draft

    def call(self, request: object) -> PendingCall | None:
        """A tool call from an OpenAI-shaped or Copilot-shaped request; ``None`` without a name."""
        name = as_nonempty_text(dig(request, "name")) or as_nonempty_text(
            dig(request, "function", "name")
        )
        if name is None:
            return None
        ident = as_nonempty_text(dig(request, "toolCallId")) or as_nonempty_text(dig(request, "id"))
        arguments = dig(request, "arguments")
        if arguments is None:
            arguments = dig(request, "function", "arguments")
        return self.tools.call(ident, name, arguments_of(arguments))


def arguments_of(value: object) -> object:
    """Tool arguments: an object as it is, JSON text decoded, other text kept as text."""
    if not isinstance(value, str) or not value.strip():
        return value
    decoded = decode(value)
    return value if isinstance(decoded, Invalid) else decoded
