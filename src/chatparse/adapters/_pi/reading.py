"""The state of one session while its entries are read, and the messages it comes to.

Entries form a tree by ``id`` / ``parentId`` (format versions 2 and 3). A message's
``parent_id`` is the nearest message above its entry in that tree: settings, labels and tool
results in between make no message of their own, so the chain skips them. The *main line* is the
path from the last entry in file order (Pi's leaf) back to the root; messages on a branch off it
(an abandoned ``/tree`` branch) are kept, marked ``is_sidechain``. An entry whose parent is not in
the file starts a new root, neither main line nor branch. Version 1 files record no tree: their
messages have no ``parent_id``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, Final, TypeAlias

from attrs import define, evolve, field, frozen

from chatparse.adapter import (
    Ledger,
    PendingCall,
    ToolCallPairing,
    UniqueIds,
    as_datetime,
    as_epoch,
    new_message,
    title_from,
)
from chatparse.model import ImageRef, Message, MessageKind, Role, Usage

if TYPE_CHECKING:
    from chatparse.adapters._pi.dialect import Dialect

__all__ = ["UNKNOWN", "Bad", "Draft", "EntryReader", "Outcome", "Reading", "Title"]


@frozen
class _Unknown:
    """The outcome of a record whose shape the reader does not know: it is kept raw."""


UNKNOWN: Final = _Unknown()


@frozen
class Bad:
    """The outcome of a record of a known type that cannot be read: malformed, and why."""

    reason: str


Outcome: TypeAlias = "str | Bad | _Unknown | None"
"""What a record came to: ``None`` used, a string the reason it was skipped, :data:`UNKNOWN`
kept raw, a :class:`Bad` malformed."""


class Draft:
    """A message whose tool calls' results (and their images) may still arrive.

    Its fields are kept as the keywords of :func:`~chatparse.adapter.new_message`, and the
    message is made once, at the end.
    """

    __slots__ = ("calls", "fields", "images")

    def __init__(self, fields: dict[str, Any]) -> None:
        self.fields = fields
        self.calls: list[PendingCall] = []
        self.images: list[ImageRef] = []

    def freeze(self, *, sidechain: bool) -> Message:
        """The message as it stands now that every result has arrived."""
        return new_message(
            **self.fields,
            tool_calls=tuple(call.freeze() for call in self.calls),
            images=tuple(self.images),
            is_sidechain=sidechain,
        )


class Title:
    """Where a title can come from, strongest first (see each adapter's documentation)."""

    SLOT: Final = 0
    CHANGE: Final = 1
    NAME: Final = 2
    HEADER: Final = 3


@define
class Reading:
    """What the entries of one session (one file, or several copies of one) have given so far.

    Attributes:
        dialect: How this source differs from Pi.
        ledger: Where every record went.
        header: The ``session`` header's fields, once read.
        version: The format version the header gives (1 when it gives none).
        titles: Candidate titles by :class:`Title` rank; the lowest rank wins.
    """

    dialect: Dialect
    ledger: Ledger = field(factory=Ledger)
    ids: UniqueIds = field(factory=UniqueIds)
    tools: ToolCallPairing = field(factory=ToolCallPairing)
    drafts: list[Message | Draft] = field(factory=list)
    """The messages in file order; a :class:`Draft` for one whose tool calls may be answered."""
    entries: list[str | None] = field(factory=list)
    """The entry each message of :attr:`drafts` comes from."""
    header: Mapping[str, Any] | None = None
    version: int = 1
    titles: dict[int, str] = field(factory=dict)
    where: str = ""
    """Put before ``line N`` in warnings and unknown records: the file, when there are several."""
    # The tree: each entry's parent entry, in file order, and the message at or above it.
    parents: dict[str, str | None] = field(factory=dict)
    anchors: dict[str, str | None] = field(factory=dict)
    leaf: str | None = None
    repeated: frozenset[str] = frozenset()
    """Entry ids read from an earlier copy of the session: a later copy repeats them."""
    usage_keys: set[str] = field(factory=set)
    callers: dict[int, Draft] = field(factory=dict)
    # The entry being read: its key, the message above it, its times (read when a message is
    # made of it: most entries make none).
    entry: str | None = None
    above: str | None = None
    time_text: str | None = None
    """The entry's ``timestamp``, as written."""
    message_time: object = None
    """Its message's ``timestamp`` (Unix milliseconds), for an entry without a time of its own."""
    made: str | None = None
    in_tree: bool = False

    def enter(
        self, key: str, parent: str | None, stamp: str | None, *, in_tree: bool = True
    ) -> None:
        """Start reading an entry: ``key`` is its id, ``parent`` its ``parentId``.

        An entry of a version 1 file (``in_tree=False``) is not in any tree.
        """
        self.entry, self.made, self.in_tree = key, None, in_tree
        self.time_text, self.message_time = stamp, None
        self.above = self.anchors.get(parent) if parent is not None else None
        if in_tree:
            self.parents[key] = parent
            self.leaf = key

    def leave(self) -> None:
        """The entry is read: later entries below it hang from its message, or from its parent's."""
        if self.entry is not None:
            self.anchors[self.entry] = self.made if self.made is not None else self.above

    def add(  # noqa: PLR0913 -- a message's fields, keyword-only
        self,
        role: Role,
        kind: MessageKind,
        text: str,
        *,
        suffix: str = "",
        thinking: str | None = None,
        images: Iterable[ImageRef] = (),
        model: str | None = None,
        usage: Usage | None = None,
        request_id: str | None = None,
        sidechain: bool = False,
    ) -> None:
        """A message of the entry being read; ``suffix`` tells apart several of one entry."""
        self.drafts.append(
            new_message(
                **self._fields(role, kind, text, suffix, usage),
                thinking=thinking,
                images=tuple(images),
                model=model,
                request_id=request_id,
                is_sidechain=sidechain,
            )
        )
        self.entries.append(self.entry)

    def add_answerable(  # noqa: PLR0913 -- a message's fields, keyword-only
        self,
        text: str,
        *,
        thinking: str | None,
        images: Iterable[ImageRef],
        model: str | None,
        usage: Usage | None,
        request_id: str | None,
    ) -> Draft:
        """An assistant message whose tool calls' results may still arrive, as a draft."""
        draft = Draft(self._fields("assistant", "message", text, "", usage))
        draft.fields |= {"thinking": thinking, "model": model, "request_id": request_id}
        draft.images += images
        self.drafts.append(draft)
        self.entries.append(self.entry)
        return draft

    def _fields(
        self, role: Role, kind: MessageKind, text: str, suffix: str, usage: Usage | None
    ) -> dict[str, Any]:
        """The fields every message has: its unique id, parent, time; usage counted once."""
        if usage is not None and (key := usage.dedup_key) is not None:
            if key in self.usage_keys:
                usage = evolve(usage, counted=False)
            else:
                self.usage_keys.add(key)
        ident = self.ids.take((self.entry or "") + suffix)
        # A second message of one entry follows the first, in a tree; a plain list has none.
        parent = self.above if self.made is None or not self.in_tree else self.made
        self.made = ident
        return {
            "id": ident,
            "parent_id": parent,
            "role": role,
            "kind": kind,
            "text": text,
            "timestamp": as_datetime(self.time_text) or as_epoch(self.message_time, "ms"),
            "usage": usage,
        }

    def offer_title(self, rank: int, text: object) -> None:
        """A title from a source of ``rank``; a later one of the same rank wins."""
        title = title_from(text) if isinstance(text, str) else None
        if title is not None:
            self.titles[rank] = title

    @property
    def title(self) -> str | None:
        """The strongest title offered."""
        return self.titles[min(self.titles)] if self.titles else None

    def messages(self) -> list[Message]:
        """Every message in file order, branches off the main line marked as side chains."""
        off = self._off_main_line()
        messages = []
        for item, entry in zip(self.drafts, self.entries, strict=True):
            off_line = off.get(entry, False)
            if isinstance(item, Draft):
                messages.append(item.freeze(sidechain=off_line))
            elif off_line and not item.is_sidechain:
                messages.append(evolve(item, is_sidechain=True))
            else:
                messages.append(item)
        return messages

    def _off_main_line(self) -> dict[str | None, bool]:
        main: set[str] = set()
        node = self.leaf
        while node is not None and node not in main and node in self.parents:
            main.add(node)
            node = self.parents[node]
        off: dict[str | None, bool] = {}
        if len(main) == len(self.parents):
            return off  # one line, no branch: the usual case
        for key, parent in self.parents.items():  # file order: parents come first
            if key in main:
                off[key] = False
            elif parent is not None and parent in main:
                off[key] = True
            else:
                off[key] = off.get(parent, False)
        return off


EntryReader: TypeAlias = Callable[[Reading, dict[str, Any]], Outcome]
"""Reads one entry of a known type; says what it came to."""
