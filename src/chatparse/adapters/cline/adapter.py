"""The Cline adapter: task folders (extension and CLI, 3.x) and 4.x SDK sessions."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from attrs import evolve

from chatparse.adapter import is_dir, is_file
from chatparse.adapters._cline import TaskFoldersAdapter, extension_dirs
from chatparse.adapters._cline.locate import folders_in
from chatparse.adapters._cline.sdk import (
    MESSAGES,
    SESSION_FORMAT,
    read_session,
    session_meta,
    session_metas,
)
from chatparse.adapters.cline.locate import (
    DATA_DIR_ENV,
    EXTENSION_ID,
    HOME_DIR_ENV,
    SESSION_DIR_ENV,
    data_dir,
    sessions_dir,
)
from chatparse.host import Host
from chatparse.model import ConversationMeta, ParsedConversation, SourceInfo

__all__ = ["ClineAdapter"]

_TASKS = "tasks"


class ClineAdapter(TaskFoldersAdapter):
    """Reads Cline's tasks (VS Code extension, CLI, JetBrains) and its 4.x SDK sessions.

    .. versionadded:: 0.3
    """

    name = "cline"
    display_name = "Cline"
    parser_version = "1"
    extension_ids = (EXTENSION_ID,)
    scan_reads_content = (
        *TaskFoldersAdapter.scan_reads_content,
        "sessions/*/*.json",
    )
    """Besides the task indexes, ``scan`` reads each 4.x session's manifest (title, folder)."""

    def bases(self, host: Host) -> list[Path]:
        """``<User>/globalStorage/saoudrizwan.claude-dev`` of every editor, then the data folder."""
        return [*extension_dirs(host, [EXTENSION_ID]), data_dir(host)]

    def roots(self, host: Host) -> list[Path]:
        """The folders holding ``tasks/``, then the 4.x ``sessions`` folder if it exists."""
        roots = super().roots(host)
        sessions = sessions_dir(host)
        if is_dir(sessions) and sessions not in roots:
            roots.append(sessions)
        return roots

    def scan(self, source: SourceInfo) -> Iterator[ConversationMeta]:
        """The tasks of the task roots, then the sessions of the sessions folder."""
        task_roots = tuple(root for root in source.roots if is_dir(Path(root) / _TASKS))
        yield from super().scan(evolve(source, roots=task_roots))
        for root in source.roots:
            if root not in task_roots:
                yield from session_metas(self.name, Path(root))

    def parse(self, meta: ConversationMeta) -> ParsedConversation:
        """A task, or a 4.x session (with its sub-agents)."""
        if meta.locator.get("format") == SESSION_FORMAT:
            return read_session(self, meta)
        return super().parse(meta)

    def sniff(self, path: Path) -> float:
        """A task folder's file, or a 4.x session's transcript (``<id>/<id>.messages.json``)."""
        if path.name == f"{path.parent.name}{MESSAGES}" and is_file(path):
            return 0.9
        return super().sniff(path)

    def scan_path(self, path: Path) -> Iterator[ConversationMeta]:
        """The task whose folder holds ``path``, or the session whose transcript it is."""
        if path.name == f"{path.parent.name}{MESSAGES}":
            meta = session_meta(self.name, path.parent)
            if meta is not None:
                yield meta
            return
        yield from super().scan_path(path)

    def explain(self, host: Host) -> Iterator[str]:
        """Where Cline's tasks and sessions are looked for on ``host``."""
        for variable in (DATA_DIR_ENV, HOME_DIR_ENV, SESSION_DIR_ENV):
            value = host.getenv(variable)
            yield f"{variable}={value}" if value else f"{variable} is not set"
        yield from super().explain(host)
        sessions = sessions_dir(host)
        if is_dir(sessions):
            yield f"{sessions}: {len(folders_in(sessions))} 4.x session folder(s)"
        else:
            yield f"{sessions}: missing (no 4.x SDK sessions)"
        yield "the 4.x index db/sessions.db is not read: the session folders are listed"
