"""The Gemini CLI adapter: where it looks (detect, explain), what it lists (scan) and parse."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Final

from attrs import frozen

from chatparse.adapter import as_datetime, explain_variable, is_dir, is_file, require_file
from chatparse.adapters._gemini.cli_log import MESSAGE_TYPES
from chatparse.adapters._gemini.cli_session import read_session, session_conversation
from chatparse.adapters._gemini.files import DUPLICATES, Found, files_in, folders_in, pick, stat_of
from chatparse.adapters.gemini_cli.locate import (
    HOME_ENV,
    Head,
    gemini_dir,
    is_session_name,
    is_subagent_name,
    project_paths,
    project_root,
    read_head,
)
from chatparse.decoders import jsonl
from chatparse.errors import SourceUnavailableError
from chatparse.host import Host
from chatparse.model import ConversationMeta, ParsedConversation, SourceInfo

__all__ = ["GeminiCliAdapter"]

_PARENT: Final = "parent_session"
"""Locator key of a sub-agent session listed on its own: the parent session folder it is in."""
_SNIFF_BYTES: Final = 4096


def _chats_of(path: Path) -> Path:
    """The ``chats`` folder of a session file: a sub-agent's is one folder further up."""
    return path.parent if is_session_name(path.name) else path.parent.parent


def _found(path: Path, rank: tuple[int, ...]) -> tuple[Found, Head] | None:
    info = stat_of(path)
    if info is None:
        return None  # gone since its folder was listed
    head = read_head(path)
    return Found(head.id or path.stem, path, info, rank), head


@frozen
class _Listed:
    """A session file a scan found: the file, what its head says, its project and locator."""

    found: Found
    head: Head
    project: str | None
    locator: Mapping[str, str]


def _listed(chats: Path, project: str | None) -> Iterator[_Listed]:
    """The session files of a ``chats`` folder, and those of sub-agents whose session is gone.

    A legacy ``.json`` ranks after the ``.jsonl`` that continues it (the ``.jsonl`` is the one
    read last, see :func:`~chatparse.adapters._gemini.cli_session.read_session`).
    """
    sessions: set[str] = set()
    for path in files_in(chats, is_session_name):
        found = _found(path, (int(path.suffix == ".json"),))
        if found is not None:
            sessions.add(found[0].id)
            yield _Listed(found[0], found[1], project, {})
    for orphan in folders_in(chats):
        if orphan.name in sessions:
            continue  # a session's sub-agents: read inside it
        for path in files_in(orphan, is_subagent_name):
            found = _found(path, (2,))
            if found is not None:
                yield _Listed(found[0], found[1], project, {_PARENT: orphan.name})


class GeminiCliAdapter:
    """Reads Gemini CLI sessions: the legacy JSON documents and the JSON Lines replay logs.

    .. versionadded:: 0.2
    """

    name = "gemini-cli"
    display_name = "Gemini CLI"
    parser_version = "1"
    scan_reads_content: Final = (
        "*/chats/*.json",
        "*/chats/*.jsonl",
        "*/chats/*/*.json",
        "*/chats/*/*.jsonl",
        "*/.project_root",
        "*/projects.json",
    )
    """``scan`` reads the head of each session file (its session id and start time), each
    project folder's ``.project_root`` and ``projects.json`` (the project's path)."""

    def detect(self, host: Host) -> SourceInfo | None:
        """Find ``~/.gemini/tmp`` with at least one project folder holding ``chats/``."""
        tmp = gemini_dir(host) / "tmp"
        if not is_dir(tmp) or not any(is_dir(folder / "chats") for folder in folders_in(tmp)):
            return None
        return SourceInfo(source=self.name, display_name=self.display_name, roots=(str(tmp),))

    def explain(self, host: Host) -> Iterator[str]:
        """Where the adapter looks on ``host``, for ``chatparse doctor``."""
        yield explain_variable(host, HOME_ENV, "~/.gemini")
        base = gemini_dir(host)
        yield f"{base}: {'exists' if base.is_dir() else 'missing'}"
        tmp = base / "tmp"
        if not tmp.is_dir():
            yield f"{tmp}: missing (no sessions)"
            return
        chats = [folder / "chats" for folder in folders_in(tmp) if (folder / "chats").is_dir()]
        sessions = sum(len(files_in(c, is_session_name)) for c in chats)
        saved = sum(len(list(c.parent.glob("checkpoint-*.json"))) for c in chats)
        yield f"{tmp}: {sessions} session file(s) in {len(chats)} project folder(s)"
        if saved:
            yield f"{saved} '/chat save' checkpoint file(s) are snapshots, not read"
        if (base / "antigravity").is_dir():
            yield f"{base / 'antigravity'}: Google Antigravity's, not Gemini CLI's; left alone"
        yield "Gemini CLI deletes sessions older than 30 days by default (general.sessionRetention)"

    def scan(self, source: SourceInfo) -> Iterator[ConversationMeta]:
        """One conversation per session id, whatever files and folders hold it."""
        copies: dict[str, list[_Listed]] = {}
        for tmp in map(Path, source.roots):
            known = project_paths(tmp.parent)
            for folder in folders_in(tmp):
                if is_dir(folder / "chats"):
                    for listed in _listed(folder / "chats", project_root(folder, known)):
                        copies.setdefault(listed.found.id, []).append(listed)
        for session_id in sorted(copies):
            chosen, others = pick(listed.found for listed in copies[session_id])
            listed = next(listed for listed in copies[session_id] if listed.found is chosen)
            yield chosen.meta(
                self.name,
                others,
                locator=listed.locator,
                project_path=listed.project,
                created_at=as_datetime(listed.head.started),
            )

    def sniff(self, path: Path) -> float:
        """How sure we are that ``path`` is a Gemini CLI session file, from its head."""
        if path.suffix not in {".json", ".jsonl"} or not is_file(path):
            return 0.0
        named = 0.05 if is_session_name(path.name) else 0.0
        if path.suffix == ".jsonl":
            first = jsonl.read_first_line(path)
            value = first.value if isinstance(first, jsonl.Line) else None
            if isinstance(value, dict):
                if isinstance(value.get("sessionId"), str) and isinstance(
                    value.get("projectHash"), str
                ):
                    return 0.9 + named
                if isinstance(value.get("id"), str) and str(value.get("type")) in MESSAGE_TYPES:
                    return 0.5 + named
                return 0.0
        try:
            with path.open("rb") as stream:
                head = stream.read(_SNIFF_BYTES)
        except OSError:
            return 0.0
        return 0.9 + named if b'"sessionId"' in head and b'"projectHash"' in head else 0.0

    def scan_path(self, path: Path) -> Iterator[ConversationMeta]:
        """The one session in a session file (its project from the folders around it)."""
        found = _found(path, ())
        if found is None:
            return
        folder = _chats_of(path).parent
        project = project_root(folder, project_paths(folder.parent.parent))
        yield found[0].meta(
            self.name, project_path=project, created_at=as_datetime(found[1].started)
        )

    def parse(self, meta: ConversationMeta) -> ParsedConversation:
        """Parse one session file, with the sub-agent sessions it started."""
        path = require_file(meta.path, "session")
        copies = [Path(p) for p in meta.locator.get(DUPLICATES, "").split("\n") if p]
        replay = read_session(path, copies)
        subagents = self._subagents(_chats_of(path), meta, {meta.id}, replay.ledger.warn)
        return session_conversation(self, meta, replay, subagents)

    def _subagents(
        self, chats: Path, parent: ConversationMeta, seen: set[str], warn: Callable[[str], None]
    ) -> list[ParsedConversation]:
        """The sessions of the sub-agents ``parent`` started, each with its own, in file order."""
        folder = chats / parent.id
        if folder.parent != chats or not is_dir(folder):
            return []
        found: list[ParsedConversation] = []
        for path in files_in(folder, is_subagent_name):
            made = _found(path, ())
            if made is None or made[0].id in seen:
                continue
            meta = made[0].meta(
                self.name, project_path=parent.project_path, created_at=as_datetime(made[1].started)
            )
            try:
                replay = read_session(path)
            except SourceUnavailableError as exc:
                warn(f"sub-agent session {path.name} not read ({exc.reason})")
                continue
            inner = self._subagents(chats, meta, seen | {meta.id}, replay.ledger.warn)
            found.append(session_conversation(self, meta, replay, inner))
        return found
