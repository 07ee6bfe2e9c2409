"""The Codex adapter: where it looks (detect, explain), what it lists (scan) and parse."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Final

from chatparse.adapter import is_dir, new_meta, require_file, stat_fingerprint
from chatparse.adapters.codex.containers import read_document, read_lines, stream_lines
from chatparse.adapters.codex.locate import (
    ARCHIVED,
    SESSION_INDEX,
    SESSIONS,
    Header,
    codex_home,
    id_from_name,
    is_bare_meta,
    read_header,
    read_session_index,
    rollout_files,
)
from chatparse.adapters.codex.peek import peek_rollout
from chatparse.adapters.codex.thread import Thread
from chatparse.decoders import jsonl
from chatparse.host import Host
from chatparse.model import ConversationMeta, Message, ParsedConversation, SourceInfo

__all__ = ["CodexAdapter"]


class CodexAdapter:
    """Reads OpenAI Codex CLI rollouts: modern, bare early-Rust and TypeScript-era files.

    .. versionadded:: 0.1
    """

    name = "codex"
    display_name = "Codex CLI"
    parser_version = "2"
    scan_reads_content: Final = ("*rollout-*.jsonl", "*sessions/*.jsonl", f"*{SESSION_INDEX}")
    """``scan`` reads the first line of each JSON Lines rollout (for the thread id) and the
    session index (for titles); the TypeScript ``.json`` documents are listed by name only."""

    def detect(self, host: Host) -> SourceInfo | None:
        """Find ``sessions/`` and ``archived_sessions/`` under the Codex home."""
        home = codex_home(host)
        roots = tuple(str(home / name) for name in (SESSIONS, ARCHIVED) if is_dir(home / name))
        if not roots:
            return None
        return SourceInfo(source=self.name, display_name=self.display_name, roots=roots)

    def explain(self, host: Host) -> Iterator[str]:
        """Where the adapter looks on ``host``, for ``chatparse doctor``."""
        configured = host.getenv("CODEX_HOME")
        home = codex_home(host)
        if configured:
            yield f"CODEX_HOME is set: {configured} (so ~/.codex is not read)"
        else:
            yield "CODEX_HOME is not set: using ~/.codex"
        yield f"Codex home {home}: {'exists' if home.is_dir() else 'missing'}"
        for name in (SESSIONS, ARCHIVED):
            folder = home / name
            if folder.is_dir():
                yield f"{folder}: {len(rollout_files(folder))} rollout file(s)"
            else:
                yield f"{folder}: missing"
        index = home / SESSION_INDEX
        yield f"{index}: {'titles read from it' if index.is_file() else 'missing (no titles)'}"
        if home.is_dir() and any(home.rglob("*.jsonl.zst")):
            yield "compressed *.jsonl.zst rollouts were found; chatparse cannot read them yet"

    def scan(self, source: SourceInfo) -> Iterator[ConversationMeta]:
        """List every thread once; an active copy wins over an archived one with the same id."""
        titles: dict[Path, dict[str, str]] = {}
        chosen: dict[str, tuple[tuple[int, int, float, str], ConversationMeta]] = {}
        for root in map(Path, source.roots):
            home = root.parent
            if home not in titles:
                titles[home] = read_session_index(home / SESSION_INDEX)
            archived = root.name == ARCHIVED
            for path in rollout_files(root):
                meta = self._meta(path, titles[home])
                if meta is None:
                    continue
                mtime = meta.mtime.timestamp() if meta.mtime is not None else 0.0
                rank = (int(archived), int(path.suffix == ".json"), -mtime, str(path))
                if meta.id not in chosen or rank < chosen[meta.id][0]:
                    chosen[meta.id] = (rank, meta)
        for thread_id in sorted(chosen):
            yield chosen[thread_id][1]

    def sniff(self, path: Path) -> float:
        """How sure we are that ``path`` is a Codex rollout, from its name and first line."""
        if not path.is_file():
            return 0.0
        named = path.name.startswith("rollout-")
        if path.suffix == ".json":
            return 0.6 if named else 0.0
        if path.suffix != ".jsonl":
            return 0.0
        first = jsonl.read_first_line(path)
        value = first.value if isinstance(first, jsonl.Line) else None
        if isinstance(value, dict) and value.get("type") == "session_meta":
            return 0.95
        if isinstance(value, dict) and is_bare_meta(value):
            return 0.7 if named else 0.4
        return 0.5 if named else 0.0

    def scan_path(self, path: Path) -> Iterator[ConversationMeta]:
        """The one thread in a rollout file (titled from a session index beside it, if any)."""
        home = next((p for p in path.parents if (p / SESSION_INDEX).is_file()), None)
        titles = read_session_index(home / SESSION_INDEX) if home is not None else {}
        meta = self._meta(path, titles)
        if meta is not None:
            yield meta

    def _meta(self, path: Path, titles: Mapping[str, str]) -> ConversationMeta | None:
        try:
            info = path.stat()
        except OSError:
            return None  # gone between listing and stat: a rollout being archived
        header = Header() if path.suffix == ".json" else read_header(path)
        thread_id = header.id or id_from_name(path)
        return new_meta(
            source=self.name,
            id=thread_id,
            path=str(path),
            fingerprint=stat_fingerprint(info),
            size=info.st_size,
            mtime=datetime.fromtimestamp(info.st_mtime, UTC),
            title=titles.get(thread_id),
            project_path=header.cwd,
            created_at=header.created_at,
            locator=header.locator,
        )

    def peek(self, meta: ConversationMeta) -> ConversationMeta:
        """``meta`` with its title, project and last time, from the ends of its rollout."""
        return peek_rollout(self, meta)

    def iter_messages(self, meta: ConversationMeta) -> Iterator[Message]:
        """The messages of ``parse(meta)``, one by one; a JSON Lines rollout is read once.

        A TypeScript ``.json`` document (spring 2025, small) is parsed whole.
        """
        path = require_file(meta.path, "rollout")
        if path.suffix == ".json":
            return iter(self.parse(meta).messages)
        return stream_lines(path, Thread())

    def parse(self, meta: ConversationMeta) -> ParsedConversation:
        """Parse one rollout, whichever of the three shapes it has."""
        path = require_file(meta.path, "rollout")
        thread = Thread()
        if path.suffix == ".json":
            read_document(path, thread)
        else:
            read_lines(path, thread)
        return thread.conversation(meta, self)
