"""The Kimi adapter: where it looks (detect, explain), what it lists (scan), how it reads."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from chatparse.adapter import explain_variable, is_dir, is_file
from chatparse.adapters.kimi.locate import (
    CLI_ENV,
    CODE_ENV,
    CODE_WIRE,
    CONTEXT,
    WIRE,
    Session,
    homes,
    session_meta,
    sessions,
)
from chatparse.adapters.kimi.session import read_session
from chatparse.host import Host
from chatparse.model import ConversationMeta, ParsedConversation, SourceInfo

__all__ = ["KimiAdapter"]


def _changed(meta: ConversationMeta) -> float:
    return meta.mtime.timestamp() if meta.mtime is not None else 0.0


class KimiAdapter:
    """Reads Kimi CLI's session logs (wire and context) and Kimi Code's operation logs.

    .. versionadded:: 0.3
    """

    name = "kimi"
    display_name = "Kimi"
    parser_version = "1"

    def detect(self, host: Host) -> SourceInfo | None:
        """Every Kimi home (CLI, Code, Desktop) that has a ``sessions`` folder."""
        roots = tuple(str(home) for _what, home in homes(host) if is_dir(home / "sessions"))
        if not roots:
            return None
        return SourceInfo(source=self.name, display_name=self.display_name, roots=roots)

    def scan(self, source: SourceInfo) -> Iterator[ConversationMeta]:
        """One conversation per session id; of two copies, the one changed last."""
        found: dict[str, ConversationMeta] = {}
        for home in map(Path, source.roots):
            for session in sessions(home):
                meta = session_meta(self.name, session, home)
                known = found.get(session.ident)
                if meta is not None and (known is None or _changed(known) < _changed(meta)):
                    found[session.ident] = meta
        yield from (found[ident] for ident in sorted(found))

    def parse(self, meta: ConversationMeta) -> ParsedConversation:
        """Read the session's log, and the logs of the sub-agents it started."""
        return read_session(self, meta)

    # Optional protocols: PathSniffer (sniff, scan_path) and Explainer (explain).

    def _session_of(self, path: Path) -> tuple[Session, Path] | None:
        """The session a folder or log file is, and the home it sits in."""
        folder = path if is_dir(path) else None
        if folder is None and path.name == WIRE and path.parent.parent.name == "agents":
            folder = path.parent.parent.parent
        elif folder is None and path.name in (WIRE, CONTEXT):
            folder = path.parent
        if folder is not None:
            if is_file(folder / CODE_WIRE):
                return Session(
                    "kimi-code", folder.name, folder / CODE_WIRE, folder
                ), folder.parent.parent.parent
            main = folder / WIRE if is_file(folder / WIRE) else folder / CONTEXT
            if is_file(main):
                return Session("kimi-cli", folder.name, main, folder), folder.parent.parent.parent
            return None
        if path.suffix == ".jsonl" and is_file(path):
            return Session("kimi-cli", path.stem, path, None), path.parent.parent.parent
        return None

    def sniff(self, path: Path) -> float:
        """Sure of a session folder or log under ``sessions/``; less elsewhere."""
        found = self._session_of(path)
        if found is None:
            return 0.0
        session, _home = found
        if session.folder is None:
            return 0.1  # a flat context file: any JSON Lines file could be one
        return 0.8 if session.folder.parent.parent.name == "sessions" else 0.5

    def scan_path(self, path: Path) -> Iterator[ConversationMeta]:
        """The session in a session folder or log file."""
        found = self._session_of(path)
        if found is not None:
            meta = session_meta(self.name, *found)
            if meta is not None:
                yield meta

    def explain(self, host: Host) -> Iterator[str]:
        """Where Kimi's sessions are looked for on ``host``, for ``chatparse doctor``."""
        for variable in (CLI_ENV, CODE_ENV):
            yield explain_variable(host, variable)
        for what, home in homes(host):
            root = home / "sessions"
            if not is_dir(root):
                yield f"{what}: {root}: missing"
                continue
            found = list(sessions(home))
            yield f"{what}: {root}: {len(found)} session(s)"
