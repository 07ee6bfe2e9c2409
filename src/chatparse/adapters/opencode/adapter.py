"""The OpenCode adapter: where it looks, what a scan lists, and how each store is opened."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Final

from chatparse.adapter import is_dir, is_file, passed_over
from chatparse.adapters.opencode.catalog import list_conversations, meta_of
from chatparse.adapters.opencode.database import Database
from chatparse.adapters.opencode.locate import (
    DATA_HOME_ENV,
    DB_ENV,
    configured_db,
    data_dir,
    stores_on,
)
from chatparse.adapters.opencode.records import SQLITE, Store
from chatparse.adapters.opencode.session import read_conversation
from chatparse.adapters.opencode.tree import PROJECT, STORAGE, TREE, Tree
from chatparse.decoders.sqlite import BUSY_TIMEOUT, Snapshot, open_snapshot
from chatparse.errors import SourceUnavailableError, UnavailableCause
from chatparse.host import Host
from chatparse.model import ConversationMeta, ParsedConversation, SourceInfo

__all__ = ["OpenCodeAdapter"]

OPEN_DATABASES: Final = 4
"""The most databases ``parsing()`` keeps open at once (a home has one or a few)."""
_SQLITE_HEADER: Final = b"SQLite format 3\x00"


def _is_sqlite(path: Path) -> bool:
    try:
        with path.open("rb") as stream:
            return stream.read(16) == _SQLITE_HEADER
    except OSError:
        return False


def _tree_root(session_file: Path) -> Path | None:
    """The root of the JSON tree a session file is in, from the file's place in it."""
    parent = session_file.parent
    if parent.parent.name == "session" and parent.parent.parent.name == "storage":
        return parent.parent.parent  # storage/session/<project>/<id>.json
    if parent.name == "info" and parent.parent.name == "session":
        return parent.parent  # project/<folder>/storage/session/info/<id>.json
    return None


class OpenCodeAdapter:
    """Reads OpenCode's sessions: the SQLite store (v1.2+) and the JSON tree before it.

    Args:
        busy_timeout: The longest, in seconds, one read waits for OpenCode's lock before the
            database counts as unavailable.

    .. versionadded:: 0.2
    """

    name = "opencode"
    display_name = "OpenCode"
    parser_version = "1"
    scan_reads_content: Final = ("*.db", "*/storage/session/*/*.json")
    """``scan`` reads each database's ``session`` rows (and counts each session's message rows)
    and each JSON session file; messages and parts are read by ``parse`` only."""

    def __init__(self, busy_timeout: float = BUSY_TIMEOUT) -> None:
        self.busy_timeout = busy_timeout

    # --- where -----------------------------------------------------------------------------

    def detect(self, host: Host) -> SourceInfo | None:
        """The databases and JSON trees OpenCode left on ``host``."""
        roots = tuple(str(path) for path in stores_on(host))
        if not roots:
            return None
        return SourceInfo(source=self.name, display_name=self.display_name, roots=roots)

    def explain(self, host: Host) -> Iterator[str]:
        """Where OpenCode's data is looked for on ``host``, and what was found there."""
        data = data_dir(host)
        configured = host.getenv(DATA_HOME_ENV)
        if configured and not Path(configured).is_absolute():
            yield f"{DATA_HOME_ENV}={configured} is not an absolute path: ignored, as XDG says"
        origin = (
            f"${DATA_HOME_ENV}" if configured and Path(configured).is_absolute() else "the default"
        )
        yield f"data folder ({origin}): {data}: {'exists' if data.is_dir() else 'missing'}"
        named = host.getenv(DB_ENV)
        if named is None:
            yield f"{DB_ENV} is not set"
        elif configured_db(host) is None:
            yield f"{DB_ENV}={named}: an in-memory database leaves nothing to read"
        else:
            yield f"{DB_ENV}={named}: {configured_db(host)} is read besides the others"
        roots = stores_on(host)
        if not roots:
            yield "no opencode.db, opencode-*.db, storage/ or project/ tree found"
        for root in roots:
            yield from self._explain_store(root)
        yield "auth.json and the account and credential tables are never read"

    def _explain_store(self, root: Path) -> Iterator[str]:
        try:
            with ExitStack() as stack:
                store = self._store(root, stack)
                if isinstance(store, Database) and store.missing():
                    yield f"{root}: no {', '.join(store.missing())} table; nothing to read in it"
                    return
                kind = "database" if store.kind == SQLITE else "JSON tree (before v1.2)"
                yield f"{root}: {kind}, {len(store.sessions())} session(s)"
        except SourceUnavailableError as exc:
            yield f"{root}: cannot be read ({exc.reason}); the sessions in it are not read"

    # --- stores ----------------------------------------------------------------------------

    def _store(self, root: Path, stack: ExitStack) -> Store:
        """The store at ``root``: a database (kept open in ``stack``) or a JSON tree."""
        if is_dir(root):
            return Tree.at(root)
        snapshot = stack.enter_context(open_snapshot(root, busy_timeout=self.busy_timeout))
        return Database(snapshot)

    def _open(self, root: Path, stack: ExitStack) -> Store | None:
        """:meth:`_store`, or ``None`` and a warning for a store that cannot be read."""
        try:
            store = self._store(root, stack)
        except SourceUnavailableError as exc:
            passed_over(root, exc.reason)
            return None
        if isinstance(store, Database) and store.missing():
            passed_over(root, f"no {', '.join(store.missing())} table")
            return None
        return store

    # --- scan ------------------------------------------------------------------------------

    def scan(self, source: SourceInfo) -> Iterator[ConversationMeta]:
        """One conversation per session id across the stores; sub-agents are not listed.

        Every database is read and closed before the first conversation is yielded.
        """
        with ExitStack() as stack:
            stores = [s for root in source.roots if (s := self._open(Path(root), stack))]
            metas = list_conversations(self.name, stores)
        yield from metas

    def sniff(self, path: Path) -> float:
        """How sure we are that ``path`` is an OpenCode database or JSON session file."""
        if path.suffix == ".db" and path.name.startswith("opencode") and is_file(path):
            return 0.9 if _is_sqlite(path) else 0.0
        if path.suffix == ".json" and _tree_root(path) is not None and is_file(path):
            return 0.8
        return 0.0

    def scan_path(self, path: Path) -> Iterator[ConversationMeta]:
        """The sessions of one database, or the session of one JSON session file.

        Raises:
            SourceUnavailableError: The file is not a database, or it cannot be read.
        """
        root = _tree_root(path) if path.suffix == ".json" else None
        with ExitStack() as stack:
            if root is None:
                store = self._store(path, stack)
                if isinstance(store, Database) and store.missing():
                    raise SourceUnavailableError(
                        str(path),
                        f"no {', '.join(store.missing())} table: not an OpenCode database",
                        cause=UnavailableCause.NOT_A_DATABASE,
                    )
                metas = list_conversations(self.name, [store])
            else:
                tree = Tree(root, STORAGE if root.name == "storage" else PROJECT)
                head = tree.session(path.name.removesuffix(".json"))
                metas = [] if head is None else [meta_of(self.name, tree, head, tree.sessions())]
        yield from metas

    # --- parse -----------------------------------------------------------------------------

    def parse(self, meta: ConversationMeta) -> ParsedConversation:
        """Parse one conversation, from the store its meta names."""
        with self.parsing() as parse:
            return parse(meta)

    @contextmanager
    def parsing(self) -> Iterator[Callable[[ConversationMeta], ParsedConversation]]:
        """A parse function that keeps each database open until the ``with`` block ends.

        Every session of a home is in one database (or a few), and opening it costs more than
        reading one session's rows: each is opened at its first parse and closed with the
        others when the block ends (also when it ends early). Holding it open blocks no writer:
        the connection is read-only and in autocommit mode, so each batch of rows is its own
        short read transaction. At most :data:`OPEN_DATABASES` stay open.
        """
        databases: OrderedDict[str, tuple[Snapshot, Database]] = OrderedDict()

        def database(path: str) -> Database:
            if path in databases:
                databases.move_to_end(path)
                return databases[path][1]
            snapshot = open_snapshot(path, busy_timeout=self.busy_timeout)
            try:
                opened = Database(snapshot)
            except BaseException:
                snapshot.close()
                raise
            databases[path] = (snapshot, opened)
            if len(databases) > OPEN_DATABASES:
                databases.popitem(last=False)[1][0].close()
            return opened

        def parse_one(meta: ConversationMeta) -> ParsedConversation:
            tree = meta.locator.get(TREE)
            store: Store = Tree.at(tree) if tree else database(meta.path)
            head = store.session(meta.id)
            if head is None:
                raise SourceUnavailableError(
                    meta.path,
                    f"session {meta.id} is no longer there",
                    "Scan again.",
                    UnavailableCause.MISSING,
                )
            return read_conversation(self, store, head, meta)

        try:
            yield parse_one
        finally:
            for snapshot, _ in databases.values():
                snapshot.close()
            databases.clear()
