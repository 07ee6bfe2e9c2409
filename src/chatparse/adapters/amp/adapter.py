"""The Amp adapter: where it looks (detect, explain), what it lists (scan), how it reads."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Final

from chatparse.adapter import is_dir, is_file, read_head
from chatparse.adapters._anthropic.files import Found, newest_by_id
from chatparse.adapters.amp.locate import (
    XDG_ENV,
    found_in,
    is_thread_name,
    meta_of,
    thread_roots,
)
from chatparse.adapters.amp.thread import read_thread
from chatparse.host import Host
from chatparse.model import ConversationMeta, ParsedConversation, SourceInfo

__all__ = ["AmpAdapter"]

_MARKERS: Final = (b'"messages"', b'"v"')
"""What every thread document has near its head: the revision counter and the messages."""


class AmpAdapter:
    """Reads the thread documents of Amp's local-first CLI (per-message usage and usage ledger).

    .. versionadded:: 0.3
    """

    name = "amp"
    display_name = "Amp"
    parser_version = "1"

    def detect(self, host: Host) -> SourceInfo | None:
        """Every ``threads`` folder of Amp's that exists on ``host``."""
        roots = tuple(str(root) for root in thread_roots(host) if is_dir(root))
        if not roots:
            return None
        return SourceInfo(source=self.name, display_name=self.display_name, roots=roots)

    def scan(self, source: SourceInfo) -> Iterator[ConversationMeta]:
        """One conversation per thread id: the copy written last, when several roots hold it."""
        chosen = newest_by_id(found for root in source.roots for found in found_in(Path(root)))
        for ident in sorted(chosen):
            yield meta_of(self.name, chosen[ident])

    def parse(self, meta: ConversationMeta) -> ParsedConversation:
        """Read one thread document."""
        return read_thread(self, meta)

    # Optional protocols: PathSniffer (sniff, scan_path) and Explainer (explain).

    def sniff(self, path: Path) -> float:
        """Sure of a ``T-<id>.json`` in ``threads/`` with a revision counter and messages."""
        if path.suffix != ".json" or not is_file(path):
            return 0.0
        head = read_head(path)
        if not all(marker in head for marker in _MARKERS) or b'"T-' not in head:
            return 0.0
        return 0.9 if is_thread_name(path.name) and path.parent.name == "threads" else 0.6

    def scan_path(self, path: Path) -> Iterator[ConversationMeta]:
        """The thread in one document."""
        try:
            info = path.stat()
        except OSError:
            return
        yield meta_of(self.name, Found(path.stem, path, info))

    def explain(self, host: Host) -> Iterator[str]:
        """Where Amp's threads are looked for on ``host``, for ``chatparse doctor``."""
        configured = host.getenv(XDG_ENV)
        if host.platform == "win32":
            yield f"Windows: {XDG_ENV} is not read; using ~/.local/share/amp"
        elif configured:
            yield f"{XDG_ENV} is set: {configured} (~/.local/share/amp is read too)"
        else:
            yield f"{XDG_ENV} is not set: using ~/.local/share/amp"
        for root in thread_roots(host):
            if is_dir(root):
                yield f"{root}: {sum(1 for _ in found_in(root))} thread document(s)"
            else:
                yield f"{root}: missing"
        yield (
            "Amp CLIs since early 2026 keep threads on Amp's servers only: threads made with them "
            "are not on this machine. ~/.amp (file-change snapshots, prompt history) is not read"
        )
