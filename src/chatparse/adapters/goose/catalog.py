"""What a scan lists, and how sessions become conversations.

Every session of ``sessions.db`` is a conversation, except a session whose
``parent_session_id`` names another session of the database: it is read as a sub-agent of that
one. A legacy ``.jsonl`` file is a conversation unless the database holds its session (Goose
imported the files into the database when it created it): the database's copy wins.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from attrs import frozen

from chatparse.adapter import (
    as_nonempty_text,
    digest_fingerprint,
    file_meta,
    new_meta,
)
from chatparse.adapters.goose.session import session_time
from chatparse.adapters.goose.store import Store, session_stamp
from chatparse.adapters.goose.stores import file_facts
from chatparse.model import ConversationMeta

__all__ = ["JSONL", "SQLITE", "Lineage", "child_meta", "database_metas", "legacy_meta"]

SQLITE = "sqlite"
JSONL = "jsonl"


@frozen
class Lineage:
    """The sessions of one database, and which are sub-agents of which."""

    rows: dict[str, dict[str, Any]]
    children: dict[str, list[str]]

    @classmethod
    def of(cls, rows: list[dict[str, Any]]) -> Lineage:
        """The lineage of these session rows."""
        by_id = {str(row["id"]): row for row in rows if row.get("id") is not None}
        children: dict[str, list[str]] = {}
        for ident, row in by_id.items():
            parent = as_nonempty_text(row.get("parent_session_id"))
            if parent is not None and parent in by_id and parent != ident:
                children.setdefault(parent, []).append(ident)
        return cls(rows=by_id, children=children)

    def roots(self) -> list[str]:
        """The sessions no other session of the database started, and those in a cycle."""
        reached = {child for kids in self.children.values() for child in kids}
        roots = [ident for ident in self.rows if ident not in reached]
        for ident in self.rows:  # a cycle of parents has no root: its first session is one
            if ident not in roots and ident not in self.below(roots):
                roots.append(ident)
        return roots

    def below(self, starts: list[str]) -> list[str]:
        """Every session reached from ``starts`` through their sub-agents (each once)."""
        found: list[str] = []
        waiting = list(starts)
        while waiting:
            ident = waiting.pop(0)
            if ident not in found:
                found.append(ident)
                waiting += self.children.get(ident, [])
        return found


def database_metas(
    source: str, db: Path, store: Store, lineage: Lineage
) -> Iterator[ConversationMeta]:
    """One meta per conversation of the database; its change key from its own rows only."""
    size, mtime = file_facts(db)
    for root in lineage.roots():
        row = lineage.rows[root]
        sessions = lineage.below([root])
        stamps = [session_stamp(lineage.rows[i]) + store.message_stamp(i) for i in sessions]
        yield new_meta(
            source=source,
            id=root,
            path=str(db),
            fingerprint=digest_fingerprint(*stamps),
            size=size,
            mtime=mtime,
            title=as_nonempty_text(row.get("name")) or as_nonempty_text(row.get("description")),
            project_path=as_nonempty_text(row.get("working_dir")),
            created_at=session_time(row.get("created_at")),
            updated_at=session_time(row.get("updated_at")),
            locator=_locator(row),
        )


def _locator(row: dict[str, Any]) -> dict[str, str]:
    kind = as_nonempty_text(row.get("session_type"))
    return {"store": SQLITE, "session_type": kind} if kind else {"store": SQLITE}


def legacy_meta(source: str, path: Path) -> ConversationMeta | None:
    """The meta of a legacy session file, by stat; ``None`` when it is gone."""
    try:
        info = path.stat()
    except OSError:
        return None
    return file_meta(source, path.stem, path, info, locator={"store": JSONL})


def child_meta(meta: ConversationMeta, ident: str, **locator: str) -> ConversationMeta:
    """A sub-agent's meta: its parent's store and change key, its own id and ``locator``."""
    return ConversationMeta(
        source=meta.source,
        id=ident,
        path=meta.path,
        fingerprint=meta.fingerprint,
        size=meta.size,
        mtime=meta.mtime,
        project_path=meta.project_path,
        locator={**locator, "parent": meta.id},
    )
