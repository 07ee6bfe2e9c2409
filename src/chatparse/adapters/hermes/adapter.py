"""The Hermes Agent adapter: where it looks (detect, explain), what it lists, how it reads."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Final

from chatparse.adapter import explain_variable, is_dir, is_file, read_head
from chatparse.adapters.hermes.catalog import database_metas, home_metas, transcript_meta
from chatparse.adapters.hermes.lineage import Lineage
from chatparse.adapters.hermes.locate import (
    HOME_ENV,
    SESSIONS,
    STATE_DB,
    default_home,
    homes,
    transcript_of,
    transcripts,
)
from chatparse.adapters.hermes.session import (
    read_database_conversation,
    read_transcript_conversation,
)
from chatparse.adapters.hermes.store import Store
from chatparse.decoders.sqlite import Snapshot, open_snapshot
from chatparse.errors import SourceUnavailableError, UnavailableCause
from chatparse.host import Host
from chatparse.model import ConversationMeta, ParsedConversation, SourceInfo

__all__ = ["HermesAdapter"]

OPEN_DATABASES: Final = 4
"""The most databases ``parsing()`` keeps open at once (a home and a few profiles)."""
_TRANSCRIPT_FORMATS: Final = frozenset({"jsonl", "json"})
_SQLITE_HEADER: Final = b"SQLite format 3\x00"


class HermesAdapter:
    """Reads Hermes Agent's ``state.db`` and its gateway transcripts and session snapshots.

    .. versionadded:: 0.3
    """

    name = "hermes"
    display_name = "Hermes Agent"
    parser_version = "1"
    scan_reads_content: Final = ("*/state.db",)
    """``scan`` reads the ``sessions`` table of each ``state.db`` (every conversation is in
    it); transcript files are listed by name and stat only."""

    def detect(self, host: Host) -> SourceInfo | None:
        """The Hermes homes (and profiles) that hold a ``state.db`` or a ``sessions/`` folder."""
        roots = tuple(
            str(home) for home in homes(host) if is_file(home / STATE_DB) or is_dir(home / SESSIONS)
        )
        if not roots:
            return None
        return SourceInfo(source=self.name, display_name=self.display_name, roots=roots)

    def scan(self, source: SourceInfo) -> Iterator[ConversationMeta]:
        """Every conversation once: of a session id in two homes, the first home's copy."""
        seen: set[str] = set()
        for home in map(Path, source.roots):
            for meta in home_metas(self.name, home):
                if meta.id not in seen:
                    seen.add(meta.id)
                    yield meta

    @contextmanager
    def parsing(self) -> Iterator[Callable[[ConversationMeta], ParsedConversation]]:
        """A parse function that opens each ``state.db`` once for the whole block.

        Every conversation of a home is in its one database: it is opened at the first parse
        that needs it, its session rows read once, and closed when the block ends (also when it
        ends early). At most :data:`OPEN_DATABASES` stay open.
        """
        open_stores: OrderedDict[str, tuple[Snapshot, Store, Lineage]] = OrderedDict()

        def store_of(path: str) -> tuple[Store, Lineage]:
            if path in open_stores:
                open_stores.move_to_end(path)
            else:
                snapshot = open_snapshot(path)
                try:
                    store = Store(snapshot)
                    open_stores[path] = (snapshot, store, Lineage.of(store.sessions()))
                except BaseException:
                    snapshot.close()
                    raise
                if len(open_stores) > OPEN_DATABASES:
                    open_stores.popitem(last=False)[1][0].close()
            _, store, lineage = open_stores[path]
            return store, lineage

        def parse(meta: ConversationMeta) -> ParsedConversation:
            if meta.locator.get("format") in _TRANSCRIPT_FORMATS:
                if not is_file(Path(meta.path)):
                    raise SourceUnavailableError(
                        meta.path,
                        "no such file",
                        "Scan again: the transcript was moved or deleted.",
                    )
                return read_transcript_conversation(self, meta)
            store, lineage = store_of(meta.path)
            if meta.id not in lineage.rows:
                raise SourceUnavailableError(
                    meta.path,
                    f"session {meta.id} is no longer in the database",
                    "Scan again: the session was deleted or pruned.",
                    UnavailableCause.MISSING,
                )
            return read_database_conversation(self, meta, store, lineage, lineage.chain(meta.id))

        try:
            yield parse
        finally:
            for snapshot, _, _ in open_stores.values():
                snapshot.close()

    def parse(self, meta: ConversationMeta) -> ParsedConversation:
        """Parse one conversation (its database opened for this call alone)."""
        with self.parsing() as parse:
            return parse(meta)

    # Optional protocols: PathSniffer (sniff, scan_path) and Explainer (explain).

    def sniff(self, path: Path) -> float:
        """Sure of a ``state.db`` or transcript inside a Hermes home; less of one elsewhere."""
        if not is_file(path):
            return 0.0
        head = read_head(path)
        in_home = path.parent.name in (".hermes", "hermes") or path.parent.parent.name == "profiles"
        if path.name == STATE_DB and head.startswith(_SQLITE_HEADER):
            return 0.9 if in_home else 0.4
        found = transcript_of(path)
        if found is None:
            return 0.0
        if found.shape == "jsonl" and b'"session_meta"' in head:
            return 0.9 if path.parent.name == SESSIONS else 0.7
        if found.shape == "json" and b'"messages"' in head:
            return 0.7 if path.parent.name == SESSIONS else 0.4
        return 0.0

    def scan_path(self, path: Path) -> Iterator[ConversationMeta]:
        """The conversations of a ``state.db``, or the one in a transcript file."""
        found = transcript_of(path)
        if path.name != STATE_DB:
            meta = transcript_meta(self.name, found) if found is not None else None
            if meta is not None:
                yield meta
            return
        with open_snapshot(path) as snapshot:
            lineage = Lineage.of(Store(snapshot).sessions())
        yield from database_metas(self.name, path, lineage)

    def explain(self, host: Host) -> Iterator[str]:
        """Where Hermes's stores are looked for on ``host``, for ``chatparse doctor``."""
        yield explain_variable(host, HOME_ENV, str(default_home(host)))
        found = homes(host)
        if not found:
            yield "no Hermes home found"
        for home in found:
            db = home / STATE_DB
            yield f"{db}: {_db_state(db)}"
            yield f"{home / SESSIONS}: {len(transcripts(home))} transcript file(s)"


def _db_state(db: Path) -> str:
    if not is_file(db):
        return "missing"
    try:
        with open_snapshot(db) as snapshot:
            store = Store(snapshot)
            if not store.readable:
                return "not a Hermes state database (no sessions and messages tables)"
            return f"{sum(1 for _ in store.sessions())} session(s)"
    except SourceUnavailableError as exc:
        return f"cannot be read: {exc}"
