"""What ``scan`` lists: each session of a workspace database, once, without parsing it.

Within a ``parsing()`` block, scan parses each session as soon as it is decoded too, and hands
the parsed store to the block (see :class:`~.block.ParsingBlock`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from attrs import define

from chatparse.adapter import as_epoch, digest_fingerprint, new_meta
from chatparse.adapters._vscode import workspace_project_path
from chatparse.adapters.trae.history import History, inputs_of
from chatparse.adapters.trae.parsed import Store, completed
from chatparse.adapters.trae.session import Session, stored_title
from chatparse.adapters.trae.stores import Notes, RawSession, iter_sessions, messages_of
from chatparse.decoders import value as jsonvalue
from chatparse.decoders.sqlite import open_snapshot
from chatparse.model import ConversationMeta

__all__ = ["Found", "Scanned", "choose", "digest", "scan_db"]


@define
class Found:
    """One copy of a session as scan sees it."""

    session_id: str
    db: Path
    key: str
    position: int
    message_count: int
    fingerprint: str
    title: str | None
    created_at: datetime | None
    updated_at: datetime | None
    project_path: str | None

    def beats(self, other: Found) -> bool:
        """Whether this copy wins over ``other``: more messages, then updated later."""
        mine = (self.message_count, _epoch(self.updated_at))
        theirs = (other.message_count, _epoch(other.updated_at))
        return mine > theirs

    def meta(self, source: str, copies: int, file: FileInfo) -> ConversationMeta:
        """The meta of this copy, one of ``copies`` of its session, in a database of ``file``."""
        size, mtime = file
        locator = {"db": str(self.db), "key": self.key, "position": str(self.position)}
        if copies > 1:
            locator["copies"] = str(copies)
        return new_meta(
            source=source,
            id=self.session_id,
            path=str(self.db),
            fingerprint=f"{self.fingerprint}:{copies}" if copies > 1 else self.fingerprint,
            size=size,
            mtime=mtime,
            title=self.title,
            project_path=self.project_path,
            created_at=self.created_at,
            updated_at=self.updated_at,
            locator=locator,
        )


def choose(source: str, found: Iterable[Found]) -> Iterator[ConversationMeta]:
    """One meta per session id: the winning copy, grouped by database, then by id.

    Grouping by database means that parsing in this order reads each store once.
    """
    chosen: dict[str, Found] = {}
    copies: Counter[str] = Counter()
    for candidate in found:
        copies[candidate.session_id] += 1
        known = chosen.get(candidate.session_id)
        if known is None or candidate.beats(known):
            chosen[candidate.session_id] = candidate
    files: dict[Path, FileInfo] = {}  # each database's size and time, looked up once
    for winner in sorted(chosen.values(), key=lambda f: (str(f.db), f.session_id)):
        if winner.db not in files:
            files[winner.db] = _file_info(winner.db)
        yield winner.meta(source, copies[winner.session_id], files[winner.db])


FileInfo = tuple[int | None, datetime | None]
"""A database's size and modification time, each ``None`` when the file is gone."""


def _file_info(db: Path) -> FileInfo:
    try:
        info = db.stat()
    except OSError:
        return None, None
    return info.st_size, datetime.fromtimestamp(info.st_mtime, UTC)


@define
class Scanned:
    """What scan found in one workspace database."""

    found: list[Found]
    store: Store | None
    """The sessions as parsed, when scan parsed them (and none was streamed or failed)."""


@define
class _Seen:
    """One session as scan saw it while decoding: only what the meta needs is kept."""

    raw: RawSession
    message_count: int
    digest: str
    parsed: Session | None


def scan_db(db: Path, *, parse: bool) -> Scanned:
    """The sessions of one workspace database, each as scan sees it, read in one snapshot.

    With ``parse``, each session is also parsed as soon as it is decoded, and let go: see
    :meth:`~.adapter.TraeAdapter.parsing`.
    """
    notes = Notes()
    history = History()
    failed = False

    def seen(raw: RawSession) -> _Seen:
        nonlocal failed
        parsed = None
        # Not parsed when streamed: a streamed value is not kept, so parse reads it again anyway.
        if parse and not (notes.streamed or failed):
            try:
                parsed = Session.read(raw.session_id, raw.value)
            except Exception:  # noqa: BLE001 -- a parse error is parse's to report, not scan's
                failed = True  # nothing is kept: parse reads the store again and fails there
        count, digest = len(messages_of(raw.value)), _session_digest(raw)
        raw.value = {key: raw.value.get(key) for key in ("title", "name", "createdAt", "updatedAt")}
        return _Seen(raw, count, digest, parsed)

    with open_snapshot(db) as snapshot:
        pending = list(iter_sessions(snapshot, notes, seen))
        if any(one.message_count == 0 for one in pending):
            history = History.read(snapshot)
    project = workspace_project_path(db.parent)
    found = [_found(db, one, _fingerprint(one, notes, history), project) for one in pending]
    # Nothing is kept of a streamed value, nor of one a session of which failed to parse:
    # parse reads it again.
    if not parse or notes.streamed or failed:
        return Scanned(found, None)
    parsed = {(one.raw.key, one.raw.position): one.parsed for one in pending if one.parsed}
    return Scanned(found, completed(parsed, notes, history))


def _found(db: Path, one: _Seen, fingerprint: str, project: str | None) -> Found:
    raw = one.raw
    return Found(
        session_id=raw.session_id,
        db=db,
        key=raw.key,
        position=raw.position,
        message_count=one.message_count,
        fingerprint=fingerprint,
        title=stored_title(raw.value),
        created_at=as_epoch(raw.value.get("createdAt"), "ms"),
        updated_at=as_epoch(raw.value.get("updatedAt"), "ms"),
        project_path=project,
    )


def _fingerprint(one: _Seen, notes: Notes, history: History) -> str:
    """``<updatedAt>:<messages>:<digest of the session>``, and what else parse reads for it.

    That is the input-history entries given to a session stored without messages, and the
    damage of the database, which is a warning on every session of it.
    """
    raw = one.raw
    fingerprint = f"{_ms_text(raw.value.get('updatedAt'))}:{one.message_count}:{one.digest}"
    if one.message_count == 0 and history.entries:
        fingerprint += ":" + digest(*inputs_of(history, raw.session_id, notes, raw.key))
    if notes.problems or history.problems:
        fingerprint += ":" + digest([*notes.problems, *history.problems])
    return fingerprint


def _session_digest(raw: RawSession) -> str:
    """The digest of a whole session as stored: of its own bytes when the value was split.

    The same digest either way for a value written compactly, as Trae writes it: orjson writes
    a decoded session back byte for byte as it was stored.
    """
    return raw.digest or digest(raw.value)


def digest(*parts: Any) -> str:
    """The digest of decoded JSON values, such as a whole session as stored, written back."""
    return digest_fingerprint(jsonvalue.canonical_bytes(parts))


def _ms_text(value: object) -> str:
    stamp = as_epoch(value, "ms")
    return str(int(stamp.timestamp() * 1000)) if stamp is not None else "-"


def _epoch(value: datetime | None) -> float:
    return value.timestamp() if value is not None else float("-inf")
