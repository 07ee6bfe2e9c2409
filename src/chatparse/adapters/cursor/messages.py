"""The messages of one conversation, built bubble by bubble with every record accounted for."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import TYPE_CHECKING, Any, Final

from chatparse.adapter import Ledger, SourceAdapter, UniqueIds, build_conversation
from chatparse.adapters.cursor.content import bubble_message
from chatparse.decoders import value as jsonvalue
from chatparse.model import ConversationMeta, Message, ParsedConversation, Role

if TYPE_CHECKING:
    from chatparse.adapters.cursor.composer import Bubble

USER_BUBBLE, ASSISTANT_BUBBLE = 1, 2
_ROLES: Final[dict[object, Role]] = {
    USER_BUBBLE: "user",
    ASSISTANT_BUBBLE: "assistant",
    "user": "user",
    "ai": "assistant",
}
# The newest ``_v`` seen in the wild; a newer one is read best-effort and noted in diagnostics.
NEWEST_COMPOSER_V: Final = 13
NEWEST_BUBBLE_V: Final = 3


def newer_version(what: str, version: int, newest: int) -> str:
    """The warning for a document whose ``_v`` is newer than the newest we know."""
    return f"{what} _v {version} is newer than the newest known ({newest}); read best-effort"


class MessageBuilder:
    """The messages of one conversation, built bubble by bubble with every record accounted.

    Each message is one bubble used: they are told to the ledger together, by
    :meth:`conversation`, rather than by a call per bubble.
    """

    def __init__(self, conversation_id: str, ledger: Ledger) -> None:
        self.conversation_id = conversation_id
        self.ledger = ledger
        self.messages: list[Message] = []
        self.ids = UniqueIds()

    def add_rows(self, bubbles: Iterable[Bubble]) -> None:
        """Add bubble rows in this order, each decoded here (see :class:`Bubble`)."""
        for bubble in bubbles:
            data = bubble.data
            value = None if data is None else jsonvalue.decode(data)
            if type(value) is dict:  # the common case first
                self._add(value, bubble.id, bubble)
            elif isinstance(value, jsonvalue.Invalid):
                self.ledger.bad(bubble.where, "not valid JSON")
            elif value is None:
                self.ledger.skip("bubble row with a NULL value")
                self.ledger.warn(f"{bubble.where}: NULL value, no message to show")
            else:
                self.ledger.keep(bubble.where, None, bubble.raw or jsonvalue.encode(value))

    def add_inline(self, value: Any, index: int, where: str) -> None:
        """Add an element of an inline bubble list, found at ``where``; ``index`` names it."""
        if not isinstance(value, dict):
            self.ledger.keep(where, None, jsonvalue.encode(value))
            return
        for field_name in ("bubbleId", "id"):
            if isinstance(value.get(field_name), str) and value[field_name]:
                self._add(value, value[field_name], where)
                return
        self._add(value, f"#{index}", where)

    def _add(self, bubble: dict[str, Any], bubble_id: str, origin: Bubble | str) -> None:
        """Add one bubble; ``origin`` is its row, or where in a value an inline bubble was."""
        kind = bubble.get("type")
        # type(), not isinstance(): True == 1 must not make a user bubble, nor a list raise.
        role = _ROLES.get(kind) if type(kind) is int or type(kind) is str else None
        if role is None:
            where, raw = (origin, None) if isinstance(origin, str) else (origin.where, origin.raw)
            text = raw if raw is not None else jsonvalue.encode(bubble)
            self.ledger.keep(where, f"bubble type {kind!r}", text)
            return
        version = bubble.get("_v")
        if type(version) is int and version > NEWEST_BUBBLE_V:
            self.ledger.warn_once(newer_version("bubble", version, NEWEST_BUBBLE_V))
        message = bubble_message(bubble, role, bubble_id, self.ids, self.conversation_id)
        if message is None:
            self.ledger.skip(f"empty {role} bubble")
        else:
            self.messages.append(message)

    def conversation(  # noqa: PLR0913 -- keyword-only fields, named at every call
        self,
        meta: ConversationMeta,
        adapter: SourceAdapter,
        *,
        title: str | None = None,
        created_at: datetime | None = None,
        updated_at: datetime | None = None,
        project_path: str | None = None,
        subagents: Iterable[ParsedConversation] = (),
    ) -> ParsedConversation:
        """The conversation, its messages' bubbles counted as used."""
        self.ledger.use(len(self.messages))
        return build_conversation(
            adapter,
            meta,
            self.messages,
            self.ledger,
            title=title,
            project_path=project_path,
            created_at=created_at,
            updated_at=updated_at,
            subagents=subagents,
        )
