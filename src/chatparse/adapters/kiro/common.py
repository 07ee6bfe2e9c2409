"""What every Kiro store is read into: drafts, paired tool calls, and the account of records."""

from __future__ import annotations

from typing import Any

from attrs import define, field

from chatparse.adapter import Ledger, MessageDraft, ToolCallPairing, UniqueIds, drop_payloads
from chatparse.decoders.value import encode
from chatparse.model import MessageKind, Role

__all__ = ["Reading", "structured_text"]


def structured_text(value: object) -> str:
    """A JSON value as text for a tool's output: text as it is, anything else as JSON."""
    cleaned = drop_payloads(value)[0]
    return cleaned if isinstance(cleaned, str) else encode(cleaned)


@define
class Reading:
    """What the records of one conversation have given so far."""

    ledger: Ledger = field(factory=Ledger)
    ids: UniqueIds = field(factory=UniqueIds)
    tools: ToolCallPairing = field(factory=ToolCallPairing)
    drafts: list[MessageDraft] = field(factory=list)

    def add(
        self, ident: str, role: Role, kind: MessageKind = "message", **fields: Any
    ) -> MessageDraft:
        """A message, its id made unique."""
        draft = MessageDraft(id=self.ids.take(ident), role=role, kind=kind, **fields)
        self.drafts.append(draft)
        return draft

    def result(self, call_id: str | None, text: str, *, is_error: bool | None, ident: str) -> None:
        """A tool's result to its call, by id; an orphan is kept as a message of its own.

        Results are parts of a record, not records: the caller accounts for the record.
        """
        text = drop_payloads(text)[0]
        if self.tools.answer(call_id, text, is_error=is_error) is None:
            self.add(ident, "user", "tool_result", text=text)
