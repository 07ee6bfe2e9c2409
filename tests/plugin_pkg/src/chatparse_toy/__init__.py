"""A toy chatparse adapter for the "toy chat" format (see README.md)."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

from chatparse import (
    ConversationMeta,
    Diagnostics,
    Host,
    Message,
    ParsedConversation,
    SourceInfo,
    SourceUnavailableError,
    UnknownRecord,
)
from chatparse.model import Role

__all__ = ["ToyAdapter"]

_SUFFIX = ".chat"
_ROLES: dict[str, Role] = {"user": "user", "assistant": "assistant"}


class ToyAdapter:
    """Reads ``~/.toychat/*.chat``."""

    name = "toy"
    display_name = "Toy Chat"
    parser_version = "1"

    def detect(self, host: Host) -> SourceInfo | None:
        """The ``.toychat`` folder in the home directory, when it exists."""
        root = host.home / ".toychat"
        if not root.is_dir():
            return None
        return SourceInfo(source=self.name, display_name=self.display_name, roots=(str(root),))

    def scan(self, source: SourceInfo) -> Iterator[ConversationMeta]:
        """One conversation per ``.chat`` file, by stat only."""
        for root in source.roots:
            for path in sorted(Path(root).glob(f"*{_SUFFIX}")):
                yield self._meta(path)

    def sniff(self, path: Path) -> float:
        """Sure of a ``.chat`` file, not interested in anything else."""
        return 1.0 if path.suffix == _SUFFIX and path.is_file() else 0.0

    def scan_path(self, path: Path) -> Iterator[ConversationMeta]:
        """A ``.chat`` file holds exactly one conversation."""
        yield self._meta(path)

    def _meta(self, path: Path) -> ConversationMeta:
        stat = path.stat()
        return ConversationMeta(
            source=self.name,
            id=path.stem,
            path=str(path),
            size=stat.st_size,
            mtime=datetime.fromtimestamp(stat.st_mtime, UTC),
            fingerprint=f"{stat.st_size}:{stat.st_mtime_ns}",
        )

    def parse(self, meta: ConversationMeta) -> ParsedConversation:
        """Every ``role: text`` line is a message; anything else is kept as unknown."""
        try:
            text = Path(meta.path).read_text(encoding="utf-8", errors="replace")
        except OSError as exc:
            raise SourceUnavailableError(meta.path, exc.strerror or str(exc)) from exc
        title = None
        messages: list[Message] = []
        unknown: list[UnknownRecord] = []
        seen = used = 0
        for line_no, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            seen += 1
            tag, sep, body = line.partition(":")
            if sep and tag == "title":
                title = body.strip()
                used += 1
            elif sep and tag in _ROLES:
                digest = hashlib.sha256(f"{meta.id}:{line_no}".encode()).hexdigest()[:16]
                parent = messages[-1].id if messages else None
                messages.append(
                    Message(id=digest, parent_id=parent, role=_ROLES[tag], text=body.strip())
                )
                used += 1
            else:
                unknown.append(UnknownRecord(where=f"line {line_no}", type=None, raw=line))
        return ParsedConversation(
            source=self.name,
            id=meta.id,
            meta=meta,
            parser_version=self.parser_version,
            title=title,
            messages=tuple(messages),
            diagnostics=Diagnostics(records_seen=seen, records_used=used, unknown=tuple(unknown)),
        )
