r"""Cursor: composers, inline and legacy chats, read from the editor's SQLite stores as it runs.

Where they are, under Cursor's ``User`` directory (``~/.config/Cursor/User`` on Linux,
``~/Library/Application Support/Cursor/User`` on macOS, ``%APPDATA%\Cursor\User`` on Windows):

``workspaceStorage/<hash>/state.vscdb`` (table ``ItemTable``), one per opened folder
    ``composer.composerData`` lists the folder's composers (``allComposers``). Entries of 2025
    and later are small *heads* (``composerId``, ``name``, ``createdAt``, ``lastUpdatedAt``) whose
    content is in the global store; entries of late 2024 are *inline*: the whole composer with
    its messages in ``conversation``. ``workbench.panel.aichat.view.aichat.chatdata`` (or
    ``workbench.panel.chat.view.chat.chatdata``) holds the legacy chat pane: ``tabs``, each with
    ``bubbles`` of type ``"user"`` or ``"ai"``. ``workspace.json`` beside it names the project.
``globalStorage/state.vscdb`` (table ``cursorDiskKV``)
    ``composerData:<composer id>`` is one composer document; ``bubbleId:<composer id>:<bubble
    id>`` is one message (a *bubble*: ``type`` 1 user, 2 assistant). The document's
    ``fullConversationHeadersOnly`` is the turn order; bubbles it does not list are edits the
    user discarded. The same database's ``ItemTable`` holds the user's auth tokens
    (``cursorAuth/*``): it is never read, and the file is never copied.

Each database is opened once per scan through :mod:`chatparse.decoders.sqlite`, read-only and in
short transactions, so a running Cursor is never blocked; only the keys listed above are read,
by exact key or key range (never ``LIKE``: composer ids such as ``task-toolu_01…`` contain
``_``). ``parse`` opens the one database that holds the conversation and reads only its rows;
``parsing()`` (for :func:`chatparse.iter_conversations`) keeps each database open across the
conversations it holds instead.

A **record** is one composer document (a ``composerData`` row or an inline ``allComposers``
entry), one bubble (a ``bubbleId`` row or an element of an inline ``conversation``), one legacy
chat tab, and one bubble of such a tab. Each is used, skipped as known noise (a discarded edit, an
empty draft, a NULL row), malformed, or kept raw as unknown: see ``docs/sources/cursor.md``.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final, Literal, NamedTuple, TypeAlias, TypeGuard

from attrs import define, field

from chatparse.adapters import _build
from chatparse.adapters._fields import as_text, dig
from chatparse.adapters._ledger import Ledger
from chatparse.adapters._paths import is_file, passed_over
from chatparse.adapters._vscode import (
    GLOBAL_DB,
    WORKSPACE_DB,
    existing_user_dirs,
    uri_platform,
    uri_to_project_path,
    workspace_dirs,
    workspace_project_path,
)
from chatparse.decoders import value as jsonvalue
from chatparse.decoders.sqlite import (
    BUSY_TIMEOUT,
    KeyRun,
    Row,
    Snapshot,
    open_snapshot,
    prefix_range,
)
from chatparse.decoders.text import ImagePayload, strip_data_uri_images
from chatparse.errors import SourceUnavailableError
from chatparse.host import Host
from chatparse.model import (
    ConversationMeta,
    ImageRef,
    Message,
    ParsedConversation,
    Role,
    SourceInfo,
    ToolCall,
    Usage,
)

__all__ = ["CursorAdapter"]

# --- where the data is -------------------------------------------------------------------------

PRODUCTS: Final = ("Cursor",)
ITEM_TABLE: Final = "ItemTable"
DISK_KV: Final = "cursorDiskKV"
COMPOSER_LIST: Final = "composer.composerData"
LEGACY_CHATS: Final = (
    "workbench.panel.aichat.view.aichat.chatdata",
    "workbench.panel.chat.view.chat.chatdata",
)
WORKSPACE_KEYS: Final = (COMPOSER_LIST, *LEGACY_CHATS)
"""Every ``ItemTable`` key read, from a workspace database; no other key is ever read."""
COMPOSER_PREFIX: Final = "composerData:"
BUBBLE_PREFIX: Final = "bubbleId:"
SUBAGENT_PREFIX: Final = "task-"
"""A sub-agent composer is named ``task-<toolCallId>`` after the parent's tool call."""

# What ``ConversationMeta.locator["kind"]`` says about where a conversation's content is.
Kind: TypeAlias = Literal["composer", "inline", "legacy", "bubbles"]
COMPOSER: Final = "composer"  # a composerData document in the global cursorDiskKV
INLINE: Final = "inline"  # an allComposers entry carrying its conversation (late 2024)
LEGACY: Final = "legacy"  # a tab of the legacy chat pane
BUBBLES: Final = "bubbles"  # bubble rows in the global cursorDiskKV with no composer document

# --- what the records say ----------------------------------------------------------------------

USER_BUBBLE, ASSISTANT_BUBBLE = 1, 2
_ROLES: Final[dict[object, Role]] = {
    USER_BUBBLE: "user",
    ASSISTANT_BUBBLE: "assistant",
    "user": "user",
    "ai": "assistant",
}
# The newest ``_v`` seen in the wild; a newer one is read best-effort and noted in diagnostics.
NEWEST_COMPOSER_V: Final = 13
NEWEST_BUBBLE_V: Final = 3
# ``toolFormerData.status`` values that mean the call did not succeed.
FAILED_STATUSES: Final = frozenset({"error", "cancelled", "canceled", "aborted", "rejected"})
SUCCEEDED_STATUSES: Final = frozenset({"completed", "success", "succeeded"})
# ``timingInfo`` fields in order of preference; only epoch milliseconds (>= 1e12) are times.
TIMING_FIELDS: Final = ("clientRpcSendTime", "clientSettleTime", "clientEndTime", "clientStartTime")
_EPOCH_MS_MIN: Final = 1e12
# Lexical node types that end a line of text when flattening ``richText``.
_LEXICAL_BLOCKS: Final = frozenset({"paragraph", "heading", "quote", "listitem", "code"})

_TITLE_LENGTH: Final = 100
_FINGERPRINT_LENGTH: Final = 32
_OPEN_DATABASES: Final = 8
"""The most databases ``parsing()`` keeps open at once: the global one and a few workspaces."""


# --- the adapter -------------------------------------------------------------------------------


class CursorAdapter:
    """Reads Cursor's composers (2025+ and late-2024 inline) and legacy chat-pane tabs.

    Args:
        busy_timeout: The longest, in seconds, one read waits for Cursor's lock before the
            database counts as unavailable.

    .. versionadded:: 0.1
    """

    name = "cursor"
    display_name = "Cursor"
    parser_version = "1"
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
        catalog = _Catalog(self.name)
        for folder in workspace_dirs(user):
            db = folder / WORKSPACE_DB
            if not is_file(db):
                continue
            # An unreadable workspace DB (locked past the retries, damaged) is left out of the
            # scan, with a warning; `chatparse doctor` says more.
            try:
                with self._open(db) as snapshot:
                    _read_workspace(catalog, snapshot, workspace_project_path(folder))
            except SourceUnavailableError as exc:
                passed_over(db, exc.reason)
        global_db = user / GLOBAL_DB
        if is_file(global_db):
            try:
                with self._open(global_db) as snapshot:
                    _read_global(catalog, snapshot)
            except SourceUnavailableError as exc:
                # Heads listed by workspaces are still listed: their parse says what is wrong.
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
        catalog = _Catalog(self.name)
        with self._open(path) as snapshot:
            _read_workspace(catalog, snapshot, workspace_project_path(path.parent))
            _read_global(catalog, snapshot)
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
        connection holds). Results equal :meth:`parse`'s. At most :data:`_OPEN_DATABASES` stay
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
                if len(snapshots) > _OPEN_DATABASES:
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
        kind = meta.locator.get("kind", COMPOSER)
        if kind == LEGACY:
            return _read_tab(snapshot, meta, self)
        if kind == INLINE:
            return _read_inline(snapshot, meta, self)
        return _read_composer(snapshot, meta, self, _descendants(meta))


# --- scanning ------------------------------------------------------------------------------------


@define
class _Stat:
    size: int | None
    mtime: datetime | None


def _stat(path: Path) -> _Stat:
    try:
        info = path.stat()
    except OSError:
        return _Stat(None, None)
    return _Stat(info.st_size, datetime.fromtimestamp(info.st_mtime, UTC))


@define
class _Found:
    """What the scan learned about one composer, from every place that mentions it."""

    id: str
    name: str | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None
    project: str | None = None
    head_project: str | None = None
    head_name: str | None = None
    document: tuple[Path, _Stat] | None = None
    document_digest: str = ""
    inline: tuple[Path, _Stat, str] | None = None
    bubble_db: tuple[Path, _Stat] | None = None
    bubbles: KeyRun | None = None
    listed_by_workspace: bool = False


@define
class _Catalog:
    """Every composer and tab a scan found, merged into one meta per conversation."""

    source: str
    found: dict[str, _Found] = field(factory=dict)
    tabs: list[ConversationMeta] = field(factory=list)
    parents: dict[str, str] = field(factory=dict)
    global_unavailable: Path | None = None

    def composer(self, composer_id: str) -> _Found:
        if composer_id not in self.found:
            self.found[composer_id] = _Found(composer_id)
        return self.found[composer_id]

    def add_workspace_entry(
        self, entry: dict[str, Any], db: Path, stat: _Stat, project: str | None
    ) -> None:
        """A head or inline ``allComposers`` entry; the first workspace listing it names it."""
        found = self.composer(entry["composerId"])
        if not found.listed_by_workspace:
            found.listed_by_workspace = True
            found.head_project = project
            found.head_name = _clean_title(entry.get("name"))
            found.created_at = found.created_at or _time(entry.get("createdAt"))
            found.updated_at = found.updated_at or _time(entry.get("lastUpdatedAt"))
        if isinstance(entry.get("conversation"), list) and found.inline is None:
            found.inline = (db, stat, _digest(entry))

    def add_document(
        self, composer_id: str, rowid: int, stored: object, db: Path, st: _Stat
    ) -> None:
        """A ``composerData`` row: its times, name, project and parent, and its digest.

        ``stored`` is the value as read raw (:data:`~chatparse.decoders.sqlite.RawRow`).
        """
        found = self.composer(composer_id)
        found.document = (db, st)
        found.document_digest = _document_digest(rowid, stored)
        ok, document = _loads(stored) if type(stored) is bytes else (False, None)
        if not ok or not isinstance(document, dict):
            return
        found.name = _clean_title(document.get("name"))
        found.created_at = _time(document.get("createdAt")) or found.created_at
        found.updated_at = _time(document.get("lastUpdatedAt")) or found.updated_at
        found.project = _identifier_project(document.get("workspaceIdentifier"))
        parent = dig(document, "subagentInfo", "parentComposerId")
        if isinstance(parent, str) and parent and parent != composer_id:
            self.parents[composer_id] = parent

    def add_bubbles(self, bubbles: KeyRun, db: Path, st: _Stat) -> None:
        """The bubble rows of one composer, counted (their values are read by parse)."""
        found = self.composer(bubbles.name)
        found.bubble_db = (db, st)
        if found.bubbles is not None:  # names that differ only in invalid UTF-8 decode alike
            bubbles = KeyRun(
                bubbles.name,
                found.bubbles.rows + bubbles.rows,
                max(found.bubbles.max_rowid, bubbles.max_rowid),
                found.bubbles.rowid_sum + bubbles.rowid_sum,
            )
        found.bubbles = bubbles

    def unparented_tasks(self) -> list[str]:
        """Sub-agent composers (``task-<toolCallId>``) whose document names no parent."""
        return sorted(
            composer_id
            for composer_id, found in self.found.items()
            if composer_id.startswith(SUBAGENT_PREFIX)
            and composer_id not in self.parents
            and found.document is not None
        )

    def add_tab(
        self, tab: dict[str, Any], key: str, db: Path, stat: _Stat, project: str | None
    ) -> None:
        bubbles = tab.get("bubbles")
        if not isinstance(bubbles, list) or not bubbles:
            return
        updated = _time(tab.get("lastSendTime"))
        self.tabs.append(
            _build.conversation_meta(
                source=self.source,
                id=tab["tabId"],
                path=str(db),
                fingerprint=_fingerprint(_digest(tab)),
                size=stat.size,
                mtime=stat.mtime,
                title=_clean_title(tab.get("chatTitle")),
                project_path=project,
                updated_at=updated,
                locator={"kind": LEGACY, "key": key},
            )
        )

    def metas(self) -> list[ConversationMeta]:
        """One meta per top-level conversation; sub-agents ride in their root's locator."""
        readable = {cid for cid, found in self.found.items() if self._content(found) is not None}
        roots: dict[str, list[tuple[str, str]]] = {}
        for child in sorted(readable):
            root = self._root(child, readable)
            if root != child:
                roots.setdefault(root, []).append((self.parents[child], child))
        nested = {child for pairs in roots.values() for _, child in pairs}
        composers = sorted(readable - nested)
        return [*self.tabs, *(self._meta(self.found[c], roots.get(c, [])) for c in composers)]

    def _root(self, composer_id: str, readable: set[str]) -> str:
        """The top of ``composer_id``'s chain of parents; itself when the chain breaks or loops."""
        chain = [composer_id]
        while chain[-1] in self.parents and self.parents[chain[-1]] in readable:
            parent = self.parents[chain[-1]]
            if parent in chain:
                return composer_id
            chain.append(parent)
        return chain[-1]

    def _content(self, found: _Found) -> tuple[Kind, Path, _Stat] | None:
        """Where a composer's content is: a document wins over an inline entry over bare rows."""
        if found.document is not None:
            return COMPOSER, *found.document
        if found.inline is not None:
            return INLINE, found.inline[0], found.inline[1]
        if found.bubble_db is not None:
            return BUBBLES, *found.bubble_db
        if found.listed_by_workspace and self.global_unavailable is not None:
            # A head whose store could not be read: listed, so that its parse says why.
            return COMPOSER, self.global_unavailable, _stat(self.global_unavailable)
        return None

    def _digest_of(self, found: _Found) -> str:
        content = self._content(found)
        kind = content[0] if content is not None else COMPOSER
        if kind == INLINE and found.inline is not None:
            return found.inline[2]
        return _composer_digest(found.document_digest, found.bubbles)

    def _meta(self, found: _Found, family: list[tuple[str, str]]) -> ConversationMeta:
        content = self._content(found)
        assert content is not None  # noqa: S101 -- metas() lists readable composers only
        kind, db, stat = content
        digests = [self._digest_of(found)]
        digests += [f"{child}={self._digest_of(self.found[child])}" for _, child in family]
        locator: dict[str, str] = {"kind": kind}
        if family:
            locator["subagents"] = " ".join(f"{parent}/{child}" for parent, child in family)
        return _build.conversation_meta(
            source=self.source,
            id=found.id,
            path=str(db),
            fingerprint=_fingerprint(*digests, found.head_name or "", found.head_project or ""),
            size=stat.size,
            mtime=stat.mtime,
            title=found.name or found.head_name,
            project_path=found.head_project or found.project,
            created_at=found.created_at,
            updated_at=found.updated_at,
            locator=locator,
        )


def _read_workspace(catalog: _Catalog, snapshot: Snapshot, project: str | None) -> None:
    """Read a workspace database's composer list and legacy chat tabs into ``catalog``."""
    values = _workspace_values(snapshot)
    if values is None:
        return
    db, stat = snapshot.path, _stat(snapshot.path)
    composers = values.get(COMPOSER_LIST)
    entries = composers.get("allComposers") if isinstance(composers, dict) else None
    for entry in entries if isinstance(entries, list) else ():
        if isinstance(entry, dict) and isinstance(entry.get("composerId"), str):
            catalog.add_workspace_entry(entry, db, stat, project)
    for key in LEGACY_CHATS:
        chat = values.get(key)
        tabs = chat.get("tabs") if isinstance(chat, dict) else None
        for tab in tabs if isinstance(tabs, list) else ():
            if isinstance(tab, dict) and isinstance(tab.get("tabId"), str):
                catalog.add_tab(tab, key, db, stat, project)


def _workspace_values(snapshot: Snapshot) -> dict[str, Any] | None:
    """The decoded values of the workspace keys present (see :func:`_get_json`), by key.

    One statement for every key: a scan opens every workspace database, and a statement costs a
    read transaction. ``None`` when there is no ``ItemTable``; the table is looked for only when
    the read fails, as in :func:`_get_document`.
    """
    marks = ", ".join("CAST(? AS TEXT)" for _ in WORKSPACE_KEYS)
    try:
        rows = list(
            snapshot.iter_rows(
                ITEM_TABLE,
                ("key", "value"),
                where=f"key IN ({marks})",
                params=[key.encode() for key in WORKSPACE_KEYS],
            )
        )
    except SourceUnavailableError as exc:
        if "locked" not in exc.reason and ITEM_TABLE not in snapshot.tables():
            return None
        raise
    values: dict[str, Any] = {}
    for row in rows:
        key, raw = row.values
        ok, value = _loads(raw) if isinstance(raw, str) else (False, None)
        values[str(key)] = value if ok else None
    return values


def _read_global(catalog: _Catalog, snapshot: Snapshot) -> None:
    """Read the composer documents and the bubble keys (not values) of a global database."""
    if DISK_KV not in snapshot.tables():
        return
    db, stat = snapshot.path, _stat(snapshot.path)
    for rowid, key, stored in snapshot.iter_prefix_raw(DISK_KV, COMPOSER_PREFIX):
        composer_id = _key_text(key)[len(COMPOSER_PREFIX) :]
        catalog.add_document(composer_id, rowid, stored, db, stat)
    for bubbles in snapshot.key_runs(DISK_KV, BUBBLE_PREFIX):
        catalog.add_bubbles(bubbles, db, stat)
    for child in catalog.unparented_tasks():
        parent = _task_parent(snapshot, child)
        if parent is not None:
            catalog.parents.setdefault(child, parent)


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


def _key_text(key: object) -> str:
    """A key read raw, as :mod:`chatparse.decoders.sqlite` decodes TEXT (invalid UTF-8 replaced)."""
    return key.decode("utf-8", "replace") if isinstance(key, bytes) else str(key)


def _split_bubble_key(key: str) -> tuple[str, str]:
    """``bubbleId:<composer>:<bubble>`` split on its first two colons only."""
    rest = key[len(BUBBLE_PREFIX) :]
    composer_id, _, bubble_id = rest.partition(":")
    return composer_id, bubble_id


def _task_parent(snapshot: Snapshot, child: str) -> str | None:
    """The composer one of whose tool calls started the sub-agent composer ``child``.

    The bubble values are searched for the tool call id by SQLite itself (``instr``, an exact
    substring, not a pattern), and the one row found is decoded to confirm it.
    """
    tool_call_id = child[len(SUBAGENT_PREFIX) :]
    low, high = prefix_range(BUBBLE_PREFIX)
    where = "key >= CAST(? AS TEXT) AND key < CAST(? AS TEXT) AND instr(value, ?) > 0"
    for row in snapshot.iter_rows(
        DISK_KV, ("key", "value"), where=where, params=(low, high, tool_call_id)
    ):
        key, raw = row.values
        composer_id, _ = _split_bubble_key(str(key))
        text = as_text(raw)
        ok, bubble = _loads(text) if text is not None else (False, None)
        if (
            ok
            and composer_id != child
            and dig(bubble, "toolFormerData", "toolCallId") == tool_call_id
        ):
            return composer_id
    return None


def _descendants(meta: ConversationMeta) -> dict[str, list[str]]:
    """The sub-agent tree a scan put in the locator: parent id -> child ids, in order."""
    tree: dict[str, list[str]] = {}
    for pair in meta.locator.get("subagents", "").split():
        parent, _, child = pair.partition("/")
        tree.setdefault(parent, []).append(child)
    return tree


# --- accounting ----------------------------------------------------------------------------------


@define
class _Ledger(Ledger):
    """The shared ledger, plus one warning per document version newer than we know."""

    versions: set[str] = field(factory=set)

    def version(self, what: str, value: object, newest: int) -> None:
        if _is_int(value) and value > newest:
            note = f"{what} _v {value} is newer than the newest known ({newest}); read best-effort"
            if note not in self.versions:
                self.versions.add(note)
                self.warnings.append(note)


# --- composers -----------------------------------------------------------------------------------


class _Bubble(NamedTuple):
    """One bubble row of ``cursorDiskKV``, its value decoded when its message is built.

    A composer's rows are read together, but each value is decoded only when its message is
    built, and the decoded value dropped right after: the stored bytes are small beside it and
    cost the garbage collector nothing, where a composer's worth of decoded dicts kept alive made
    every collection walk them. Rows that are not shown (discarded edits, repeats of inline
    bubbles) are never decoded. The rare orderings that look into every bubble first (no turn
    order recorded, a header naming a bubble by the id inside it) decode those bubbles again when
    their messages are built.

    A tuple, made with ``tuple.__new__`` by :func:`_read_bubbles`: one is made per row of the
    store, and a class with an ``__init__`` cost a Python call each.
    """

    id: str
    raw_key: object
    """The key as read (UTF-8 bytes), decoded only for the rare bubble that is reported."""
    data: bytes | None
    """The value as stored (TEXT or BLOB); ``None`` for NULL, and for a number, which is no JSON
    text either."""

    @property
    def where(self) -> str:
        return f"row {_key_text(self.raw_key)}"

    @property
    def raw(self) -> str | None:
        """The value's text, for the rare bubble reported or kept raw; decoded only then."""
        return None if self.data is None else self.data.decode("utf-8", "replace")

    def value(self) -> Any:
        """The decoded value, ``None`` when it is NULL or not JSON."""
        value = None if self.data is None else jsonvalue.decode(self.data)
        return None if isinstance(value, jsonvalue.Invalid) else value

    def inner_id(self) -> str | None:
        value = self.value()
        inner = value.get("bubbleId") if isinstance(value, dict) else None
        return inner if isinstance(inner, str) else None


def _read_bubbles(snapshot: Snapshot, composer_id: str) -> list[_Bubble]:
    """Every bubble row of one composer, values undecoded (see :class:`_Bubble`).

    This runs for every row of the store, so a row costs little: the bubble id is the rest of
    the key after the composer's prefix, decoded alone.
    """
    prefix = f"{BUBBLE_PREFIX}{composer_id}:"
    # Keys are split on their first two colons (_split_bubble_key): after a composer id that holds
    # a colon, the bubble id starts at that colon rather than after the prefix.
    start = None if ":" in composer_id else len(prefix.encode())
    return [
        tuple.__new__(
            _Bubble,
            (
                (
                    raw_key[start:].decode("utf-8", "replace")
                    if start is not None and type(raw_key) is bytes
                    else _split_bubble_key(_key_text(raw_key))[1]
                ),
                raw_key,
                stored if type(stored) is bytes else None,
            ),
        )
        for _, raw_key, stored in snapshot.iter_prefix_raw(DISK_KV, prefix)
    ]


def _read_composer(
    snapshot: Snapshot,
    meta: ConversationMeta,
    adapter: CursorAdapter,
    tree: Mapping[str, list[str]],
) -> ParsedConversation:
    """A composer from the global store: its document, then its bubbles in header order."""
    ledger = _Ledger()
    row = _get_document(snapshot, meta)
    kind = meta.locator.get("kind", COMPOSER)
    if row is None and kind == COMPOSER:
        raise SourceUnavailableError(
            meta.path, f"composer {meta.id} is no longer in the database", "Scan again."
        )
    document: dict[str, Any] = {}
    raw = as_text(row.values[0]) if row is not None else None
    if row is not None:
        where = f"row {COMPOSER_PREFIX}{meta.id}"
        ok, value = _loads(raw) if raw is not None else (False, None)
        if raw is None:
            ledger.bad(where, "the composer document is NULL; bubbles ordered by time")
        elif not ok or not isinstance(value, dict):
            ledger.bad(where, "the composer document is not a JSON object; bubbles ordered by time")
        else:
            ledger.use()
            document = value
            ledger.version("composer", document.get("_v"), NEWEST_COMPOSER_V)
    bubbles = _read_bubbles(snapshot, meta.id)
    builder = _Builder(meta.id, ledger)
    _order_bubbles(document, bubbles, builder)
    subagents = [
        _read_composer(snapshot, _child_meta(meta, child, snapshot), adapter, tree)
        for child in tree.get(meta.id, [])
    ]
    return builder.conversation(
        meta,
        adapter,
        title=_clean_title(document.get("name")),
        created_at=_time(document.get("createdAt")),
        updated_at=_time(document.get("lastUpdatedAt")),
        project=_identifier_project(document.get("workspaceIdentifier")),
        subagents=subagents,
    )


def _get_document(snapshot: Snapshot, meta: ConversationMeta) -> Row | None:
    """The ``composerData`` row of ``meta.id``, or ``None``.

    The table is looked for only when the read fails (one transaction less per composer), to
    tell a database without ``cursorDiskKV`` from one that cannot be read at all.
    """
    try:
        return snapshot.get(DISK_KV, f"{COMPOSER_PREFIX}{meta.id}")
    except SourceUnavailableError as exc:
        # A locked database is reported as it is: asking it for its tables would only wait
        # through a second busy window.
        if "locked" not in exc.reason and DISK_KV not in snapshot.tables():
            raise SourceUnavailableError(meta.path, f"no {DISK_KV} table", "Scan again.") from None
        raise


def _order_bubbles(document: dict[str, Any], bubbles: list[_Bubble], builder: _Builder) -> None:
    """Feed the bubbles to ``builder`` in turn order, and account for the ones not shown.

    ``fullConversationHeadersOnly`` is the order when it lists anything; bubbles it leaves out
    are discarded edits. Else an inline ``conversation`` is the order (its elements are the
    bubbles; rows repeating them are skipped). Else, with no order recorded at all, the bubbles
    are ordered by their timestamps, and the conversation says so in a warning.
    """
    headers = document.get("fullConversationHeadersOnly")
    inline = document.get("conversation")
    if isinstance(headers, list) and headers:
        listed = _match_headers(headers, bubbles, builder.ledger)
        for _ in range(len(bubbles) - len(listed)):  # each row is listed at most once
            builder.ledger.skip("bubble not in fullConversationHeadersOnly (discarded edit)")
        builder.add_rows(listed)
    elif isinstance(inline, list) and inline:
        # Ids only: a damaged inline bubble's id may be a list, which a set cannot hold.
        inline_ids = {
            b["bubbleId"]
            for b in inline
            if isinstance(b, dict) and isinstance(b.get("bubbleId"), str)
        }
        for index, value in enumerate(inline):
            builder.add_inline(value, index, f"conversation[{index}]")
        for bubble in bubbles:
            reason = (
                "repeats an inline bubble"
                if bubble.id in inline_ids
                else "not in the inline conversation"
            )
            builder.ledger.skip(f"bubble row {reason}")
    elif bubbles:
        builder.ledger.warnings.append(
            "no turn order recorded (no fullConversationHeadersOnly or conversation): "
            "bubbles are ordered by their timestamps"
        )
        builder.add_rows(sorted(bubbles, key=_time_order))


def _match_headers(headers: list[Any], bubbles: list[_Bubble], ledger: _Ledger) -> list[_Bubble]:
    """The bubble row each header names: by the id in its key, else by the id inside it."""
    by_key = {bubble.id: bubble for bubble in bubbles}
    unlisted = dict(by_key)  # a row leaves it when a header names it: each is listed once
    by_inner: dict[str, _Bubble] | None = None  # built at the first header its key misses
    listed: list[_Bubble] = []
    for index, header in enumerate(headers):
        bubble_id = header.get("bubbleId") if type(header) is dict else None
        match = unlisted.pop(bubble_id, None) if type(bubble_id) is str else None
        if match is None:  # rare: say why, or find the row by the id inside it
            where = f"fullConversationHeadersOnly[{index}]"
            if type(bubble_id) is not str:
                ledger.warnings.append(f"{where} names no bubble")
                continue
            if bubble_id in by_key:
                ledger.warnings.append(f"{where} repeats {bubble_id!r}")
                continue
            by_inner = _by_inner_id(bubbles) if by_inner is None else by_inner
            match = by_inner.get(bubble_id)
            if match is None:
                ledger.warnings.append(f"{where} names bubble {bubble_id!r}, which has no row")
                continue
            if unlisted.get(match.id) is not match:
                ledger.warnings.append(f"{where} repeats {bubble_id!r}")
                continue
            del unlisted[match.id]
        listed.append(match)
    return listed


def _by_inner_id(bubbles: list[_Bubble]) -> dict[str, _Bubble]:
    """The bubbles whose own ``bubbleId`` differs from the id in their key, by that id."""
    by_inner: dict[str, _Bubble] = {}
    for bubble in bubbles:
        inner = bubble.inner_id()
        if inner is not None and inner != bubble.id:
            by_inner.setdefault(inner, bubble)
    return by_inner


def _time_order(bubble: _Bubble) -> tuple[bool, datetime, str]:
    value = bubble.value()
    stamp = _bubble_time(value) if isinstance(value, dict) else None
    return stamp is None, stamp or datetime.min.replace(tzinfo=UTC), bubble.id


def _child_meta(parent: ConversationMeta, child: str, snapshot: Snapshot) -> ConversationMeta:
    """The meta of a sub-agent composer, fingerprinted from its own rows."""
    row = snapshot.get_raw(DISK_KV, f"{COMPOSER_PREFIX}{child}")
    document_digest = _document_digest(*row) if row is not None else ""
    bubbles = snapshot.key_run(DISK_KV, BUBBLE_PREFIX, child)
    return ConversationMeta(
        source=parent.source,
        id=child,
        path=parent.path,
        fingerprint=_fingerprint(_composer_digest(document_digest, bubbles)),
        size=parent.size,
        mtime=parent.mtime,
        project_path=parent.project_path,
        locator={"kind": COMPOSER, "parent": parent.id},
    )


# --- inline composers and legacy tabs ----------------------------------------------------------


def _read_inline(
    snapshot: Snapshot, meta: ConversationMeta, adapter: CursorAdapter
) -> ParsedConversation:
    """A late-2024 composer whose bubbles are inline in the workspace's composer list."""
    entry = _listed_entry(snapshot, meta, COMPOSER_LIST, ("allComposers", "composerId"), "composer")
    ledger = _Ledger()
    ledger.use()
    builder = _Builder(meta.id, ledger)
    conversation = entry.get("conversation")
    for index, value in enumerate(conversation if isinstance(conversation, list) else ()):
        builder.add_inline(value, index, f"{COMPOSER_LIST} {meta.id} conversation[{index}]")
    return builder.conversation(
        meta,
        adapter,
        title=_clean_title(entry.get("name")),
        created_at=_time(entry.get("createdAt")),
        updated_at=_time(entry.get("lastUpdatedAt")),
    )


def _read_tab(
    snapshot: Snapshot, meta: ConversationMeta, adapter: CursorAdapter
) -> ParsedConversation:
    """A tab of the legacy chat pane: bubbles of type ``"user"`` and ``"ai"``, in array order."""
    key = meta.locator.get("key", LEGACY_CHATS[0])
    tab = _listed_entry(snapshot, meta, key, ("tabs", "tabId"), "chat tab")
    ledger = _Ledger()
    ledger.use()
    builder = _Builder(meta.id, ledger)
    bubbles = tab.get("bubbles")
    for index, value in enumerate(bubbles if isinstance(bubbles, list) else ()):
        builder.add_inline(value, index, f"{key} tab {meta.id} bubbles[{index}]")
    return builder.conversation(
        meta,
        adapter,
        title=_clean_title(tab.get("chatTitle")),
        updated_at=_time(tab.get("lastSendTime")),
    )


def _listed_entry(
    snapshot: Snapshot, meta: ConversationMeta, key: str, fields: tuple[str, str], what: str
) -> dict[str, Any]:
    """The entry for ``meta.id`` in the list ``fields[0]`` of the JSON value at ``key``.

    ``fields[1]`` is the id field of each entry. A conversation listed by scan but gone by now
    raises :class:`SourceUnavailableError`: the caller should scan again.
    """
    holder = _get_json(snapshot, ITEM_TABLE, key)
    entries = holder.get(fields[0]) if isinstance(holder, dict) else None
    for entry in entries if isinstance(entries, list) else ():
        if isinstance(entry, dict) and entry.get(fields[1]) == meta.id:
            return entry
    raise SourceUnavailableError(
        meta.path, f"{what} {meta.id} is no longer in {key}", "Scan again."
    )


# --- bubbles into messages -----------------------------------------------------------------------


class _Builder:
    """The messages of one conversation, built bubble by bubble with every record accounted.

    Each message is one bubble used: they are told to the ledger together, by
    :meth:`conversation`, rather than by a call per bubble.
    """

    def __init__(self, conversation_id: str, ledger: _Ledger) -> None:
        self.conversation_id = conversation_id
        self.ledger = ledger
        self.messages: list[Message] = []
        self.ids: set[str] = set()

    def add_rows(self, bubbles: Iterable[_Bubble]) -> None:
        """Add bubble rows in this order, each decoded here (see :class:`_Bubble`)."""
        for bubble in bubbles:  # a loop here rather than a call per row
            data = bubble.data
            value = None if data is None else jsonvalue.decode(data)
            if type(value) is dict:  # the common case first
                self._add(value, bubble.id, bubble)
            elif isinstance(value, jsonvalue.Invalid):
                self.ledger.bad(bubble.where, "not valid JSON")
            elif value is None:
                self.ledger.skip("bubble row with a NULL value")
                self.ledger.warnings.append(f"{bubble.where}: NULL value, no message to show")
            else:
                self.ledger.keep(bubble.where, None, bubble.raw or jsonvalue.encode(value))

    def add_inline(self, value: Any, index: int, where: str) -> None:
        if not isinstance(value, dict):
            self.ledger.keep(where, None, jsonvalue.encode(value))
            return
        for field_name in ("bubbleId", "id"):
            if isinstance(value.get(field_name), str) and value[field_name]:
                self._add(value, value[field_name], where)
                return
        self._add(value, f"#{index}", where)

    def _add(self, bubble: dict[str, Any], bubble_id: str, origin: _Bubble | str) -> None:
        """Add one bubble; ``origin`` is its row, or where in a value an inline bubble was.

        Run once per bubble, so optional fields cost a lookup and a truth test when absent or
        empty, as most are (``codeBlocks``, ``images``, ``toolFormerData``, thinking, the model):
        the function that reads one is called only when it is there.
        """
        kind = bubble.get("type")
        # type(), not isinstance(): True == 1 must not make a user bubble, nor a list raise.
        role = _ROLES.get(kind) if type(kind) is int or type(kind) is str else None
        if role is None:
            where, raw = (origin, None) if isinstance(origin, str) else (origin.where, origin.raw)
            self.ledger.keep(
                where, f"bubble type {kind!r}", raw if raw is not None else jsonvalue.encode(bubble)
            )
            return
        version = bubble.get("_v")
        if type(version) is int and version > NEWEST_BUBBLE_V:
            self.ledger.version("bubble", version, NEWEST_BUBBLE_V)
        text = bubble.get("text")
        if type(text) is not str or not text or text.isspace():
            text = _text_when_blank(bubble)
        # Pasted images out, each left as a placeholder: the only cleaning a bubble's strings
        # need, as the decoder repaired them (no lone surrogates).
        text, payloads = strip_data_uri_images(text)
        blocks = bubble.get("codeBlocks")
        if blocks:
            text = _with_code_blocks(text, blocks)
        has_thinking = bubble.get("allThinkingBlocks") or bubble.get("thinking")
        thinking = _thinking(bubble) if has_thinking else None
        tool = bubble.get("toolFormerData")
        call = _tool_call(tool) if tool else None
        context = bubble.get("context")
        has_images = (
            payloads
            or bubble.get("images")
            or (type(context) is dict and context.get("selectedImages"))
        )
        images = _images(payloads, bubble) if has_images else ()
        if (not text or text.isspace()) and not (thinking or call or images):
            self.ledger.skip(f"empty {role} bubble")
            return
        counts = bubble.get("tokenCount")
        request_id = bubble.get("requestId")
        message_id = self._unique(bubble_id) if bubble_id in self.ids else bubble_id
        self.ids.add(message_id)
        self.messages.append(
            _build.message(
                id=message_id,
                role=role,
                text=text,
                thinking=thinking,
                tool_calls=() if call is None else (call,),
                images=images,
                timestamp=_bubble_time(bubble),
                model=_model(bubble) if "modelInfo" in bubble or "modelType" in bubble else None,
                usage=_usage(counts, self.conversation_id, bubble_id) if counts else None,
                request_id=request_id if type(request_id) is str and request_id else None,
            )
        )

    def _unique(self, bubble_id: str) -> str:
        """``bubble_id`` made unique among the conversation's message ids: ``<id>#2``, ..."""
        candidate, n = bubble_id, 1
        while candidate in self.ids:
            n += 1
            candidate = f"{bubble_id}#{n}"
        return candidate

    def conversation(  # noqa: PLR0913 -- keyword-only fields, named at every call
        self,
        meta: ConversationMeta,
        adapter: CursorAdapter,
        *,
        title: str | None = None,
        created_at: datetime | None = None,
        updated_at: datetime | None = None,
        project: str | None = None,
        subagents: Iterable[ParsedConversation] = (),
    ) -> ParsedConversation:
        self.ledger.use(len(self.messages))
        stamps = [m.timestamp for m in self.messages if m.timestamp is not None]
        first_prompt = next((m.text for m in self.messages if m.role == "user" and m.text), None)
        return ParsedConversation(
            source=adapter.name,
            id=meta.id,
            meta=meta,
            parser_version=adapter.parser_version,
            title=title or meta.title or _title(first_prompt),
            project_path=meta.project_path or project,
            created_at=created_at or meta.created_at or (min(stamps) if stamps else None),
            updated_at=updated_at or meta.updated_at or (max(stamps) if stamps else None),
            messages=self.messages,
            subagents=tuple(subagents),
            diagnostics=self.ledger.diagnostics(),
        )


def _text_when_blank(bubble: Mapping[str, Any]) -> str:
    """A bubble's text when ``text`` is blank: ``rawText`` (legacy), else ``richText`` flattened."""
    raw = bubble.get("rawText")
    if isinstance(raw, str) and not _blank(raw):
        return raw
    rich = bubble.get("richText")
    if isinstance(rich, str) and not _blank(rich):
        ok, state = _loads(rich)
        if ok and isinstance(state, dict):
            return _lexical_text(state.get("root")).strip()
        return rich  # not Lexical JSON: plain text stored under that name
    return ""


def _lexical_text(node: object) -> str:
    """The visible text of a Lexical editor-state node: text leaves, line breaks, blocks."""
    if not isinstance(node, dict):
        return ""
    if node.get("type") == "linebreak":
        return "\n"
    text = node.get("text")
    if isinstance(text, str):
        return text
    children = node.get("children")
    parts = [_lexical_text(child) for child in (children if isinstance(children, list) else ())]
    blocks = [
        isinstance(child, dict) and child.get("type") in _LEXICAL_BLOCKS
        for child in (children if isinstance(children, list) else ())
    ]
    return "".join(p + ("\n" if block else "") for p, block in zip(parts, blocks, strict=True))


def _with_code_blocks(text: str, blocks: object) -> str:
    """Append each code block whose ``content`` is not already in the text, fenced.

    Late-2024 bubbles write their code into ``text`` and list only URIs in ``codeBlocks``; newer
    ones may hold the code only in ``codeBlocks[].content``. Either way the code ends up in the
    message text once.
    """
    for block in blocks if isinstance(blocks, list) else ():
        content = block.get("content") if isinstance(block, dict) else None
        if not isinstance(content, str) or not content.strip() or content.strip() in text:
            continue
        language = block.get("languageId")
        fence = "```" + (language if isinstance(language, str) else "")
        text = (
            f"{text}\n\n{fence}\n{content.rstrip()}\n```"
            if text.strip()
            else f"{fence}\n{content.rstrip()}\n```"
        )
    return text


def _thinking(bubble: Mapping[str, Any]) -> str | None:
    """``allThinkingBlocks`` joined, else ``thinking`` as a string or a ``{text, signature}``."""
    blocks = bubble.get("allThinkingBlocks")
    if blocks and isinstance(blocks, list):
        texts = [text for text in map(_thought, blocks) if text]
        if texts:
            return "\n\n".join(texts)
    thinking = bubble.get("thinking")
    return _thought(thinking) if thinking else None  # most bubbles have none


def _thought(value: object) -> str | None:
    if isinstance(value, str):
        return None if _blank(value) else value
    if isinstance(value, dict):
        for name in ("text", "thinking"):
            text = value.get(name)
            if isinstance(text, str) and not _blank(text):
                return text
    return None


def _tool_call(data: object) -> ToolCall | None:
    """``toolFormerData`` as a call: arguments decoded from ``params`` (else ``rawArgs``)."""
    if not isinstance(data, dict) or not data:
        return None
    name = data.get("name")
    arguments: Any = None
    for source in ("params", "rawArgs"):
        value = data.get(source)
        if isinstance(value, str) and not _blank(value):
            ok, decoded = _loads(value)
            arguments = decoded if ok else value
            break
        if isinstance(value, (dict, list)):
            arguments = value
            break
    result = data.get("result")
    output = result if isinstance(result, str) or result is None else jsonvalue.encode(result)
    status = data.get("status")
    failed = True if status in FAILED_STATUSES else False if status in SUCCEEDED_STATUSES else None
    if output is not None:
        output = strip_data_uri_images(output)[0]
    return _build.tool_call(
        id=_str(data.get("toolCallId")),
        name=name if isinstance(name, str) and name else f"tool {data.get('tool', '?')}",
        input=arguments,
        output=output,
        is_error=failed,
    )


def _images(payloads: tuple[ImagePayload, ...], bubble: Mapping[str, Any]) -> tuple[ImageRef, ...]:
    """The bubble's images: pasted into its text (``payloads``), then attached, counted only.

    Attached images are ``images``, else ``context.selectedImages``.
    """
    attached = bubble.get("images")
    if not (attached and isinstance(attached, list)):
        context = bubble.get("context")
        attached = context.get("selectedImages") if isinstance(context, dict) else None
        if not (attached and isinstance(attached, list)):
            attached = ()
    if not (payloads or attached):
        return ()
    pasted = [_build.image(media_type=p.media_type, byte_size=p.byte_size) for p in payloads]
    return (*pasted, *(_build.image() for _ in attached))


def _model(bubble: Mapping[str, Any]) -> str | None:
    info = bubble.get("modelInfo")
    name = info.get("modelName") if isinstance(info, dict) else None
    if isinstance(name, str) and name:
        return name
    legacy = bubble.get("modelType")
    return legacy if isinstance(legacy, str) and legacy else None


def _usage(counts: object, conversation_id: str, bubble_id: str) -> Usage | None:
    """``tokenCount``, when it holds anything but zeros (which Cursor writes almost always)."""
    if type(counts) is not dict:
        return None
    # _fields.as_count, written out: this runs for nearly every bubble.
    input_tokens = counts.get("inputTokens")
    if type(input_tokens) is not int or input_tokens < 0:
        input_tokens = None
    output_tokens = counts.get("outputTokens")
    if type(output_tokens) is not int or output_tokens < 0:
        output_tokens = None
    if not (input_tokens or output_tokens):
        return None
    return _build.usage(
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        dedup_key=f"cursor:{conversation_id}:{bubble_id}",
    )


def _bubble_time(bubble: Mapping[str, Any]) -> datetime | None:
    """``createdAt`` (ISO text or epoch ms), else the first ``timingInfo`` time in epoch ms."""
    stamp = _time(bubble.get("createdAt"))
    if stamp is not None:
        return stamp
    timing = bubble.get("timingInfo")
    if isinstance(timing, dict):
        for name in TIMING_FIELDS:
            value = timing.get(name)
            if (
                isinstance(value, (int, float))
                and not isinstance(value, bool)
                and value >= _EPOCH_MS_MIN
            ):
                return _time(value)
    return None


# --- small readers -------------------------------------------------------------------------------


def _get_json(snapshot: Snapshot, table: str, key: str) -> Any:
    """The decoded value of one key, or ``None`` when it is missing, NULL or not JSON."""
    row = snapshot.get(table, key)
    raw = as_text(row.values[0]) if row is not None else None
    if raw is None:
        return None
    ok, value = _loads(raw)
    return value if ok else None


def _loads(text: str | bytes | None) -> tuple[bool, Any]:
    """Decode one JSON value held in a string or its UTF-8 bytes: ``(ok, value)``.

    SQL NULL is a JSON null. Invalid UTF-8 in bytes becomes U+FFFD, as when decoded first.
    """
    if text is None:
        return True, None
    decoded = jsonvalue.decode(text)
    return (False, None) if isinstance(decoded, jsonvalue.Invalid) else (True, decoded)


def _digest(value: object) -> str:
    """A stable hash of a decoded value (dicts keep their stored key order)."""
    return hashlib.sha256(repr(value).encode("utf-8", "surrogatepass")).hexdigest()


def _document_digest(rowid: int, stored: object) -> str:
    """A composer document's row as stored: its ``rowid`` and its bytes (NULL, a number: repr).

    The bytes, not the decoded text: a ``repr`` of 5 KB of text cost as much as decoding it.
    """
    digest = hashlib.sha256(b"%d\x1f" % rowid)
    digest.update(stored if type(stored) is bytes else repr(stored).encode())
    return digest.hexdigest()


def _composer_digest(document_digest: str, bubbles: KeyRun | None) -> str:
    """A composer's own data: its document, and its bubble rows counted by :class:`KeyRun`.

    The bubble rows are counted by SQLite rather than read: a bubble added, removed or
    rewritten (Cursor replaces the row, which gives it a new ``rowid``) changes the count.
    """
    counts = (bubbles.rows, bubbles.max_rowid, bubbles.rowid_sum) if bubbles else ()
    return _digest((document_digest, counts))


def _fingerprint(*parts: str) -> str:
    joined = "\x1f".join(parts).encode("utf-8", "surrogatepass")
    return "cursor:" + hashlib.sha256(joined).hexdigest()[:_FINGERPRINT_LENGTH]


def _time(value: object) -> datetime | None:
    """A time stored as epoch milliseconds or ISO-8601 text (a zone-less one is taken as UTC)."""
    if isinstance(value, str):  # first: every bubble has one
        try:
            stamp = datetime.fromisoformat(value)
        except ValueError:  # also for ""
            return None
        return stamp if stamp.tzinfo is not None else stamp.replace(tzinfo=UTC)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if value <= 0:
            return None
        try:
            return datetime.fromtimestamp(value / 1000, UTC)
        except (OverflowError, OSError, ValueError):
            return None
    return None


def _identifier_project(identifier: object) -> str | None:
    """The project of a composer's ``workspaceIdentifier``: its URI decoded, else its fsPath."""
    uri = identifier.get("uri") if isinstance(identifier, dict) else None
    if isinstance(uri, str) and uri:
        return uri_to_project_path(uri, uri_platform(uri))
    if isinstance(uri, dict):
        external = uri.get("external")
        if isinstance(external, str) and external:
            return uri_to_project_path(external, uri_platform(external))
        for name in ("fsPath", "path"):
            if isinstance(uri.get(name), str) and uri[name]:
                return str(uri[name])
    return None


def _blank(text: str) -> bool:
    """``not text.strip()``, without copying a long text to find out."""
    return not text or text.isspace()


def _str(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def _is_int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _clean_title(value: object) -> str | None:
    if not isinstance(value, str) or not value.strip():
        return None
    return " ".join(value.split())


def _title(prompt: str | None) -> str | None:
    """A title from the first prompt: its first line, cut to a readable length."""
    if not prompt or not prompt.strip():
        return None
    line = " ".join(prompt.strip().splitlines()[0].split())
    return line if len(line) <= _TITLE_LENGTH else line[: _TITLE_LENGTH - 1].rstrip() + "…"
