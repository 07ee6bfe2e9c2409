"""The OpenHands adapter: where it looks (detect, explain), what it lists (scan), how it reads."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Final

from chatparse.adapter import explain_variable, is_dir, is_file
from chatparse.adapters.openhands.conversation import read_conversation
from chatparse.adapters.openhands.locate import (
    BASE_STATE,
    CONVERSATIONS_ENV,
    EVENTS,
    PERSISTENCE_ENV,
    conversation_dirs,
    conversation_meta,
    is_conversation,
    roots,
)
from chatparse.host import Host
from chatparse.model import ConversationMeta, ParsedConversation, SourceInfo

__all__ = ["OpenHandsAdapter"]

_EPOCH: Final = datetime.fromtimestamp(0, UTC)


def _folder_of(path: Path) -> Path | None:
    """The conversation folder ``path`` is, or holds as ``base_state.json`` or an event file."""
    if is_dir(path):
        return path if is_conversation(path) else None
    if path.name == BASE_STATE:
        return path.parent
    if path.parent.name == EVENTS and path.name.startswith("event-") and path.suffix == ".json":
        return path.parent.parent
    return None


def _newer(meta: ConversationMeta, known: ConversationMeta) -> bool:
    """Whether ``meta``'s copy changed after ``known``'s (a copy without a time is older)."""
    return (meta.mtime or _EPOCH) > (known.mtime or _EPOCH)


class OpenHandsAdapter:
    """Reads the OpenHands CLI's conversation folders (``base_state.json`` and event files).

    .. versionadded:: 0.2
    """

    name = "openhands"
    display_name = "OpenHands"
    parser_version = "1"

    def detect(self, host: Host) -> SourceInfo | None:
        """Every conversations folder that exists."""
        found = tuple(str(root) for root in roots(host) if is_dir(root))
        if not found:
            return None
        return SourceInfo(source=self.name, display_name=self.display_name, roots=found)

    def scan(self, source: SourceInfo) -> Iterator[ConversationMeta]:
        """One conversation per folder name; of two copies, the one changed last."""
        found: dict[str, ConversationMeta] = {}
        for root in map(Path, source.roots):
            for folder in conversation_dirs(root):
                meta = conversation_meta(self.name, folder)
                known = found.get(folder.name)
                if meta is not None and (known is None or _newer(meta, known)):
                    found[folder.name] = meta
        for ident in sorted(found):
            yield found[ident]

    def parse(self, meta: ConversationMeta) -> ParsedConversation:
        """Read the conversation folder."""
        return read_conversation(self, meta)

    # Optional protocols: PathSniffer (sniff, scan_path) and Explainer (explain).

    def sniff(self, path: Path) -> float:
        """Sure of a folder under ``conversations/`` or one of its files; less elsewhere."""
        folder = _folder_of(path)
        if folder is None:
            return 0.0
        if folder.parent.name == "conversations":
            return 0.9
        return 0.6 if is_file(folder / BASE_STATE) else 0.3

    def scan_path(self, path: Path) -> Iterator[ConversationMeta]:
        """The conversation in a conversation folder, or in the folder of one of its files."""
        folder = _folder_of(path)
        meta = conversation_meta(self.name, folder) if folder is not None else None
        if meta is not None:
            yield meta

    def explain(self, host: Host) -> Iterator[str]:
        """Where the conversations are looked for on ``host``, for ``chatparse doctor``."""
        for variable in (CONVERSATIONS_ENV, PERSISTENCE_ENV):
            yield explain_variable(host, variable)
        for root in roots(host):
            if is_dir(root):
                count = sum(1 for _ in conversation_dirs(root))
                yield f"{root}: {count} conversation folder(s)"
            else:
                yield f"{root}: missing"
