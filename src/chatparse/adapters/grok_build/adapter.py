"""The Grok Build adapter: where it looks (detect, explain), what it lists (scan), how it reads."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Final

from chatparse.adapter import explain_variable, is_dir, is_file
from chatparse.adapters.grok_build.locate import (
    CHAT_HISTORY,
    FILES,
    HOME_ENV,
    Summary,
    grok_home,
    read_summary,
    session_dirs,
    session_meta,
)
from chatparse.adapters.grok_build.session import read_session
from chatparse.host import Host
from chatparse.model import ConversationMeta, ParsedConversation, SourceInfo

__all__ = ["GrokBuildAdapter"]

_SUBAGENT_KINDS: Final = frozenset({"subagent", "subagent_fork"})
"""``session_kind`` of a session another one started and folds into its own."""
_LINES: Final = "\n"


class _Found:
    """Every session folder of a scan, by session id, with its summary."""

    def __init__(self) -> None:
        self.folders: dict[str, Path] = {}
        self.summaries: dict[str, Summary | None] = {}

    def add(self, folder: Path) -> None:
        """A session folder; of two with one id (a session moved to another cwd), the newer."""
        known = self.folders.get(folder.name)
        if known is None or _newest(folder) > _newest(known):
            self.folders[folder.name] = folder
            self.summaries[folder.name] = read_summary(folder)

    def parent(self, ident: str) -> str | None:
        """The session that started ``ident`` as a sub-agent, when it is listed."""
        summary = self.summaries[ident]
        if summary is None or summary.text("session_kind") not in _SUBAGENT_KINDS:
            return None
        parent = summary.text("parent_session_id")
        return parent if parent in self.folders and parent != ident else None

    def top(self, ident: str) -> str:
        """The outermost session of ``ident``'s parent chain (itself when a loop is found)."""
        seen = [ident]
        while (parent := self.parent(seen[-1])) is not None:
            if parent in seen:
                return ident
            seen.append(parent)
        return seen[-1]


def _locator(summary: Summary | None) -> dict[str, str]:
    """What ``summary.json`` says of the session's origin: its kind and the session before it."""
    if summary is None:
        return {}
    found = {
        "session_kind": summary.text("session_kind"),
        "parent_session": summary.text("parent_session_id"),
    }
    return {key: value for key, value in found.items() if value is not None}


def _newest(folder: Path) -> tuple[float, str]:
    stamps = []
    for name in FILES:
        try:
            stamps.append((folder / name).stat().st_mtime)
        except OSError:
            continue
    return max(stamps, default=0.0), str(folder)


class GrokBuildAdapter:
    """Reads Grok Build's session folders (chat history v0 and v1, the update log, summaries).

    .. versionadded:: 0.2
    """

    name = "grok-build"
    display_name = "Grok Build"
    parser_version = "1"
    scan_reads_content: Final = ("*/summary.json", "*/.cwd")
    """``scan`` reads each session's ``summary.json`` (title, times, which session started it)
    and, for a working directory too long to be a folder name, its ``.cwd`` file."""

    def sessions(self, host: Host) -> Path:
        """``<grok home>/sessions``."""
        return grok_home(host) / "sessions"

    def detect(self, host: Host) -> SourceInfo | None:
        """The sessions folder, when it exists."""
        root = self.sessions(host)
        if not is_dir(root):
            return None
        return SourceInfo(source=self.name, display_name=self.display_name, roots=(str(root),))

    def scan(self, source: SourceInfo) -> Iterator[ConversationMeta]:
        """One conversation per session id; a sub-agent's session is read inside its parent's."""
        found = _Found()
        for root in map(Path, source.roots):
            for folder in session_dirs(root):
                found.add(folder)
        children: dict[str, list[str]] = {}
        for ident in found.folders:
            parent = found.parent(ident)
            if parent is not None and found.top(ident) != ident:
                children.setdefault(parent, []).append(ident)
        for ident in sorted(found.folders):
            if found.top(ident) == ident:
                meta = self._meta(ident, found, children)
                if meta is not None:
                    yield meta

    def _meta(
        self, ident: str, found: _Found, children: dict[str, list[str]]
    ) -> ConversationMeta | None:
        summary = found.summaries[ident]
        nested = [self._meta(child, found, children) for child in sorted(children.get(ident, []))]
        metas = [child for child in nested if child is not None]
        locator = _locator(summary)
        if metas:
            locator["subagents"] = _LINES.join(str(Path(child.path).parent) for child in metas)
        return session_meta(
            self.name,
            found.folders[ident],
            summary,
            locator,
            watched=[child.fingerprint for child in metas],
        )

    def parse(self, meta: ConversationMeta) -> ParsedConversation:
        """Read the session folder, and each sub-agent session it started."""
        return self._read(meta, counted=True)

    def _read(self, meta: ConversationMeta, *, counted: bool) -> ParsedConversation:
        subagents = []
        for folder in map(Path, filter(None, meta.locator.get("subagents", "").split(_LINES))):
            child = self._child_meta(folder)
            if child is not None:
                subagents.append(self._read(child, counted=False))
        return read_session(self, meta, subagents, counted=counted)

    def _child_meta(self, folder: Path) -> ConversationMeta | None:
        """A session folder's meta; its own sub-agents were listed by the scan that found it."""
        summary = read_summary(folder)
        return session_meta(self.name, folder, summary, _locator(summary))

    # Optional protocols: PathSniffer (sniff, scan_path) and Explainer (explain).

    def sniff(self, path: Path) -> float:
        """Sure of a session folder under ``sessions/`` or one of its files; less elsewhere."""
        folder = path if is_dir(path) else path.parent
        if path != folder and path.name not in FILES:
            return 0.0
        if not any(is_file(folder / name) for name in FILES):
            return 0.0
        if folder.parent.parent.name == "sessions":
            return 0.9
        return 0.6 if is_file(folder / CHAT_HISTORY) else 0.3

    def scan_path(self, path: Path) -> Iterator[ConversationMeta]:
        """The session in a session folder, or in the folder of one of its files."""
        folder = path if is_dir(path) else path.parent
        meta = self._child_meta(folder)
        if meta is not None:
            yield meta

    def explain(self, host: Host) -> Iterator[str]:
        """Where Grok Build's sessions are looked for on ``host``, for ``chatparse doctor``."""
        yield explain_variable(host, HOME_ENV, "~/.grok")
        root = self.sessions(host)
        if not is_dir(root):
            yield f"{root}: missing"
            return
        folders = list(session_dirs(root))
        projects = len({folder.parent for folder in folders})
        yield f"{root}: {len(folders)} session folder(s) in {projects} working-directory folder(s)"
