"""The Continue adapter: where it looks (detect, explain), what it lists, how it reads."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Final

from attrs import evolve

from chatparse.adapter import (
    PEEK_BYTES,
    as_time,
    digest_fingerprint,
    file_meta,
    is_dir,
    is_file,
    read_head,
    stat_fingerprint,
)
from chatparse.adapters.continue_dev.locate import (
    HOME_ENV,
    INDEX,
    SESSIONS,
    IndexEntry,
    clean_title,
    home_of,
    project_of,
    read_index,
    session_files,
)
from chatparse.adapters.continue_dev.session import read_conversation
from chatparse.decoders import bigjson
from chatparse.decoders.value import encode
from chatparse.host import Host
from chatparse.model import ConversationMeta, ParsedConversation, SourceInfo

__all__ = ["ContinueAdapter"]


def _meta(source: str, path: Path, entry: IndexEntry | None) -> ConversationMeta | None:
    try:
        info = path.stat()
    except OSError:
        return None
    stamp = stat_fingerprint(info)
    return file_meta(
        source,
        path.stem,
        path,
        info,
        # The index's entry is part of what is read: a change to it changes the conversation.
        fingerprint=stamp if entry is None else digest_fingerprint(stamp, encode(entry.raw)),
        title=None if entry is None else entry.title,
        project_path=None if entry is None else entry.project_path,
        created_at=None if entry is None else as_time(entry.created, "ms"),
    )


def _metas(source: str, home: Path, files: list[Path]) -> Iterator[ConversationMeta]:
    index, _ = read_index(home)
    for path in files:
        meta = _meta(source, path, index.get(path.stem))
        if meta is not None:
            yield meta


class ContinueAdapter:
    """Reads Continue's session files (VS Code, JetBrains and the ``cn`` CLI).

    .. versionadded:: 0.3
    """

    name = "continue"
    display_name = "Continue"
    parser_version = "1"
    scan_reads_content: Final = ("*/sessions/sessions.json",)
    """``scan`` reads the index for the creation times only it records; sessions are listed by
    name and stat."""

    def detect(self, host: Host) -> SourceInfo | None:
        """Continue's home, when it has a ``sessions/`` folder."""
        home = home_of(host).home
        if not is_dir(home / SESSIONS):
            return None
        return SourceInfo(source=self.name, display_name=self.display_name, roots=(str(home),))

    def scan(self, source: SourceInfo) -> Iterator[ConversationMeta]:
        """Every session file, with what the index adds (title, project, creation time)."""
        for home in map(Path, source.roots):
            yield from _metas(self.name, home, session_files(home))

    def parse(self, meta: ConversationMeta) -> ParsedConversation:
        """Parse one session file."""
        return read_conversation(self, meta)

    # Optional protocols: Peeker (peek), PathSniffer (sniff, scan_path), Explainer (explain).

    def peek(self, meta: ConversationMeta) -> ConversationMeta:
        """``meta`` with its title, project and last time, read within the peek window.

        A session that fits the window is parsed (what ``parse`` finds, exactly); of a larger
        one, the head holds the fields Continue writes first, ``title`` and
        ``workspaceDirectory``.
        """
        try:
            if Path(meta.path).stat().st_size <= PEEK_BYTES:
                found = self.parse(meta)
                title, project, updated = found.title, found.project_path, found.updated_at
            else:
                head = _head_fields(read_head(meta.path, PEEK_BYTES))
                title = clean_title(head.get("title"))
                project, updated = project_of(head.get("workspaceDirectory")), None
        except OSError:  # gone since the scan (SourceUnavailableError is one): parse says so
            return meta
        return evolve(
            meta,
            title=title or meta.title,
            project_path=project or meta.project_path,
            updated_at=updated or meta.updated_at,
        )

    def sniff(self, path: Path) -> float:
        """Sure of a session file in a ``sessions/`` folder; less of one elsewhere."""
        if path.name == INDEX or path.suffix != ".json" or not is_file(path):
            return 0.0
        head = read_head(path)
        if b'"sessionId"' not in head or b'"history"' not in head:
            return 0.0
        return 0.9 if path.parent.name == SESSIONS else 0.6

    def scan_path(self, path: Path) -> Iterator[ConversationMeta]:
        """The one session a session file holds (its index read when it sits beside it)."""
        home = path.parent.parent if path.parent.name == SESSIONS else path.parent
        yield from _metas(self.name, home, [path])

    def explain(self, host: Host) -> Iterator[str]:
        """Where Continue's sessions are looked for on ``host``, for ``chatparse doctor``."""
        located = home_of(host)
        if located.configured is None:
            yield f"{HOME_ENV} is not set: using {located.home}"
        elif located.ignored:
            yield (
                f"{HOME_ENV} is set to a relative path ({located.configured}), which Continue "
                f"resolves against its own working directory, unknown here: using {located.home}"
            )
        else:
            yield f"{HOME_ENV} is set: {located.home} (so ~/.continue is not read)"
        folder = located.home / SESSIONS
        if not is_dir(folder):
            yield f"{folder}: missing (Continue has saved no session here)"
            return
        files = session_files(located.home)
        yield f"{folder}: {len(files)} session file(s)"
        yield _index_state(located.home, {path.stem for path in files})
        yield "config.json, config.yaml, dev_data/ and index/ are not read (settings, keys, logs)"


def _head_fields(head: bytes) -> dict[str, object]:
    """The document's fields before ``history`` (the writer's key order puts them first)."""
    fields: dict[str, object] = {}
    for item in bigjson.iter_kvitems(head, ""):
        if isinstance(item, bigjson.Malformed) or item.key == "history":
            break
        fields[str(item.key)] = item.value
    return fields


def _index_state(home: Path, present: set[str]) -> str:
    path = home / SESSIONS / INDEX
    if not os.path.lexists(path):
        return f"{path}: missing (sessions are listed from the folder; creation times unknown)"
    entries, problem = read_index(home)
    gone = sum(1 for ident in entries if ident not in present)
    state = f"{len(entries)} entries, {gone} naming a file that is gone"
    return f"{path}: {state}" + (f"; {problem}" if problem else "")
