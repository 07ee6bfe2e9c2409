"""The Kilo Code adapter: the 4.x-5.x task folders and the 7.x stores, as one source.

Each layout has its reader (the Cline family's, the OpenCode family's); this adapter routes
each root, meta and path to the one it belongs to, and keeps one conversation per task that
Kilo 7.x migrated from 4.x-5.x (see :func:`merged`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Final

from attrs import evolve

from chatparse.adapters._cline import TaskFoldersAdapter
from chatparse.adapters._opencode import COPIES, STORE, StoresAdapter, tree_root
from chatparse.adapters._opencode.locate import DB_SUFFIX
from chatparse.adapters.kilo_code.locate import (
    EXTENSION_ID,
    KILO,
    MIGRATED_FROM,
    extension_storage,
    is_task_root,
)
from chatparse.decoders.sqlite import BUSY_TIMEOUT
from chatparse.host import Host
from chatparse.model import ConversationMeta, ParsedConversation, SourceInfo

__all__ = ["KiloCodeAdapter", "merged"]

NAME: Final = "kilo-code"
DISPLAY_NAME: Final = "Kilo Code"
PARSER_VERSION: Final = "1"
MIGRATED_COPY: Final = "migrated_copy"
"""The locator key of a task naming the 7.x session migrated from it (not read)."""
_IN_KILO_FOLDER: Final = 0.95
"""A database of Kilo's (or pre-rename OpenCode's) name in a ``kilo`` folder: surer than the
OpenCode adapter is of an ``opencode.db`` there."""
_KILO_NAME: Final = 0.9
"""A ``kilo*.db`` elsewhere."""
_TREE: Final = 0.85
"""A JSON tree in a ``kilo`` folder: surer than the OpenCode adapter is of any tree."""


class _Tasks(TaskFoldersAdapter):
    """The 4.x-5.x task folders, read by the Cline family's reader."""

    name = NAME
    display_name = DISPLAY_NAME
    parser_version = PARSER_VERSION
    extension_ids = (EXTENSION_ID,)

    def bases(self, host: Host) -> list[Path]:
        """``<User>/globalStorage/kilocode.kilo-code`` of every editor and remote server."""
        return extension_storage(host)


class _Sessions(StoresAdapter):
    """The 7.x stores, read by the OpenCode family's reader."""

    name = NAME
    display_name = DISPLAY_NAME
    parser_version = PARSER_VERSION
    product = KILO

    def name_confidence(self, path: Path) -> float:
        """``kilo*.db`` anywhere, surest in a ``kilo`` folder; ``opencode*.db`` only there."""
        if not super().name_confidence(path):
            return 0.0
        if path.parent.name == KILO.app:
            return _IN_KILO_FOLDER
        return _KILO_NAME if path.name.startswith(KILO.app) else 0.0

    def tree_confidence(self, root: Path) -> float:
        """A ``storage/`` tree in a ``kilo`` folder (OpenCode's is in an ``opencode`` one)."""
        return _TREE if root.parent.name == KILO.app else 0.0


def _continued(session: ConversationMeta) -> bool:
    """Whether a migrated session was used in 7.x: migration stamps both times with the task's."""
    return session.updated_at != session.created_at


def merged(
    tasks: Iterable[ConversationMeta], sessions: Iterable[ConversationMeta]
) -> list[ConversationMeta]:
    """One conversation per task: a 7.x session migrated from a task there is one copy of it.

    Kilo 7.x's migration imports a 4.x-5.x task as a session whose slug is the task's id, with
    both its times set to the task's, its models named ``legacy`` and no token counts. The task
    folder is read (it has the models, the usage and the UI log), unless the session was
    continued in 7.x (its update time moved): then the session is. The copy not read is named
    in a warning of the one that is.
    """
    by_task = {meta.id: meta for meta in tasks}
    listed: list[ConversationMeta] = []
    for session in sessions:
        task = by_task.get(session.locator.get(MIGRATED_FROM, ""))
        if task is None:
            listed.append(session)
        elif _continued(session):
            del by_task[task.id]
            copies = "\n".join(filter(None, (session.locator.get(COPIES), task.path)))
            listed.append(evolve(session, locator={**session.locator, COPIES: copies}))
        else:
            by_task[task.id] = evolve(
                task, locator={**task.locator, MIGRATED_COPY: f"{session.path} ({session.id})"}
            )
    return sorted([*by_task.values(), *listed], key=lambda meta: meta.id)


class KiloCodeAdapter:
    """Reads Kilo Code: the 4.x-5.x extension's tasks and the sessions of 7.x and the Kilo CLI.

    Args:
        busy_timeout: The longest, in seconds, one read waits for Kilo's lock on a database
            before it counts as unavailable.

    .. versionadded:: 0.3
    """

    name = NAME
    display_name = DISPLAY_NAME
    parser_version = PARSER_VERSION
    scan_reads_content: Final = (
        *TaskFoldersAdapter.scan_reads_content,
        *StoresAdapter.scan_reads_content,
    )
    """``scan`` reads the task indexes of 4.x-5.x and the session rows and files of 7.x."""

    def __init__(self, busy_timeout: float = BUSY_TIMEOUT) -> None:
        self.tasks = _Tasks()
        self.sessions = _Sessions(busy_timeout)

    def detect(self, host: Host) -> SourceInfo | None:
        """The extension's storage folders that hold tasks, and Kilo 7.x's stores."""
        found = [*self.tasks.roots(host), *self.sessions.stores(host)]
        if not found:
            return None
        roots = tuple(str(root) for root in found)
        return SourceInfo(source=self.name, display_name=self.display_name, roots=roots)

    def explain(self, host: Host) -> Iterator[str]:
        """Where both layouts are looked for on ``host``, for ``chatparse doctor``."""
        yield from (f"4.x-5.x: {line}" for line in self.tasks.explain(host))
        yield from (f"7.x: {line}" for line in self.sessions.explain(host))

    def scan(self, source: SourceInfo) -> Iterator[ConversationMeta]:
        """One conversation per task or session id, across both layouts (see :func:`merged`)."""
        task_roots = tuple(root for root in source.roots if is_task_root(root))
        store_roots = tuple(root for root in source.roots if not is_task_root(root))
        tasks = self.tasks.scan(evolve(source, roots=task_roots))
        sessions = self.sessions.scan(evolve(source, roots=store_roots))
        yield from merged(list(tasks), list(sessions))

    def parse(self, meta: ConversationMeta) -> ParsedConversation:
        """Parse one task or session."""
        with self.parsing() as parse:
            return parse(meta)

    @contextmanager
    def parsing(self) -> Iterator[Callable[[ConversationMeta], ParsedConversation]]:
        """A parse function that keeps each 7.x database open until the ``with`` block ends."""
        with self.sessions.parsing() as parse_session:

            def parse_one(meta: ConversationMeta) -> ParsedConversation:
                return parse_session(meta) if STORE in meta.locator else self._parse_task(meta)

            yield parse_one

    def _parse_task(self, meta: ConversationMeta) -> ParsedConversation:
        parsed = self.tasks.parse(meta)
        copy = meta.locator.get(MIGRATED_COPY)
        if copy is None:
            return parsed
        note = f"task {meta.id} was migrated to Kilo 7.x as {copy}; that copy is not read"
        diagnostics = parsed.diagnostics
        return evolve(
            parsed, diagnostics=evolve(diagnostics, warnings=(*diagnostics.warnings, note))
        )

    def sniff(self, path: Path) -> float:
        """How sure the adapter is that ``path`` is a task file or a 7.x database or session."""
        return max(self.tasks.sniff(path), self.sessions.sniff(path))

    def scan_path(self, path: Path) -> Iterator[ConversationMeta]:
        """The sessions of a 7.x database or session file, or the task of a task file.

        Raises:
            SourceUnavailableError: A database without Kilo's tables, or one that cannot be
                read.
        """
        if path.suffix == DB_SUFFIX or tree_root(path) is not None:
            yield from self.sessions.scan_path(path)
        else:
            yield from self.tasks.scan_path(path)
