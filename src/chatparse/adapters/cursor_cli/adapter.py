"""The Cursor CLI adapter: where it looks (detect, explain), what it lists (scan), how it reads."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import suppress
from pathlib import Path
from typing import Final

from attrs import evolve

from chatparse.adapter import build_conversation, is_dir, is_file, read_window, require_file
from chatparse.adapters.cursor_cli.content import Reading
from chatparse.adapters.cursor_cli.locate import (
    HOME_ENV,
    LAYOUTS,
    STORE,
    Found,
    cursor_home,
    found_in,
    meta_of,
    subagent_files,
)
from chatparse.adapters.cursor_cli.plain import read_plain
from chatparse.adapters.cursor_cli.store import Agent, read_store, survey
from chatparse.adapters.cursor_cli.transcript import read_transcript
from chatparse.errors import SourceUnavailableError
from chatparse.host import Host
from chatparse.model import ConversationMeta, ParsedConversation, SourceInfo

__all__ = ["CursorCliAdapter"]

_SNIFF_BYTES: Final = 4096
_LAYOUT_NAMES: Final = {
    "store": "chat store(s) (chats/*/*/store.db)",
    "nested": "transcript folder(s)",
    "flat": "flat transcript(s)",
    "plain": "plain-text transcript(s) (*.txt, the oldest builds)",
}
_SQLITE: Final = b"SQLite format 3\x00"
_PLAIN_TURN: Final = re.compile(rb"^user:\s*$", re.MULTILINE)
_READERS: Final[dict[str, Callable[[Path, Reading], Reading]]] = {
    ".jsonl": read_transcript,
    ".txt": read_plain,
}
"""How a transcript is read, by its suffix."""


class CursorCliAdapter:
    """Reads Cursor's agent CLI sessions: chat stores and JSONL transcripts.

    .. versionadded:: 0.3
    """

    name = "cursor-cli"
    display_name = "Cursor CLI"
    parser_version = "1"
    scan_reads_content: Final = ("*/meta.json",)
    """``scan`` reads each store's ``meta.json`` (title and times); the rest is listed by stat."""

    def detect(self, host: Host) -> SourceInfo | None:
        """The Cursor home, when it has a chat store or a transcript folder."""
        home = cursor_home(host)
        if not (is_dir(home / "chats") or is_dir(home / "projects")):
            return None
        return SourceInfo(source=self.name, display_name=self.display_name, roots=(str(home),))

    def scan(self, source: SourceInfo) -> Iterator[ConversationMeta]:
        """One conversation per session id: its store, else its nested, else its flat transcript."""
        by_id: dict[str, list[Found]] = {}
        for home in map(Path, source.roots):
            for found in found_in(home):
                by_id.setdefault(found.session_id, []).append(found)
        for ident in sorted(by_id):
            copies = sorted(by_id[ident], key=lambda f: LAYOUTS.index(f.layout))
            transcript = next((f for f in copies if f.layout != "store"), None)
            winner = copies[0]
            meta = meta_of(self.name, winner, transcript if winner.layout == "store" else None)
            if meta is not None:
                yield meta

    def parse(self, meta: ConversationMeta) -> ParsedConversation:
        """Read one session: its store (or its transcript), and its sub-agents."""
        path = require_file(meta.path, "session")
        reading = Reading()
        agent = Agent({})
        store = meta.locator.get("layout") == "store"
        named = meta.locator.get("transcript") if store else meta.path
        transcript = Path(named) if named else None
        if store:
            agent = read_store(path, reading)
            if not reading.drafts and transcript is not None and is_file(transcript):
                reading.ledger.warn("the store holds no readable message: read its transcript")
                _read_transcript(transcript, reading)
        else:
            _read_transcript(path, reading)
        nested = transcript is not None and transcript.parent.name == transcript.stem
        children = subagent_files(transcript) if nested and transcript is not None else []
        return build_conversation(
            self,
            meta,
            [draft.freeze() for draft in reading.drafts],
            reading.ledger,
            title=meta.title or agent.name,
            project_path=agent.workspace or reading.project,
            created_at=meta.created_at or agent.created,
            subagents=[self._subagent(meta, child) for child in children],
        )

    def _subagent(self, meta: ConversationMeta, path: Path) -> ParsedConversation:
        """A sub-agent's transcript, with its own account."""
        reading = read_transcript(path, Reading())
        child = evolve(
            meta,
            id=f"{meta.id}/{path.stem}",
            path=str(path),
            title=None,
            created_at=None,
            updated_at=None,
            locator={"layout": "subagent"},
        )
        return build_conversation(
            self, child, [draft.freeze() for draft in reading.drafts], reading.ledger
        )

    # Optional protocols: PathSniffer (sniff, scan_path) and Explainer (explain).

    def sniff(self, path: Path) -> float:
        """How sure the adapter is that ``path`` is a Cursor CLI transcript or store."""
        if not is_file(path):
            return 0.0
        if path.suffix == ".db":
            return (0.9 if path.name == STORE else 0.3) if _is_sqlite(path) else 0.0
        head = _head(path) if path.suffix in _READERS else b""
        in_folder = "agent-transcripts" in path.parts
        if path.suffix == ".txt":
            return 0.8 if in_folder and _PLAIN_TURN.search(head) else 0.0
        if not head.startswith(b'{"role":') or b'"message":' not in head:
            return 0.0
        return 0.95 if in_folder else 0.6

    def scan_path(self, path: Path) -> Iterator[ConversationMeta]:
        """The session in one transcript or store."""
        if path.suffix == ".db":
            found = Found(path.parent.name, path, "store")
        elif path.suffix == ".txt":
            found = Found(path.stem, path, "plain")
        elif path.parent.name == path.stem:
            found = Found(path.stem, path, "nested")
        else:
            found = Found(path.stem, path, "flat")
        meta = meta_of(self.name, found)
        if meta is not None:
            yield meta

    def explain(self, host: Host) -> Iterator[str]:
        """Where Cursor CLI's sessions are looked for on ``host``, for ``chatparse doctor``."""
        home = cursor_home(host)
        moved = host.getenv(HOME_ENV)
        yield (
            f"{HOME_ENV} is not set: looking in {home}"
            if moved is None
            else f"{HOME_ENV} is set: {moved} (so ~/.cursor is not read)"
        )
        if not is_dir(home):
            yield f"{home}: missing"
            return
        found = list(found_in(home))
        counts = Counter(copy.layout for copy in found)
        listed = ", ".join(f"{counts[layout]} {what}" for layout, what in _LAYOUT_NAMES.items())
        yield f"{home}: {listed}"
        yield from (survey(copy.path) for copy in found if copy.layout == "store")
        yield "The IDE's chats (state.vscdb) are the cursor source's, not this one's"


def _is_sqlite(path: Path) -> bool:
    with suppress(OSError), path.open("rb") as stream:
        return stream.read(len(_SQLITE)) == _SQLITE
    return False


def _read_transcript(path: Path, reading: Reading) -> Reading:
    """Read a JSONL or plain-text transcript, by its suffix (JSONL for any other)."""
    return _READERS.get(path.suffix, read_transcript)(path, reading)


def _head(path: Path) -> bytes:
    """The complete lines at the start of ``path``, within the sniffing budget."""
    try:
        return read_window(path, _SNIFF_BYTES).head
    except SourceUnavailableError:
        return b""
