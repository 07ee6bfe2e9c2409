"""Where the session files are, and the meta each one is listed with.

Under a VS Code ``User`` folder, sessions live in a chat session folder and Copilot Chat's
transcript folder beside it: one pair per workspace, and one for empty windows.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Final

from attrs import frozen

from chatparse.adapter import file_meta, is_dir, is_file, new_meta, stat_fingerprint, unlistable
from chatparse.adapters._vscode import GLOBAL_DB, WORKSPACE_DB, workspace_dirs
from chatparse.model import ConversationMeta

__all__ = [
    "CHAT_SESSIONS",
    "EMPTY_WINDOW",
    "PRODUCTS",
    "SERVER_DIRS",
    "SESSION_SUFFIXES",
    "TRANSCRIPTS",
    "TRANSCRIPT_FORMAT",
    "Folder",
    "databases",
    "files_by_id",
    "head",
    "newer",
    "session_folders",
    "session_meta",
    "with_extra",
]

PRODUCTS: Final = ("Code", "Code - Insiders", "VSCodium")
SERVER_DIRS: Final = (".vscode-server", ".vscode-server-insiders")
CHAT_SESSIONS: Final = "chatSessions"
EMPTY_WINDOW: Final = Path("globalStorage") / "emptyWindowChatSessions"
TRANSCRIPTS: Final = Path("GitHub.copilot-chat") / "transcripts"
SESSION_SUFFIXES: Final = (".jsonl", ".json")
TRANSCRIPT_FORMAT: Final = "transcript"
"""``locator["format"]`` of a conversation read from a transcript alone."""


@frozen
class Folder:
    """One place sessions live: a chat session folder and its transcript folder."""

    sessions: Path
    transcripts: Path


def session_folders(user_dir: Path) -> Iterator[tuple[Folder, Path | None]]:
    """Each existing session folder under ``user_dir``, with its workspace folder if it has one."""
    for workspace in workspace_dirs(user_dir):
        folder = Folder(workspace / CHAT_SESSIONS, workspace / TRANSCRIPTS)
        if is_dir(folder.sessions) or is_dir(folder.transcripts):
            yield folder, workspace
    folder = Folder(user_dir / EMPTY_WINDOW, user_dir / "globalStorage" / TRANSCRIPTS)
    if is_dir(folder.sessions) or is_dir(folder.transcripts):
        yield folder, None


def databases(user_dir: Path) -> Iterator[tuple[Path, Path | None]]:
    """Each ``state.vscdb`` under ``user_dir``, with its workspace folder (``None``: global)."""
    for workspace in workspace_dirs(user_dir):
        if is_file(workspace / WORKSPACE_DB):
            yield workspace / WORKSPACE_DB, workspace
    if is_file(user_dir / GLOBAL_DB):
        yield user_dir / GLOBAL_DB, None


def files_by_id(folder: Path, suffixes: tuple[str, ...]) -> dict[str, dict[str, Path]]:
    """The files of ``folder`` with one of ``suffixes``, by session id (the stem) and suffix.

    A folder that cannot be listed, and a file whose stat is refused, are passed over with a
    warning.
    """
    found: dict[str, dict[str, Path]] = {}
    if not is_dir(folder):
        return found
    try:
        children = sorted(folder.iterdir())
    except OSError as exc:
        unlistable(folder, exc)
        return found
    for child in children:
        if child.suffix in suffixes and is_file(child):
            found.setdefault(child.stem, {})[child.suffix] = child
    return found


def session_meta(
    source: str, session_id: str, path: Path, project: str | None
) -> ConversationMeta | None:
    """The meta of a session stored in the file at ``path``; ``None`` if it is gone."""
    try:
        info = path.stat()
    except OSError:
        return None  # deleted between listing and stat
    return file_meta(source, session_id, path, info, project_path=project)


def with_extra(meta: ConversationMeta, extra: Mapping[str, str]) -> ConversationMeta:
    """``meta`` with the other files of the session in its locator and in its fingerprint."""
    if not extra:
        return meta
    stamps = [meta.fingerprint]
    transcript = extra.get("transcript")
    if transcript is not None:
        try:
            info = Path(transcript).stat()
        except OSError:
            extra = {k: v for k, v in extra.items() if k != "transcript"}
        else:
            stamps.append(stat_fingerprint(info))
    return new_meta(
        source=meta.source,
        id=meta.id,
        path=meta.path,
        fingerprint="+".join(stamps),
        size=meta.size,
        mtime=meta.mtime,
        project_path=meta.project_path,
        locator=extra,
    )


def newer(meta: ConversationMeta, than: ConversationMeta) -> bool:
    """Whether ``meta``'s copy of a session wins over ``than``'s: modified later, else by path."""
    mine = meta.mtime.timestamp() if meta.mtime is not None else 0.0
    theirs = than.mtime.timestamp() if than.mtime is not None else 0.0
    return (mine, meta.path) > (theirs, than.path)


def head(path: Path, size: int = 4096) -> bytes:
    """A file's first ``size`` bytes, without a BOM or leading whitespace; ``b""`` if unread."""
    try:
        with path.open("rb") as stream:
            return stream.read(size).removeprefix(b"\xef\xbb\xbf").lstrip()
    except OSError:
        return b""
