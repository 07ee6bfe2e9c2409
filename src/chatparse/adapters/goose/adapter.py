"""The Goose adapter: where it looks (detect, explain), what it lists, how it reads."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Final

from chatparse.adapter import is_dir, is_file, read_head, require_file
from chatparse.adapters.goose.catalog import (
    JSONL,
    Lineage,
    database_metas,
    legacy_meta,
)
from chatparse.adapters.goose.conversation import (
    read_database_conversation,
    read_legacy_conversation,
)
from chatparse.adapters.goose.locate import (
    DATABASE,
    ROOT_ENV,
    SESSIONS,
    data_dir,
    legacy_files,
    sessions_dir,
)
from chatparse.adapters.goose.store import Store
from chatparse.adapters.goose.stores import OpenStores, describe, read_store, session_gone
from chatparse.decoders.sqlite import Snapshot
from chatparse.host import Host
from chatparse.model import ConversationMeta, ParsedConversation, SourceInfo

__all__ = ["GooseAdapter"]

_SQLITE_HEADER: Final = b"SQLite format 3\x00"
_HEAD_BYTES: Final = 8192
_NOT_GOOSE: Final = "not a Goose sessions database (no sessions and messages tables)"


class GooseAdapter:
    """Reads Goose's ``sessions.db`` and its older ``.jsonl`` session files.

    .. versionadded:: 0.3
    """

    name = "goose"
    display_name = "Goose"
    parser_version = "1"
    scan_reads_content: Final = ("*/sessions.db",)
    """``scan`` reads the ``sessions`` table of ``sessions.db`` (and each session's message
    rowids, for its change key); session files are listed by name and stat only."""

    def detect(self, host: Host) -> SourceInfo | None:
        """Goose's ``sessions`` folder, when it holds a database or a session file."""
        folder = sessions_dir(host)
        if not is_dir(folder) or not (is_file(folder / DATABASE) or legacy_files(folder)):
            return None
        return SourceInfo(source=self.name, display_name=self.display_name, roots=(str(folder),))

    def scan(self, source: SourceInfo) -> Iterator[ConversationMeta]:
        """The database's conversations, then the session files it does not hold."""
        seen: set[str] = set()
        for folder in map(Path, source.roots):
            db = folder / DATABASE
            if is_file(db):
                for meta in _database_metas(self.name, db):
                    seen.add(meta.id)
                    yield meta
            for path in legacy_files(folder):
                legacy = legacy_meta(self.name, path)
                if legacy is not None and legacy.id not in seen:
                    seen.add(legacy.id)
                    yield legacy

    @contextmanager
    def parsing(self) -> Iterator[Callable[[ConversationMeta], ParsedConversation]]:
        """A parse function that opens each database once for the whole block."""
        databases = OpenStores(_opened)

        def parse(meta: ConversationMeta) -> ParsedConversation:
            if meta.locator.get("store") == JSONL:
                require_file(meta.path, "session file")
                return read_legacy_conversation(self, meta)
            store, lineage = databases[meta.path]
            if meta.id not in lineage.rows:
                raise session_gone(meta.path, meta.id)
            return read_database_conversation(self, meta, store, lineage, meta.id)

        with databases:
            yield parse

    def parse(self, meta: ConversationMeta) -> ParsedConversation:
        """Parse one conversation (its database opened for this call alone)."""
        with self.parsing() as parse:
            return parse(meta)

    # Optional protocols: PathSniffer (sniff, scan_path) and Explainer (explain).

    def sniff(self, path: Path) -> float:
        """Sure of a ``sessions.db`` with Goose's tables; less of a session file."""
        if not is_file(path):
            return 0.0
        head = read_head(path, _HEAD_BYTES)
        if head.startswith(_SQLITE_HEADER):
            goose = b"content_json" in head and b"created_timestamp" in head
            return (0.9 if path.parent.name == SESSIONS else 0.7) if goose else 0.0
        if path.suffix == ".jsonl" and b'"working_dir"' in head.split(b"\n", 1)[0]:
            return 0.8 if path.parent.name == SESSIONS else 0.6
        return 0.0

    def scan_path(self, path: Path) -> Iterator[ConversationMeta]:
        """The conversations of a ``sessions.db``, or the one in a session file."""
        if read_head(path, _HEAD_BYTES).startswith(_SQLITE_HEADER):
            yield from _database_metas(self.name, path)
            return
        meta = legacy_meta(self.name, path)
        if meta is not None:
            yield meta

    def explain(self, host: Host) -> Iterator[str]:
        """Where Goose's sessions are looked for on ``host``, for ``chatparse doctor``."""
        root = host.getenv(ROOT_ENV)
        if root:
            yield f"{ROOT_ENV} is set: {root} (so the data folder is {data_dir(host)})"
        else:
            yield f"{ROOT_ENV} is not set: using the data folder {data_dir(host)}"
        folder = sessions_dir(host)
        db = folder / DATABASE
        yield f"{db}: {describe(db, Store, _NOT_GOOSE)}"
        yield f"{folder}: {len(legacy_files(folder))} legacy session file(s) (.jsonl)"


def _opened(snapshot: Snapshot) -> tuple[Store, Lineage]:
    store = Store(snapshot)
    return store, Lineage.of(store.sessions())


def _database_metas(source: str, db: Path) -> list[ConversationMeta]:
    def metas(store: Store) -> list[ConversationMeta]:
        return list(database_metas(source, db, store, Lineage.of(store.sessions())))

    return read_store(db, Store, metas, _NOT_GOOSE) or []
