"""The Crush adapter: where it looks (detect, explain), what it lists, how it reads."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Final

from chatparse.adapter import (
    SourceAdapter,
    as_nonempty_text,
    digest_fingerprint,
    is_dir,
    is_file,
    new_meta,
)
from chatparse.adapters.crush.conversation import TITLE_PREFIX, Database, read_conversation
from chatparse.adapters.crush.locate import GLOBAL_ENV, databases, global_dir, project_list
from chatparse.adapters.crush.store import Store, epoch
from chatparse.adapters.goose.catalog import Lineage
from chatparse.adapters.goose.stores import (
    OpenStores,
    describe,
    file_facts,
    read_store,
    session_gone,
)
from chatparse.decoders.sqlite import Snapshot
from chatparse.host import PROJECTS_VARIABLE, Host
from chatparse.model import ConversationMeta, ParsedConversation, SourceInfo

__all__ = ["CrushAdapter"]

_SQLITE_HEADER: Final = b"SQLite format 3\x00"
_HEAD_BYTES: Final = 8192
_DATA_FOLDERS: Final = frozenset({".crush", ".opencode"})
_SCHEMA_MARKS: Final = (b"goose_db_version", b"parts TEXT")
"""Crush's migrations table and its ``messages.parts`` column, in the schema at the file's head."""
_NOT_CRUSH: Final = "not a Crush or OpenCode-Go database (no sessions and messages tables)"


class CrushAdapter:
    """Reads the per-project databases of Crush and of OpenCode-Go, its predecessor.

    .. versionadded:: 0.3
    """

    name = "crush"
    display_name = "Crush"
    parser_version = "1"
    scan_reads_content: Final = ("*/crush.db", "*/opencode.db")
    """``scan`` reads each database's ``sessions`` table (and its message rows' times, for each
    conversation's change key)."""

    def detect(self, host: Host) -> SourceInfo | None:
        """The databases of every project found (see :mod:`~chatparse.adapters.crush.locate`)."""
        found = databases(host)
        if not found:
            return None
        roots = tuple(str(db) for db in found)
        return SourceInfo(source=self.name, display_name=self.display_name, roots=roots)

    def scan(self, source: SourceInfo) -> Iterator[ConversationMeta]:
        """Every session that is not a sub-agent's or a title's; of one id, the first copy."""
        seen: set[str] = set()
        for root in source.roots:
            for meta in _metas(self.name, Path(root)):
                if meta.id not in seen:
                    seen.add(meta.id)
                    yield meta

    @contextmanager
    def parsing(self) -> Iterator[Callable[[ConversationMeta], ParsedConversation]]:
        """A parse function that opens each database once for the whole block."""
        databases = OpenStores(lambda snapshot: _database(self, snapshot))

        def parse(meta: ConversationMeta) -> ParsedConversation:
            db = databases[meta.path]
            if meta.id not in db.lineage.rows:
                raise session_gone(meta.path, meta.id)
            return read_conversation(db, meta, meta.id)

        with databases:
            yield parse

    def parse(self, meta: ConversationMeta) -> ParsedConversation:
        """Parse one conversation (its database opened for this call alone)."""
        with self.parsing() as parse:
            return parse(meta)

    # Optional protocols: PathSniffer (sniff, scan_path) and Explainer (explain).

    def sniff(self, path: Path) -> float:
        """Sure of a database with Crush's schema, the more so in ``.crush`` or ``.opencode``.

        The schema decides, not the name: sst OpenCode also writes ``opencode.db`` files, with
        other tables.
        """
        try:
            with path.open("rb") as stream:
                head = stream.read(_HEAD_BYTES)
        except OSError:
            return 0.0
        if not head.startswith(_SQLITE_HEADER) or not all(m in head for m in _SCHEMA_MARKS):
            return 0.0
        return 0.95 if path.parent.name in _DATA_FOLDERS else 0.8

    def scan_path(self, path: Path) -> Iterator[ConversationMeta]:
        """The conversations of one database."""
        yield from _metas(self.name, path)

    def explain(self, host: Host) -> Iterator[str]:
        """Where the project databases are looked for on ``host``, for ``chatparse doctor``."""
        configured = host.getenv(GLOBAL_ENV)
        folder = global_dir(host)
        yield f"{GLOBAL_ENV} is {'set' if configured else 'not set'}: project list in {folder}"
        listed = project_list(host)
        yield f"{len(listed)} project(s) in Crush's projects.json"
        value = host.getenv(PROJECTS_VARIABLE)
        yield f"{PROJECTS_VARIABLE} is set: {value}" if value else f"{PROJECTS_VARIABLE} is not set"
        named = host.project_folders()
        if not listed and not named:
            yield (
                "no project folders are known, so only the home is looked in: name the folders"
                f" Crush or OpenCode-Go ran in, or folders holding them, in {PROJECTS_VARIABLE}"
                " (absolute paths separated like PATH)"
            )
        for path in named:
            yield f"{path}: {_named_state(path)}"
        found = databases(host)
        if not found:
            yield "no Crush or OpenCode-Go database found"
        for db in found:
            yield f"{db}: {describe(db, Store, _NOT_CRUSH)}"


def _named_state(path: Path) -> str:
    """What a path named in ``$CHATPARSE_PROJECTS`` is to this adapter, for ``explain``."""
    if is_file(path):
        return "a database file"
    return "looked in, and the folders directly inside it" if is_dir(path) else "missing"


def _database(adapter: SourceAdapter, snapshot: Snapshot) -> Database:
    store = Store(snapshot)
    return Database(adapter, store, Lineage.of(store.sessions()))


def _project_of(db: Path) -> str | None:
    return str(db.parent.parent) if db.parent.name in _DATA_FOLDERS else None


def _metas(source: str, db: Path) -> list[ConversationMeta]:
    def metas(store: Store) -> list[ConversationMeta]:
        return list(_database_metas(source, db, store))

    return read_store(db, Store, metas, _NOT_CRUSH) or []


def _database_metas(source: str, db: Path, store: Store) -> Iterator[ConversationMeta]:
    size, mtime = file_facts(db)
    lineage = Lineage.of(store.sessions())
    for root in lineage.roots():
        if root.startswith(TITLE_PREFIX):
            continue
        row = lineage.rows[root]
        stamps = [
            repr(sorted(lineage.rows[i].items())) + store.stamp(i) for i in lineage.below([root])
        ]
        yield new_meta(
            source=source,
            id=root,
            path=str(db),
            fingerprint=digest_fingerprint(*stamps),
            size=size,
            mtime=mtime,
            title=as_nonempty_text(row.get("title")),
            project_path=_project_of(db),
            created_at=epoch(row.get("created_at")),
            updated_at=epoch(row.get("updated_at")),
        )
