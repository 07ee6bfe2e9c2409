"""The Trae adapter: where it looks, what it lists, and how it parses (see the package)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Final

from chatparse.adapter import is_file, passed_over
from chatparse.adapters._vscode import WORKSPACE_DB, existing_user_dirs, workspace_dirs
from chatparse.adapters.trae.block import ParsingBlock, stamp_of
from chatparse.adapters.trae.history import input_history
from chatparse.adapters.trae.parsed import conversation, read_store
from chatparse.adapters.trae.scanning import Found, choose, scan_db
from chatparse.adapters.trae.stores import (
    LEGACY_PREFIXES,
    STORE_KEY,
    TABLE,
    Notes,
    as_is,
    iter_sessions,
)
from chatparse.decoders.sqlite import open_snapshot
from chatparse.errors import SourceUnavailableError
from chatparse.host import Host
from chatparse.model import ConversationMeta, ParsedConversation, SourceInfo

__all__ = ["ENCRYPTED_DB", "PRODUCTS", "TraeAdapter"]

PRODUCTS: Final = ("Trae", "Trae CN", "TRAE SOLO CN")
ENCRYPTED_DB: Final = Path("ModularData") / "ai-agent" / "database.db"
"""Relative to the product folder (the parent of ``User``)."""


class TraeAdapter:
    """Reads the agent chat sessions of Trae, Trae CN and TRAE SOLO CN.

    Every session of a workspace database is in one store value. Within a :meth:`parsing`
    block, ``scan`` parses each session as it decodes it, and the block keeps the parsed
    sessions of recently read databases for its parse function, so that parsing every session
    ``scan`` listed reads each store value once in all, unless the database changes in
    between. Outside a block nothing is kept: each ``parse`` reads its database again.

    .. versionadded:: 0.1
    """

    name = "trae"
    display_name = "Trae"
    parser_version = "2"
    scan_reads_content: Final = (
        "workspaceStorage/*/state.vscdb",
        "workspaceStorage/*/workspace.json",
    )
    """``scan`` must read each workspace database: the sessions are inside one value of it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._blocks: dict[int, list[ParsingBlock]] = {}
        """The :meth:`parsing` blocks open now, by the thread that opened them (no entry when
        none is open): a scan in one parses for the block's parse function."""

    def detect(self, host: Host) -> SourceInfo | None:
        """Find the ``User`` directories that have at least one workspace database (stat only)."""
        roots = tuple(
            str(user) for user in existing_user_dirs(host, PRODUCTS) if _workspace_dbs(user)
        )
        if not roots:
            return None
        return SourceInfo(source=self.name, display_name=self.display_name, roots=roots)

    def explain(self, host: Host) -> Iterator[str]:
        """Where the adapter looks on ``host`` and what it found there, for ``chatparse doctor``."""
        for product in PRODUCTS:
            user = host.vscode_user_dir(product)
            if not user.is_dir():
                yield f"{product}: {user} missing"
            else:
                databases = _workspace_dbs(user)
                yield f"{product}: {user} has {len(databases)} workspace database(s)"
                for db in databases:
                    yield from _explain_db(db)
            encrypted = user.parent / ENCRYPTED_DB
            if encrypted.is_file():
                yield (
                    f"{encrypted} exists but is not read: newer Trae builds keep their sessions "
                    "there, encrypted; only what the workspace databases still hold can be read"
                )

    def scan(self, source: SourceInfo) -> Iterator[ConversationMeta]:
        """List every session once: each workspace database is opened once and streamed.

        A session stored in several workspace databases (or twice in one) is listed once: the copy
        with the most messages wins, then the most recently updated, then the first found.
        """
        databases = [db for root in map(Path, source.roots) for db in _workspace_dbs(root)]
        block = self._block_here()
        found = (session for db in databases for session in self._scan_db(db, block))
        yield from choose(self.name, found)

    def sniff(self, path: Path) -> float:
        """How sure we are that ``path`` is a Trae workspace database: it holds Trae's store."""
        if not path.is_file():
            return 0.0
        try:
            with open_snapshot(path) as snapshot:
                if TABLE not in snapshot.tables():
                    return 0.0
                if snapshot.get(TABLE, STORE_KEY) is not None:
                    return 0.95
                legacy = any(
                    next(snapshot.iter_prefix(TABLE, prefix, columns=("key",)), None) is not None
                    for prefix in LEGACY_PREFIXES
                )
        except SourceUnavailableError:
            return 0.0
        return 0.8 if legacy else 0.0

    def scan_path(self, path: Path) -> Iterator[ConversationMeta]:
        """The sessions of one workspace database, as ``scan`` lists them."""
        yield from choose(self.name, self._scan_db(path, self._block_here(), strict=True))

    def parse(self, meta: ConversationMeta) -> ParsedConversation:
        """Parse one session from the database named in its locator, read for it alone."""
        return conversation(self, meta, read_store(meta.locator.get("db", meta.path), meta.id))

    @contextmanager
    def parsing(self) -> Iterator[Callable[[ConversationMeta], ParsedConversation]]:
        """:meth:`parse`, for a ``with`` block in which scan parses each session as it decodes it.

        :func:`chatparse.iter_conversations` scans inside the block, then parses every session
        listed. A session parsed right after it is decoded is read while its objects are still
        in the CPU's caches, and let go at once, so the decoded sessions never pile up (which
        the garbage collector would walk again and again). The parsed sessions wait in the
        block for its parse function; when the block ends, the block lets go of them.
        """
        block = ParsingBlock(self)
        thread = threading.get_ident()
        with self._lock:
            self._blocks.setdefault(thread, []).append(block)
        try:
            yield block.parse
        finally:
            # Possibly in another thread: a generator left open is closed where it is collected.
            with self._lock:
                open_there = self._blocks[thread]
                open_there.remove(block)
                if not open_there:
                    del self._blocks[thread]
            block.close()

    def _block_here(self) -> ParsingBlock | None:
        """The latest :meth:`parsing` block this thread opened that is still open, if any."""
        with self._lock:
            open_here = self._blocks.get(threading.get_ident())
            return open_here[-1] if open_here else None

    def _scan_db(
        self, db: Path, block: ParsingBlock | None, *, strict: bool = False
    ) -> list[Found]:
        """The sessions of one workspace database; an unreadable one is passed over with a warning.

        With ``strict``, an unreadable database raises instead: it was asked for by name.
        """
        try:
            if block is None:
                return scan_db(db, parse=False).found
            stamp = stamp_of(db)  # before reading: a change made meanwhile makes the store stale
            scanned = scan_db(db, parse=True)
        except SourceUnavailableError as exc:
            if strict:
                raise
            passed_over(db, exc.reason)
            return []
        if scanned.store is not None:
            block.keep(str(db), stamp, scanned.store)
        return scanned.found


def _workspace_dbs(user_dir: Path) -> list[Path]:
    """Every ``workspaceStorage/<id>/state.vscdb`` under ``user_dir``, sorted by workspace id."""
    return [
        folder / WORKSPACE_DB
        for folder in workspace_dirs(user_dir)
        if is_file(folder / WORKSPACE_DB)
    ]


def _explain_db(db: Path) -> Iterator[str]:
    """What ``doctor`` should know about one workspace database: its damage and its leftovers."""
    notes = Notes()
    try:
        with open_snapshot(db) as snapshot:
            count = sum(1 for _ in iter_sessions(snapshot, notes, as_is))
            input_history(snapshot, notes)
    except SourceUnavailableError as exc:
        yield f"{db}: cannot be read ({exc.reason}), so its sessions are not listed"
        return
    if notes.problems or notes.remarks:
        yield f"{db}: {count} session(s)"
        yield from (f"  {line}" for line in (*notes.problems, *notes.remarks))
