r"""Trae, Trae CN and TRAE SOLO CN: the agent chat sessions Trae keeps in workspace databases.

Where they are, under the ``User`` directory of each product (``Trae``, ``Trae CN``,
``TRAE SOLO CN``; ``%APPDATA%\<product>\User`` on Windows, ``~/Library/Application
Support/<product>/User`` on macOS, ``~/.config/<product>/User`` on Linux):

* ``workspaceStorage/<workspace id>/state.vscdb``, table ``ItemTable``, key
  ``memento/icube-ai-agent-storage``: one JSON value (TEXT or a UTF-8 BLOB) holding
  ``{"list": [<session>...], "currentSessionId"}``. It can be large: up to 64 MiB it is decoded
  at once (session by session from their own bytes, when it is written compactly), beyond that
  streamed one session at a time.
* the same table, key ``icube-ai-agent-storage-input-history``: an array of past prompts
  ``[{"inputText", "parsedQuery", "multiMedia", "files"}...]``, read only for sessions whose
  ``messages`` are empty (newer Trae CN builds).
* the same table, older keys ``memento/icube-ai-chat-storage-<n>`` and
  ``memento/icube-ai-ng-chat-storage-<n>``: read with the same rules when they hold sessions with
  messages; otherwise ``chatparse doctor`` says they were left alone.
* ``workspace.json`` beside the database: the project, as a URI.

Not read: ``<product>/ModularData/ai-agent/database.db``, the store of newer builds, which is
encrypted (``chatparse doctor`` says so when it exists).

A session is ``{"sessionId", "title"?, "name"?, "createdAt"?, "updatedAt"?, "hasMore"?,
"messages": [...]}``, times in epoch milliseconds. A message is ``{"role", "content",
"turnIndex", "turnId", "timestamp", ...}``; a user message adds ``parsedQuery`` (the prompt
without file references), an assistant message ``status``, ``modelInfo`` and
``agentTaskContent`` = ``{"proposal", "proposalReasoningContent", "guideline": {"thought",
"planItems": [{"toolName", "thought", "reasoningContent"}...]}}`` (sometimes as a JSON string).
Assistant ``content`` is usually empty: the answer is the proposal, else the ``thought`` of the
``finish`` plan step, else the guideline's ``thought``.

A **record** is one entry of a session's ``messages`` array, or one input-history entry used in
its place. Each is used, skipped as known noise, malformed or kept raw as unknown: see
``docs/sources/trae.md``.
"""

from __future__ import annotations

import hashlib
import os
import re
import threading
from collections import Counter, OrderedDict
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Final, Literal, TypeVar

from attrs import define, field

from chatparse.adapters import _build
from chatparse.adapters._fields import as_text
from chatparse.adapters._ledger import Ledger
from chatparse.adapters._paths import is_file, passed_over
from chatparse.adapters._vscode import (
    WORKSPACE_DB,
    existing_user_dirs,
    workspace_dirs,
    workspace_project_path,
)
from chatparse.decoders import bigjson
from chatparse.decoders import value as jsonvalue
from chatparse.decoders.sqlite import Snapshot, open_snapshot
from chatparse.decoders.text import strip_data_uri_images
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
)

__all__ = ["TraeAdapter"]

# --- where the data is ---------------------------------------------------------------------------

PRODUCTS: Final = ("Trae", "Trae CN", "TRAE SOLO CN")
TABLE: Final = "ItemTable"
STORE_KEY: Final = "memento/icube-ai-agent-storage"
INPUT_HISTORY_KEY: Final = "icube-ai-agent-storage-input-history"
LEGACY_PREFIXES: Final = ("memento/icube-ai-chat-storage-", "memento/icube-ai-ng-chat-storage-")
ENCRYPTED_DB: Final = Path("ModularData") / "ai-agent" / "database.db"
"""Relative to the product folder (the parent of ``User``)."""

# --- what the records say ------------------------------------------------------------------------

FINISH_TOOL: Final = "finish"
_DONE: Final = frozenset({"completed", "complete", "success", "succeeded", "done", "finished"})
_FAILED: Final = frozenset({"failed", "fail", "error", "errored"})
_CANCELLED: Final = frozenset(
    {"cancelled", "canceled", "cancel", "aborted", "stopped", "interrupted"}
)
# Where a plan step keeps its arguments and result; not documented, so taken when present.
_STEP_INPUT_KEYS: Final = ("params", "toolParams", "input", "arguments", "args")
_STEP_OUTPUT_KEYS: Final = ("result", "toolResult", "output")
_STEP_ID_KEYS: Final = ("toolCallId", "id")
_MODEL_KEYS: Final = ("display_model_name", "model_name", "modelName", "config_name", "name")
_ERROR_KEYS: Final = ("errorMessage", "error_message", "errorMsg", "error")

_T = TypeVar("_T")

_TITLE_LENGTH: Final = 100
_ONE_MS: Final = timedelta(milliseconds=1)
_MS_DIGITS: Final = 20
_WHOLE_VALUE_LIMIT: Final = 64 * 1024 * 1024
"""The largest store value decoded at once; larger ones are streamed one item at a time.

Decoding at once is about three times faster than streaming, but holds the whole tree: about
2.4 times the value's size in Python objects (measured on the benchmark's 27.6 MB store), so at
most some 160 MB. Stores this large are rare (hundreds of kB is common); the bound keeps a
freak one from taking gigabytes.
"""
_CACHED_BYTES: Final = 64 * 1024 * 1024
"""How much store value the adapter keeps read for later calls (the latest database always)."""
_ENTRY_BYTES: Final = 1024
"""What a cache entry counts for besides its store values, so that empty stores count too."""


# --- the adapter ---------------------------------------------------------------------------------


class TraeAdapter:
    """Reads the agent chat sessions of Trae, Trae CN and TRAE SOLO CN.

    ``scan`` keeps the sessions it decoded, and ``parse`` keeps the parsed sessions, of recently
    read databases (up to :data:`_CACHED_BYTES` of store values), keyed by the database files'
    sizes and times: parsing every session that ``scan`` listed reads each store value once in
    all, unless the database changes in between.

    .. versionadded:: 0.1
    """

    name = "trae"
    display_name = "Trae"
    parser_version = "1"
    scan_reads_content: Final = (
        "workspaceStorage/*/state.vscdb",
        "workspaceStorage/*/workspace.json",
    )
    """``scan`` must read each workspace database: the sessions are inside one value of it."""

    def __init__(self) -> None:
        self._cache: OrderedDict[str, _Cached] = OrderedDict()
        """By database path, as the locators write it: no ``Path`` is built per parse."""
        self._lock = threading.Lock()
        self._parsing = 0
        """How many :meth:`parsing` blocks are open: within one, scan parses the sessions too."""

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
        found = (session for db in databases for session in self._scan_db(db))
        yield from _choose(self.name, found)

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
        yield from _choose(self.name, self._scan_db(path, strict=True))

    def parse(self, meta: ConversationMeta) -> ParsedConversation:
        """Parse one session from the store named in its locator (read once per store state)."""
        store = self._store(meta.locator.get("db", meta.path))
        where = (meta.locator.get("key", STORE_KEY), _count(meta.locator.get("position"), -1))
        session = store.sessions.get(where)
        if session is None or session.session_id != meta.id:
            # A meta from an older scan, or made by hand: the best copy of that id, if any.
            copies_here = [s for s in store.sessions.values() if s.session_id == meta.id]
            session = max(copies_here, key=_Session.size, default=None) or _Session.missing(meta.id)
        warnings = [*session.ledger.warnings, *store.problems]
        copies = _count(meta.locator.get("copies"), 1)
        if copies > 1:
            warnings.append(
                f"this session is stored {copies} times (in several workspace databases, or "
                "twice in one); the copy with the most messages is the one read"
            )
        return ParsedConversation(
            source=self.name,
            id=meta.id,
            meta=meta,
            parser_version=self.parser_version,
            title=session.title,
            project_path=meta.project_path,
            created_at=session.created_at,
            updated_at=session.updated_at,
            messages=session.messages,
            diagnostics=session.ledger.diagnostics(warnings),
        )

    @contextmanager
    def parsing(self) -> Iterator[Callable[[ConversationMeta], ParsedConversation]]:
        """:meth:`parse`, for a ``with`` block in which scan parses each session as it decodes it.

        :func:`chatparse.iter_conversations` scans inside the block, then parses every session
        listed. A session parsed right after it is decoded is read while its objects are still
        in the CPU's caches, and let go at once, so the decoded sessions never pile up (which
        the garbage collector would walk again and again): decoding and parsing the benchmark's
        1,000 sessions so took about a third less time than parsing them from the decoded store
        afterwards. The parsed sessions wait in the cache for ``parse``, as the decoded ones
        otherwise do; a scan outside such a block only decodes.
        """
        with self._lock:
            self._parsing += 1
        try:
            yield self.parse
        finally:
            with self._lock:
                self._parsing -= 1

    def _scan_db(self, db: Path, *, strict: bool = False) -> list[_Found]:
        """The sessions of one workspace database; an unreadable one is passed over with a warning.

        With ``strict``, an unreadable database raises instead: it was asked for by name.
        """
        try:
            stamp = _stamp(db)  # before reading: a change made meanwhile makes the entry stale
            scanned = _scan_db(db, parse=self._parsing > 0)
        except SourceUnavailableError as exc:
            if strict:
                raise
            passed_over(db, exc.reason)
            return []
        if scanned.content is not None:
            self._keep(str(db), _Cached(stamp, scanned.content))
        return scanned.found

    def _store(self, db: str) -> _Store:
        """The parsed sessions of one workspace database, from the cache while it is unchanged."""
        stamp = _stamp(db)
        with self._lock:
            cached = self._cache.get(db)
            held = cached.content if cached is not None and cached.stamp == stamp else None
            if isinstance(held, _Decoded):
                del self._cache[db]  # parsed below, which uses it up: no other call may share it
        if isinstance(held, _Store):
            store = held
        elif held is not None:  # decoded by scan: parsed without reading the database again
            store = held.store()
        else:
            store = _read_store(Path(db))
        self._keep(db, _Cached(stamp, store))
        return store

    def _keep(self, db: str, entry: _Cached) -> None:
        """Cache ``entry`` as the latest, dropping the oldest beyond :data:`_CACHED_BYTES`."""
        with self._lock:
            self._cache[db] = entry
            self._cache.move_to_end(db)
            held = sum(cached.weight for cached in self._cache.values())
            while held > _CACHED_BYTES and len(self._cache) > 1:
                _, dropped = self._cache.popitem(last=False)
                held -= dropped.weight


# --- finding the stores --------------------------------------------------------------------------


def _workspace_dbs(user_dir: Path) -> list[Path]:
    """Every ``workspaceStorage/<id>/state.vscdb`` under ``user_dir``, sorted by workspace id."""
    return [
        folder / WORKSPACE_DB
        for folder in workspace_dirs(user_dir)
        if is_file(folder / WORKSPACE_DB)
    ]


def _stamp(db: str | Path) -> tuple[object, ...]:
    """Size and modification and change times of a database and of the journal files beside it.

    The change time moves with the permissions too: a database made unreadable since it was
    read must fail to parse as it would have without the cache.
    """
    try:
        info = os.stat(db)  # noqa: PTH116 -- once per parse: no Path built
    except FileNotFoundError as exc:
        raise SourceUnavailableError(
            str(db), "no such file", "Scan again: the workspace database was moved or deleted."
        ) from exc
    except OSError as exc:  # a folder on the way that cannot be searched
        raise SourceUnavailableError(str(db), f"cannot read: {exc.strerror or exc}") from exc
    stamps: list[object] = [(info.st_size, info.st_mtime_ns, info.st_ctime_ns)]
    for suffix in ("-wal", "-journal"):
        try:
            info = os.stat(f"{db}{suffix}")  # noqa: PTH116 -- as above
        except OSError:
            stamps.append(None)
        else:
            stamps.append((info.st_size, info.st_mtime_ns, info.st_ctime_ns))
    return tuple(stamps)


@define
class _Raw:
    """One session object exactly as a store holds it, and where it was found."""

    key: str
    position: int
    session_id: str
    value: dict[str, Any]
    digest: str | None = None
    """The digest of the session's own bytes, when the value was split (see :func:`_split_list`)."""


@define
class _Notes:
    """What went wrong reading one workspace database's stores, in words for people."""

    problems: list[str] = field(factory=list)
    """Damage that may hide sessions; repeated as a warning on every session of the database."""
    remarks: list[str] = field(factory=list)
    """Facts about the database that hide no session (only ``doctor`` shows them)."""
    store_sessions: int = 0
    """Sessions found under the main key, to tell whether the input history is one session's."""
    size: int = 0
    """Bytes of the store values read."""
    streamed: bool = False
    """Whether a store value was too large (or too damaged) to decode at once, so was streamed."""


def _iter_sessions(snapshot: Snapshot, notes: _Notes, read: Callable[[_Raw], _T]) -> Iterator[_T]:
    """Every session of the main store, then of the older stores that hold messages.

    Each as ``read`` makes it of the session, as soon as the session is decoded (see
    :func:`_split_list`).
    """
    value = _value(snapshot, STORE_KEY)
    if value is not _ABSENT:
        for session in _store_sessions(STORE_KEY, value, notes, read):
            notes.store_sessions += 1
            yield session
    for prefix in LEGACY_PREFIXES:
        for _rowid, raw_key, value in snapshot.iter_prefix_raw(TABLE, prefix):
            key = raw_key.decode("utf-8", "replace") if isinstance(raw_key, bytes) else str(raw_key)
            found = _store_sessions(key, value, notes, _as_is)
            sessions = [raw for raw in found if _messages_of(raw.value)]
            if not sessions:
                notes.remarks.append(f"key {key} holds no session with messages; not read")
            yield from map(read, sessions)


def _as_is(raw: _Raw) -> _Raw:
    return raw


def _store_sessions(
    key: str, value: object, notes: _Notes, read: Callable[[_Raw], _T]
) -> Iterator[_T]:
    """The sessions of one store value, ``{"list": [<session>...]}``, each as ``read`` makes it."""
    if value is None:  # SQL NULL: an emptied store, not damage
        notes.remarks.append(f"key {key} is NULL; not read")
        return
    if not isinstance(value, bytes):
        notes.problems.append(f"key {key} holds no JSON text ({_kind(value)}); not read")
        return
    notes.size += len(value)

    def session(position: int, item: Any, digest: str | None) -> _T | None:
        session_id = _session_id(item)
        return None if session_id is None else read(_Raw(key, position, session_id, item, digest))

    split = _split_list(value, session) if len(value) <= _WHOLE_VALUE_LIMIT else None
    skipped = 0
    for made in _read_list(key, value, notes, session) if split is None else split:
        if made is None:
            skipped += 1
        else:
            yield made
    if skipped:
        notes.remarks.append(f"key {key}: {skipped} list item(s) without a sessionId; not read")


def _read_list(
    key: str, value: bytes, notes: _Notes, session: Callable[[int, Any, None], _T]
) -> Iterator[_T]:
    """The items of the store's ``list``, decoded whole (or streamed), as ``session`` makes them."""
    for item in _array_items(value, "list", notes):
        if isinstance(item, bigjson.Malformed):
            notes.problems.append(
                f"the value of key {key} is damaged at byte {item.offset} ({item.reason}); "
                "sessions stored after that point cannot be read"
            )
            return
        yield session(int(item.key), item.value, None)


_LIST: Final = b'"list":['


def _split_list(value: bytes, each: Callable[[int, Any, str], _T]) -> list[_T] | None:
    """``each(position, item, digest)`` of the items of ``{..., "list": [<item>, ...], ...}``.

    Decoding each session from its own bytes costs what decoding the whole value costs, and
    gives the session as stored to digest for its fingerprint: writing it back as JSON instead
    cost half as much again as the decode (every non-ASCII string encoded anew). ``each`` is
    called on every item as soon as it is decoded, so that the caller can read it while it is
    still in the CPU's caches, and let it go; what ``each`` makes counts only once every cut is
    proved (else this gives ``None`` and the caller reads the value whole), so it must not
    change anything else.

    JSON says nowhere where an item ends, so the list is cut where the next item seems to
    start: before each ``},{"<key>"`` with ``<key>`` the first key of the first item, as a
    compact writer (``JSON.stringify``) writes a list of objects. The cuts are proved, not
    trusted:

    - each piece decodes as one JSON value on its own, which it can only do if the cut before
      it was between two items (a cut inside an item or a string leaves some piece unbalanced);
    - the text around the list decodes, and its top-level ``list`` is this list, which the
      JSON text with this list as ``[]`` and then as ``[0]`` tells.

    Each piece is decoded inside ``[[...]]``, at the depth it has in the whole value, so that
    nesting too deep is refused exactly as by the whole decode. Anything else (whitespace
    between items, items that start with different keys, damage) gives ``None``: the caller
    then decodes the value whole, which gives the same items.
    """
    start, end = value.find(_LIST), value.rfind(b"]")
    if start < 0 or end < start:
        return None
    start += len(_LIST)
    head, tail = value[:start], value[end:]
    emptied, marked = jsonvalue.decode(head + tail), jsonvalue.decode(head + b"0" + tail)
    if not (
        isinstance(emptied, dict)
        and isinstance(marked, dict)
        and emptied.get("list") == []
        and marked.get("list") == [0]
    ):
        return None
    if start == end:
        return []
    first = value.find(b'"', start + 2)  # the end of the first item's first key
    if not value.startswith(b'{"', start) or not start < first < end:
        return None
    cut = b"}," + value[start : first + 1]
    whole = memoryview(value)
    items: list[_T] = []
    while start < end:
        found = value.find(cut, start, end)
        stop = end if found < 0 else found + 1
        nested = b"".join((b"[[", whole[start:stop], b"]]"))
        decoded = jsonvalue.decode(nested)
        # One array holding one array (as ``nested`` starts with ``[[``) of one item: ``[[1],[2]]``
        # or ``[[1,2]]`` would be a cut in the wrong place.
        if isinstance(decoded, jsonvalue.Invalid) or len(decoded) != 1 or len(decoded[0]) != 1:
            return None
        # The digest of ``[<item>]``: what :func:`_digest` takes of the item written back.
        items.append(each(len(items), decoded[0][0], _digest_bytes(memoryview(nested)[1:-1])))
        start = stop + 1
    return items


def _array_items(
    value: bytes, key: str | None, notes: _Notes
) -> Iterator[bigjson.Item | bigjson.Malformed]:
    """The items of the array under the top-level ``key`` of ``value`` (``None``: the top level).

    A value up to :data:`_WHOLE_VALUE_LIMIT` is decoded at once with the fast decoder. A larger
    one is streamed, and so is one that does not decode: streaming yields the items before the
    damage and then the byte where it is.
    """
    if len(value) <= _WHOLE_VALUE_LIMIT:
        decoded = jsonvalue.decode(value)
        if not isinstance(decoded, jsonvalue.Invalid):
            if key is not None:
                decoded = decoded.get(key) if isinstance(decoded, dict) else None
            if isinstance(decoded, list):
                yield from (bigjson.Item(index, item) for index, item in enumerate(decoded))
            return
    notes.streamed = True
    # Streaming reads the bytes as they are: invalid UTF-8 is replaced first, as everywhere.
    value = value.decode("utf-8", "replace").encode()
    yield from bigjson.iter_items(value, "item" if key is None else f"{key}.item")


_ABSENT: Final = object()


def _value(snapshot: Snapshot, key: str) -> object:
    """The value of ``key`` as stored (TEXT and BLOB as bytes), or ``_ABSENT``.

    The bytes go to the decoder as they are, not through ``str`` and back: the decoder repairs
    invalid UTF-8 itself (see :func:`_array_items` for the streamed case).
    """
    row = snapshot.get_raw(TABLE, key)
    return _ABSENT if row is None else row[1]


def _session_id(session: object) -> str | None:
    if not isinstance(session, dict):
        return None
    value = session.get("sessionId")
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return str(value)
    return value if isinstance(value, str) and value.strip() else None


def _input_history(snapshot: Snapshot, notes: _Notes) -> list[Any]:
    """The entries of ``icube-ai-agent-storage-input-history`` (an array), or none."""
    value = _value(snapshot, INPUT_HISTORY_KEY)
    if value is _ABSENT:
        return []
    if not isinstance(value, bytes):
        notes.remarks.append(f"key {INPUT_HISTORY_KEY} holds no JSON text; not read")
        return []
    entries: list[Any] = []
    for item in _array_items(value, None, notes):
        if isinstance(item, bigjson.Malformed):
            notes.problems.append(
                f"the value of key {INPUT_HISTORY_KEY} is damaged at byte {item.offset} "
                f"({item.reason}); inputs stored after that point cannot be read"
            )
            break
        entries.append(item.value)
    return entries


def _attributed_inputs(entries: list[Any], session_id: str, *, sole: bool) -> list[tuple[int, Any]]:
    """The input-history entries that belong to one session.

    An entry that names its session (``sessionId``) belongs to it. Entries that name none (the
    usual case) are the workspace's, not a session's: they are given to a session only when it is
    the only session of the workspace's store, where there is no doubt whose they are.
    """
    found: list[tuple[int, Any]] = []
    for index, entry in enumerate(entries):
        owner = _owner(entry)
        if owner == session_id or (owner is None and sole):
            found.append((index, entry))
    return found


def _owner(entry: object) -> str | None:
    """The session an input-history entry names, if it names one."""
    owner = entry.get("sessionId") if isinstance(entry, dict) else None
    return owner if isinstance(owner, str) and owner else None


def _explain_db(db: Path) -> Iterator[str]:
    """What ``doctor`` should know about one workspace database: its damage and its leftovers."""
    notes = _Notes()
    try:
        with open_snapshot(db) as snapshot:
            count = sum(1 for _ in _iter_sessions(snapshot, notes, _as_is))
            _input_history(snapshot, notes)
    except SourceUnavailableError as exc:
        yield f"{db}: cannot be read ({exc.reason}), so its sessions are not listed"
        return
    if notes.problems or notes.remarks:
        yield f"{db}: {count} session(s)"
        yield from (f"  {line}" for line in (*notes.problems, *notes.remarks))


# --- scan: what each session is, without parsing it ----------------------------------------------


@define
class _Found:
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

    def beats(self, other: _Found) -> bool:
        """Whether this copy wins over ``other``: more messages, then updated later."""
        mine = (self.message_count, _epoch(self.updated_at))
        theirs = (other.message_count, _epoch(other.updated_at))
        return mine > theirs

    def meta(self, source: str, copies: int, file: _FileInfo) -> ConversationMeta:
        size, mtime = file
        locator = {"db": str(self.db), "key": self.key, "position": str(self.position)}
        if copies > 1:
            locator["copies"] = str(copies)
        return _build.conversation_meta(
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


def _choose(source: str, found: Iterable[_Found]) -> Iterator[ConversationMeta]:
    """One meta per session id: the winning copy, grouped by database, then by id.

    Grouping by database means that parsing in this order reads each store once.
    """
    chosen: dict[str, _Found] = {}
    copies: Counter[str] = Counter()
    for candidate in found:
        copies[candidate.session_id] += 1
        known = chosen.get(candidate.session_id)
        if known is None or candidate.beats(known):
            chosen[candidate.session_id] = candidate
    files: dict[Path, _FileInfo] = {}  # each database's size and time, looked up once
    for winner in sorted(chosen.values(), key=lambda f: (str(f.db), f.session_id)):
        if winner.db not in files:
            files[winner.db] = _file_info(winner.db)
        yield winner.meta(source, copies[winner.session_id], files[winner.db])


_FileInfo = tuple[int | None, datetime | None]


def _file_info(db: Path) -> _FileInfo:
    """The size and modification time of a database, or none when it is gone."""
    try:
        info = db.stat()
    except OSError:
        return None, None
    return info.st_size, datetime.fromtimestamp(info.st_mtime, UTC)


@define
class _History:
    """The input history of a workspace database, and the damage found reading it."""

    entries: list[Any] = field(factory=list)
    problems: list[str] = field(factory=list)

    @classmethod
    def read(cls, snapshot: Snapshot) -> _History:
        notes = _Notes()
        entries = _input_history(snapshot, notes)
        return cls(entries, notes.problems)


@define
class _Scanned:
    """What scan found in one workspace database."""

    found: list[_Found]
    content: _Store | _Decoded | None
    """The sessions as parsed or as decoded, kept for ``parse``; ``None`` when a value was
    streamed."""


def _scan_db(db: Path, *, parse: bool) -> _Scanned:
    """The sessions of one workspace database, each as scan sees it, read in one snapshot.

    With ``parse``, each session is also parsed as soon as it is decoded, and let go: see
    :meth:`TraeAdapter.parsing`.
    """
    notes = _Notes()
    history = _History()
    project = workspace_project_path(db.parent)
    failed = False

    def seen(raw: _Raw) -> tuple[_Raw, int, str, _Session | None]:
        nonlocal failed
        count = len(_messages_of(raw.value))
        digest = _session_digest(raw)
        parsed = None
        # Not parsed when streamed: a streamed value is not kept, so parse reads it again anyway.
        if parse and not (notes.streamed or failed):
            try:
                parsed = _Session.read(raw.session_id, raw.value)
            except Exception:  # noqa: BLE001 -- a parse error is parse's to report, not scan's
                failed = True  # nothing is kept: parse reads the store again and fails there
        if parsed is not None or notes.streamed:  # only what scan shows is kept
            raw.value = _summary(raw.value)
        return raw, count, digest, parsed

    with open_snapshot(db) as snapshot:
        pending = list(_iter_sessions(snapshot, notes, seen))
        if any(count == 0 for _, count, _, _ in pending):
            history = _History.read(snapshot)
    found = [
        _Found(
            session_id=raw.session_id,
            db=db,
            key=raw.key,
            position=raw.position,
            message_count=count,
            fingerprint=_fingerprint(raw, count, digest, notes, history),
            title=_session_title(raw.value),
            created_at=_ms(raw.value.get("createdAt")),
            updated_at=_ms(raw.value.get("updatedAt")),
            project_path=project,
        )
        for raw, count, digest, _parsed in pending
    ]
    # Nothing is kept of a streamed value, nor of one a session of which failed to parse:
    # parse reads it again.
    content: _Store | _Decoded | None = None
    if parse and not (notes.streamed or failed):
        parsed = {(raw.key, raw.position): session for raw, _, _, session in pending if session}
        content = _completed(parsed, notes, history)
    elif not (parse or notes.streamed):
        content = _Decoded([raw for raw, _, _, _ in pending], notes, history)
    return _Scanned(found, content)


def _fingerprint(raw: _Raw, count: int, digest: str, notes: _Notes, history: _History) -> str:
    fingerprint = f"{_ms_text(raw.value.get('updatedAt'))}:{count}:{digest}"
    if count == 0 and history.entries:
        # What parse takes from the input history, and the count it warns about otherwise.
        sole = notes.store_sessions == 1 and raw.key == STORE_KEY
        used = _attributed_inputs(history.entries, raw.session_id, sole=sole)
        unattributed = sum(1 for e in history.entries if _owner(e) is None)
        fingerprint += ":" + _digest(used, unattributed)
    if notes.problems or history.problems:  # damage is a warning on every session of the database
        fingerprint += ":" + _digest([*notes.problems, *history.problems])
    return fingerprint


def _summary(session: dict[str, Any]) -> dict[str, Any]:
    return {key: session.get(key) for key in ("title", "name", "createdAt", "updatedAt")}


def _session_digest(raw: _Raw) -> str:
    """The digest of a whole session as stored: of its own bytes when the value was split.

    The same digest either way for a value written compactly, as Trae writes it: orjson writes
    a decoded session back byte for byte as it was stored.
    """
    return raw.digest or _digest(raw.value)


def _digest(*parts: object) -> str:
    """A short digest of decoded JSON values, such as a whole session as stored."""
    return _digest_bytes(jsonvalue.canonical_bytes(parts))


def _digest_bytes(data: bytes | memoryview) -> str:
    """SHA-256: with the SHA instructions of current CPUs it took half the time of BLAKE2b."""
    return hashlib.sha256(data).hexdigest()[:16]


# --- parse: every session of one database --------------------------------------------------------


@define
class _Store:
    """The parsed sessions of one workspace database, by (key, position in the list)."""

    sessions: dict[tuple[str, int], _Session]
    problems: list[str]
    size: int
    """Bytes of the store values they were read from."""


@define
class _Decoded:
    """The sessions scan decoded from one workspace database, kept for ``parse``."""

    raws: list[_Raw]
    notes: _Notes
    history: _History
    """Read by scan whenever a session has no messages, which covers every case parse reads it."""

    @property
    def size(self) -> int:
        return self.notes.size

    def store(self) -> _Store:
        """The parsed sessions; each decoded one is let go once parsed, to hold less at a time."""
        raws, self.raws = self.raws, []
        raws.reverse()
        sessions = _read_sessions(raws.pop() for _ in range(len(raws)))
        return _completed(sessions, self.notes, self.history)


@define
class _Cached:
    """What the adapter keeps of one workspace database, valid while its files are unchanged."""

    stamp: tuple[object, ...]
    content: _Store | _Decoded

    @property
    def weight(self) -> int:
        return self.content.size + _ENTRY_BYTES


def _read_store(db: Path) -> _Store:
    notes = _Notes()
    with open_snapshot(db) as snapshot:
        # Each session parsed as soon as it is decoded, as in scan within ``parsing()``.
        sessions = dict(_iter_sessions(snapshot, notes, _keyed_session))
        history = _History.read(snapshot) if _stored_without_messages(sessions) else _History()
    return _completed(sessions, notes, history)


def _read_sessions(raws: Iterable[_Raw]) -> dict[tuple[str, int], _Session]:
    return dict(map(_keyed_session, raws))


def _keyed_session(raw: _Raw) -> tuple[tuple[str, int], _Session]:
    return (raw.key, raw.position), _Session.read(raw.session_id, raw.value)


def _stored_without_messages(sessions: dict[tuple[str, int], _Session]) -> bool:
    """Whether a session was stored without messages, so the input history is needed."""
    return any(not s.entries and not s.unreadable for s in sessions.values())


def _completed(
    sessions: dict[tuple[str, int], _Session], notes: _Notes, history: _History
) -> _Store:
    """The store, once the sessions stored without messages have their prompts from history.

    ``history`` (and its damage) counts only when a session was stored without messages.
    """
    if not _stored_without_messages(sessions):
        history = _History()
    for (key, _position), session in sessions.items():
        if session.entries or session.unreadable:
            continue
        sole = notes.store_sessions == 1 and key == STORE_KEY
        session.fall_back(
            _attributed_inputs(history.entries, session.session_id, sole=sole),
            unattributed=0 if sole else sum(1 for e in history.entries if _owner(e) is None),
        )
    return _Store(sessions, [*notes.problems, *history.problems], notes.size)


@define
class _Session:
    """One session turned into messages, in turn order, each timed as it is added.

    A message's time is the recorded one where it fits the order: later than every time before
    it (and not before the session's ``createdAt``). Otherwise the message gets the time before
    it plus one millisecond, marked as synthesized. Before the first known time there is nothing
    to derive from, so such messages have none.
    """

    session_id: str
    ledger: Ledger
    title: str | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None
    messages: tuple[Message, ...] = ()
    entries: int = 0
    """How many entries ``messages`` had (even if nothing usable came of them)."""
    unreadable: bool = False
    """Whether ``messages`` was there but not an array: damage, not a session stored empty."""
    _added: list[Message] = field(factory=list)
    _last: datetime | None = None
    """The time of the latest message added, which the next one must come after."""
    _ids: set[str] = field(factory=set)

    @classmethod
    def missing(cls, session_id: str) -> _Session:
        """A session that scan listed but that is no longer where it was."""
        session = cls(session_id, Ledger())
        session.ledger.warnings.append(
            "the session is no longer in the workspace database where scan found it; scan again"
        )
        return session

    @classmethod
    def read(cls, session_id: str, value: dict[str, Any]) -> _Session:
        session = cls(session_id, Ledger())
        session.created_at = _ms(value.get("createdAt"))
        session.updated_at = _ms(value.get("updatedAt"))
        entries = _messages_of(value)
        session.entries = len(entries)
        for position in _in_turn_order(entries):
            session.entry(position, entries[position])
        session.finish()
        session.title = _session_title(value) or _first_line(session.first_prompt())
        if value.get("hasMore") is True:
            token = value.get("nextPageToken")
            page = f" (next page token {token!r})" if isinstance(token, (str, int)) else ""
            session.ledger.warnings.append(
                f"Trae keeps only part of this session locally: hasMore is true{page}, so turns "
                "that were not cached on this machine are missing"
            )
        raw = value.get("messages")
        if not entries and not _stored_empty(raw):
            session.unreadable = True
            what = "a string that holds no JSON array" if isinstance(raw, str) else _kind(raw)
            session.ledger.warnings.append(f"messages is {what}; nothing could be read from it")
        return session

    def size(self) -> int:
        """How many messages the stored copy had, to pick the same copy scan picks."""
        return self.entries

    def _unique(self, wanted: str) -> str:
        ident, n = wanted, 1
        while ident in self._ids:
            n += 1
            ident = f"{wanted}#{n}"
        self._ids.add(ident)
        return ident

    def _time(self, recorded: datetime | None) -> tuple[datetime | None, bool]:
        """The time of the next message, and whether it was synthesized (see the class)."""
        last = self._last
        if recorded is not None and (
            recorded > last
            if last is not None
            else self.created_at is None or recorded >= self.created_at
        ):
            self._last = recorded
            return recorded, False
        if last is not None:
            self._last = last + _ONE_MS
            return self._last, True
        self._last = self.created_at
        return self.created_at, self.created_at is not None

    def entry(self, position: int, entry: object) -> None:
        """One entry of ``messages``: a user prompt, an answer, or a system line."""
        if not isinstance(entry, dict):
            self.ledger.bad(f"messages[{position}]", f"{_kind(entry)} instead of a message object")
            return
        role = entry.get("role")
        if role == "assistant":
            self._assistant(position, entry)
        elif role in ("user", "system"):
            self._line(position, entry, role)
        else:
            kind = role if isinstance(role, str) else None
            self.ledger.keep(f"messages[{position}]", kind, jsonvalue.encode(entry))

    def _line(self, position: int, entry: dict[str, Any], role: Literal["user", "system"]) -> None:
        """A prompt (see :func:`_prompt`), or a system line shown as a notice."""
        text, images = _prompt(entry) if role == "user" else _clean(_content(entry))
        if not (text or images):
            self.ledger.skip(f"empty_{role}")
            return
        self.ledger.use()
        turn_id = as_text(entry.get("turnId"))
        stamp, synthesized = self._time(_ms(entry.get("timestamp")))
        self._added.append(
            _build.message(
                id=self._unique(_message_id(entry, role, position, turn_id)),
                role=role,
                text=text,
                images=images,
                timestamp=stamp,
                timestamp_synthesized=synthesized,
                request_id=turn_id,
                kind="message" if role == "user" else "notice",
            )
        )

    def _assistant(self, position: int, entry: dict[str, Any]) -> None:
        """The answer, its reasoning and plan steps, and a notice when it failed or was cancelled.

        The answer is ``content``, else the proposal, else the ``finish`` step's thought, else
        the guideline's thought.
        """
        text, images = _clean(_content(entry))
        task = self._task_content(position, entry)
        guideline = _json_object(task.get("guideline"))
        guideline = guideline if isinstance(guideline, dict) else {}
        thinking = [task.get("proposalReasoningContent")]  # what is not a string is dropped below
        tool_calls: list[ToolCall] = []
        finish_thought: str | None = None
        for step in _json_array(guideline.get("planItems")):
            if not isinstance(step, dict):
                continue
            thinking.append(step.get("reasoningContent"))
            tool = as_text(step.get("toolName"))
            if tool == FINISH_TOOL:
                finish_thought = finish_thought or _nonblank(step.get("thought"))
                continue
            thinking.append(step.get("thought"))
            if tool:
                tool_calls.append(_tool_call(tool, step))
        if not text:
            answer = (
                _nonblank(task.get("proposal"))
                or finish_thought
                or _nonblank(guideline.get("thought"))
                or ""
            )
            text, images = _clean(answer)
        parts = [kept for part in thinking if isinstance(part, str) and (kept := part.strip())]
        reasoning = "\n\n".join(parts) or None
        notice = _status_notice(entry)
        shown = bool(text or reasoning or tool_calls or images)
        if not (shown or notice):
            self.ledger.skip("empty_assistant")
            return
        self.ledger.use()
        turn_id = as_text(entry.get("turnId"))
        recorded = _ms(entry.get("timestamp"))
        ident = _message_id(entry, "assistant", position, turn_id)
        if shown:
            ident = self._unique(ident)
            stamp, synthesized = self._time(recorded)
            self._added.append(
                _build.message(
                    id=ident,
                    role="assistant",
                    text=text,
                    thinking=reasoning,
                    tool_calls=tool_calls,
                    images=images,
                    timestamp=stamp,
                    timestamp_synthesized=synthesized,
                    model=_model(entry.get("modelInfo")),
                    request_id=turn_id,
                )
            )
        if notice is not None:
            # Without an answer to follow, the notice stands at the answer's time.
            stamp, synthesized = self._time(None if shown else recorded)
            self._added.append(
                _build.message(
                    id=self._unique(f"{ident}/status"),
                    role="system",
                    text=notice,
                    timestamp=stamp,
                    timestamp_synthesized=synthesized,
                    request_id=turn_id,
                    kind="notice",
                )
            )

    def _task_content(self, position: int, entry: dict[str, Any]) -> dict[str, Any]:
        """``agentTaskContent`` as an object (empty when missing); damage is warned about.

        A damaged one still gives its proposal when that can be picked out of the text. ``meta``
        is checked here too: it is read by nothing, but its damage is worth a warning.
        """
        task = _json_object(entry.get("agentTaskContent"))
        if isinstance(task, _NotJSON):
            proposal = _lenient_string(task.text, "proposal")
            recovered = "its proposal was recovered from the text" if proposal else "it was ignored"
            self.ledger.warnings.append(
                f"messages[{position}]: agentTaskContent is not valid JSON; {recovered}"
            )
            task = {"proposal": proposal} if proposal else None
        meta = entry.get("meta")
        if isinstance(meta, str) and isinstance(_json_object(meta), _NotJSON):
            self.ledger.warnings.append(
                f"messages[{position}]: meta is not valid JSON; it was ignored"
            )
        return task or {}

    def finish(self) -> None:
        """Hand over the messages; the session's times, when not stored, are the messages'."""
        self.messages = messages = tuple(self._added)
        if self.created_at is None:
            self.created_at = next(
                (m.timestamp for m in messages if not m.timestamp_synthesized and m.timestamp), None
            )
        if self.updated_at is None:
            real = [m.timestamp for m in messages if m.timestamp and not m.timestamp_synthesized]
            self.updated_at = max(real, default=None)

    def first_prompt(self) -> str | None:
        return next((m.text for m in self.messages if m.role == "user" and m.text.strip()), None)

    def fall_back(self, inputs: list[tuple[int, Any]], *, unattributed: int) -> None:
        """A session stored without messages: its prompts from the input history, if known."""
        self.ledger.warnings.append(
            "the session's messages are not stored in the workspace database (newer Trae "
            "builds keep them in the encrypted ModularData/ai-agent/database.db)"
        )
        for index, entry in inputs:
            where = f"{INPUT_HISTORY_KEY}[{index}]"
            if not isinstance(entry, dict):
                self.ledger.bad(where, f"{_kind(entry)} instead of an input object")
                continue
            text = entry.get("inputText")
            if not isinstance(text, str):
                self.ledger.keep(where, None, jsonvalue.encode(entry))
                continue
            cleaned, images = _clean(text)
            images = (*images, *_media(entry.get("multiMedia")))
            if not cleaned and not images:
                self.ledger.skip("empty_input")
                continue
            self.ledger.use()
            stamp, synthesized = self._time(_ms(entry.get("timestamp")))
            self._added.append(
                _build.message(
                    id=self._unique(f"input-{index}"),
                    role="user",
                    text=cleaned,
                    images=images,
                    timestamp=stamp,
                    timestamp_synthesized=synthesized,
                )
            )
        if self._added:
            self.ledger.warnings.append(
                f"{len(self._added)} prompt(s) were taken from {INPUT_HISTORY_KEY}; the answers "
                "are not recoverable from this database"
            )
        elif unattributed:
            self.ledger.warnings.append(
                f"{INPUT_HISTORY_KEY} holds {unattributed} prompt(s) that name no session; as "
                "the workspace has several sessions, they are not given to any of them"
            )
        self.finish()
        if self.title is None:
            self.title = _first_line(self.first_prompt())


def _prompt(entry: dict[str, Any]) -> tuple[str, tuple[ImageRef, ...]]:
    """A prompt's text and images.

    ``parsedQuery`` (the prompt without file references) wins over ``content`` when present;
    ``multiMedia`` adds images.
    """
    content = _content(entry)
    query = _query_text(entry.get("parsedQuery"))
    if query and not query.isspace():
        text, images = _clean(query)
        if not images and content != query:
            # An image pasted into the prompt is in both texts: counted once. Only the query's
            # text is kept, so ``content`` is cleaned only for an image the query lacks (often
            # it is the query itself: comparing is cheaper than searching it again).
            images = _clean(content)[1]
    else:
        text, images = _clean(content)
    media = entry.get("multiMedia")
    if media:  # usually "" or [] (none)
        images = (*images, *_media(media))
    return text, images


def _content(entry: dict[str, Any]) -> str:
    content = entry.get("content")
    return content if isinstance(content, str) else ""


def _messages_of(session: dict[str, Any]) -> list[Any]:
    return _json_array(session.get("messages"))


def _stored_empty(messages: object) -> bool:
    """Whether ``messages`` says "no messages": missing, null, ``[]``, or an empty string."""
    if isinstance(messages, str):
        return not messages.strip() or _json_value(messages) == []
    return messages is None or messages == []


def _in_turn_order(entries: list[Any]) -> list[int]:
    """The entries' positions, stably sorted by turn, the user's prompt first in a turn.

    A turn is ``turnIndex``; an entry without one takes the ``turnIndex`` of an entry with the
    same ``turnId``, else stays right after the entry before it.
    """
    turns: dict[str, int] | None = None  # by turnId: looked up only for an entry without a turn
    # One int per entry, 2 * turn + rank (0 for the user's prompt, else 1): it orders as the pair
    # does, and sorting positions by it (a stable sort) costs far less than sorting tuples.
    keys: list[int] = []
    key = -1
    for entry in entries:
        if isinstance(entry, dict):
            index = _int(entry.get("turnIndex"))
            if index is None and (turn_id := as_text(entry.get("turnId"))):
                turns = _turns_by_id(entries) if turns is None else turns
                index = turns.get(turn_id)
            if index is not None:
                key = 2 * index + (entry.get("role") != "user")
        # Otherwise the key of the entry before: right after it.
        keys.append(key)
    return sorted(range(len(entries)), key=keys.__getitem__)


def _turns_by_id(entries: list[Any]) -> dict[str, int]:
    """The ``turnIndex`` of each ``turnId``, from the first entry that has both."""
    turns: dict[str, int] = {}
    for entry in entries:
        if isinstance(entry, dict):
            index, turn_id = _int(entry.get("turnIndex")), as_text(entry.get("turnId"))
            if index is not None and turn_id:
                turns.setdefault(turn_id, index)
    return turns


def _message_id(entry: dict[str, Any], role: Role, position: int, turn_id: str | None) -> str:
    """A message's own id, else one made from its turn; never the same for prompt and answer.

    A user message carries the ``agentMessageId`` of the answer it got, so only its own
    ``userMessageId`` names it.
    """
    own = as_text(entry.get("userMessageId" if role == "user" else "agentMessageId"))
    if own and role != "system":
        return own
    if turn_id:
        return f"{turn_id}:{role}"
    index = _int(entry.get("turnIndex"))
    if index is not None:
        return f"turn-{index}:{role}"
    return f"message-{position}"


def _tool_call(name: str, step: dict[str, Any]) -> ToolCall:
    """A plan step that ran a tool; its arguments and result when the step records them."""
    arguments = _first(step, _STEP_INPUT_KEYS)
    if isinstance(arguments, str):
        decoded = _json_value(arguments)
        arguments = arguments if isinstance(decoded, _NotJSON) else decoded
    output = _first_text(step, _STEP_OUTPUT_KEYS, empty=True)
    call_id = _first_text(step, _STEP_ID_KEYS, empty=False)
    return _build.tool_call(id=call_id, name=name, input=arguments, output=output)


# Loops, not ``next()`` over generators, and no predicate callables: they run for every plan
# step of every answer.
def _first(record: dict[str, Any], keys: tuple[str, ...]) -> Any:
    """The value of the first of ``keys`` that ``record`` holds (not null)."""
    if record.keys().isdisjoint(keys):  # as usual: one C call instead of a lookup per key
        return None
    for key in keys:
        value = record.get(key)
        if value is not None:
            return value
    return None


def _first_text(record: dict[str, Any], keys: tuple[str, ...], *, empty: bool) -> str | None:
    """The first string among ``keys`` in ``record``; an empty one counts only with ``empty``."""
    if record.keys().isdisjoint(keys):  # as usual: one C call instead of a lookup per key
        return None
    for key in keys:
        value = record.get(key)
        if isinstance(value, str) and (empty or value):
            return value
    return None


def _status_notice(entry: dict[str, Any]) -> str | None:
    """A notice for an answer that failed or was cancelled, with the error when recorded."""
    status = as_text(entry.get("status"))
    if status is None or status in _DONE or status.lower() in _DONE:  # "completed", as usual
        return None
    error = next((e for k in _ERROR_KEYS if (e := _nonblank(entry.get(k)))), None)
    detail = f": {error}" if error else ""
    if status.lower() in _FAILED:
        return f"Response failed{detail}"
    if status.lower() in _CANCELLED:
        return f"Response cancelled{detail}"
    return f"Response status {status!r}{detail}"


def _model(info: object) -> str | None:
    info = _json_object(info)
    if not isinstance(info, dict):
        return None
    for key in _MODEL_KEYS:
        if model := _nonblank(info.get(key)):
            return model
    return None


def _query_text(query: object) -> str | None:
    """``parsedQuery`` as text: a string, or the text pieces of an array of pieces."""
    if isinstance(query, str):
        return query
    if isinstance(query, list):
        pieces = [
            p if isinstance(p, str) else p.get("text") if isinstance(p, dict) else None
            for p in query
        ]
        if pieces and all(isinstance(p, str) for p in pieces):
            return "".join(p for p in pieces if isinstance(p, str))
    return None


def _media(value: object) -> list[ImageRef]:
    """One image per entry of a ``multiMedia`` array (or array in a JSON string; ``""`` is none)."""
    images = []
    for item in _json_array(value):
        media_type = None
        if isinstance(item, dict):
            declared = next(
                (t for k in ("mimeType", "mediaType", "type") if (t := as_text(item.get(k)))), None
            )
            media_type = declared if declared and declared.startswith("image/") else None
        images.append(_build.image(media_type=media_type))
    return images


def _session_title(session: dict[str, Any]) -> str | None:
    return _nonblank(session.get("title")) or _nonblank(session.get("name"))


def _first_line(text: str | None) -> str | None:
    if not text:
        return None
    line = next((line.strip() for line in text.splitlines() if line.strip()), "")
    return line[:_TITLE_LENGTH] or None


def _clean(text: str) -> tuple[str, tuple[ImageRef, ...]]:
    """``text`` trimmed, with inline base64 images taken out (measured, not kept)."""
    cleaned, payloads = strip_data_uri_images(text)
    images = tuple(_build.image(media_type=p.media_type, byte_size=p.byte_size) for p in payloads)
    return cleaned.strip(), images


# --- JSON held in strings ------------------------------------------------------------------------


@define
class _NotJSON:
    """A string that should have held JSON and does not."""

    text: str


def _json_value(text: str) -> Any:
    """Decode one JSON value held in a string; :class:`_NotJSON` when it is not JSON."""
    decoded = jsonvalue.decode(text)
    return _NotJSON(text) if isinstance(decoded, jsonvalue.Invalid) else decoded


def _json_object(value: object) -> dict[str, Any] | _NotJSON | None:
    """An object, or an object written as a JSON string (as some Trae builds store them)."""
    if isinstance(value, dict):
        return value
    if isinstance(value, str) and value.strip():
        decoded = _json_value(value)
        if isinstance(decoded, dict):
            return decoded
        return decoded if isinstance(decoded, _NotJSON) else _NotJSON(value)
    return None


def _json_array(value: object) -> list[Any]:
    """An array, or an array written as a JSON string; empty for anything else."""
    if isinstance(value, str) and value.strip().startswith("["):
        value = _json_value(value)
    return value if isinstance(value, list) else []


_LENIENT: Final = re.compile(r'"(?P<key>[A-Za-z_]+)"\s*:\s*"(?P<body>(?:[^"\\]|\\.)*)(?P<end>"?)')


def _lenient_string(text: str, key: str) -> str | None:
    """The string value of ``key`` in text that is JSON-like but not valid (such as cut short)."""
    for match in _LENIENT.finditer(text):
        if match["key"] != key:
            continue
        body = re.sub(r"\\u[0-9a-fA-F]{0,3}\Z", "", match["body"])  # an escape cut short
        decoded = _json_value(f'"{body}"')
        value = decoded if isinstance(decoded, str) else body
        return value.strip() or None
    return None


# --- small readers -------------------------------------------------------------------------------


def _nonblank(value: object) -> str | None:
    return (value.strip() or None) if isinstance(value, str) else None


def _int(value: object) -> int | None:
    if type(value) is int:  # the common case; ``bool`` is not a number here
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def _count(text: str | None, default: int) -> int:
    """A number written in a locator, or ``default`` when there is none (or it is not one)."""
    return int(text) if text is not None and text.isdecimal() else default


def _kind(value: object) -> str:
    names = {dict: "an object", list: "an array", str: "a string", bool: "a boolean"}
    if value is None:
        return "null"
    return names.get(type(value), "a number" if isinstance(value, (int, float)) else "a value")


def _ms(value: object) -> datetime | None:
    """Epoch milliseconds (a number, or digits in a string) as an aware UTC datetime."""
    if type(value) is not int:  # an int, as Trae writes times, is checked first: once a message
        digits = value.strip() if isinstance(value, str) else ""
        # Not isdigit: int("²") raises. Nor more digits than any time has (year 9999 is 15),
        # which int() also refuses past 4,300.
        if digits.isdecimal() and len(digits) <= _MS_DIGITS:
            value = int(digits)
        elif not isinstance(value, float):  # nor ``bool``, whose type is not ``int``
            return None
    if value <= 0:
        return None
    try:
        return datetime.fromtimestamp(value / 1000, UTC)
    except (OverflowError, OSError, ValueError):
        return None


def _ms_text(value: object) -> str:
    stamp = _ms(value)
    return str(int(stamp.timestamp() * 1000)) if stamp is not None else "-"


def _epoch(value: datetime | None) -> float:
    return value.timestamp() if value is not None else float("-inf")
