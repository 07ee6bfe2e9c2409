"""What the adapters of OpenCode's family share: detect, scan, parse and sniff of its stores.

Each adapter gives a :class:`~chatparse.adapters._opencode.locate.Product` (its data folder,
database names and variable); the rest is here.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Final

from chatparse.adapter import is_dir, is_file, passed_over
from chatparse.adapters._opencode.catalog import list_conversations, meta_of
from chatparse.adapters._opencode.database import Database
from chatparse.adapters._opencode.locate import (
    DATA_HOME_ENV,
    Product,
    configured_db,
    data_dir,
    is_database_name,
    stores_on,
)
from chatparse.adapters._opencode.records import SQLITE, Store
from chatparse.adapters._opencode.session import read_conversation
from chatparse.adapters._opencode.tree import PROJECT, STORAGE, TREE, Tree
from chatparse.decoders.sqlite import BUSY_TIMEOUT, Snapshot, open_snapshot
from chatparse.errors import SourceUnavailableError, UnavailableCause
from chatparse.host import Host
from chatparse.model import ConversationMeta, ParsedConversation, SourceInfo

__all__ = ["OPEN_DATABASES", "StoresAdapter", "tree_root"]

OPEN_DATABASES: Final = 4
"""The most databases ``parsing()`` keeps open at once (a home has one or a few)."""
_SQLITE_HEADER: Final = b"SQLite format 3\x00"
_SURE: Final = 0.9
"""A database of the program's name and schema."""
_UNCHECKED: Final = 0.5
"""A database of the program's name whose schema could not be read."""


def _is_sqlite(path: Path) -> bool:
    try:
        with path.open("rb") as stream:
            return stream.read(16) == _SQLITE_HEADER
    except OSError:
        return False


def tree_root(session_file: Path) -> Path | None:
    """The root of the JSON tree a session file is in, from the file's place in it."""
    parent = session_file.parent
    if parent.parent.name == "session" and parent.parent.parent.name == "storage":
        return parent.parent.parent  # storage/session/<project>/<id>.json
    if parent.name == "info" and parent.parent.name == "session":
        return parent.parent  # project/<folder>/storage/session/info/<id>.json
    return None


class StoresAdapter:
    """The parts of an OpenCode-family adapter that do not differ between its members.

    Subclasses set :attr:`name`, :attr:`display_name`, :attr:`parser_version` and
    :attr:`product`.

    Args:
        busy_timeout: The longest, in seconds, one read waits for the program's lock before
            the database counts as unavailable.
    """

    name: str
    display_name: str
    parser_version: str
    product: Product
    scan_reads_content: tuple[str, ...] = ("*.db", "*/storage/session/*/*.json")
    """``scan`` reads each database's ``session`` rows (and counts each session's message rows)
    and each JSON session file; messages and parts are read by ``parse`` only."""

    def __init__(self, busy_timeout: float = BUSY_TIMEOUT) -> None:
        self.busy_timeout = busy_timeout

    # --- where -----------------------------------------------------------------------------

    def stores(self, host: Host) -> list[Path]:
        """The databases and JSON tree roots the program left on ``host``."""
        return stores_on(self.product, host)

    def detect(self, host: Host) -> SourceInfo | None:
        """The databases and JSON trees the program left on ``host``."""
        roots = tuple(str(path) for path in self.stores(host))
        if not roots:
            return None
        return SourceInfo(source=self.name, display_name=self.display_name, roots=roots)

    def explain(self, host: Host) -> Iterator[str]:
        """Where the program's data is looked for on ``host``, and what was found there."""
        product = self.product
        data = data_dir(product, host)
        configured = host.getenv(DATA_HOME_ENV)
        if configured and not Path(configured).is_absolute():
            yield f"{DATA_HOME_ENV}={configured} is not an absolute path: ignored, as XDG says"
        origin = (
            f"${DATA_HOME_ENV}" if configured and Path(configured).is_absolute() else "the default"
        )
        yield f"data folder ({origin}): {data}: {'exists' if data.is_dir() else 'missing'}"
        named = host.getenv(product.db_env)
        if named is None:
            yield f"{product.db_env} is not set"
        elif configured_db(product, host) is None:
            yield f"{product.db_env}={named}: an in-memory database leaves nothing to read"
        else:
            path = configured_db(product, host)
            yield f"{product.db_env}={named}: {path} is read besides the others"
        roots = self.stores(host)
        if not roots:
            names = ", ".join(f"{stem}.db, {stem}-*.db" for stem in product.stems)
            trees = ", storage/ or project/ tree" if product.project_layout else " or storage/ tree"
            yield f"no {names}{trees} found"
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

    def _list(self, stores: list[Store]) -> list[ConversationMeta]:
        return list_conversations(self.name, stores, slug_key=self.product.slug_key)

    # --- scan ------------------------------------------------------------------------------

    def scan(self, source: SourceInfo) -> Iterator[ConversationMeta]:
        """One conversation per session id across the stores; sub-agents are not listed.

        Every database is read and closed before the first conversation is yielded.
        """
        with ExitStack() as stack:
            stores = [s for root in source.roots if (s := self._open(Path(root), stack))]
            metas = self._list(stores)
        yield from metas

    def sniff(self, path: Path) -> float:
        """How sure we are that ``path`` is one of the program's databases or session files.

        A database must have the program's name and its schema: a ``.opencode/opencode.db``
        of OpenCode-Go (read by the ``crush`` adapter) has other tables.
        """
        if path.suffix == ".json" and (root := tree_root(path)) is not None and is_file(path):
            return self.tree_confidence(root)
        sure = self.name_confidence(path)
        if not (sure and is_file(path) and _is_sqlite(path)):
            return 0.0
        try:
            with open_snapshot(path, busy_timeout=self.busy_timeout) as snapshot:
                return 0.0 if Database(snapshot).missing() else sure
        except SourceUnavailableError:
            return min(sure, _UNCHECKED)

    def name_confidence(self, path: Path) -> float:
        """How sure the name of ``path`` makes us that it is one of the program's databases."""
        return _SURE if is_database_name(self.product, path.name) else 0.0

    def tree_confidence(self, root: Path) -> float:
        """How sure we are that a JSON tree rooted at ``root`` is the program's."""
        raise NotImplementedError

    def scan_path(self, path: Path) -> Iterator[ConversationMeta]:
        """The sessions of one database, or the session of one JSON session file.

        Raises:
            SourceUnavailableError: The file is not a database, or it cannot be read.
        """
        root = tree_root(path) if path.suffix == ".json" else None
        with ExitStack() as stack:
            if root is None:
                store = self._store(path, stack)
                if isinstance(store, Database) and store.missing():
                    raise SourceUnavailableError(
                        str(path),
                        f"no {', '.join(store.missing())} table: not {self.product.a_database}",
                        cause=UnavailableCause.NOT_A_DATABASE,
                    )
                metas = self._list([store])
            else:
                tree = Tree(root, STORAGE if root.name == "storage" else PROJECT)
                head = tree.session(path.name.removesuffix(".json"))
                slug_key = self.product.slug_key
                metas = (
                    []
                    if head is None
                    else [meta_of(self.name, tree, head, tree.sessions(), slug_key=slug_key)]
                )
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
