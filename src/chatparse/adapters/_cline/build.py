"""The messages of one task while its records are read: drafts, tool calls, usage counted once.

Both readings of a task (the API history joined with the UI log, and the UI log alone) build
their messages here. The conversation is a plain list: messages have no ``parent_id``.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from attrs import define, evolve, field

from chatparse.adapter import Ledger, MessageDraft, PendingCall, ToolCallPairing, UniqueIds
from chatparse.adapters._cline.content import Parts
from chatparse.model import ImageRef, Message, MessageKind, Role, Usage

__all__ = ["Builder"]


@define
class Builder:
    """The messages of one conversation so far.

    Attributes:
        ledger: Where every record went.
        drafts: The messages in order.
        positional: Calls without an id (XML tool tags, UI rows) waiting for a result, oldest
            first; a result answers the oldest of its tool's name.
    """

    ledger: Ledger = field(factory=Ledger)
    ids: UniqueIds = field(factory=UniqueIds)
    tools: ToolCallPairing = field(factory=ToolCallPairing)
    drafts: list[MessageDraft] = field(factory=list)
    positional: list[PendingCall] = field(factory=list)
    usage_keys: set[str] = field(factory=set)
    problems: list[str] = field(factory=list)
    """Token counts that are no counts, said once the reading is done."""
    environment: str | None = None
    """The first ``<environment_details>`` block of a user turn (it names the working folder)."""

    def add(  # noqa: PLR0913 -- a message's fields, keyword-only
        self,
        role: Role,
        key: str,
        *,
        kind: MessageKind = "message",
        text: str = "",
        thinking: str | None = None,
        images: Iterable[ImageRef] = (),
        timestamp: datetime | None = None,
        model: str | None = None,
    ) -> MessageDraft:
        """A new message, after the others; ``key`` names it (made unique)."""
        draft = MessageDraft(
            id=self.ids.take(key),
            role=role,
            kind=kind,
            text=text,
            thinking=thinking,
            images=list(images),
            timestamp=timestamp,
            model=model,
        )
        self.drafts.append(draft)
        return draft

    def user_turn(
        self, key: str, parts: Parts, *, kind: MessageKind, timestamp: datetime | None
    ) -> None:
        """A user message's parts: results to their calls, then the turn if anything is left.

        A result that answers no call is kept as a message of its own; a message of results
        only makes no turn.
        """
        if self.environment is None:
            self.environment = parts.environment
        for ident, name, output, error in parts.results:
            if not self.answer(ident, name, output, is_error=error):
                self.add(
                    "user",
                    f"{key}-result",
                    kind="tool_result",
                    text=output or "",
                    timestamp=timestamp,
                )
        if parts.joined_text or parts.images or not parts.results:
            self.add(
                "user",
                key,
                kind=kind,
                text=parts.joined_text,
                images=parts.images,
                timestamp=timestamp,
            )

    def answer_turn(  # noqa: PLR0913 -- a message's fields, keyword-only
        self,
        key: str,
        parts: Parts,
        *,
        kind: MessageKind,
        timestamp: datetime | None,
        model: str | None,
        thinking: Iterable[str] = (),
    ) -> MessageDraft:
        """An assistant message's parts (after ``thinking`` carried from earlier records)."""
        draft = self.add(
            "assistant",
            key,
            kind=kind,
            text=parts.joined_text,
            thinking="\n\n".join([*thinking, *parts.thinking]) or None,
            images=parts.images,
            timestamp=timestamp,
            model=model,
        )
        for ident, name, arguments in parts.calls:
            self.call(draft, ident, name, arguments)
        return draft

    def unknown_blocks(self, where: str, parts: Parts) -> None:
        """A warning naming the block types of a message that were not read."""
        if parts.unknown:
            names = ", ".join(sorted(set(parts.unknown)))
            self.ledger.warn(f"{where}: block types not read: {names}")

    def give_usage(self, draft: MessageDraft, usage: Usage | None) -> None:
        """``usage`` for ``draft``; a copy of a response already counted is not counted again."""
        if usage is not None and (key := usage.dedup_key) is not None:
            if key in self.usage_keys:
                usage = evolve(usage, counted=False)
            else:
                self.usage_keys.add(key)
        draft.usage = usage

    def call(self, draft: MessageDraft, ident: str | None, name: str, arguments: object) -> None:
        """A tool call ``draft`` made; without an id it is answered by position."""
        pending = self.tools.call(ident, name, arguments)
        draft.calls.append(pending)
        if ident is None:
            self.positional.append(pending)

    def answer(
        self, ident: str | None, name: str, output: str | None, *, is_error: bool | None = None
    ) -> bool:
        """A tool's result: to the call with its id, else the oldest open call of ``name``.

        ``False`` for a result that answers no call (an orphan, for the caller to keep).
        """
        if ident is not None:
            return self.tools.answer(ident, output, is_error=is_error) is not None
        for pending in self.positional:
            if pending.name == name or not name:
                self.positional.remove(pending)
                pending.answer(output, is_error=is_error)
                return True
        return False

    def last(self, role: Role) -> MessageDraft | None:
        """The latest message, when it is of ``role``."""
        if self.drafts and self.drafts[-1].role == role:
            return self.drafts[-1]
        return None

    def messages(self) -> list[Message]:
        """The messages; assistant messages left with nothing in them are dropped."""
        if self.problems:
            self.ledger.warn("; ".join(dict.fromkeys(self.problems)))
        return [draft.freeze() for draft in self.drafts if _has_something(draft)]


def _has_something(draft: MessageDraft) -> bool:
    return bool(
        draft.text
        or draft.thinking
        or draft.images
        or draft.calls
        or draft.usage is not None
        or draft.role != "assistant"
    )
