"""A thread of ``threads.db`` put together: its row, its blob, its sub-agents' threads.

**Sub-agents.** A row whose ``parent_id`` names another row of the same database is a
sub-agent's thread: it is read into its parent's ``subagents`` (to any depth) and not listed on
its own. A row whose parent is not in the database, or that is part of a loop of parents, is
listed.

**Blobs that cannot be read.** A thread is still listed and parsed when its blob cannot be
read: compressed with zstd on a Python without a zstd decoder (counted as skipped, with a
warning that says why), damaged (counted as malformed), or of a ``data_type`` Zed does not
write (skipped, with a warning). Its title, times and project come from the row.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NamedTuple

from chatparse.adapter import (
    SourceAdapter,
    as_datetime,
    as_nonempty_text,
    build_conversation,
    digest_fingerprint,
    new_meta,
    title_from,
)
from chatparse.adapters.zed.codec import Blob, open_blob
from chatparse.adapters.zed.reading import Reading
from chatparse.adapters.zed.store import Head, Store
from chatparse.adapters.zed.text_thread import read_text_thread
from chatparse.adapters.zed.thread import document_branch, document_title, read_thread
from chatparse.errors import SourceUnavailableError, UnavailableCause
from chatparse.model import ConversationMeta, ParsedConversation

__all__ = [
    "Family",
    "Opened",
    "read_conversation",
    "read_text_conversation",
    "thread_metas",
]


class Family:
    """The rows of one database and who is whose sub-agent."""

    def __init__(self, heads: Iterable[Head]) -> None:
        self.heads: dict[str, Head] = {}
        for head in heads:
            self.heads.setdefault(head.id, head)
        self.children: dict[str, list[str]] = {}
        for head in self.heads.values():
            if head.parent_id is not None and head.parent_id in self.heads:
                self.children.setdefault(head.parent_id, []).append(head.id)
        self.roots = self._roots()

    def below(self, ident: str) -> list[str]:
        """Every thread under ``ident``, depth first (each once, loops cut)."""
        found: list[str] = []
        stack = [ident]
        seen = {ident}
        while stack:
            for child in reversed(self.children.get(stack.pop(), [])):
                if child not in seen:
                    seen.add(child)
                    found.append(child)
                    stack.append(child)
        return found

    def _roots(self) -> list[str]:
        """Threads without a parent here, then one of each loop of parents nothing reaches."""
        roots = [h.id for h in self.heads.values() if h.parent_id not in self.heads]
        reached = set(roots).union(*(self.below(r) for r in roots))
        for ident in self.heads:
            if ident not in reached:
                roots.append(ident)
                reached.update([ident, *self.below(ident)])
        return roots


def _meta(source: str, db: Path, family: Family, head: Head, stat: Stat) -> ConversationMeta:
    stamps = [family.heads[i].stamp() for i in [head.id, *family.below(head.id)]]
    return new_meta(
        source=source,
        id=head.id,
        path=str(db),
        size=stat.size,
        mtime=stat.mtime,
        fingerprint=digest_fingerprint(*stamps),
        title=title_from(as_nonempty_text(head.summary)),
        project_path=head.project_path,
        created_at=as_datetime(head.created_at),
        updated_at=as_datetime(head.updated_at),
        locator={"parent": head.parent_id} if head.parent_id else {},
    )


class Stat(NamedTuple):
    """The database file's size and modification time, for each of its metas."""

    size: int | None
    mtime: datetime | None

    @classmethod
    def of(cls, path: Path) -> Stat:
        """``path``'s size and time; unknown when it cannot be read."""
        try:
            info = path.stat()
        except OSError:
            return cls(None, None)
        return cls(info.st_size, datetime.fromtimestamp(info.st_mtime, UTC))


def thread_metas(source: str, db: Path, family: Family) -> list[ConversationMeta]:
    """What a scan lists of one database: each thread that is no sub-agent's."""
    stat = Stat.of(db)
    return [_meta(source, db, family, family.heads[ident], stat) for ident in family.roots]


def _read(
    reading: Reading,
    found: tuple[object, bytes] | None,
    path: str,
    decompress: Callable[[bytes], bytes] | None,
) -> dict[str, Any]:
    if found is None:
        raise SourceUnavailableError(
            path,
            f"thread {reading.thread} is no longer in the database",
            "Scan again: the thread was deleted.",
            UnavailableCause.MISSING,
        )
    opened = open_blob(found[1], found[0], decompress)
    if isinstance(opened, Blob):
        return read_thread(reading, opened.data)
    if opened.malformed:
        reading.ledger.bad("thread", opened.reason)
    else:
        reading.ledger.skip(f"{opened.kind} thread data not read")
        reading.ledger.warn(f"messages not read: {opened.reason}")
    return {}


class Opened:
    """A database open for parsing: its store, its rows, and the zstd decoder to use."""

    def __init__(self, store: Store, decompress: Callable[[bytes], bytes] | None) -> None:
        self.store = store
        self.family = Family(store.heads())
        self.decompress = decompress


def read_conversation(
    adapter: SourceAdapter, meta: ConversationMeta, opened: Opened, seen: Sequence[str] = ()
) -> ParsedConversation:
    """The thread ``meta`` names, with its sub-agents' threads."""
    reading = Reading(thread=meta.id)
    document = _read(reading, opened.store.blob(meta.id), meta.path, opened.decompress)
    if reading.odd_parts:
        kinds = ", ".join(sorted(reading.odd_parts))
        reading.ledger.warn(f"content parts of unknown kind were not read ({kinds})")
    below = [*seen, meta.id]
    family = opened.family
    subagents = [
        read_conversation(adapter, _child(adapter.name, meta, family, child), opened, below)
        for child in family.children.get(meta.id, [])
        if child not in below
    ]
    return build_conversation(
        adapter,
        meta,
        [draft.freeze() for draft in reading.drafts],
        reading.ledger,
        title=meta.title or document_title(document),
        git_branch=document_branch(document),
        updated_at=meta.updated_at or as_datetime(document.get("updated_at")),
        subagents=subagents,
    )


def _child(source: str, meta: ConversationMeta, family: Family, ident: str) -> ConversationMeta:
    stat = Stat(meta.size, meta.mtime)
    return _meta(source, Path(meta.path), family, family.heads[ident], stat)


def read_text_conversation(adapter: SourceAdapter, meta: ConversationMeta) -> ParsedConversation:
    """The text thread in the file ``meta`` names (no times, project or usage: it records none)."""
    thread = read_text_thread(meta)
    drafts = [draft.freeze() for draft in thread.drafts]
    return build_conversation(adapter, meta, drafts, thread.ledger, title=thread.title)
