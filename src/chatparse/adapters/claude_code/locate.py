"""Where Claude Code's transcripts are: the projects roots, their folders, sub-agent files.

A scan must stay cheap on a tree of 10,000 sessions: one ``os.scandir`` per project folder and
one stat per session file, and nothing opened except the head of flat 2.0.x agent files, which
name their parent session only inside.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from contextlib import closing
from pathlib import Path
from typing import Any, Final, NamedTuple

from attrs import frozen

from chatparse.adapter import (
    digest_fingerprint,
    passed_over,
    stat_fingerprint,
    unlistable,
    walk_files,
)
from chatparse.decoders.bigjson import Item, iter_kvitems
from chatparse.decoders.jsonl import Line, iter_lines
from chatparse.host import Host

__all__ = [
    "AGENT_PREFIX",
    "CONFIG_DIR_VARIABLE",
    "DEFAULT_CONFIG_DIRS",
    "PROJECTS",
    "SIDECAR_SUFFIX",
    "SUBAGENTS",
    "SUFFIX",
    "File",
    "Folder",
    "SessionFiles",
    "agent_parent_session",
    "file_of",
    "fingerprint_of",
    "head_records",
    "listdir",
    "new_layout_agents",
    "primary_copy",
    "project_folder_paths",
    "project_folders",
    "projects_roots",
    "read_folder",
    "read_sidecar",
    "session_files",
    "size_of",
    "stat_of",
    "subagent_files",
]

CONFIG_DIR_VARIABLE: Final = "CLAUDE_CONFIG_DIR"
"""One or several comma-separated Claude Code configuration directories."""

DEFAULT_CONFIG_DIRS: Final = (".claude", ".config/claude")
PROJECTS: Final = "projects"
SUFFIX: Final = ".jsonl"
AGENT_PREFIX: Final = "agent-"
SIDECAR_SUFFIX: Final = ".meta.json"
SUBAGENTS: Final = "subagents"
# A flat agent file names its parent in a sessionId field near its top; look no further.
_HEAD_LINES: Final = 8

_SUBAGENT_LOCATOR_KEYS: Final = {
    "agentType": "agent_type",
    "description": "description",
    "toolUseId": "tool_use_id",
    "worktreePath": "worktree_path",
}


def projects_roots(host: Host) -> list[Path]:
    """Every existing ``projects`` folder: ``CLAUDE_CONFIG_DIR`` entries first, then defaults."""
    configured = host.getenv(CONFIG_DIR_VARIABLE) or ""
    dirs = [host.expand(part.strip()) for part in configured.split(",") if part.strip()]
    dirs += [host.home / relative for relative in DEFAULT_CONFIG_DIRS]
    roots: list[Path] = []
    seen: set[str] = set()
    for directory in dirs:
        root = directory / PROJECTS
        key = os.path.normcase(os.path.realpath(root))
        if key not in seen and root.is_dir():
            seen.add(key)
            roots.append(root)
    return roots


@frozen
class Folder:
    """What one ``os.scandir`` of a project folder shows: its transcripts and its sub-folders.

    A ``DirEntry`` knows from the listing whether it is a file or a folder, so nothing is
    stat'ed to list a folder; ``scan`` then stats each session file once.
    """

    name: str
    sessions: list[os.DirEntry[str]]
    """Regular ``*.jsonl`` files that are not agent files, by name."""
    flat_agents: list[os.DirEntry[str]]
    """Flat 2.0.x ``agent-*.jsonl`` files, by name."""
    subfolders: frozenset[str]


class File(NamedTuple):
    """A transcript file, with what its folder's listing and its one stat said of it.

    ``id``: the file's name without ``.jsonl``. ``stamp``: its :func:`stat_fingerprint`.
    ``has_folder``: a ``<session>/`` folder (which may hold sub-agents) may be beside the file.
    """

    path: str
    id: str
    project_dir: str
    # What is used of its stat, not the stat_result: a tuple of plain values is left alone by
    # the garbage collector, which a scan holding 10,000 of them otherwise walks again and again.
    size: int
    mtime: float
    mtime_ns: int
    stamp: str
    has_folder: bool


class SessionFiles(NamedTuple):
    """What the listing of every project folder found."""

    sessions: dict[str, File]
    """The first file of each session id."""
    copies: dict[str, list[File]]
    """Every file of a session id found more than once (in several roots; rare)."""
    flat_agents: list[Path]


def session_files(roots: Iterable[str]) -> SessionFiles:
    """Every non-empty session file and flat agent file of the projects roots.

    One ``os.scandir`` per project folder, and one stat per session file (cached by its
    ``DirEntry``): what any walk of the tree costs. A 10,000-file scan is dominated by it, so the
    loop keeps one :class:`File` per session and builds nothing else.
    """
    found = SessionFiles({}, {}, [])
    for root in roots:
        for folder in project_folders(Path(root)):
            for entry in folder.sessions:
                stat = stat_of(entry)
                if stat is None or not stat.st_size:
                    continue
                session_id = entry.name.removesuffix(SUFFIX)
                file = File(
                    entry.path,
                    session_id,
                    folder.name,
                    stat.st_size,
                    stat.st_mtime,
                    stat.st_mtime_ns,
                    stat_fingerprint(stat),
                    has_folder=session_id in folder.subfolders,
                )
                first = found.sessions.setdefault(session_id, file)
                if first is not file:
                    found.copies.setdefault(session_id, [first]).append(file)
            found.flat_agents.extend(Path(entry.path) for entry in folder.flat_agents)
    return found


def file_of(path: Path, stat: os.stat_result, *, has_folder: bool = False) -> File:
    """The :class:`File` of a transcript found by its path rather than by a listing."""
    return File(
        str(path),
        path.name.removesuffix(SUFFIX),
        path.parent.name,
        stat.st_size,
        stat.st_mtime,
        stat.st_mtime_ns,
        stat_fingerprint(stat),
        has_folder=has_folder,
    )


def project_folders(root: Path) -> Iterator[Folder]:
    """Each project folder of a projects root, by name.

    A folder that cannot be listed (permissions, removed meanwhile) is passed over with a
    warning: the others are still read.
    """
    for path in project_folder_paths(root, warn=True):
        yield read_folder(path, warn=True)


def project_folder_paths(root: Path, *, warn: bool = False) -> list[str]:
    """The project folders of a projects root, sorted; none when it cannot be listed."""
    try:
        with os.scandir(root) as entries:
            return sorted(entry.path for entry in entries if _is(entry.is_dir))
    except OSError as exc:
        if warn:
            unlistable(root, exc)
        return []


def listdir(path: str) -> list[str]:
    """The names in a folder; none when it cannot be listed."""
    try:
        return os.listdir(path)  # noqa: PTH208 -- names only: no Path or DirEntry per file
    except OSError:
        return []


def read_folder(path: str, *, warn: bool = False) -> Folder:
    """One listing of a project folder, sorted into sessions, flat agents and sub-folders."""
    sessions: list[os.DirEntry[str]] = []
    agents: list[os.DirEntry[str]] = []
    subfolders: set[str] = set()
    try:
        with os.scandir(path) as entries:
            for entry in entries:
                if entry.name.endswith(SUFFIX):
                    if _is(entry.is_file):
                        is_agent = entry.name.startswith(AGENT_PREFIX)
                        (agents if is_agent else sessions).append(entry)
                elif _is(entry.is_dir):
                    subfolders.add(entry.name)
    except OSError as exc:  # unreadable or gone: nothing to list here; the others go on
        if warn:
            unlistable(path, exc)
    sessions.sort(key=_name)
    agents.sort(key=_name)
    return Folder(os.path.basename(path), sessions, agents, frozenset(subfolders))  # noqa: PTH119 -- a str path, as DirEntry gives


def _is(test: Callable[[], bool]) -> bool:
    """``DirEntry.is_file``/``is_dir``, but ``False`` where ``DirEntry`` would raise.

    A link loop, or an entry gone since the listing, is neither (as for ``Path.is_file``).
    """
    try:
        return test()
    except OSError:
        return False


def stat_of(file: os.DirEntry[str] | Path) -> os.stat_result | None:
    """The file's stat; ``None`` for one removed since its folder was read, or unreadable.

    A folder that can be listed but not searched (mode ``r--``) shows its files' names and then
    refuses their stat: such a file is passed over with a warning, not in silence.
    """
    try:
        return file.stat()
    except FileNotFoundError:
        return None
    except OSError as exc:
        passed_over(file, f"cannot be read ({exc.strerror or exc})")
        return None


def size_of(entry: os.DirEntry[str]) -> int:
    """The file's size; 0 when it cannot be stat'ed."""
    stat = stat_of(entry)
    return 0 if stat is None else stat.st_size


def _name(entry: os.DirEntry[str]) -> str:
    return entry.name


def new_layout_agents(session_file: Path) -> list[Path]:
    """``<session>/subagents/**/agent-*.jsonl`` (nested agents and workflow runs included)."""
    folder = session_file.with_suffix("") / SUBAGENTS
    try:
        present = folder.is_dir()
    except OSError as exc:  # the <session>/ folder cannot be searched
        unlistable(folder, exc)
        return []
    return walk_files(folder, _is_agent_name) if present else []


def _is_agent_name(name: str) -> bool:
    return name.startswith(AGENT_PREFIX) and name.endswith(SUFFIX)


def subagent_files(session_file: Path, locator: Mapping[str, str]) -> list[Path]:
    """The sub-agent files of a session: the 2.1 layout's, then the flat ones scan attached."""
    legacy = [Path(p) for p in locator.get("legacy_agents", "").split("\n") if p]
    return [*new_layout_agents(session_file), *(p for p in legacy if p.is_file())]


def primary_copy(copies: list[File]) -> File:
    """Of several files for one session id (several roots), read the largest, then the newest."""
    return max(
        copies,
        key=lambda copy: (copy.size, copy.mtime_ns, -copies.index(copy)),
    )


def fingerprint_of(file: File, watched: Collection[Path]) -> str:
    """The file's stat, plus a digest of the names and stats of its sub-agent files.

    Sub-agent files change apart from the session file, so they are watched too.
    """
    if not watched:
        return file.stamp
    states = []
    for path in watched:
        info = stat_of(path)
        states += [path.name, "gone" if info is None else stat_fingerprint(info)]
    return f"{file.stamp}+{digest_fingerprint(*states)}"


def head_records(path: Path) -> Iterator[dict[str, Any]]:
    """The JSON objects among the first few lines of a file."""
    with closing(iter_lines(path)) as lines:
        for index, line in enumerate(lines):
            if index >= _HEAD_LINES:
                return
            if isinstance(line, Line) and isinstance(line.value, dict):
                yield line.value


def agent_parent_session(path: Path) -> str | None:
    """The session a flat agent file belongs to, named in its first lines."""
    for record in head_records(path):
        session = record.get("sessionId")
        if isinstance(session, str) and session:
            return session
    return None


def read_sidecar(path: Path) -> dict[str, str]:
    """The string fields of ``agent-<id>.meta.json`` we keep, under our locator names."""
    found: dict[str, str] = {}
    with closing(iter_kvitems(path, "")) as items:
        for item in items:
            if isinstance(item, Item) and isinstance(item.value, str) and item.value:
                name = _SUBAGENT_LOCATOR_KEYS.get(str(item.key))
                if name is not None:
                    found[name] = item.value
    return found
