"""The Factory Droid adapter: where it looks (detect, explain), what it lists (scan), how it reads.

(Reading one session file is :mod:`.lines`; its sidecar, :mod:`.settings`.)
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Final

from chatparse.adapter import build_conversation, is_dir, is_file, read_head, require_file
from chatparse.adapters._anthropic.files import Found, newest_by_id
from chatparse.adapters.factory_droid.lines import read_lines
from chatparse.adapters.factory_droid.locate import (
    found_in,
    meta_of,
    sessions_root,
    sidecar_of,
)
from chatparse.adapters.factory_droid.session import Session
from chatparse.adapters.factory_droid.settings import SUFFIX, give_totals, read_settings
from chatparse.host import Host
from chatparse.model import ConversationMeta, ParsedConversation, SourceInfo

__all__ = ["FactoryDroidAdapter"]

_STORE_MARK: Final = b'"session_start"'
_STREAM_MARKS: Final = (b'"session_id"', b'"tool_call"', b'"completion"')


class FactoryDroidAdapter:
    """Reads Factory Droid's session files (both dialects) and their settings sidecars.

    .. versionadded:: 0.3
    """

    name = "factory-droid"
    display_name = "Factory Droid"
    parser_version = "1"

    def detect(self, host: Host) -> SourceInfo | None:
        """The sessions folder, when it exists."""
        root = sessions_root(host)
        if not is_dir(root):
            return None
        return SourceInfo(source=self.name, display_name=self.display_name, roots=(str(root),))

    def scan(self, source: SourceInfo) -> Iterator[ConversationMeta]:
        """One conversation per session id: the file written last, when there are several."""
        chosen = newest_by_id(found for root in source.roots for found in found_in(Path(root)))
        for ident in sorted(chosen):
            yield meta_of(self.name, chosen[ident])

    def parse(self, meta: ConversationMeta) -> ParsedConversation:
        """Read one session file, and the totals and model of its sidecar."""
        path = require_file(meta.path, "session")
        session = Session()
        read_lines(path, session)
        settings = read_settings(sidecar_of(path), session.ledger)
        if session.model is not None:
            for draft in session.drafts:
                if draft.role == "assistant" and draft.model is None:
                    draft.model = session.model
        give_totals(settings, session.drafts, meta.id, session.ledger)
        return build_conversation(
            self,
            meta,
            [draft.freeze() for draft in session.drafts],
            session.ledger,
            title=session.title,
            project_path=session.cwd,
            producer_version=session.version,
        )

    # Optional protocols: PathSniffer (sniff, scan_path) and Explainer (explain).

    def sniff(self, path: Path) -> float:
        """Sure of a session file (surer in ``.factory``); less sure of a stream-json log."""
        if path.suffix != ".jsonl" or not is_file(path):
            return 0.0
        head = read_head(path)
        if _STORE_MARK in head:
            return 0.95 if ".factory" in path.parts else 0.7
        return 0.5 if sum(mark in head for mark in _STREAM_MARKS) >= 2 else 0.0

    def scan_path(self, path: Path) -> Iterator[ConversationMeta]:
        """The session in one file (its sidecar read when beside it)."""
        try:
            info = path.stat()
        except OSError:
            return
        yield meta_of(self.name, Found(path.name.removesuffix(".jsonl"), path, info))

    def explain(self, host: Host) -> Iterator[str]:
        """Where Factory Droid's sessions are looked for on ``host``, for ``chatparse doctor``."""
        root = sessions_root(host)
        if not is_dir(root):
            yield f"{root}: missing (Droid reads no variable that moves it)"
            return
        found = list(found_in(root))
        sidecars = sum(1 for item in found if is_file(sidecar_of(item.path)))
        yield (
            f"{root}: {len(found)} session file(s), {sidecars} with a {SUFFIX} sidecar "
            "(the only place Droid keeps token usage: session totals)"
        )
