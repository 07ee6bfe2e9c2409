"""The store values of one workspace database, read session by session.

The main store, ``memento/icube-ai-agent-storage``, is one JSON value ``{"list": [<session>...],
"currentSessionId"}``; the older ``memento/icube-ai-chat-storage-<n>`` and
``memento/icube-ai-ng-chat-storage-<n>`` stores have the same shape. Each session is handed on
as soon as it is decoded, with where it was found (:class:`RawSession`), while what went wrong
is written down in words for people (:class:`Notes`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, Final, TypeVar

from attrs import define, field

from chatparse.adapters.trae.jsontext import json_array, kind_of
from chatparse.adapters.trae.split import split_list
from chatparse.decoders import bigjson
from chatparse.decoders import value as jsonvalue
from chatparse.decoders.sqlite import Snapshot

__all__ = [
    "ABSENT",
    "INPUT_HISTORY_KEY",
    "LEGACY_PREFIXES",
    "STORE_KEY",
    "TABLE",
    "WHOLE_VALUE_LIMIT",
    "Notes",
    "RawSession",
    "array_items",
    "as_is",
    "iter_sessions",
    "messages_of",
    "value_of",
]

TABLE: Final = "ItemTable"
STORE_KEY: Final = "memento/icube-ai-agent-storage"
INPUT_HISTORY_KEY: Final = "icube-ai-agent-storage-input-history"
LEGACY_PREFIXES: Final = ("memento/icube-ai-chat-storage-", "memento/icube-ai-ng-chat-storage-")

WHOLE_VALUE_LIMIT: Final = 64 * 1024 * 1024
"""The largest store value decoded at once; larger ones are streamed one item at a time.

Decoding at once is much faster than streaming, but holds the whole tree, a few times the
value's size in Python objects. Stores this large are rare (hundreds of kB is common); the bound
keeps a freak one from taking gigabytes.
"""

_T = TypeVar("_T")


@define
class RawSession:
    """One session object exactly as a store holds it, and where it was found."""

    key: str
    position: int
    session_id: str
    value: dict[str, Any]
    digest: str | None = None
    """The digest of the session's own bytes, when the value was split (see :func:`split_list`)."""


@define
class Notes:
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


def iter_sessions(
    snapshot: Snapshot, notes: Notes, read: Callable[[RawSession], _T]
) -> Iterator[_T]:
    """Every session of the main store, then of the older stores that hold messages.

    Each as ``read`` makes it of the session, as soon as the session is decoded (see
    :func:`split_list`).
    """
    value = value_of(snapshot, STORE_KEY)
    if value is not ABSENT:
        for session in _store_sessions(STORE_KEY, value, notes, read):
            notes.store_sessions += 1
            yield session
    for prefix in LEGACY_PREFIXES:
        for _rowid, raw_key, value in snapshot.iter_prefix_raw(TABLE, prefix):
            key = raw_key.decode("utf-8", "replace") if isinstance(raw_key, bytes) else str(raw_key)
            found = _store_sessions(key, value, notes, as_is)
            sessions = [raw for raw in found if messages_of(raw.value)]
            if not sessions:
                notes.remarks.append(f"key {key} holds no session with messages; not read")
            yield from map(read, sessions)


def as_is(raw: RawSession) -> RawSession:
    """The session as the store holds it (a ``read`` for :func:`iter_sessions`)."""
    return raw


def messages_of(session: dict[str, Any]) -> list[Any]:
    """A session's ``messages`` (an array, or an array in a JSON string); empty otherwise."""
    return json_array(session.get("messages"))


def _store_sessions(
    key: str, value: object, notes: Notes, read: Callable[[RawSession], _T]
) -> Iterator[_T]:
    """The sessions of one store value, ``{"list": [<session>...]}``, each as ``read`` makes it."""
    if value is None:  # SQL NULL: an emptied store, not damage
        notes.remarks.append(f"key {key} is NULL; not read")
        return
    if not isinstance(value, bytes):
        notes.problems.append(f"key {key} holds no JSON text ({kind_of(value)}); not read")
        return
    notes.size += len(value)

    def session(position: int, item: Any, digest: str | None) -> _T | None:
        session_id = _session_id(item)
        if session_id is None:
            return None
        return read(RawSession(key, position, session_id, item, digest))

    split = split_list(value, session) if len(value) <= WHOLE_VALUE_LIMIT else None
    skipped = 0
    for made in _read_list(key, value, notes, session) if split is None else split:
        if made is None:
            skipped += 1
        else:
            yield made
    if skipped:
        notes.remarks.append(f"key {key}: {skipped} list item(s) without a sessionId; not read")


def _read_list(
    key: str, value: bytes, notes: Notes, session: Callable[[int, Any, None], _T]
) -> Iterator[_T]:
    """The items of the store's ``list``, decoded whole (or streamed), as ``session`` makes them."""
    for item in array_items(value, "list", notes):
        if isinstance(item, bigjson.Malformed):
            notes.problems.append(
                f"the value of key {key} is damaged at byte {item.offset} ({item.reason}); "
                "sessions stored after that point cannot be read"
            )
            return
        yield session(int(item.key), item.value, None)


def array_items(
    value: bytes, key: str | None, notes: Notes
) -> Iterator[bigjson.Item | bigjson.Malformed]:
    """The items of the array under the top-level ``key`` of ``value`` (``None``: the top level).

    A value up to :data:`WHOLE_VALUE_LIMIT` is decoded at once with the fast decoder. A larger
    one is streamed, and so is one that does not decode: streaming yields the items before the
    damage and then the byte where it is.
    """
    if len(value) <= WHOLE_VALUE_LIMIT:
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


ABSENT: Final = object()
"""What :func:`value_of` gives for a key the table does not hold."""


def value_of(snapshot: Snapshot, key: str) -> object:
    """The value of ``key`` as stored (TEXT and BLOB as bytes), or :data:`ABSENT`.

    The bytes go to the decoder as they are, not through ``str`` and back: the decoder repairs
    invalid UTF-8 itself (see :func:`array_items` for the streamed case).
    """
    row = snapshot.get_raw(TABLE, key)
    return ABSENT if row is None else row[1]


def _session_id(session: object) -> str | None:
    if not isinstance(session, dict):
        return None
    value = session.get("sessionId")
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return str(value)
    return value if isinstance(value, str) and value.strip() else None
