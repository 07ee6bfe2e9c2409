"""The Zed adapter: where it looks (detect, explain), what it lists, how it reads."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Final

from attrs import evolve

from chatparse.adapter import (
    PEEK_BYTES,
    explain_variable,
    files_in,
    is_dir,
    is_file,
    passed_over,
    read_head,
)
from chatparse.adapters.zed.codec import NO_ZSTD, ZSTD, zstd_decoder
from chatparse.adapters.zed.conversation import (
    Family,
    Opened,
    read_conversation,
    read_text_conversation,
    thread_metas,
)
from chatparse.adapters.zed.locate import (
    CONVERSATIONS,
    FLATPAK_ENV,
    LEGACY_DB,
    THREADS_DB,
    XDG_ENV,
    data_dirs,
    stores,
)
from chatparse.adapters.zed.store import Store
from chatparse.adapters.zed.text_thread import FORMAT, SUFFIX, text_thread_meta
from chatparse.decoders.sqlite import open_snapshot
from chatparse.errors import SourceUnavailableError
from chatparse.host import Host
from chatparse.model import ConversationMeta, ParsedConversation, SourceInfo

__all__ = ["ZedAdapter"]

_SQLITE_HEADER: Final = b"SQLite format 3\x00"
_LEGACY_NOTE: Final = (
    "the agent's first thread store (LMDB, early to mid 2025), which chatparse cannot read; "
    "Zed moves its threads into threads.db when it next starts"
)
_EXTERNAL_NOTE: Final = (
    "threads of external agents run in Zed (Claude Code, Codex, Gemini... through ACP) are in "
    "those agents' own stores, not in threads.db: read them with those sources"
)


class ZedAdapter:
    """Reads the threads of Zed's agent panel (``threads.db``).

    .. versionadded:: 0.3
    """

    name = "zed"
    display_name = "Zed"
    parser_version = "1"
    scan_reads_content: Final = ("*/threads/threads.db",)
    """``scan`` reads the rows of ``threads.db`` (not their blobs): every thread is in it. Text
    threads are listed by name and stat."""

    def __init__(self, decompress: Callable[[bytes], bytes] | None = None) -> None:
        """``decompress`` reads a zstd frame; by default the one this Python has, if any."""
        self._decompress = decompress or zstd_decoder()

    def detect(self, host: Host) -> SourceInfo | None:
        """Zed's folders that hold threads (a thread store, or text threads)."""
        roots = tuple(str(folder) for folder in stores(host))
        if not roots:
            return None
        return SourceInfo(source=self.name, display_name=self.display_name, roots=roots)

    def scan(self, source: SourceInfo) -> Iterator[ConversationMeta]:
        """Every thread once: of a thread id in two data folders, the first folder's copy."""
        seen: set[str] = set()
        for folder in map(Path, source.roots):
            for meta in self._folder_metas(folder):
                if meta.id not in seen:
                    seen.add(meta.id)
                    yield meta

    def _folder_metas(self, folder: Path) -> list[ConversationMeta]:
        db = folder / THREADS_DB
        found = self._db_metas(db) if is_file(db) else []
        if not found and not is_file(db) and (folder / LEGACY_DB).exists():
            passed_over(folder / LEGACY_DB, _LEGACY_NOTE)
        texts = [text_thread_meta(self.name, path) for path in _text_threads(folder)]
        return found + [meta for meta in texts if meta is not None]

    def _db_metas(self, db: Path) -> list[ConversationMeta]:
        try:
            with open_snapshot(db) as snapshot:
                store = Store(snapshot)
                if not store.readable:
                    passed_over(db, "not a Zed thread database (no threads table)")
                    return []
                family = Family(store.heads())
        except SourceUnavailableError as exc:
            passed_over(db, f"cannot be read ({exc.reason})")
            return []
        return thread_metas(self.name, db, family)

    @contextmanager
    def parsing(self) -> Iterator[Callable[[ConversationMeta], ParsedConversation]]:
        """A parse function that opens each ``threads.db`` once for the whole block.

        Its rows are read once, when the first thread of it is parsed, and every database is
        closed when the block ends (also when it ends early). A host has one or two.
        """
        with ExitStack() as stack:
            databases: dict[str, Opened] = {}

            def parse(meta: ConversationMeta) -> ParsedConversation:
                if meta.locator.get("format") == FORMAT:
                    return read_text_conversation(self, meta)
                opened = databases.get(meta.path)
                if opened is None:
                    snapshot = stack.enter_context(open_snapshot(meta.path))
                    opened = databases[meta.path] = Opened(Store(snapshot), self._decompress)
                return read_conversation(self, meta, opened)

            yield parse

    def parse(self, meta: ConversationMeta) -> ParsedConversation:
        """Parse one thread (its database opened for this call alone)."""
        with self.parsing() as parse:
            return parse(meta)

    # Optional protocols: Peeker (peek), PathSniffer (sniff, scan_path), Explainer (explain).

    def peek(self, meta: ConversationMeta) -> ConversationMeta:
        """``meta`` with a text thread's title, when the file fits the peek window.

        A thread of ``threads.db`` is returned as scanned: its row gave everything a peek could.
        """
        if meta.locator.get("format") != FORMAT:
            return meta
        try:
            if Path(meta.path).stat().st_size > PEEK_BYTES:
                return meta
            found = self.parse(meta)
        except OSError:  # gone since the scan (SourceUnavailableError is one): parse says so
            return meta
        return evolve(meta, title=found.title or meta.title)

    def sniff(self, path: Path) -> float:
        """Sure of a ``threads.db`` in ``threads/`` or a text thread in ``conversations/``."""
        if not is_file(path):
            return 0.0
        head = read_head(path)
        if path.name.endswith(SUFFIX):
            if b'"zed"' not in head or b'"context"' not in head:
                return 0.0
            return 0.9 if path.parent.name == CONVERSATIONS else 0.6
        if path.name == THREADS_DB.name and head.startswith(_SQLITE_HEADER):
            return 0.9 if path.parent.name == THREADS_DB.parent.name else 0.5
        return 0.0

    def scan_path(self, path: Path) -> Iterator[ConversationMeta]:
        """The threads of a ``threads.db``, or the one text thread of a ``.zed.json`` file."""
        if path.name.endswith(SUFFIX):
            meta = text_thread_meta(self.name, path)
            if meta is not None:
                yield meta
            return
        yield from self._db_metas(path)

    def explain(self, host: Host) -> Iterator[str]:
        """Where Zed's threads are looked for on ``host``, for ``chatparse doctor``."""
        for variable in (FLATPAK_ENV, XDG_ENV) if host.platform == "linux" else ():
            yield explain_variable(host, variable)
        for folder in data_dirs(host):
            if not is_dir(folder):
                yield f"{folder}: not found"
                continue
            yield f"{folder / THREADS_DB}: {self._db_state(folder / THREADS_DB)}"
            if os.path.lexists(folder / LEGACY_DB):
                yield f"{folder / LEGACY_DB}: {_LEGACY_NOTE}"
            texts = _text_threads(folder)
            if texts:
                yield f"{folder / CONVERSATIONS}: {len(texts)} text thread(s)"
        yield _EXTERNAL_NOTE

    def _db_state(self, db: Path) -> str:
        if not is_file(db):
            return "missing"
        try:
            with open_snapshot(db) as snapshot:
                store = Store(snapshot)
                if not store.readable:
                    return "not a Zed thread database (no threads table)"
                kinds = Counter(head.data_type or "json" for head in store.heads())
        except SourceUnavailableError as exc:
            return f"cannot be read: {exc}"
        listed = ", ".join(f"{count} {kind}" for kind, count in sorted(kinds.items()))
        state = f"{sum(kinds.values())} thread(s)" + (f" ({listed})" if listed else "")
        if kinds[ZSTD] and self._decompress is None:
            state += f"; the {kinds[ZSTD]} zstd thread(s) are listed but not read: {NO_ZSTD}"
        return state


def _is_text_thread(name: str) -> bool:
    return name.endswith(SUFFIX) and len(name) > len(SUFFIX)


def _text_threads(folder: Path) -> list[Path]:
    return files_in(folder / CONVERSATIONS, _is_text_thread)
