"""What the adapters of Pi's family share: detect, scan, parse and sniff of session files.

Each adapter says where its ``sessions/`` roots are (:meth:`SessionFilesAdapter.roots`), which
files in a root are sessions, how sure it is that a file is its own, and which
:class:`~chatparse.adapters._pi.dialect.Dialect` reads them; the rest is here.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path

from chatparse.adapter import is_dir, is_file
from chatparse.adapters._pi.dialect import Dialect
from chatparse.adapters._pi.files import Head, read_head
from chatparse.adapters._pi.locate import Found, meta_of, pick, sessions_under
from chatparse.adapters._pi.session import finish, read_session
from chatparse.host import Host
from chatparse.model import ConversationMeta, ParsedConversation, SourceInfo

__all__ = ["SessionFilesAdapter"]

_DUPLICATES = "duplicates"


class SessionFilesAdapter:
    """The parts of a Pi-family adapter that do not differ between its members.

    Subclasses set :attr:`name`, :attr:`display_name`, :attr:`parser_version` and
    :attr:`dialect`, and give :meth:`roots` and :meth:`confidence`.
    """

    name: str
    display_name: str
    parser_version: str
    dialect: Dialect
    scan_reads_content: tuple[str, ...] = ("*.jsonl",)
    """``scan`` reads the first lines of each session file (its header), nothing else."""

    def roots(self, host: Host) -> list[Path]:
        """Every ``sessions/`` folder the source may use on ``host``, existing or not."""
        raise NotImplementedError

    def confidence(self, path: Path, head: Head) -> float:
        """How sure the adapter is that a file with this head is its own (see :meth:`sniff`)."""
        raise NotImplementedError

    def session_paths(self, root: Path) -> Iterable[Path]:
        """The session files of one root."""
        return sessions_under(root)

    def detect(self, host: Host) -> SourceInfo | None:
        """The source's ``sessions/`` folders that exist."""
        roots = tuple(dict.fromkeys(str(root) for root in self.roots(host) if is_dir(root)))
        if not roots:
            return None
        return SourceInfo(source=self.name, display_name=self.display_name, roots=roots)

    def scan(self, source: SourceInfo) -> Iterator[ConversationMeta]:
        """One conversation per session id; of several files with one id, the largest wins."""
        copies: dict[str, list[Found]] = {}
        for root in map(Path, source.roots):
            for path in self.session_paths(root):
                found = Found.at(path)
                if found is not None:
                    copies.setdefault(found.id, []).append(found)
        for session_id in sorted(copies):
            chosen = pick(copies[session_id])
            others = [str(f.path) for f in copies[session_id] if f is not chosen]
            yield self.meta(chosen, {_DUPLICATES: "\n".join(others)} if others else {})

    def meta(self, found: Found, locator: Mapping[str, str]) -> ConversationMeta:
        """The meta of one session file; ``locator`` holds what the scan adds."""
        return meta_of(self.name, found, locator=locator)

    def parse(self, meta: ConversationMeta) -> ParsedConversation:
        """Parse one session file."""
        reading = read_session(self.dialect, Path(meta.path))
        for other in filter(None, meta.locator.get(_DUPLICATES, "").split("\n")):
            reading.ledger.warn(f"session {meta.id} is also at {other}; that copy is not read")
        return finish(self, meta, reading, self.subagents(meta))

    def subagents(self, _meta: ConversationMeta) -> list[ParsedConversation]:
        """The conversations the session started; none unless the source keeps them apart."""
        return []

    def sniff(self, path: Path) -> float:
        """How sure the adapter is that ``path`` is one of its session files, from its head."""
        if path.suffix != ".jsonl" or not is_file(path):
            return 0.0
        return self.confidence(path, read_head(path))

    def scan_path(self, path: Path) -> Iterator[ConversationMeta]:
        """The one session in a session file."""
        found = Found.at(path)
        if found is not None:
            yield self.meta(found, {})
