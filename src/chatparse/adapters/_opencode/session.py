"""One session, read from either store, with its sub-agent sessions nested in ``subagents``.

A **record** is a session (its row or file), a message, a part, and a row of a table we keep raw
(``session_message``). Messages are put in order by their creation time, then id (OpenCode's own
order); parts by id. A part whose message is missing or unreadable is kept raw, and so is a
message of a role OpenCode does not write, with its parts.

A pending revert (``session.revert``: the person undid the conversation back to a message, and
has not sent a new prompt yet, which is when OpenCode deletes what was undone) marks the messages
it undid ``is_sidechain``: from the revert's message on, or after it when only some of its parts
were undone.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from operator import attrgetter
from typing import Final

from chatparse.adapter import (
    Ledger,
    SourceAdapter,
    UniqueIds,
    as_epoch,
    as_nonempty_text,
    build_conversation,
    dig,
    digest_fingerprint,
    new_meta,
    title_from,
)
from chatparse.adapters._opencode.messages import ROLES, finish
from chatparse.adapters._opencode.parts import Draft, Reading, read_parts
from chatparse.adapters._opencode.records import STORE, Record, SessionHead, Store
from chatparse.adapters._opencode.usage import Counting, reasoning_apart_by_version
from chatparse.model import ConversationMeta, Message, ParsedConversation

__all__ = ["COPIES", "SUBAGENTS", "head_meta", "read_conversation", "session_title"]

SUBAGENTS: Final = "subagents"
"""The locator key listing a conversation's sub-agent sessions: ``parent<TAB>child`` lines."""
COPIES: Final = "copies"
"""The locator key naming the other stores that hold the session (not read), one per line."""

# OpenCode names a session "New session - <ISO time>" ("Child session - …" for a sub-agent;
# "New Session - …" before v0.4) until a title is generated: that is no title.
_DEFAULT_TITLE: Final = re.compile(r"(?:new|child) session - \d{4}-\d\d-\d\dT", re.IGNORECASE)


def session_title(head: SessionHead) -> str | None:
    """The session's title, unless it is OpenCode's placeholder."""
    if head.title is None or _DEFAULT_TITLE.match(head.title):
        return None
    return title_from(head.title)


def head_meta(
    source: str, head: SessionHead, *, fingerprint: str, locator: Mapping[str, str]
) -> ConversationMeta:
    """The meta of the conversation ``head`` starts, as a scan says it."""
    return new_meta(
        source=source,
        id=head.id,
        path=head.path,
        fingerprint=fingerprint,
        size=head.size,
        mtime=None if head.mtime is None else datetime.fromtimestamp(head.mtime, UTC),
        title=session_title(head),
        project_path=head.directory,
        created_at=as_epoch(head.created, "ms"),
        updated_at=as_epoch(head.updated, "ms"),
        locator=locator,
    )


def _family(meta: ConversationMeta) -> dict[str, list[str]]:
    """The sub-agent sessions of each session of the conversation, from the meta's locator."""
    children: dict[str, list[str]] = {}
    for line in meta.locator.get(SUBAGENTS, "").splitlines():
        parent, _, child = line.partition("\t")
        if child:
            children.setdefault(parent, []).append(child)
    return children


def _reverted(head: SessionHead, ordered: list[Record]) -> set[str]:
    """The ids of the messages a pending revert undid."""
    if head.revert is None:
        return set()
    target = as_nonempty_text(head.revert.get("messageID"))
    ids = [record.id for record in ordered]
    if target is None or target not in ids:
        return set()
    start = ids.index(target) + (as_nonempty_text(head.revert.get("partID")) is not None)
    return set(ids[start:])


_BY_ID: Final = attrgetter("id")


def _grouped(parts: Iterable[Record]) -> dict[str, list[Record]]:
    by_message: dict[str, list[Record]] = {}
    for part in parts:
        by_message.setdefault(part.owner, []).append(part)
    for owned in by_message.values():
        owned.sort(key=_BY_ID)
    return by_message


def _keep_all(records: Iterable[Record], ledger: Ledger, kind: str, version: str | None) -> None:
    for record in records:
        record.keep(ledger, kind, version)


def _read_messages(
    source: str, store: Store, head: SessionHead, ledger: Ledger
) -> tuple[list[Message], str | None]:
    """The session's messages, and the folder its first answer ran in (``path.cwd``)."""
    version = head.version
    cwd: str | None = None
    records = store.messages(head.id)
    by_message = _grouped(store.parts(head.id, records))
    ordered = sorted(records, key=lambda r: (r.created or 0, r.id))
    undone = _reverted(head, ordered)
    if undone:
        ledger.warn(
            f"a revert is pending: {len(undone)} message(s) it undid are marked as side chains"
        )
    ids, reading = UniqueIds(), Reading()
    counting = Counting(source=source, apart=reasoning_apart_by_version(version))
    messages: list[Message] = []
    for record in ordered:
        owned = by_message.pop(record.id, [])
        data = record.data
        if data is None:
            ledger.bad(record.where, record.problem)
            _keep_all(owned, ledger, "part of an unreadable message", version)
            continue
        role = data.get("role")
        if not isinstance(role, str) or role not in ROLES:
            record.keep(ledger, f"message {role}" if isinstance(role, str) else "message", version)
            _keep_all(owned, ledger, "part of a message kept raw", version)
            continue
        ledger.use()
        cwd = cwd or as_nonempty_text(dig(data, "path", "cwd"))
        draft = Draft(record=record, info=data, reverted=record.id in undone)
        read_parts(draft, owned, reading, ledger, version)
        messages.extend(finish(draft, ids, counting))
    for owned in by_message.values():
        _keep_all(owned, ledger, "part of a missing message", version)
    for extra in store.extras(head.id):
        extra.keep(ledger, extra.kind or "row", version)
    return messages, cwd


def read_conversation(
    adapter: SourceAdapter,
    store: Store,
    head: SessionHead,
    meta: ConversationMeta,
) -> ParsedConversation:
    """The conversation of ``head`` in ``store``, with the sub-agents its meta lists.

    A session listed twice (a loop) is read once.
    """
    copies = filter(None, meta.locator.get(COPIES, "").split("\n"))
    warnings = [f"session {meta.id} is also in {other}; that copy is not read" for other in copies]
    family = _family(meta)
    return _read(adapter, store, head, meta, children=family, warnings=warnings, seen={head.id})


def _read(  # noqa: PLR0913 -- read_conversation's arguments, and the sessions read so far
    adapter: SourceAdapter,
    store: Store,
    head: SessionHead,
    meta: ConversationMeta,
    *,
    children: Mapping[str, list[str]],
    warnings: Iterable[str],
    seen: set[str],
) -> ParsedConversation:
    ledger = Ledger()
    if head.problem is None:
        ledger.use()
    else:
        ledger.bad(head.where, head.problem)
    for warning in warnings:
        ledger.warn(warning)
    messages, cwd = _read_messages(adapter.name, store, head, ledger)
    subagents = []
    for child_id in children.get(head.id, []):
        if child_id in seen:
            continue
        seen.add(child_id)
        child = store.session(child_id)
        if child is None:
            ledger.warn(f"sub-agent session {child_id} is no longer there")
            continue
        child_meta = head_meta(
            adapter.name,
            child,
            fingerprint=digest_fingerprint(f"{child.stamp}:{store.changes(child.id)}"),
            locator={STORE: store.kind, "parent": head.id},
        )
        subagents.append(
            _read(adapter, store, child, child_meta, children=children, warnings=(), seen=seen)
        )
    return build_conversation(
        adapter,
        meta,
        messages,
        ledger,
        title=session_title(head),
        project_path=head.directory or cwd,
        git_branch=store.branch(head),
        created_at=as_epoch(head.created, "ms"),
        updated_at=as_epoch(head.updated, "ms"),
        producer_version=head.version,
        subagents=subagents,
    )
