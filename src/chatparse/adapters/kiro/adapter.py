"""The Kiro adapter: where it looks (detect, explain), what it lists (scan), how it reads."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Final

from chatparse.adapter import explain_variable, is_dir, is_file, read_head
from chatparse.adapters.kiro.catalog import (
    DATABASE_LAYOUT,
    database_metas,
    root_metas,
    session_meta,
)
from chatparse.adapters.kiro.conversation import read_conversation
from chatparse.adapters.kiro.locate import (
    CLI_SESSIONS,
    DATA_FOLDERS,
    DATABASE,
    HOME_ENV,
    SESSION_FILE,
    SESSION_MESSAGES,
    Found,
    databases,
    has_files,
    ide_storage,
    kiro_home,
)
from chatparse.decoders.sqlite import Snapshot, open_snapshot
from chatparse.errors import SourceUnavailableError
from chatparse.host import Host
from chatparse.model import ConversationMeta, ParsedConversation, SourceInfo

__all__ = ["KiroAdapter"]

OPEN_DATABASES: Final = 2
"""The most databases ``parsing()`` keeps open at once (Kiro CLI's and Amazon Q's)."""
_SQLITE_HEADER: Final = b"SQLite format 3\x00"
_SESSION_PREFIX: Final = "sess_"


def _found(path: Path) -> Found | None:
    """The session of the file stores ``path`` is one of the files of; ``None`` when none."""
    parent = path.parent
    if parent.name == CLI_SESSIONS and path.suffix in (".json", ".jsonl"):
        return Found(path.stem, path.with_suffix(".jsonl"), "cli")
    if parent.name.startswith(_SESSION_PREFIX) and path.name in (SESSION_FILE, SESSION_MESSAGES):
        return Found(
            parent.name.removeprefix(_SESSION_PREFIX), parent / SESSION_MESSAGES, "workspace"
        )
    if parent.parent.name == "workspace-sessions" and path.suffix == ".json":
        return Found(path.stem, path, "ide") if path.name != "sessions.json" else None
    return None


class KiroAdapter:
    """Reads Kiro CLI's databases and session files, and Kiro IDE's session files.

    .. versionadded:: 0.2
    """

    name = "kiro"
    display_name = "Kiro"
    parser_version = "1"
    scan_reads_content: Final = ("*/data.sqlite3",)
    """``scan`` reads the conversation rows of each CLI database (every conversation is one);
    session files are listed by name and stat only."""

    def detect(self, host: Host) -> SourceInfo | None:
        """The file-store folders and the CLI databases that exist."""
        roots = [*has_files(host), *(db for db in databases(host) if is_file(db))]
        if not roots:
            return None
        return SourceInfo(
            source=self.name, display_name=self.display_name, roots=tuple(map(str, roots))
        )

    def scan(self, source: SourceInfo) -> Iterator[ConversationMeta]:
        """Every conversation once: of an id in two stores, the first store's copy."""
        seen: set[str] = set()
        for root in map(Path, source.roots):
            if root.name == DATABASE:
                metas = database_metas(self.name, root)
            elif root.name == "sessions":
                metas = root_metas(self.name, root, None)
            else:
                metas = root_metas(self.name, None, root)
            for meta in metas:
                if meta.id not in seen:
                    seen.add(meta.id)
                    yield meta

    @contextmanager
    def parsing(self) -> Iterator[Callable[[ConversationMeta], ParsedConversation]]:
        """A parse function that opens each CLI database once for the whole block."""
        opened: OrderedDict[str, Snapshot] = OrderedDict()

        def parse(meta: ConversationMeta) -> ParsedConversation:
            if meta.locator.get("layout") != DATABASE_LAYOUT:
                return read_conversation(self, meta)
            if meta.path in opened:
                opened.move_to_end(meta.path)
            else:
                opened[meta.path] = open_snapshot(meta.path)
                if len(opened) > OPEN_DATABASES:
                    opened.popitem(last=False)[1].close()
            return read_conversation(self, meta, opened[meta.path])

        try:
            yield parse
        finally:
            for snapshot in opened.values():
                snapshot.close()

    def parse(self, meta: ConversationMeta) -> ParsedConversation:
        """Parse one conversation (a database opened for this call alone)."""
        return read_conversation(self, meta)

    # Optional protocols: PathSniffer (sniff, scan_path) and Explainer (explain).

    def sniff(self, path: Path) -> float:
        """Sure of a CLI database or a session file in its usual place; less elsewhere."""
        if not is_file(path):
            return 0.0
        if path.name == DATABASE:
            if not read_head(path).startswith(_SQLITE_HEADER):
                return 0.0
            return 0.9 if path.parent.name in DATA_FOLDERS else 0.4
        found = _found(path)
        if found is None:
            return 0.0
        head = read_head(path)
        if found.layout == "ide":
            return 0.8 if b'"history"' in head else 0.0
        return 0.9 if b'"version"' in head or b'"cwd"' in head or b'"role"' in head else 0.5

    def scan_path(self, path: Path) -> Iterator[ConversationMeta]:
        """The conversations of a CLI database, or the session a file belongs to."""
        if path.name == DATABASE:
            yield from database_metas(self.name, path)
            return
        found = _found(path)
        meta = session_meta(self.name, found) if found is not None else None
        if meta is not None:
            yield meta

    def explain(self, host: Host) -> Iterator[str]:
        """Where Kiro's stores are looked for on ``host``, for ``chatparse doctor``."""
        home = kiro_home(host)
        yield explain_variable(host, HOME_ENV)
        sessions = home / "sessions"
        yield f"{sessions}: {'present' if is_dir(sessions) else 'missing'}"
        storage = ide_storage(host)
        yield f"{storage}: {'present' if is_dir(storage) else 'missing'}"
        if is_dir(storage):
            yield (
                f"{storage}: the IDE's hash-named execution logs (the agent's actions behind a "
                "placeholder answer) are not read: their format is not known"
            )
        for db in databases(host):
            yield f"{db}: {_db_state(db)}"


def _db_state(db: Path) -> str:
    if not is_file(db):
        return "missing"
    try:
        with open_snapshot(db) as snapshot:
            tables = snapshot.tables()
    except SourceUnavailableError as exc:
        return f"present but not readable ({exc.reason})"
    found = [t for t in ("conversations_v2", "conversations") if t in tables]
    return f"present, tables {', '.join(found)}" if found else "present, no conversation table"
