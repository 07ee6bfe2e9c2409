"""What a scan lists.

One meta per conversation of a home's ``state.db``, and one per transcript file whose session
the database does not hold.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from attrs import evolve

from chatparse.adapter import (
    as_epoch,
    as_nonempty_text,
    digest_fingerprint,
    file_meta,
    new_meta,
    passed_over,
)
from chatparse.adapters.hermes.lineage import Lineage
from chatparse.adapters.hermes.locate import STATE_DB, Transcript, transcripts
from chatparse.adapters.hermes.store import Store, session_stamp
from chatparse.decoders.sqlite import open_snapshot
from chatparse.errors import SourceUnavailableError
from chatparse.model import ConversationMeta

__all__ = ["database_metas", "home_metas", "transcript_meta"]


def _stat(path: Path) -> os.stat_result | None:
    try:
        return path.stat()
    except OSError:
        return None


def _reached(lineage: Lineage, root: str) -> list[str]:
    """Every session read into ``root``'s conversation: its chain, its sub-agents' chains."""
    found: list[str] = []
    waiting = [root]
    while waiting:
        chain = [i for i in lineage.chain(waiting.pop(0)) if i not in found]
        found += chain
        waiting += [s for s in lineage.subagents(chain) if s not in found]
    return found


def database_metas(source: str, db: Path, lineage: Lineage) -> Iterator[ConversationMeta]:
    """One meta per conversation in the database, its fingerprint its own sessions' rows."""
    info = _stat(db)
    for root in lineage.roots():
        row: dict[str, Any] = lineage.rows[root]
        sessions = _reached(lineage, root)
        chain = lineage.chain(root)
        locator = {"sessions": "\n".join(chain), **lineage.related(root)}
        if as_nonempty_text(row.get("source")):
            locator["source"] = str(row["source"])
        ended = [as_epoch(lineage.rows[i].get("ended_at"), "s") for i in chain]
        yield new_meta(
            source=source,
            id=root,
            path=str(db),
            fingerprint=digest_fingerprint(*(session_stamp(lineage.rows[i]) for i in sessions)),
            size=info.st_size if info is not None else None,
            mtime=datetime.fromtimestamp(info.st_mtime, UTC) if info is not None else None,
            title=as_nonempty_text(row.get("title")),
            project_path=as_nonempty_text(row.get("cwd")),
            created_at=as_epoch(row.get("started_at"), "s"),
            updated_at=max((e for e in ended if e is not None), default=None),
            locator=locator,
        )


def transcript_meta(source: str, transcript: Transcript) -> ConversationMeta | None:
    """The meta of a transcript file, by stat; ``None`` when it is gone."""
    info = _stat(transcript.path)
    if info is None:
        return None
    return file_meta(
        source, transcript.session_id, transcript.path, info, locator={"format": transcript.shape}
    )


def _read_lineage(db: Path) -> Lineage | None:
    try:
        with open_snapshot(db) as snapshot:
            store = Store(snapshot)
            if not store.readable:
                passed_over(db, "not a Hermes state database (no sessions and messages tables)")
                return None
            return Lineage.of(store.sessions())
    except SourceUnavailableError as exc:
        passed_over(db, str(exc))
        return None


def _kept(rows: dict[str, dict[str, Any]], ident: str) -> bool:
    """Whether the database holds the messages of a session a transcript also holds.

    It does unless its row says it has none (``message_count`` 0): a pruned or emptied row
    leaves the transcript as the only copy.
    """
    row = rows.get(ident)
    return row is not None and row.get("message_count") != 0


def _newest(copies: list[Transcript]) -> Transcript:
    """Of a gateway log and a snapshot of one session, the one modified last; a tie: the log."""

    def key(t: Transcript) -> tuple[float, bool]:
        info = _stat(t.path)
        return (info.st_mtime if info is not None else 0.0, t.shape == "jsonl")

    return max(copies, key=key)


def home_metas(source: str, home: Path) -> Iterator[ConversationMeta]:
    """Every conversation of one Hermes home: the database's, then the transcripts' own."""
    db = home / STATE_DB
    lineage = _read_lineage(db) if db.is_file() else None
    rows = lineage.rows if lineage is not None else {}
    by_id: dict[str, list[Transcript]] = {}
    for transcript in transcripts(home):
        by_id.setdefault(transcript.session_id, []).append(transcript)
    if lineage is not None:
        for found in database_metas(source, db, lineage):
            copies = by_id.get(found.id, [])
            if not copies:
                yield found
            elif _kept(rows, found.id):
                superseded = "\n".join(str(t.path) for t in copies)
                yield evolve(found, locator={**found.locator, "superseded": superseded})
    for ident in sorted(by_id):
        if not _kept(rows, ident):
            listed = transcript_meta(source, _newest(by_id[ident]))
            if listed is not None:
                yield listed
