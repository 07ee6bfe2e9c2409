"""What the adapters of the Cline family share: detect, scan, parse and sniff of task folders.

Each adapter says which storage folders it has on a host (:meth:`TaskFoldersAdapter.bases`:
folders holding ``tasks/``) and which extension ids name it; the rest is here. One
conversation per task id: of several folders of one task (the same task copied between
editors or machines), the largest is read, then the most recently changed; the others are
named in a warning. A task another task started (Roo Code's and Kilo Code's sub-tasks,
``parentTaskId`` in the index) is read into its parent's ``subagents`` when the parent is
there, and listed on its own otherwise.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Final

from chatparse.adapter import is_dir, is_file, new_meta
from chatparse.adapters._cline.index import Hint, folder_hint, read_hints
from chatparse.adapters._cline.locate import TaskFolder, folders_in, pick
from chatparse.adapters._cline.task import TASK_FILES, read_task
from chatparse.host import Host
from chatparse.model import ConversationMeta, ParsedConversation, SourceInfo

__all__ = ["TaskFoldersAdapter"]

TASKS: Final = "tasks"
_FOLDER, _DUPLICATES, _CHILDREN = "folder", "duplicates", "children"
_LINES, _FIELDS = "\n", "\t"


class TaskFoldersAdapter:
    """The parts of a Cline-family adapter that do not differ between its members.

    Subclasses set :attr:`name`, :attr:`display_name`, :attr:`parser_version` and
    :attr:`extension_ids` (the extension's folder name first, as VS Code writes it), and give
    :meth:`bases`.
    """

    name: str
    display_name: str
    parser_version: str
    extension_ids: tuple[str, ...]
    scan_reads_content: tuple[str, ...] = (
        "*.vscdb",
        "state/taskHistory.json",
        "tasks/_index.json",
        "tasks/*/history_item.json",
    )
    """``scan`` reads the task indexes (for titles, projects and sub-tasks), never a task's
    conversation files."""

    def bases(self, host: Host) -> list[Path]:
        """Every storage folder (holding ``tasks/``) the source may use on ``host``."""
        raise NotImplementedError

    # --- where -----------------------------------------------------------------------------

    def roots(self, host: Host) -> list[Path]:
        """The storage folders that exist and hold ``tasks/``."""
        return [base for base in dict.fromkeys(self.bases(host)) if is_dir(base / TASKS)]

    def detect(self, host: Host) -> SourceInfo | None:
        """The source's storage folders that hold tasks."""
        roots = tuple(str(root) for root in self.roots(host))
        if not roots:
            return None
        return SourceInfo(source=self.name, display_name=self.display_name, roots=roots)

    def explain(self, host: Host) -> Iterator[str]:
        """Where the tasks are looked for on ``host``, for ``chatparse doctor``."""
        bases = list(dict.fromkeys(self.bases(host)))
        if not bases:
            yield "no VS Code-family user folder found, nor another storage folder"
        for base in bases:
            tasks = base / TASKS
            if not is_dir(tasks):
                yield f"{base}: missing"
                continue
            yield f"{base}: {len(folders_in(tasks))} task folder(s)"
        yield "state.vscdb is opened read-only for the task index; secrets are never read"

    # --- scan ------------------------------------------------------------------------------

    def scan(self, source: SourceInfo) -> Iterator[ConversationMeta]:
        """One conversation per task id; sub-tasks whose parent is there are read with it."""
        copies: dict[str, list[TaskFolder]] = {}
        hints: dict[str, Hint] = {}
        for root in map(Path, source.roots):
            root_hints = read_hints(root, self.extension_ids)
            for folder in folders_in(root / TASKS):
                task = TaskFolder.at(folder)
                if task is None:
                    continue
                copies.setdefault(task.id, []).append(task)
                hint = folder_hint(folder) or root_hints.get(task.id)
                if hint is not None:
                    hints.setdefault(task.id, hint)
        chosen = {ident: pick(found) for ident, found in copies.items()}
        children: dict[str, list[str]] = {}
        for ident in sorted(chosen):
            parent = hints.get(ident, Hint()).parent
            if parent is not None and parent in chosen and parent != ident:
                children.setdefault(parent, []).append(ident)
        for ident in sorted(chosen):
            parent = hints.get(ident, Hint()).parent
            if parent is not None and parent in chosen and parent != ident:
                continue
            others = [str(f.folder) for f in copies[ident] if f is not chosen[ident]]
            tree = list(_descendants(ident, children))
            locator = {_DUPLICATES: _LINES.join(others)} if others else {}
            if tree:
                locator[_CHILDREN] = _LINES.join(
                    _child_line(parent_id, chosen[child], hints.get(child, Hint()))
                    for parent_id, child in tree
                )
            fingerprint = chosen[ident].fingerprint([chosen[child] for _, child in tree])
            yield self.meta(chosen[ident], hints.get(ident, Hint()), locator, fingerprint)

    def meta(
        self,
        task: TaskFolder,
        hint: Hint,
        locator: Mapping[str, str],
        fingerprint: str | None = None,
    ) -> ConversationMeta:
        """What a scan says of one task folder."""
        return new_meta(
            source=self.name,
            id=task.id,
            path=str(task.main_file),
            size=task.size,
            mtime=datetime.fromtimestamp(task.mtime_ns / 1e9, UTC),
            fingerprint=fingerprint or task.fingerprint(),
            title=hint.title,
            project_path=hint.project,
            updated_at=hint.updated_at,
            locator={_FOLDER: str(task.folder), **locator},
        )

    # --- parse -----------------------------------------------------------------------------

    def parse(self, meta: ConversationMeta) -> ParsedConversation:
        """Parse one task, with its sub-tasks."""
        folder = Path(meta.locator.get(_FOLDER) or Path(meta.path).parent)
        tree: dict[str, list[tuple[Path, Hint]]] = {}
        for line in filter(None, meta.locator.get(_CHILDREN, "").split(_LINES)):
            parent, where, title, project = line.split(_FIELDS)
            hint = Hint(title=title or None, project=project or None)
            tree.setdefault(parent, []).append((Path(where), hint))
        duplicates = filter(None, meta.locator.get(_DUPLICATES, "").split(_LINES))
        notes = [
            f"task {meta.id} is also at {other}; that copy is not read" for other in duplicates
        ]
        return read_task(self, meta, folder, self._subtasks(meta.id, tree), notes)

    def _subtasks(
        self, parent: str, tree: Mapping[str, list[tuple[Path, Hint]]]
    ) -> list[ParsedConversation]:
        """The sub-tasks ``parent`` started, each with its own (the index's hints as scanned)."""
        subtasks = []
        for folder, hint in tree.get(parent, ()):
            task = TaskFolder.at(folder)
            if task is None:
                continue
            meta = self.meta(task, hint, {"parent_session": parent})
            subtasks.append(read_task(self, meta, folder, self._subtasks(task.id, tree)))
        return subtasks

    # --- one file --------------------------------------------------------------------------

    def sniff(self, path: Path) -> float:
        """How sure the adapter is that ``path`` is a file of one of its task folders."""
        if path.name not in TASK_FILES or not is_file(path):
            return 0.0
        tasks = path.parent.parent
        if tasks.name != TASKS:
            return 0.0
        return 0.9 if tasks.parent.name.lower() in _lower(self.extension_ids) else 0.3

    def scan_path(self, path: Path) -> Iterator[ConversationMeta]:
        """The task whose folder holds ``path``."""
        task = TaskFolder.at(path.parent)
        if task is not None:
            yield self.meta(task, folder_hint(path.parent) or Hint(), {})


def _child_line(parent: str, task: TaskFolder, hint: Hint) -> str:
    """A sub-task in the locator: its parent, folder, and the index's title and project."""
    fields = (parent, str(task.folder), hint.title or "", hint.project or "")
    return _FIELDS.join(field.replace(_FIELDS, " ").replace(_LINES, " ") for field in fields)


def _lower(names: tuple[str, ...]) -> frozenset[str]:
    return frozenset(name.lower() for name in names)


def _descendants(ident: str, children: Mapping[str, list[str]]) -> Iterator[tuple[str, str]]:
    seen = {ident}
    pending = [ident]
    while pending:
        parent = pending.pop(0)
        for child in children.get(parent, ()):
            if child not in seen:
                seen.add(child)
                pending.append(child)
                yield parent, child
