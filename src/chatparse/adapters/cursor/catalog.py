"""What a scan found, merged into one :class:`~chatparse.model.ConversationMeta` per conversation.

A composer is mentioned in several places: the workspaces that list it (a head, or an inline
entry of late 2024), its document in the global store, its bubble rows there, and the document
of a parent whose sub-agent it is. :class:`Catalog` gathers all of them before any meta is made.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from attrs import define, field

from chatparse.adapter import as_text, as_time, dig, new_meta, title_from
from chatparse.adapters.cursor.fingerprints import (
    composer_digest,
    document_digest,
    fingerprint,
    value_digest,
)
from chatparse.adapters.cursor.store import (
    BUBBLES,
    COMPOSER,
    INLINE,
    LEGACY,
    SUBAGENT_PREFIX,
    Kind,
    identifier_project,
    loads,
)
from chatparse.decoders.sqlite import KeyRun
from chatparse.model import ConversationMeta


@define
class Stat:
    """What a conversation's meta says of the database file holding it."""

    size: int | None
    mtime: datetime | None


def stat(path: Path) -> Stat:
    """The size and modification time of the file at ``path``, unknown when it cannot be read."""
    try:
        info = path.stat()
    except OSError:
        return Stat(None, None)
    return Stat(info.st_size, datetime.fromtimestamp(info.st_mtime, UTC))


@define
class _Found:
    """What the scan learned about one composer, from every place that mentions it."""

    id: str
    name: str | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None
    project: str | None = None
    head_project: str | None = None
    head_name: str | None = None
    document: tuple[Path, Stat] | None = None
    document_digest: str = ""
    inline: tuple[Path, Stat, str] | None = None
    bubble_db: tuple[Path, Stat] | None = None
    bubbles: KeyRun | None = None
    listed_by_workspace: bool = False


@define
class Catalog:
    """Every composer and tab a scan found, merged into one meta per conversation."""

    source: str
    found: dict[str, _Found] = field(factory=dict)
    tabs: list[ConversationMeta] = field(factory=list)
    parents: dict[str, str] = field(factory=dict)
    global_unavailable: Path | None = None

    def composer(self, composer_id: str) -> _Found:
        """What was found of ``composer_id`` so far, made empty at its first mention."""
        if composer_id not in self.found:
            self.found[composer_id] = _Found(composer_id)
        return self.found[composer_id]

    def add_workspace_entry(
        self, entry: dict[str, Any], db: Path, st: Stat, project: str | None
    ) -> None:
        """A head or inline ``allComposers`` entry; the first workspace listing it names it."""
        found = self.composer(entry["composerId"])
        if not found.listed_by_workspace:
            found.listed_by_workspace = True
            found.head_project = project
            found.head_name = title_from(as_text(entry.get("name")))
            found.created_at = found.created_at or as_time(entry.get("createdAt"), "ms")
            found.updated_at = found.updated_at or as_time(entry.get("lastUpdatedAt"), "ms")
        if isinstance(entry.get("conversation"), list) and found.inline is None:
            found.inline = (db, st, value_digest(entry))

    def add_document(
        self, composer_id: str, rowid: int, stored: object, db: Path, st: Stat
    ) -> None:
        """A ``composerData`` row: its times, name, project and parent, and its digest.

        ``stored`` is the value as read raw (:data:`~chatparse.decoders.sqlite.RawRow`).
        """
        found = self.composer(composer_id)
        found.document = (db, st)
        found.document_digest = document_digest(rowid, stored)
        ok, document = loads(stored) if type(stored) is bytes else (False, None)
        if not ok or not isinstance(document, dict):
            return
        found.name = title_from(as_text(document.get("name")))
        found.created_at = as_time(document.get("createdAt"), "ms") or found.created_at
        found.updated_at = as_time(document.get("lastUpdatedAt"), "ms") or found.updated_at
        found.project = identifier_project(document.get("workspaceIdentifier"))
        parent = dig(document, "subagentInfo", "parentComposerId")
        if isinstance(parent, str) and parent and parent != composer_id:
            self.parents[composer_id] = parent

    def add_bubbles(self, bubbles: KeyRun, db: Path, st: Stat) -> None:
        """The bubble rows of one composer, counted (their values are read by parse)."""
        found = self.composer(bubbles.name)
        found.bubble_db = (db, st)
        if found.bubbles is not None:  # names that differ only in invalid UTF-8 decode alike
            bubbles = KeyRun(
                bubbles.name,
                found.bubbles.rows + bubbles.rows,
                max(found.bubbles.max_rowid, bubbles.max_rowid),
                found.bubbles.rowid_sum + bubbles.rowid_sum,
            )
        found.bubbles = bubbles

    def unparented_tasks(self) -> list[str]:
        """Sub-agent composers (``task-<toolCallId>``) whose document names no parent."""
        return sorted(
            composer_id
            for composer_id, found in self.found.items()
            if composer_id.startswith(SUBAGENT_PREFIX)
            and composer_id not in self.parents
            and found.document is not None
        )

    def add_tab(
        self, tab: dict[str, Any], key: str, db: Path, st: Stat, project: str | None
    ) -> None:
        """A tab of the legacy chat pane, listed when it has bubbles."""
        bubbles = tab.get("bubbles")
        if not isinstance(bubbles, list) or not bubbles:
            return
        self.tabs.append(
            new_meta(
                source=self.source,
                id=tab["tabId"],
                path=str(db),
                fingerprint=fingerprint(value_digest(tab)),
                size=st.size,
                mtime=st.mtime,
                title=title_from(as_text(tab.get("chatTitle"))),
                project_path=project,
                updated_at=as_time(tab.get("lastSendTime"), "ms"),
                locator={"kind": LEGACY, "key": key},
            )
        )

    def metas(self) -> list[ConversationMeta]:
        """One meta per top-level conversation; sub-agents ride in their root's locator."""
        readable = {cid for cid, found in self.found.items() if self._content(found) is not None}
        roots: dict[str, list[tuple[str, str]]] = {}
        for child in sorted(readable):
            root = self._root(child, readable)
            if root != child:
                roots.setdefault(root, []).append((self.parents[child], child))
        nested = {child for pairs in roots.values() for _, child in pairs}
        composers = sorted(readable - nested)
        return [*self.tabs, *(self._meta(self.found[c], roots.get(c, [])) for c in composers)]

    def _root(self, composer_id: str, readable: set[str]) -> str:
        """The top of ``composer_id``'s chain of parents; itself when the chain breaks or loops."""
        chain = [composer_id]
        while chain[-1] in self.parents and self.parents[chain[-1]] in readable:
            parent = self.parents[chain[-1]]
            if parent in chain:
                return composer_id
            chain.append(parent)
        return chain[-1]

    def _content(self, found: _Found) -> tuple[Kind, Path, Stat] | None:
        """Where a composer's content is: a document wins over an inline entry over bare rows."""
        if found.document is not None:
            return COMPOSER, *found.document
        if found.inline is not None:
            return INLINE, found.inline[0], found.inline[1]
        if found.bubble_db is not None:
            return BUBBLES, *found.bubble_db
        if found.listed_by_workspace and self.global_unavailable is not None:
            # A head whose store could not be read: listed, so that its parse says why.
            return COMPOSER, self.global_unavailable, stat(self.global_unavailable)
        return None

    def _digest_of(self, found: _Found) -> str:
        content = self._content(found)
        kind = content[0] if content is not None else COMPOSER
        if kind == INLINE and found.inline is not None:
            return found.inline[2]
        return composer_digest(found.document_digest, found.bubbles)

    def _meta(self, found: _Found, family: list[tuple[str, str]]) -> ConversationMeta:
        content = self._content(found)
        assert content is not None  # noqa: S101 -- metas() lists readable composers only
        kind, db, st = content
        digests = [self._digest_of(found)]
        digests += [f"{child}={self._digest_of(self.found[child])}" for _, child in family]
        locator: dict[str, str] = {"kind": kind}
        if family:
            locator["subagents"] = " ".join(f"{parent}/{child}" for parent, child in family)
        return new_meta(
            source=self.source,
            id=found.id,
            path=str(db),
            fingerprint=fingerprint(*digests, found.head_name or "", found.head_project or ""),
            size=st.size,
            mtime=st.mtime,
            title=found.name or found.head_name,
            project_path=found.head_project or found.project,
            created_at=found.created_at,
            updated_at=found.updated_at,
            locator=locator,
        )
