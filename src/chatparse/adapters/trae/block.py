"""What one ``parsing()`` block keeps: the parsed stores of the databases read in it.

Every session of a workspace database is in one store value, so parsing one session costs a
read of the whole value. Within a block, each database's parsed sessions are kept for the next
parse of a session of that database; when the block ends, everything is let go. Outside a block
nothing is kept: each ``parse`` reads its database again.
"""

from __future__ import annotations

import os
from collections import OrderedDict
from typing import Final

from attrs import frozen

from chatparse.adapter import SourceAdapter
from chatparse.adapters.trae.parsed import Store, conversation, read_store
from chatparse.errors import SourceUnavailableError
from chatparse.model import ConversationMeta, ParsedConversation

__all__ = ["CACHED_BYTES", "ParsingBlock", "Stamp", "stamp_of"]

CACHED_BYTES: Final = 64 * 1024 * 1024
"""How much store value a block keeps parsed for later calls (the latest database always)."""
_ENTRY_BYTES: Final = 1024
"""What a kept store counts for besides its store values, so that empty stores count too."""

Stamp = tuple[object, ...]
"""What tells whether a database changed: see :func:`stamp_of`."""


def stamp_of(db: str | os.PathLike[str]) -> Stamp:
    """Size and modification and change times of a database and of the journal files beside it.

    The change time moves with the permissions too: a database made unreadable since it was
    read must fail to parse as it would have if it had not been kept.

    Raises:
        SourceUnavailableError: The database is gone, or a folder on its way cannot be searched.
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
            info = os.stat(f"{os.fspath(db)}{suffix}")  # noqa: PTH116 -- as above
        except OSError:
            stamps.append(None)
        else:
            stamps.append((info.st_size, info.st_mtime_ns, info.st_ctime_ns))
    return tuple(stamps)


@frozen
class _Kept:
    """A database's parsed store, valid while the database's files have this stamp."""

    stamp: Stamp
    store: Store

    @property
    def weight(self) -> int:
        return self.store.size + _ENTRY_BYTES


class ParsingBlock:
    """The parsed stores of one ``parsing()`` block, the latest last, for the thread that opened it.

    Up to :data:`CACHED_BYTES` of store values are kept (always the latest database), the
    oldest dropped first; :meth:`close` lets go of all of them.
    """

    __slots__ = ("_adapter", "_closed", "_kept")

    def __init__(self, adapter: SourceAdapter) -> None:
        self._adapter = adapter
        self._kept: OrderedDict[str, _Kept] = OrderedDict()
        """By database path, as the locators write it: no ``Path`` is built per parse."""
        self._closed = False

    def parse(self, meta: ConversationMeta) -> ParsedConversation:
        """The adapter's ``parse``, from the store kept for the meta's database when it is."""
        db = meta.locator.get("db", meta.path)
        stamp = stamp_of(db)
        kept = self._kept.get(db)
        if kept is not None and kept.stamp == stamp:
            self._kept.move_to_end(db)
            store = kept.store
        else:
            store = read_store(db)
            self.keep(db, stamp, store)
        return conversation(self._adapter, meta, store)

    def keep(self, db: str, stamp: Stamp, store: Store) -> None:
        """Keep the parsed ``store`` of ``db`` as the latest, unless the block has ended.

        ``stamp`` is the database's, taken before it was read: a change made meanwhile makes
        what is kept stale.
        """
        if self._closed:
            return
        self._kept[db] = _Kept(stamp, store)
        self._kept.move_to_end(db)
        held = sum(kept.weight for kept in self._kept.values())
        while held > CACHED_BYTES and len(self._kept) > 1:
            _, dropped = self._kept.popitem(last=False)
            held -= dropped.weight

    def close(self) -> None:
        """Let go of every store; later calls read their database each time."""
        self._closed = True
        self._kept.clear()
