"""The adapter: where it looks (detect, explain), what it lists (scan) and how it reads (parse)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Final

from chatparse.adapter import Ledger
from chatparse.adapters._vscode import existing_user_dirs, workspace_project_path
from chatparse.adapters.copilot.document import (
    LEGACY_FORMAT,
    has_legacy,
    legacy_metas,
    legacy_session,
    read_document,
)
from chatparse.adapters.copilot.locate import (
    CHAT_SESSIONS,
    EMPTY_WINDOW,
    PRODUCTS,
    SERVER_DIRS,
    SESSION_SUFFIXES,
    TRANSCRIPT_FORMAT,
    TRANSCRIPTS,
    Folder,
    databases,
    files_by_id,
    head,
    newer,
    session_folders,
    session_meta,
    with_extra,
)
from chatparse.adapters.copilot.peek import peek_session
from chatparse.adapters.copilot.replay import replay_log
from chatparse.adapters.copilot.session import Session
from chatparse.adapters.copilot.transcript import read_transcript
from chatparse.errors import SourceUnavailableError
from chatparse.host import Host
from chatparse.model import ConversationMeta, ParsedConversation, SourceInfo

__all__ = ["CopilotAdapter"]

# The folders a session or transcript file of its own sits in.
_SESSION_FOLDERS: Final = (CHAT_SESSIONS, EMPTY_WINDOW.name)


class CopilotAdapter:
    """Reads GitHub Copilot Chat sessions from VS Code, Insiders, VSCodium and remote servers.

    .. versionadded:: 0.1
    """

    name = "copilot"
    display_name = "GitHub Copilot Chat"
    parser_version = "2"
    scan_reads_content: Final = ("*/workspace.json", "*/state.vscdb")
    """``scan`` reads each workspace folder's ``workspace.json`` (for the project path) and looks
    up one key in each ``state.vscdb`` (for sessions saved before file storage); the session
    files themselves are listed by name and stat only."""

    def detect(self, host: Host) -> SourceInfo | None:
        """Find the ``User`` directories that hold a chat session folder or legacy sessions.

        The databases are only opened for a ``User`` directory without any session folder.
        """
        roots = tuple(
            str(user)
            for user in existing_user_dirs(host, PRODUCTS, server_dirs=SERVER_DIRS)
            if any(session_folders(user)) or any(has_legacy(db) for db, _ in databases(user))
        )
        if not roots:
            return None
        return SourceInfo(source=self.name, display_name=self.display_name, roots=roots)

    def explain(self, host: Host) -> Iterator[str]:
        """Where the adapter looks on ``host``, for ``chatparse doctor``."""
        found = existing_user_dirs(host, PRODUCTS, server_dirs=SERVER_DIRS)
        candidates = [host.vscode_user_dir(product) for product in PRODUCTS]
        candidates += [host.home / name / "data" / "User" for name in SERVER_DIRS]
        for user in candidates:
            if user not in found:
                yield f"{user}: missing"
                continue
            folders = list(session_folders(user))
            files = sum(
                len(list(folder.sessions.glob("*.json*"))) if folder.sessions.is_dir() else 0
                for folder, _workspace in folders
            )
            legacy = sum(1 for db, _workspace in databases(user) if has_legacy(db))
            yield (
                f"{user}: {len(folders)} session folder(s) with {files} session file(s); "
                f"{legacy} database(s) with sessions saved before file storage"
            )

    def scan(self, source: SourceInfo) -> Iterator[ConversationMeta]:
        """List every session once, by stat: a ``.jsonl`` over a ``.json``, a transcript merged.

        A session id found under two roots (Code and Insiders, say) is listed once: the most
        recently modified copy wins. A session saved before file storage is listed only when no
        file holds it (VS Code migrated it to one, which it reads instead).
        """
        chosen: dict[str, ConversationMeta] = {}
        for root in map(Path, source.roots):
            for meta in self._metas(root):
                known = chosen.get(meta.id)
                if known is None or newer(meta, known):
                    chosen[meta.id] = meta
        legacy: dict[str, ConversationMeta] = {}
        for root in map(Path, source.roots):
            for meta in legacy_metas(self.name, root):
                if meta.id not in chosen:
                    legacy.setdefault(meta.id, meta)
        chosen |= legacy
        for session_id in sorted(chosen):
            yield chosen[session_id]

    def _metas(self, user_dir: Path) -> Iterator[ConversationMeta]:
        for folder, workspace in session_folders(user_dir):
            project = workspace_project_path(workspace) if workspace is not None else None
            yield from self._folder_metas(folder, project)

    def _folder_metas(self, folder: Folder, project: str | None) -> Iterator[ConversationMeta]:
        sessions = files_by_id(folder.sessions, SESSION_SUFFIXES)
        transcripts = files_by_id(folder.transcripts, (".jsonl",))
        for session_id in sorted(sessions.keys() | transcripts.keys()):
            copies = sessions.get(session_id, {})
            transcript = transcripts.get(session_id, {}).get(".jsonl")
            main = copies.get(".jsonl") or copies.get(".json") or transcript
            if main is None:
                continue
            meta = session_meta(self.name, session_id, main, project)
            if meta is None:
                continue
            extra: dict[str, str] = {}
            if main == transcript:
                extra["format"] = TRANSCRIPT_FORMAT
            if main.suffix == ".jsonl" and ".json" in copies:
                extra["superseded_json"] = str(copies[".json"])
            if transcript is not None and transcript != main:
                extra["transcript"] = str(transcript)
            yield with_extra(meta, extra)

    def sniff(self, path: Path) -> float:
        """How sure we are that ``path`` is a Copilot chat session or transcript."""
        if not path.is_file() or path.suffix not in SESSION_SUFFIXES:
            return 0.0
        in_session_folder = path.parent.name in _SESSION_FOLDERS
        start = head(path)
        if path.suffix == ".jsonl" and start.startswith((b'{"kind":0', b'{"kind": 0')):
            return 0.95 if in_session_folder else 0.8
        if path.suffix == ".jsonl" and b'"session.start"' in start:
            # Copilot CLI's events.jsonl streams share the event shape: not ours, unless named so.
            return 0.95 if path.parent.name == TRANSCRIPTS.name else 0.5
        if path.suffix == ".json" and b'"requests"' in start:
            return 0.9 if in_session_folder else 0.5
        return 0.3 if in_session_folder else 0.0

    def scan_path(self, path: Path) -> Iterator[ConversationMeta]:
        """The one session in a session or transcript file, with its project when it has one."""
        in_transcripts = path.parent.name == TRANSCRIPTS.name
        workspace = path.parent.parent.parent if in_transcripts else path.parent.parent
        meta = session_meta(self.name, path.stem, path, workspace_project_path(workspace))
        if meta is None:
            return
        if path.suffix == ".jsonl" and (in_transcripts or b'"session.start"' in head(path)):
            yield with_extra(meta, {"format": TRANSCRIPT_FORMAT})
            return
        transcript = workspace / TRANSCRIPTS / f"{path.stem}.jsonl"
        yield with_extra(meta, {"transcript": str(transcript)} if transcript.is_file() else {})

    def peek(self, meta: ConversationMeta) -> ConversationMeta:
        """``meta`` with its title, project and last time, when its session is small."""
        return peek_session(self, meta)

    def parse(self, meta: ConversationMeta) -> ParsedConversation:
        """Parse one session: replay or read its file, and merge its transcript when it has one."""
        path = Path(meta.path)
        if not path.is_file():
            raise SourceUnavailableError(
                meta.path, "no such file", "Scan again: the session was moved or deleted."
            )
        ledger = Ledger()
        shape = meta.locator.get("format")
        if shape == TRANSCRIPT_FORMAT:
            return read_transcript(path, ledger).conversation(meta, self)
        session = Session(meta.id, ledger)
        if shape == LEGACY_FORMAT:
            session.read(legacy_session(path, meta))
            return session.conversation(meta, self)
        state = replay_log(path, ledger) if path.suffix == ".jsonl" else read_document(path, ledger)
        if state is not None:
            session.read(state)
        transcript_path = meta.locator.get("transcript")
        if transcript_path and Path(transcript_path).is_file():
            session.merge(read_transcript(Path(transcript_path), Ledger()))
        return session.conversation(meta, self)
