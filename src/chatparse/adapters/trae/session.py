"""One session turned into messages: the records of its ``messages`` array, in turn order.

A session is ``{"sessionId", "title"?, "name"?, "createdAt"?, "updatedAt"?, "hasMore"?,
"messages": [...]}``, times in epoch milliseconds. A message is ``{"role", "content",
"turnIndex", "turnId", "timestamp", ...}``: a user message adds ``parsedQuery``, an assistant
message ``status``, ``modelInfo`` and ``agentTaskContent`` (see :mod:`.answers`).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any, Final, Literal

from attrs import define, field

from chatparse.adapter import Ledger, UniqueIds, as_epoch, as_text, new_message
from chatparse.adapters.trae.answers import answer_of, model_of, status_notice, task_content
from chatparse.adapters.trae.content import (
    clean,
    content_of,
    in_turn_order,
    media,
    message_id,
    prompt,
)
from chatparse.adapters.trae.jsontext import json_value, kind_of, nonblank
from chatparse.adapters.trae.stores import INPUT_HISTORY_KEY, messages_of
from chatparse.decoders import value as jsonvalue
from chatparse.model import ImageRef, Message

__all__ = ["Session", "stored_title"]

_ONE_MS: Final = timedelta(milliseconds=1)


def stored_title(session: dict[str, Any]) -> str | None:
    """The title a session stores: ``title``, else ``name`` (blank ones do not count)."""
    return nonblank(session.get("title")) or nonblank(session.get("name"))


@define
class Session:
    """One session turned into messages, in turn order, each timed as it is added.

    A message's time is the recorded one where it fits the order: later than every time before
    it (and not before the session's ``createdAt``). Otherwise the message gets the time before
    it plus one millisecond, marked as synthesized. Before the first known time there is nothing
    to derive from, so such messages have none.
    """

    session_id: str
    ledger: Ledger
    title: str | None = None
    """The title the session stores, if any."""
    created_at: datetime | None = None
    updated_at: datetime | None = None
    messages: tuple[Message, ...] = ()
    entries: int = 0
    """How many entries ``messages`` had (even if nothing usable came of them)."""
    unreadable: bool = False
    """Whether ``messages`` was there but not an array: damage, not a session stored empty."""
    _added: list[Message] = field(factory=list)
    _last: datetime | None = None
    """The time of the latest message added, which the next one must come after."""
    _ids: UniqueIds = field(factory=UniqueIds)

    @classmethod
    def missing(cls, session_id: str) -> Session:
        """A session that scan listed but that is no longer where it was."""
        session = cls(session_id, Ledger())
        session.ledger.warn(
            "the session is no longer in the workspace database where scan found it; scan again"
        )
        return session

    @classmethod
    def read(cls, session_id: str, value: dict[str, Any]) -> Session:
        """The session stored as ``value``."""
        session = cls(session_id, Ledger(), stored_title(value))
        session.created_at = as_epoch(value.get("createdAt"), "ms")
        session.updated_at = as_epoch(value.get("updatedAt"), "ms")
        entries = messages_of(value)
        session.entries = len(entries)
        for position in in_turn_order(entries):
            session.entry(position, entries[position])
        session.finish()
        if value.get("hasMore") is True:
            session._warn_partial(value.get("nextPageToken"))
        if not entries and not _stored_empty(value.get("messages")):
            session._warn_unreadable(value.get("messages"))
        return session

    def _warn_partial(self, token: object) -> None:
        """``hasMore``: Trae cached only part of the session on this machine."""
        page = f" (next page token {token!r})" if isinstance(token, (str, int)) else ""
        self.ledger.warn(
            f"Trae keeps only part of this session locally: hasMore is true{page}, so turns "
            "that were not cached on this machine are missing"
        )

    def _warn_unreadable(self, messages: object) -> None:
        """``messages`` is there but not an array: damage, not a session stored empty."""
        self.unreadable = True
        what = (
            "a string that holds no JSON array" if isinstance(messages, str) else kind_of(messages)
        )
        self.ledger.warn(f"messages is {what}; nothing could be read from it")

    def size(self) -> int:
        """How many messages the stored copy had, to pick the same copy scan picks."""
        return self.entries

    def entry(self, position: int, entry: object) -> None:
        """One entry of ``messages``: a user prompt, an answer, or a system line."""
        if not isinstance(entry, dict):
            self.ledger.bad(
                f"messages[{position}]", f"{kind_of(entry)} instead of a message object"
            )
            return
        role = entry.get("role")
        reader = _READERS.get(role) if isinstance(role, str) else None
        if reader is None:
            kind = role if isinstance(role, str) else None
            self.ledger.keep(f"messages[{position}]", kind, jsonvalue.encode(entry))
            return
        reader(self, position, entry)

    def _prompt(self, position: int, entry: dict[str, Any]) -> None:
        """A prompt: see :func:`~.content.prompt`."""
        text, images = prompt(entry)
        self._line(position, entry, "user", text, images)

    def _system_line(self, position: int, entry: dict[str, Any]) -> None:
        """A system line, shown as a notice."""
        text, images = clean(content_of(entry))
        self._line(position, entry, "system", text, images)

    def _line(
        self,
        position: int,
        entry: dict[str, Any],
        role: Literal["user", "system"],
        text: str,
        images: tuple[ImageRef, ...],
    ) -> None:
        if not (text or images):
            self.ledger.skip(f"empty_{role}")
            return
        self.ledger.use()
        turn_id = as_text(entry.get("turnId"))
        stamp, synthesized = self._time(as_epoch(entry.get("timestamp"), "ms"))
        self._added.append(
            new_message(
                id=self._ids.take(message_id(entry, role, position, turn_id)),
                role=role,
                text=text,
                images=images,
                timestamp=stamp,
                timestamp_synthesized=synthesized,
                request_id=turn_id,
                kind="message" if role == "user" else "notice",
            )
        )

    def _assistant(self, position: int, entry: dict[str, Any]) -> None:
        """The answer, its reasoning and tool calls, and a notice when it did not complete."""
        text, images, reasoning, tool_calls = answer_of(
            entry, task_content(position, entry, self.ledger)
        )
        notice = status_notice(entry)
        shown = bool(text or reasoning or tool_calls or images)
        if not (shown or notice):
            self.ledger.skip("empty_assistant")
            return
        self.ledger.use()
        turn_id = as_text(entry.get("turnId"))
        recorded = as_epoch(entry.get("timestamp"), "ms")
        ident = message_id(entry, "assistant", position, turn_id)
        if shown:
            ident = self._ids.take(ident)
            stamp, synthesized = self._time(recorded)
            self._added.append(
                new_message(
                    id=ident,
                    role="assistant",
                    text=text,
                    thinking=reasoning,
                    tool_calls=tool_calls,
                    images=images,
                    timestamp=stamp,
                    timestamp_synthesized=synthesized,
                    model=model_of(entry.get("modelInfo")),
                    request_id=turn_id,
                )
            )
        if notice is not None:
            # Without an answer to follow, the notice stands at the answer's time.
            self._notice(f"{ident}/status", notice, turn_id, None if shown else recorded)

    def _notice(
        self, ident: str, text: str, turn_id: str | None, recorded: datetime | None
    ) -> None:
        """A line from ``system`` about the answer before it (that it failed, say)."""
        stamp, synthesized = self._time(recorded)
        self._added.append(
            new_message(
                id=self._ids.take(ident),
                role="system",
                text=text,
                timestamp=stamp,
                timestamp_synthesized=synthesized,
                request_id=turn_id,
                kind="notice",
            )
        )

    def _time(self, recorded: datetime | None) -> tuple[datetime | None, bool]:
        """The time of the next message, and whether it was synthesized (see the class)."""
        last = self._last
        if recorded is not None and (
            recorded > last
            if last is not None
            else self.created_at is None or recorded >= self.created_at
        ):
            self._last = recorded
            return recorded, False
        if last is not None:
            self._last = last + _ONE_MS
            return self._last, True
        self._last = self.created_at
        return self.created_at, self.created_at is not None

    def finish(self) -> None:
        """Hand over the messages; the session's times, when not stored, are the messages'."""
        self.messages = messages = tuple(self._added)
        if self.created_at is None or self.updated_at is None:
            real = [m.timestamp for m in messages if m.timestamp and not m.timestamp_synthesized]
            self.created_at = self.created_at or next(iter(real), None)
            self.updated_at = self.updated_at or max(real, default=None)

    def fall_back(self, inputs: list[tuple[int, Any]], *, unattributed: int) -> None:
        """A session stored without messages: its prompts from the input history, if known.

        ``inputs`` are the history's entries given to this session, with their positions;
        ``unattributed`` is how many entries were given to no session.
        """
        self.ledger.warn(
            "the session's messages are not stored in the workspace database (newer Trae "
            "builds keep them in the encrypted ModularData/ai-agent/database.db)"
        )
        for index, entry in inputs:
            self._input(index, entry)
        if self._added:
            self.ledger.warn(
                f"{len(self._added)} prompt(s) were taken from {INPUT_HISTORY_KEY}; the answers "
                "are not recoverable from this database"
            )
        elif unattributed:
            self.ledger.warn(
                f"{INPUT_HISTORY_KEY} holds {unattributed} prompt(s) that name no session; as "
                "the workspace has several sessions, they are not given to any of them"
            )
        self.finish()

    def _input(self, index: int, entry: object) -> None:
        """One input-history entry given to this session: a prompt."""
        where = f"{INPUT_HISTORY_KEY}[{index}]"
        if not isinstance(entry, dict):
            self.ledger.bad(where, f"{kind_of(entry)} instead of an input object")
            return
        text = entry.get("inputText")
        if not isinstance(text, str):
            self.ledger.keep(where, None, jsonvalue.encode(entry))
            return
        cleaned, images = clean(text)
        images = (*images, *media(entry.get("multiMedia")))
        if not cleaned and not images:
            self.ledger.skip("empty_input")
            return
        self.ledger.use()
        stamp, synthesized = self._time(as_epoch(entry.get("timestamp"), "ms"))
        self._added.append(
            new_message(
                id=self._ids.take(f"input-{index}"),
                role="user",
                text=cleaned,
                images=images,
                timestamp=stamp,
                timestamp_synthesized=synthesized,
            )
        )


_READERS: Final[dict[str, Callable[[Session, int, dict[str, Any]], None]]] = {
    "user": Session._prompt,  # noqa: SLF001 -- the class's own table
    "system": Session._system_line,  # noqa: SLF001 -- the class's own table
    "assistant": Session._assistant,  # noqa: SLF001 -- the class's own table
}
"""How each ``role`` of a message entry is read; an entry of another role is kept unknown."""


def _stored_empty(messages: object) -> bool:
    """Whether ``messages`` says "no messages": missing, null, ``[]``, or an empty string."""
    if isinstance(messages, str):
        return not messages.strip() or json_value(messages) == []
    return messages is None or messages == []
