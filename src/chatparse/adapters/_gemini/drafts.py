"""Messages while their records are still being read, and the tree they are frozen into.

Both tools' messages change after they are first seen: a Gemini CLI message is rewritten by
later copies, a Qwen Code answer waits for its tool results and its usage. A :class:`Draft`
holds one until the file is read; :func:`freeze_all` then gives each its parent and marks the
messages on abandoned branches.

The tree: each message names its parent (``parents``). The *main line* is the path from the
leaf the tool resumes from back to its root. A message whose nearest main-line ancestor is a
message other than the leaf sits on an abandoned branch (a rewound turn): it is kept, marked
``is_sidechain``. A message below the leaf continues the main line; one under another root
(whose chain never meets the main line) is neither.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime

from attrs import define, field

from chatparse.adapter import PendingCall, new_message
from chatparse.model import ImageRef, Message, MessageKind, Role, Usage

__all__ = ["Draft", "Links", "freeze_all"]


@define
class Draft:
    """A message, with what may still be added to it."""

    id: str
    role: Role
    kind: MessageKind
    timestamp: datetime | None = None
    texts: list[str] = field(factory=list)
    thinking: list[str] = field(factory=list)
    images: list[ImageRef] = field(factory=list)
    calls: list[PendingCall] = field(factory=list)
    model: str | None = None
    usage: Usage | None = None
    sidechain: bool = False
    """Marked so by its record (a sub-agent's message), whatever the tree says."""

    def freeze(self, parent: str | None, *, abandoned: bool) -> Message:
        """The model's message, under ``parent``."""
        strip = str.rstrip if self.kind == "tool_result" else str.strip
        return new_message(
            id=self.id,
            role=self.role,
            parent_id=parent,
            text=_paragraphs(self.texts, strip),
            thinking=_paragraphs(self.thinking, str.strip) or None,
            tool_calls=[call.freeze() for call in self.calls],
            images=self.images,
            timestamp=self.timestamp,
            model=self.model,
            usage=self.usage,
            is_sidechain=self.sidechain or abandoned,
            kind=self.kind,
        )


def _paragraphs(parts: Iterable[str], strip: Callable[[str], str]) -> str:
    """The parts, each stripped, that are not blank, joined by blank lines."""
    return "\n\n".join(part for part in map(strip, parts) if part)


class Links:
    """The records of a file and their parents, seen from its messages.

    ``up`` maps every record to its parent record; ``message_of`` maps the records that are
    messages to their message's id. Records that are not messages (settings, telemetry, a tool
    result paired into its call) are passed through. A parent outside the file, or a loop of
    such records, ends a chain.
    """

    def __init__(self, up: Mapping[str, str | None], message_of: Mapping[str, str]) -> None:
        self.up = up
        self.message_of = message_of
        self._memo: dict[str, str | None] = {}  # record -> the nearest message at or above it

    def above(self, record: str | None) -> str | None:
        """The id of the nearest message at or above ``record``."""
        up, message_of, memo = self.up, self.message_of, self._memo
        path: list[str] = []
        seen: set[str] = set()
        while record is not None and record not in message_of and record not in memo:
            if record in seen:
                record = None
                break
            seen.add(record)
            path.append(record)
            record = up.get(record)
        if record is None:
            found = None
        else:
            found = message_of[record] if record in message_of else memo[record]
        memo.update(dict.fromkeys(path, found))
        return found

    def parent(self, message: str, record_parent: str | None) -> str | None:
        """The parent message of ``message``, whose record's parent is ``record_parent``."""
        found = self.above(record_parent)
        return found if found != message else None


def _cut_cycles(parents: dict[str, str | None], order: Sequence[str]) -> int:
    """Cut the link that closes each cycle of ``parents``; how many were cut."""
    state: dict[str, bool] = {}  # False: on the path being walked; True: settled
    cut = 0
    for start in order:
        path: list[str] = []
        current: str | None = start
        while current is not None and current in parents and current not in state:
            state[current] = False
            path.append(current)
            current = parents[current]
        if current is not None and state.get(current) is False:
            parents[path[-1]] = None  # the link back into the path being walked
            cut += 1
        state.update(dict.fromkeys(path, True))
    return cut


def _abandoned(parents: Mapping[str, str | None], order: Sequence[str], leaf: str) -> set[str]:
    """The messages whose nearest main-line ancestor is not ``leaf``."""
    main: set[str] = set()
    current: str | None = leaf
    while current is not None and current in parents and current not in main:
        main.add(current)
        current = parents[current]
    nearest: dict[str, str | None] = {}  # message -> its nearest main-line ancestor
    for start in order:
        path: list[str] = []
        current = parents.get(start) if start not in main else None
        while current is not None and current not in main and current not in nearest:
            path.append(current)
            current = parents.get(current)
        found = current if current is None or current in main else nearest[current]
        nearest.update(dict.fromkeys([start, *path], found))
    return {m for m in order if m not in main and nearest[m] not in (None, leaf)}


def freeze_all(
    drafts: Sequence[Draft],
    parents: Mapping[str, str | None] | None,
    leaf: str | None,
) -> tuple[list[Message], int]:
    """The messages, each under its parent; and how many cycles had to be cut.

    ``parents`` maps a message id to its parent's (``None`` for a source without a tree: then
    no message has a parent). ``leaf`` is the message the tool would resume from.
    """
    if parents is None:
        return [draft.freeze(None, abandoned=False) for draft in drafts], 0
    order = [draft.id for draft in drafts]
    links = {ident: parents.get(ident) for ident in order}
    cut = _cut_cycles(links, order)
    abandoned = _abandoned(links, order, leaf) if leaf in links else set()
    return [d.freeze(links[d.id], abandoned=d.id in abandoned) for d in drafts], cut
