"""The Mistral Vibe adapter: where it looks (detect, explain), what it lists, how it reads."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from chatparse.adapter import explain_variable, is_dir, is_file
from chatparse.adapters.mistral_vibe.locate import (
    FILES,
    HOME_ENV,
    SAVE_DIR_ENV,
    folder_meta,
    legacy_meta,
    session_root,
    sessions,
    subagent_folders,
)
from chatparse.adapters.mistral_vibe.session import read_folder, read_legacy
from chatparse.host import Host
from chatparse.model import ConversationMeta, ParsedConversation, SourceInfo

__all__ = ["MistralVibeAdapter"]


class MistralVibeAdapter:
    """Reads Mistral Vibe's session logs: 2.x session folders and 1.x session files.

    .. versionadded:: 0.3
    """

    name = "mistral-vibe"
    display_name = "Mistral Vibe"
    parser_version = "1"

    def detect(self, host: Host) -> SourceInfo | None:
        """The session log folder, when it exists."""
        root, _why = session_root(host)
        if not is_dir(root):
            return None
        return SourceInfo(source=self.name, display_name=self.display_name, roots=(str(root),))

    def scan(self, source: SourceInfo) -> Iterator[ConversationMeta]:
        """One conversation per session name; a 2.x folder wins over a 1.x file of its name."""
        found: dict[str, ConversationMeta] = {}
        for root in map(Path, source.roots):
            for kind, path in sessions(root):
                meta = (
                    folder_meta(self.name, path)
                    if kind == "folder"
                    else legacy_meta(self.name, path)
                )
                if meta is None:
                    continue
                known = found.get(meta.id)
                if known is None or known.locator["layout"] < meta.locator["layout"]:
                    found[meta.id] = meta
        yield from (found[ident] for ident in sorted(found))

    def parse(self, meta: ConversationMeta) -> ParsedConversation:
        """Read the session, and the sessions of the sub-agents it started."""
        if meta.locator.get("layout") == "1.x":
            return read_legacy(self, meta)
        folder = Path(meta.path).parent
        children = (folder_meta(self.name, child) for child in subagent_folders(folder))
        subagents = [self.parse(child) for child in children if child is not None]
        return read_folder(self, meta, subagents)

    # Optional protocols: PathSniffer (sniff, scan_path) and Explainer (explain).

    def sniff(self, path: Path) -> float:
        """Sure of a session folder or one of its two files; less of a lone ``.json`` file."""
        folder = path if is_dir(path) else path.parent
        if path == folder or path.name in FILES:
            if not any(is_file(folder / name) for name in FILES):
                return 0.0
            return 0.9 if is_file(folder / "meta.json") else 0.5
        if path.suffix == ".json" and "_" in path.stem and is_file(path):
            return 0.2  # a 1.x file: its name is all that says so without reading it
        return 0.0

    def scan_path(self, path: Path) -> Iterator[ConversationMeta]:
        """The session in a session folder (or of one of its files), or in a 1.x file."""
        folder = path if is_dir(path) else path.parent
        if path == folder or path.name in FILES:
            meta = folder_meta(self.name, folder)
        else:
            meta = legacy_meta(self.name, path)
        if meta is not None:
            yield meta

    def explain(self, host: Host) -> Iterator[str]:
        """Where Vibe's session logs are looked for on ``host``, for ``chatparse doctor``."""
        for variable in (HOME_ENV, SAVE_DIR_ENV):
            yield explain_variable(host, variable)
        root, why = session_root(host)
        if not is_dir(root):
            yield f"{root} ({why}): missing"
            return
        found = list(sessions(root))
        folders = sum(1 for kind, _path in found if kind == "folder")
        yield (
            f"{root} ({why}): {folders} session folder(s) (Vibe 2.x), "
            f"{len(found) - folders} session file(s) (Vibe 1.x)"
        )
