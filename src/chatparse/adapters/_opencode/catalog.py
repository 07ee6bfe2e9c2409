"""What a scan lists: one conversation per session id, across every store, sub-agents nested.

**Which copy wins.** A session can be in several stores: OpenCode's move to SQLite (v1.2)
copies the JSON tree into ``opencode.db`` and leaves the tree in place, its first JSON
migration copied the ``project`` layout into the ``storage`` layout, and channel builds keep
databases of their own. The copy updated last (``time_updated``) is read; between copies
updated at the same time, the store listed first (databases before the JSON tree, see
:mod:`~chatparse.adapters._opencode.locate`). The other copies are named in a warning of the
parsed conversation.

**Sub-agents.** A session whose ``parent_id`` names a session of the same store is read as a
sub-agent of it, nested in its ``subagents`` (to any depth), and not listed on its own. A
session whose parent is nowhere (or which is part of a loop of parents) is listed.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from attrs import frozen

from chatparse.adapter import digest_fingerprint, passed_over
from chatparse.adapters._opencode.records import STORE, SessionHead, Store
from chatparse.adapters._opencode.session import COPIES, SUBAGENTS, head_meta
from chatparse.errors import SourceUnavailableError
from chatparse.model import ConversationMeta

__all__ = ["list_conversations", "meta_of"]


@frozen
class _Copy:
    rank: int
    store: Store
    head: SessionHead


def _family(heads: Sequence[SessionHead], root: str) -> list[tuple[str, str]]:
    """``(parent, child)`` for every session under ``root`` among ``heads``, depth first."""
    children: dict[str, list[str]] = {}
    for head in heads:
        if head.parent_id is not None:
            children.setdefault(head.parent_id, []).append(head.id)
    pairs: list[tuple[str, str]] = []
    seen = {root}
    stack = [root]
    while stack:
        parent = stack.pop()
        for child in sorted(children.get(parent, ()), reverse=True):
            if child not in seen:
                seen.add(child)
                pairs.append((parent, child))
                stack.append(child)
    return pairs


def meta_of(  # noqa: PLR0913 -- the session, where it is, and what the scan adds
    source: str,
    store: Store,
    head: SessionHead,
    heads: Sequence[SessionHead],
    copies: Iterable[str] = (),
    *,
    slug_key: str | None = None,
) -> ConversationMeta:
    """The meta of ``head`` as a conversation of its own, with its sub-agents among ``heads``.

    ``slug_key``, when given, is the locator key that holds the session's slug.
    """
    pairs = _family(heads, head.id)
    by_id = {h.id: h for h in heads}
    members = [head, *(by_id[child] for _, child in pairs)]
    locator = {STORE: store.kind, **store.locator()}
    if pairs:
        locator[SUBAGENTS] = "\n".join(f"{parent}\t{child}" for parent, child in pairs)
    if slug_key is not None and head.slug is not None:
        locator[slug_key] = head.slug
    others = "\n".join(copies)
    if others:
        locator[COPIES] = others
    fingerprint = digest_fingerprint(*(f"{h.stamp}:{store.changes(h.id)}" for h in members))
    return head_meta(source, head, fingerprint=fingerprint, locator=locator)


def _sessions(store: Store) -> list[SessionHead]:
    """The store's sessions; none, and a warning, when it cannot be read (it went bad)."""
    try:
        return store.sessions()
    except SourceUnavailableError as exc:
        passed_over(exc.path, exc.reason)
        return []


def list_conversations(
    source: str, stores: Sequence[Store], *, slug_key: str | None = None
) -> list[ConversationMeta]:
    """Every conversation in ``stores`` (listed by priority), one per session id, by id.

    A store that fails while it is read is passed over with a warning, the others are listed.
    ``slug_key`` is as for :func:`meta_of`.
    """
    heads = [_sessions(store) for store in stores]
    copies: dict[str, list[_Copy]] = {}
    for rank, (store, held) in enumerate(zip(stores, heads, strict=True)):
        for head in held:
            copies.setdefault(head.id, []).append(_Copy(rank, store, head))
    winners = {
        ident: max(found, key=lambda c: (c.head.updated or 0, -c.rank))
        for ident, found in copies.items()
    }
    nested: set[str] = set()
    metas: list[ConversationMeta] = []
    # Roots first (no parent, or a parent that is nowhere), then what a loop of parents left.
    order = sorted(winners, key=lambda i: (winners[i].head.parent_id in winners, i))
    for ident in order:
        if ident in nested:
            continue
        chosen = winners[ident]
        held = heads[chosen.rank]
        nested.update(child for _, child in _family(held, ident))
        others = [c.head.path for c in copies[ident] if c is not chosen]
        try:
            metas.append(
                meta_of(source, chosen.store, chosen.head, held, others, slug_key=slug_key)
            )
        except SourceUnavailableError as exc:
            passed_over(exc.path, exc.reason)
    return sorted(metas, key=lambda meta: meta.id)
