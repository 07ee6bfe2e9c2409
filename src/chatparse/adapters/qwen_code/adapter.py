"""The Qwen Code adapter: where it looks (detect, explain), what it lists (scan) and parse."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Final

from chatparse.adapter import explain_variable, is_dir, is_file, require_file
from chatparse.adapters._gemini.files import DUPLICATES, Found, files_in, folders_in, pick, stat_of
from chatparse.adapters._gemini.qwen_reading import CONVERSATION_TYPES
from chatparse.adapters._gemini.qwen_session import qwen_conversation, read_qwen_session
from chatparse.adapters.qwen_code.locate import (
    HOME_ENV,
    RUNTIME_ENV,
    is_session_name,
    qwen_bases,
)
from chatparse.decoders import jsonl
from chatparse.errors import SourceUnavailableError
from chatparse.host import Host
from chatparse.model import ConversationMeta, ParsedConversation, SourceInfo

__all__ = ["QwenCodeAdapter"]

_SUBAGENTS: Final = "subagents"


def _found(path: Path) -> Found | None:
    info = stat_of(path)
    return None if info is None else Found(path.stem, path, info)


def _parts_of(record: dict[str, object]) -> object:
    """The ``message.parts`` of a record (Gemini API content), if it has them."""
    message = record.get("message")
    return message.get("parts") if isinstance(message, dict) else None


class QwenCodeAdapter:
    """Reads Qwen Code sessions: JSON Lines trees of records, with their telemetry.

    .. versionadded:: 0.2
    """

    name = "qwen-code"
    display_name = "Qwen Code"
    parser_version = "1"

    def detect(self, host: Host) -> SourceInfo | None:
        """Find the ``projects/`` folders of the runtime folder and of ``~/.qwen``."""
        roots = tuple(
            str(base / "projects") for base in qwen_bases(host) if is_dir(base / "projects")
        )
        if not roots:
            return None
        return SourceInfo(source=self.name, display_name=self.display_name, roots=roots)

    def explain(self, host: Host) -> Iterator[str]:
        """Where the adapter looks on ``host``, for ``chatparse doctor``."""
        for variable in (RUNTIME_ENV, HOME_ENV):
            yield explain_variable(host, variable)
        for base in qwen_bases(host):
            projects = base / "projects"
            if not projects.is_dir():
                yield f"{projects}: missing"
                continue
            folders = folders_in(projects)
            files = sum(len(files_in(f / "chats", is_session_name)) for f in folders)
            yield f"{projects}: {files} session file(s) in {len(folders)} project folder(s)"
            if (base / "tmp").is_dir() and any((base / "tmp").glob("*/logs.json")):
                yield f"{base / 'tmp'}: early releases' prompt logs, not sessions; not read"
        yield "a runtime folder set in settings (advanced.runtimeOutputDir) is not followed"

    def scan(self, source: SourceInfo) -> Iterator[ConversationMeta]:
        """One conversation per session id; of several files with one id, the largest wins."""
        copies: dict[str, list[Found]] = {}
        for root in map(Path, source.roots):
            for folder in folders_in(root):
                for path in files_in(folder / "chats", is_session_name):
                    found = _found(path)
                    if found is not None:
                        copies.setdefault(found.id, []).append(found)
        for session_id in sorted(copies):
            chosen, others = pick(copies[session_id])
            yield chosen.meta(self.name, others)

    def sniff(self, path: Path) -> float:
        """How sure we are that ``path`` is a Qwen Code session file, from its first line."""
        if path.suffix != ".jsonl" or not is_file(path):
            return 0.0
        first = jsonl.read_first_line(path)
        value = first.value if isinstance(first, jsonl.Line) else None
        if not isinstance(value, dict) or "parentUuid" not in value:
            return 0.0
        shaped = isinstance(value.get("uuid"), str) and isinstance(value.get("sessionId"), str)
        kind = value.get("type")
        gemini_content = isinstance(_parts_of(value), list) or "systemPayload" in value
        known = isinstance(kind, str) and (kind in CONVERSATION_TYPES or kind == "system")
        if not (shaped and gemini_content and known):
            return 0.0
        return 0.95 if ".qwen" in path.parts else 0.85

    def scan_path(self, path: Path) -> Iterator[ConversationMeta]:
        """The one session in a session file."""
        found = _found(path)
        if found is not None:
            yield found.meta(self.name)

    def parse(self, meta: ConversationMeta) -> ParsedConversation:
        """Parse one session file, with the sub-agent transcripts stored for it."""
        path = require_file(meta.path, "session")
        reading = read_qwen_session(path)
        for other in filter(None, meta.locator.get(DUPLICATES, "").split("\n")):
            reading.ledger.warn(f"session {meta.id} is also at {other}; that copy is not read")
        subagents: list[ParsedConversation] = []
        stored = path.parent.parent / _SUBAGENTS
        folder = stored / meta.id
        if folder.parent == stored and is_dir(folder):
            for sub in files_in(folder, is_session_name):
                found = _found(sub)
                if found is None:
                    continue
                try:
                    inner = read_qwen_session(sub)
                except SourceUnavailableError as exc:
                    reading.ledger.warn(f"sub-agent transcript {sub.name} not read ({exc.reason})")
                    continue
                subagents.append(qwen_conversation(self, found.meta(self.name), inner))
        return qwen_conversation(self, meta, reading, subagents)
