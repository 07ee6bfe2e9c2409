"""What both of OpenCode's stores hand the reader: sessions, and message and part records.

OpenCode kept the same JSON in two containers over time: one file per record in the
``storage/`` tree (before 1.2), and the ``data`` column of a SQLite row since (the ids moved
into columns). Each store (:mod:`~chatparse.adapters._opencode.database`,
:mod:`~chatparse.adapters._opencode.tree`) turns its container into the types here, so that one
reader (:mod:`~chatparse.adapters._opencode.session`) serves both eras.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any, Final, Protocol

from attrs import define, frozen

from chatparse.adapter import (
    Ledger,
    as_nonempty_text,
    dig,
    stat_fingerprint,
    strip_payloads,
)
from chatparse.decoders.value import Invalid, decode

__all__ = [
    "JSON",
    "JSON_SUFFIX",
    "SQLITE",
    "STORE",
    "Record",
    "SessionHead",
    "Store",
    "decoded",
    "head_from",
]

STORE: Final = "store"
"""The locator key saying which kind of store a session was listed from."""
JSON_SUFFIX: Final = ".json"
"""The suffix of every record file of the JSON tree."""
SQLITE: Final = "sqlite"
""":data:`STORE` in the locator of a session read from a database."""
JSON: Final = "json"
""":data:`STORE` in the locator of a session read from the JSON tree (either of its layouts)."""


@frozen
class SessionHead:
    """One session as its store records it, before its messages are read.

    Attributes:
        id: The session id (from the file's path in the JSON tree, as OpenCode's importer does).
        parent_id: The session that started this one (a sub-agent's ``parentID``).
        title: The stored title, default titles included (the reader decides).
        directory: The folder OpenCode ran in.
        version: The OpenCode version that created the session.
        created: Creation time, epoch milliseconds.
        updated: Last update, epoch milliseconds.
        revert: The pending revert (``{messageID, partID?, ...}``), if any.
        workspace: The workspace id (SQLite only), for its branch.
        stamp: A digest of the session record itself, part of the fingerprint.
        path: The file or database that holds the session (``ConversationMeta.path``).
        where: Where the session record is, for diagnostics.
        size: The size of ``path`` in bytes, when it could be stat'ed.
        mtime: The modification time of ``path`` (seconds since the epoch), likewise.
        problem: Why the session record could not be read (a damaged file); ``None`` if it was.
        slug: The session's short name; a session Kilo 7.x migrated from a 4.x-5.x task has
            the task's id as its slug.
    """

    id: str
    parent_id: str | None
    title: str | None
    directory: str | None
    version: str | None
    created: int | None
    updated: int | None
    revert: Mapping[str, Any] | None
    workspace: str | None
    stamp: str
    path: str
    where: str
    size: int | None = None
    mtime: float | None = None
    problem: str | None = None
    slug: str | None = None


@define(slots=True)
class Record:
    """A message or part as its store holds it: its ids, its decoded JSON, and where it is.

    Attributes:
        id: The record's id (a column, or the file's name).
        owner: A message's session id, or a part's message id.
        data: The decoded JSON object; ``None`` when it could not be read as one.
        problem: Why ``data`` is ``None``.
        place: Its table (``"part"``), or the folder of its file as a path in the tree.
        created: A message's creation time, epoch milliseconds (its ``time_created`` column, or
            its ``time.created``).
        payload: Whether its text may hold a base64 payload to take out (see
            :func:`~chatparse.adapters._opencode.content.may_hold_payload`).
        raw: The record's stored bytes, for an unknown record kept raw (SQLite rows).
        file: The file holding the record (JSON tree): its text is read again only if kept raw.
        kind: The record's own type, where its store gives one apart from ``data``.
    """

    id: str
    owner: str
    data: dict[str, Any] | None
    problem: str | None
    place: str
    created: int | None = None
    payload: bool = True
    raw: bytes | None = None
    file: str | None = None
    kind: str | None = None

    @property
    def where(self) -> str:
        """Where the record is, for diagnostics: ``"part prt_…"``, or its file in the tree."""
        if self.file is None:
            return f"{self.place} {self.id}"
        return f"{self.place}/{self.id}{JSON_SUFFIX}"

    def keep(self, ledger: Ledger, kind: str | None, version: str | None) -> None:
        """Tell ``ledger`` that this record is of a shape we do not know, kept as its text.

        The text is the row's, or the file's read again (unknown records are rare: holding
        every file's text meanwhile would cost more), with any base64 payload left out.
        """
        text = _text_of(self.file) if self.raw is None else self.raw.decode("utf-8", "replace")
        ledger.keep(self.where, kind, strip_payloads(text)[0], version)


def _text_of(file: str | None) -> str:
    if file is None:
        return ""
    try:
        with open(file, "rb") as stream:  # noqa: PTH123 -- a path as text, as the tree keeps it
            return stream.read().decode("utf-8", "replace")
    except OSError as exc:
        return f"(cannot be read again: {exc.strerror or exc})"


class Store(Protocol):
    """One container of sessions: a database, or a layout of the JSON tree."""

    kind: str
    """:data:`SQLITE` or :data:`JSON`."""

    def locator(self) -> dict[str, str]:
        """What a parse needs, besides the session's path, to find this store again."""
        ...

    def sessions(self) -> list[SessionHead]:
        """Every session it holds (for a scan)."""
        ...

    def session(self, session_id: str) -> SessionHead | None:
        """One session, or ``None`` when it is not (or no longer) there."""
        ...

    def changes(self, session_id: str) -> str:
        """A key that changes when the session's messages or parts do (for fingerprints)."""
        ...

    def messages(self, session_id: str) -> list[Record]:
        """The session's message records, in no particular order."""
        ...

    def parts(self, session_id: str, messages: Sequence[Record]) -> list[Record]:
        """The part records of the session's ``messages``, in no particular order."""
        ...

    def extras(self, session_id: str) -> list[Record]:
        """Records of the session the reader does not know how to read, to keep raw."""
        ...

    def branch(self, head: SessionHead) -> str | None:
        """The git branch the session's workspace is on, when the store records one."""
        ...


def millis(value: object) -> int | None:
    """An epoch time in milliseconds, as OpenCode writes them (``Date.now()``), or ``None``."""
    return value if type(value) is int and value > 0 else None


def decoded(text: str | bytes) -> tuple[dict[str, Any] | None, str | None]:
    """A JSON object read from ``text``, or ``None`` and why not."""
    value = decode(text)
    if type(value) is dict:  # the common case first: one type check
        return value, None
    if isinstance(value, Invalid):
        return None, value.reason
    return None, f"a JSON {type(value).__name__}, not an object"


def head_from(
    session_id: str,
    info: Mapping[str, Any],
    *,
    file: tuple[str, str, os.stat_result | None],
    problem: str | None = None,
) -> SessionHead:
    """A :class:`SessionHead` from a session object as the JSON tree writes it.

    ``file`` is the session file's path, its place for diagnostics, and its stat.
    """
    path, where, stat = file
    revert = info.get("revert")
    return SessionHead(
        id=session_id,
        parent_id=as_nonempty_text(info.get("parentID")),
        title=as_nonempty_text(info.get("title")),
        directory=as_nonempty_text(info.get("directory")),
        version=as_nonempty_text(info.get("version")),
        created=millis(dig(info, "time", "created")),
        updated=millis(dig(info, "time", "updated")),
        revert=revert if isinstance(revert, dict) else None,
        workspace=None,
        stamp="gone" if stat is None else stat_fingerprint(stat),
        path=path,
        where=where,
        size=None if stat is None else stat.st_size,
        mtime=None if stat is None else stat.st_mtime,
        problem=problem,
        slug=as_nonempty_text(info.get("slug")),
    )
