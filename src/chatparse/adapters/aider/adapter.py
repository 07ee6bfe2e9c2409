"""The Aider adapter: where it looks (detect, explain), what it lists (scan), how it reads."""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Final

from chatparse.adapter import (
    build_conversation,
    digest_fingerprint,
    is_dir,
    is_file,
    new_meta,
    read_window,
    require_file,
    stat_fingerprint,
)
from chatparse.adapters.aider.history import Reading, read_session
from chatparse.adapters.aider.inputs import ENTRY, read_inputs
from chatparse.adapters.aider.locate import (
    CHAT_FILE,
    CHAT_FILE_ENV,
    INPUT_FILE,
    INPUT_FILE_ENV,
    Files,
    found_files,
    named_folders,
)
from chatparse.adapters.aider.sessions import HEADER, sessions_in
from chatparse.errors import SourceUnavailableError, UnavailableCause
from chatparse.host import PROJECTS_VARIABLE, Host
from chatparse.model import ConversationMeta, ParsedConversation, SourceInfo

__all__ = ["AiderAdapter"]

_SNIFF_BYTES: Final = 4096
_INPUTS: Final = "input-history"


class AiderAdapter:
    """Reads Aider's chat histories (one conversation per session) and lone input histories.

    Args:
        projects: Project folders to look in, besides the home and ``$CHATPARSE_PROJECTS``
            (see :mod:`~chatparse.adapters.aider.locate`).

    .. versionadded:: 0.3
    """

    name = "aider"
    display_name = "Aider"
    parser_version = "1"
    scan_reads_content: Final = True
    """``scan`` reads each chat history to find its sessions' headers (the file has no index),
    wherever the file is and whatever Aider's variables name it."""

    def __init__(self, projects: Iterable[str | os.PathLike[str]] = ()) -> None:
        self.projects = tuple(os.fspath(p) for p in projects)

    def detect(self, host: Host) -> SourceInfo | None:
        """The Aider files found in the named places; ``None`` when there are none."""
        roots = [str(path) for files in found_files(host, self.projects) for path in files if path]
        if not roots:
            return None
        return SourceInfo(source=self.name, display_name=self.display_name, roots=tuple(roots))

    def scan(self, source: SourceInfo) -> Iterator[ConversationMeta]:
        """Each session of each chat history; an input history only where no chat history is."""
        paths = [Path(root) for root in source.roots]
        inputs = {path for path in paths if _is_inputs(path)}
        chats = {path.parent for path in paths if path not in inputs}
        for path in paths:
            if path not in inputs or path.parent not in chats:
                yield from self.scan_path(path)

    def parse(self, meta: ConversationMeta) -> ParsedConversation:
        """Read one session (or one input history)."""
        path = require_file(meta.path, "history")
        reading = Reading(meta.id)
        try:
            with path.open("rb") as stream:
                if meta.locator.get("kind") == _INPUTS:
                    data = stream.read()
                else:
                    stream.seek(int(meta.locator["start"]))
                    data = stream.read(int(meta.locator["end"]) - int(meta.locator["start"]))
        except OSError as exc:
            raise SourceUnavailableError(
                meta.path,
                f"cannot read: {exc.strerror or exc}",
                "Check its permissions.",
                UnavailableCause.UNREADABLE,
            ) from exc
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            text = data.decode("utf-8", "replace")
            reading.ledger.warn("bytes that are not UTF-8, replaced by U+FFFD")
        if meta.locator.get("kind") == _INPUTS:
            read_inputs(reading, text)
        else:
            if meta.locator.get("started") == "no":
                reading.ledger.warn("the history begins mid-session: no header before this part")
            read_session(reading, text, int(meta.locator["line"]))
        return build_conversation(
            self,
            meta,
            [draft.freeze() for draft in reading.drafts],
            reading.ledger,
            producer_version=reading.version,
        )

    # Optional protocols: PathSniffer (sniff, scan_path) and Explainer (explain).

    def sniff(self, path: Path) -> float:
        """How sure the adapter is that ``path`` is an Aider history."""
        if not is_file(path):
            return 0.0
        if path.name in (CHAT_FILE, INPUT_FILE):
            return 0.95
        head = _head(path)
        return 0.8 if HEADER.search(head) else 0.7 if ENTRY.search(head) else 0.0

    def scan_path(self, path: Path) -> Iterator[ConversationMeta]:
        """The sessions of a chat history, or the one conversation of an input history."""
        try:
            info = path.stat()
            inputs = _is_inputs(path)
            data = b"" if inputs else path.read_bytes()
        except OSError:
            return
        folder = path.parent.as_posix()
        project = str(path.parent) if path.name in (CHAT_FILE, INPUT_FILE) else None
        mtime = datetime.fromtimestamp(info.st_mtime, UTC)
        if inputs:
            yield new_meta(
                source=self.name,
                id=f"{folder}@{_INPUTS}",
                path=str(path),
                fingerprint=stat_fingerprint(info),
                size=info.st_size,
                mtime=mtime,
                project_path=project,
                locator={"kind": _INPUTS},
            )
            return
        taken: set[str] = set()
        for session in sessions_in(data):
            ident, n = f"{folder}@{session.label}", 1
            while ident in taken:
                n += 1
                ident = f"{folder}@{session.label}#{n}"
            taken.add(ident)
            yield new_meta(
                source=self.name,
                id=ident,
                path=str(path),
                fingerprint=digest_fingerprint(session.data),
                size=len(session.data),
                mtime=mtime,
                project_path=project,
                locator={
                    "kind": "chat",
                    "start": str(session.start),
                    "end": str(session.end),
                    "line": str(data.count(b"\n", 0, session.start) + 1),
                    "started": "no" if session.label == "start" else "yes",
                },
            )

    def explain(self, host: Host) -> Iterator[str]:
        """Where Aider's files are looked for on ``host``, for ``chatparse doctor``."""
        yield "Aider keeps its history inside each project: only the places named here are read"
        for variable in (CHAT_FILE_ENV, INPUT_FILE_ENV, PROJECTS_VARIABLE):
            value = host.getenv(variable)
            if value is None:
                yield f"{variable} is not set"
            elif variable != PROJECTS_VARIABLE and not host.expand(value).is_absolute():
                yield f"{variable} is set: {value} (relative to a folder we do not know: not used)"
            else:
                yield f"{variable} is set: {value}"
        folders = named_folders(host, self.projects)
        if folders == [host.home]:
            yield (
                "no project folders are known, so only the home is looked in: name the folders"
                f" Aider ran in, or folders holding them, in {PROJECTS_VARIABLE} (absolute paths"
                " separated like PATH)"
            )
        for folder in folders:
            state = "and the folders directly inside it" if is_dir(folder) else "missing"
            yield f"{folder}: looked in, {state}"
        found: list[Files] = list(found_files(host, self.projects))
        chats = sum(1 for files in found if files.chat)
        inputs = sum(1 for files in found if files.inputs)
        yield f"{chats} chat history file(s) ({CHAT_FILE}), {inputs} input history file(s)"
        yield "An input history beside a chat history is not read: that holds the same inputs"


def _head(path: Path) -> bytes:
    try:
        return read_window(path, _SNIFF_BYTES).head
    except SourceUnavailableError:
        return b""


def _is_inputs(path: Path) -> bool:
    """Whether ``path`` is an input history: by Aider's name, else by its first entry."""
    if path.name in (CHAT_FILE, INPUT_FILE):
        return path.name == INPUT_FILE
    head = _head(path)
    return ENTRY.search(head) is not None and HEADER.search(head) is None
