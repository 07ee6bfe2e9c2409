"""The Cursor adapter: where it looks, what a scan lists, and which reader parses each kind."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Final, TypeAlias

from chatparse.adapter import SourceAdapter, is_file, passed_over
from chatparse.adapters._vscode import (
    GLOBAL_DB,
    WORKSPACE_DB,
    existing_user_dirs,
    workspace_dirs,
    workspace_project_path,
)
from chatparse.adapters.cursor.catalog import Catalog
from chatparse.adapters.cursor.composer import read_composer
from chatparse.adapters.cursor.scan import read_global, read_workspace
from chatparse.adapters.cursor.store import (
    BUBBLES,
    COMPOSER,
    DISK_KV,
    INLINE,
    ITEM_TABLE,
    LEGACY,
    PRODUCTS,
)
from chatparse.adapters.cursor.workspace import read_inline, read_tab
from chatparse.decoders.sqlite import BUSY_TIMEOUT, Snapshot, open_snapshot
from chatparse.errors import SourceUnavailableError, UnavailableCause
from chatparse.host import Host
from chatparse.model import ConversationMeta, ParsedConversation, SourceInfo

__all__ = ["CursorAdapter"]

OPEN_DATABASES: Final = 8
"""The most databases ``parsing()`` keeps open at once: the global one and a few workspaces."""

_Reader: TypeAlias = Callable[[Snapshot, ConversationMeta, SourceAdapter], ParsedConversation]
_READERS: Final[dict[str, _Reader]] = {
    COMPOSER: read_composer,
    BUBBLES: read_composer,
    INLINE: read_inline,
    LEGACY: read_tab,
}
"""The reader of each ``locator["kind"]``; a kind not listed is read as a composer."""


class CursorAdapter:
    """Reads Cursor's composers (2025+ and late-2024 inline) and legacy chat-pane tabs.

    Args:
        busy_timeout: The longest, in seconds, one read waits for Cursor's lock before the
            database counts as unavailable.

    .. versionadded:: 0.1
    """

    name = "cursor"
    display_name = "Cursor"
    parser_version = "2"
    scan_reads_content: Final = ("*.vscdb", "*/workspace.json")
    """``scan`` opens each ``state.vscdb`` once (composer lists, composer documents, bubble keys)
    and each ``workspace.json`` (the project); bubble contents are read by ``parse`` only."""

    def __init__(self, busy_timeout: float = BUSY_TIMEOUT) -> None:
        self.busy_timeout = busy_timeout

    def detect(self, host: Host) -> SourceInfo | None:
        """Find Cursor's ``User`` directory holding a global or workspace ``state.vscdb``."""
        roots = tuple(str(user) for user in existing_user_dirs(host, PRODUCTS) if _has_db(user))
        if not roots:
            return None
        return SourceInfo(source=self.name, display_name=self.display_name, roots=roots)

    def explain(self, host: Host) -> Iterator[str]:
        """Where the adapter looks on ``host`` and what it found, for ``chatparse doctor``."""
        for product in PRODUCTS:
            user = host.vscode_user_dir(product)
            yield f"{product} user dir {user}: {'exists' if user.is_dir() else 'missing'}"
            if not user.is_dir():
                continue
            yield from self._explain_db(user / GLOBAL_DB, (DISK_KV,))
            folders = list(workspace_dirs(user))
            with_db = [f for f in folders if is_file(f / WORKSPACE_DB)]
            yield f"{user / 'workspaceStorage'}: {len(with_db)} workspace(s) with a state.vscdb"
            for folder in with_db:
                yield from self._explain_db(folder / WORKSPACE_DB, (ITEM_TABLE,), quiet=True)

    def _explain_db(
        self, path: Path, tables: Iterable[str], *, quiet: bool = False
    ) -> Iterator[str]:
        if not path.is_file():
            if not quiet:
                yield f"{path}: missing"
            return
        try:
            with self._open(path) as snapshot:
                present = snapshot.tables()
        except SourceUnavailableError as exc:
            yield f"{path}: cannot be read ({exc.reason}); the conversations in it are not read"
            return
        missing = [table for table in tables if table not in present]
        if missing:
            yield f"{path}: no {', '.join(missing)} table; nothing to read in it"
        elif not quiet:
            yield f"{path}: readable"

    def scan(self, source: SourceInfo) -> Iterator[ConversationMeta]:
        """List every composer once, and every legacy chat tab; sub-agents are not listed.

        Every database is read and closed before the first conversation is yielded, so nothing
        stays open while the caller works.
        """
        metas: list[ConversationMeta] = []
        for root in map(Path, source.roots):
            metas.extend(self._scan_user_dir(root))
        yield from sorted(metas, key=lambda meta: meta.id)

    def _scan_user_dir(self, user: Path) -> list[ConversationMeta]:
        catalog = Catalog(self.name)
        for folder in workspace_dirs(user):
            db = folder / WORKSPACE_DB
            if not is_file(db):
                continue
            # An unreadable workspace DB (locked past the retries, damaged) is left out of the
            # scan, with a warning; `chatparse doctor` says more.
            try:
                with self._open(db) as snapshot:
                    read_workspace(catalog, snapshot, workspace_project_path(folder))
            except SourceUnavailableError as exc:
                passed_over(db, exc.reason)
        global_db = user / GLOBAL_DB
        if is_file(global_db):
            try:
                with self._open(global_db) as snapshot:
                    read_global(catalog, snapshot)
            except SourceUnavailableError as exc:
                # Damaged: the heads the workspaces list are still listed, and their parse says
                # what is wrong at once. Locked: passed over whole, as the warning says; each
                # parse would wait for the lock again, and the next scan lists them.
                if exc.cause is not UnavailableCause.LOCKED:
                    catalog.global_unavailable = global_db
                passed_over(global_db, exc.reason)
        return catalog.metas()

    def _open(self, path: str | Path) -> Snapshot:
        return open_snapshot(path, busy_timeout=self.busy_timeout)

    def sniff(self, path: Path) -> float:
        """How sure we are that ``path`` is a Cursor ``state.vscdb``, from its name and header."""
        if not path.is_file() or path.suffix != ".vscdb" or not _is_sqlite(path):
            return 0.0
        return 0.9 if "Cursor" in path.parts else 0.5

    def scan_path(self, path: Path) -> Iterator[ConversationMeta]:
        """The conversations in one ``state.vscdb``, global or workspace, read in place.

        A workspace database gets its project from the ``workspace.json`` beside it, if any.

        Raises:
            SourceUnavailableError: The file is not a SQLite database, or cannot be read.
        """
        catalog = Catalog(self.name)
        with self._open(path) as snapshot:
            read_workspace(catalog, snapshot, workspace_project_path(path.parent))
            read_global(catalog, snapshot)
        yield from sorted(catalog.metas(), key=lambda meta: meta.id)

    def parse(self, meta: ConversationMeta) -> ParsedConversation:
        """Parse one conversation from the database its locator names."""
        with self._open(meta.path) as snapshot:
            return self._parse_from(snapshot, meta)

    @contextmanager
    def parsing(self) -> Iterator[Callable[[ConversationMeta], ParsedConversation]]:
        """A parse function that keeps each database open until the ``with`` block ends.

        Every composer of a user directory is in its one global database, and opening it costs
        more than reading one composer's rows; so each database is opened at its first parse and
        closed, with the others, when the block ends (also when it ends early). Holding it open
        between parses blocks no writer: the connection is read-only and in autocommit mode, so
        each batch of rows is its own short read transaction and no lock is held between
        statements (of a WAL database, only the shared lock on its ``-shm`` file that every
        connection holds). Results equal :meth:`parse`'s. At most :data:`OPEN_DATABASES` stay
        open, the least recently used closed first: a user directory may hold hundreds of
        workspace databases, one per legacy chat or inline composer, and file handles run out.
        Calls may come from any thread, one at a time (as a generator's ``next`` does).
        """
        snapshots: OrderedDict[str, Snapshot] = OrderedDict()

        def parse_one(meta: ConversationMeta) -> ParsedConversation:
            snapshot = snapshots.get(meta.path)
            if snapshot is None:
                # Not kept when opening fails: the next conversation in it tries again, as
                # parse() would.
                snapshot = snapshots[meta.path] = self._open(meta.path)
                if len(snapshots) > OPEN_DATABASES:
                    snapshots.popitem(last=False)[1].close()
            else:
                snapshots.move_to_end(meta.path)
            return self._parse_from(snapshot, meta)

        try:
            yield parse_one
        finally:
            for snapshot in snapshots.values():
                snapshot.close()
            snapshots.clear()

    def _parse_from(self, snapshot: Snapshot, meta: ConversationMeta) -> ParsedConversation:
        read = _READERS.get(meta.locator.get("kind", COMPOSER), read_composer)
        return read(snapshot, meta, self)


def _has_db(user: Path) -> bool:
    if is_file(user / GLOBAL_DB):
        return True
    return any(is_file(folder / WORKSPACE_DB) for folder in workspace_dirs(user))


def _is_sqlite(path: Path) -> bool:
    try:
        with path.open("rb") as stream:
            return stream.read(16) == b"SQLite format 3\x00"
    except OSError:
        return False
