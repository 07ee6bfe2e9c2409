"""Claude Code: one JSON Lines transcript per session, under ``~/.claude/projects/``.

Where the files are
    Each *projects root* holds one folder per working directory (its path with every character
    that is not a letter or digit replaced by ``-``, which is lossy, so it is never decoded), and
    in it one ``<sessionId>.jsonl`` per session. Roots are ``~/.claude/projects``,
    ``~/.config/claude/projects`` and ``<dir>/projects`` for each comma-separated ``<dir>`` in
    ``CLAUDE_CONFIG_DIR``; all of them are merged, one conversation per session id.

    Sub-agents (the Task/Agent tool) are written to ``<sessionId>/subagents/agent-<id>.jsonl``
    with an optional sidecar ``agent-<id>.meta.json`` (Claude Code 2.1+), or, in 2.0.x, to flat
    ``agent-<id>.jsonl`` files beside the sessions whose lines carry the *parent's* sessionId.
    Both become :attr:`~chatparse.ParsedConversation.subagents` of their parent; a flat agent
    whose parent file is gone is listed on its own. Even older versions (1.0.x) wrote sub-agent
    turns inline, marked ``isSidechain``; those are messages with ``is_sidechain=True``.

What a line is
    Every line is one JSON object with a ``type``. ``user`` and ``assistant`` lines are the
    conversation; they carry ``uuid`` and ``parentUuid``, which make a tree (rewinds fork it,
    compaction restarts it from a ``compact_boundary``). One API response is written as one
    ``assistant`` line *per content block*, all sharing ``message.id`` and ``requestId`` and each
    repeating the response's ``usage``. Tool results come back as ``user`` lines holding
    ``tool_result`` blocks. Harness text (reminders, slash commands, command output) is written
    into ``user`` lines as pseudo-XML tags. A few metadata lines name the session
    (``custom-title``, ``ai-title``, ``summary``), and many more are bookkeeping of the tool
    itself (``progress``, ``file-history-snapshot``, ``attachment``, ...).

What this adapter makes of it
    * The lines of one response become **one message**, its blocks in file order; its id is the
      ``uuid`` of its first line. Lines sharing (``message.id``, ``requestId``) are merged only
      when they also chain to each other, so a replayed copy stays a separate message.
    * A ``tool_result`` is paired with its ``tool_use`` into :class:`~chatparse.ToolCall`; a
      user line that carries only results is not a message. A result whose call is not in the
      file becomes a ``kind="tool_result"`` message.
    * Every line that is not a message (tool results, bookkeeping) still keeps the tree
      connected: a message whose parent is such a line gets that line's nearest message ancestor
      as its ``parent_id``.
    * Usage: one per response. Copies of one response (replays, sidechain copies) keep their
      usage, but only one per ``dedup_key`` is ``counted``: the last non-sidechain copy.
    * Nothing is dropped without a count: see ``docs/sources/claude-code.md`` for which lines
      are skipped as known noise, and why.
"""

from __future__ import annotations

import hashlib
import os
from collections import Counter, defaultdict
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from contextlib import closing
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final, NamedTuple

from attrs import define, field, frozen

from chatparse.adapters import _build
from chatparse.adapters._fields import as_count, as_datetime
from chatparse.adapters._paths import passed_over, unlistable, walk_files
from chatparse.decoders.bigjson import Item, iter_kvitems
from chatparse.decoders.jsonl import Line, Malformed, iter_lines, read_spans
from chatparse.decoders.text import (
    base64_decoded_size,
    strip_ansi,
    strip_data_uri_images,
    strip_tags,
)
from chatparse.host import Host
from chatparse.model import (
    ConversationMeta,
    Diagnostics,
    ImageRef,
    Message,
    MessageKind,
    ParsedConversation,
    Role,
    SourceInfo,
    UnknownRecord,
    Usage,
)

__all__ = ["ClaudeCodeAdapter"]

# --- where the files are -----------------------------------------------------------------------

CONFIG_DIR_VARIABLE: Final = "CLAUDE_CONFIG_DIR"
"""One or several comma-separated Claude Code configuration directories."""

_DEFAULT_CONFIG_DIRS: Final = (".claude", ".config/claude")
_PROJECTS: Final = "projects"
_SUFFIX: Final = ".jsonl"
_AGENT_PREFIX: Final = "agent-"
_SIDECAR_SUFFIX: Final = ".meta.json"
_SUBAGENTS: Final = "subagents"
# A flat agent file names its parent in a sessionId field near its top; look no further.
_HEAD_LINES: Final = 8

# --- what the lines are ------------------------------------------------------------------------

NOISE_TYPES: Final = frozenset(
    {
        "agent-name",
        "agent-setting",
        "atis-latch",
        "attachment",
        "bridge-session",
        "file-history-delta",
        "file-history-snapshot",
        "frame-link",
        "last-prompt",
        "mode",
        "permission-mode",
        "pr-link",
        "progress",
        "queue-operation",
        "relocated",
        "result",
        "started",
        "worktree-state",
    }
)
"""Line types that record the tool's own bookkeeping (hooks, checkpoints, modes, queues, links,
background-agent state). They are counted in ``diagnostics.skipped`` under their type;
``attachment`` and ``system`` lines under ``type/subtype``."""

_CONVERSATION_TYPES: Final = frozenset({"user", "assistant", "system"})
"""Line types that may be messages: each is checked for being a copy of an earlier line."""

_SNIFFED_TYPES: Final = NOISE_TYPES | _CONVERSATION_TYPES | {"summary"}
"""Line types that make a file look like a transcript to ``sniff``."""

_SYSTEM_KEPT: Final = frozenset({"compact_boundary", "local_command"})
"""``system`` subtypes that become messages; every other subtype is skipped as noise."""

_STRIPPED_TAGS: Final = (
    "system-reminder",
    "local-command-caveat",
    "ide_opened_file",
    "ide_selection",
    "ide_diagnostics",
)
"""Harness text removed from user text with its content: reminders the model was given, the
caveat written before local commands, and the context an IDE extension attaches to a prompt
(the open file, the selection, diagnostics), which the user did not type."""

_CAVEAT_PREFIX: Final = "Caveat: The messages below were generated by the user while running"
"""Claude Code 1.0.x wrote the local-command caveat as plain text, without its tag."""

_COMMAND_TAGS: Final = ("<command-", "<local-command-std", "<bash-", "<user-memory-input>")
"""How the texts Claude Code writes for commands and their output begin."""

_INTERRUPTED: Final = "[Request interrupted by user"
_NOTIFICATION_TAGS: Final = ("<task-notification>", "<teammate-message>")
_REDACTED_THINKING: Final = "[redacted thinking]"
_SYNTHETIC_MODEL: Final = "<synthetic>"
_TITLE_LENGTH: Final = 100
_WARMUP: Final = "Warmup"

_SUBAGENT_LOCATOR_KEYS: Final = {
    "agentType": "agent_type",
    "description": "description",
    "toolUseId": "tool_use_id",
    "worktreePath": "worktree_path",
}


# --- the adapter -------------------------------------------------------------------------------


class ClaudeCodeAdapter:
    """Reads Claude Code session transcripts (``~/.claude/projects/**/<session>.jsonl``).

    .. versionadded:: 0.1
    """

    name = "claude-code"
    display_name = "Claude Code"
    parser_version = "1"
    scan_reads_content: Final = ("*/agent-*.jsonl",)
    """``scan`` reads the head of flat 2.0.x ``agent-*.jsonl`` files, and only those: the
    parent session they belong to is written inside them, not in their name."""

    def detect(self, host: Host) -> SourceInfo | None:
        """Find the projects roots on ``host``; count the sessions in them by name."""
        roots = _projects_roots(host)
        if not roots:
            return None
        # By name only, from bare listings: detect must stay cheap, and scan lists them again.
        count = len(
            {
                name.removesuffix(_SUFFIX)
                for root in roots
                for folder in _project_folder_paths(root)
                for name in _listdir(folder)
                if name.endswith(_SUFFIX) and not name.startswith(_AGENT_PREFIX)
            }
        )
        return SourceInfo(
            source=self.name,
            display_name=self.display_name,
            roots=tuple(str(root) for root in roots),
            conversation_count=count,
        )

    def explain(self, host: Host) -> Iterator[str]:
        """Where the adapter looks on ``host``, for ``chatparse doctor``."""
        configured = host.getenv(CONFIG_DIR_VARIABLE)
        if configured:
            yield f"{CONFIG_DIR_VARIABLE} is set: {configured} (each entry's projects/ is read)"
        else:
            yield f"{CONFIG_DIR_VARIABLE} is not set"
        found = _projects_roots(host)
        candidates = [host.expand(p.strip()) for p in (configured or "").split(",") if p.strip()]
        candidates += [host.home / relative for relative in _DEFAULT_CONFIG_DIRS]
        for directory in candidates:
            root = directory / _PROJECTS
            if root not in found:
                yield f"{root}: missing"
                continue
            folders = list(_project_folders(root))
            sizes = [_size(entry) for folder in folders for entry in folder.sessions]
            empty = sum(1 for size in sizes if size == 0)
            agents = sum(len(folder.flat_agents) for folder in folders)
            yield (
                f"{root}: {len(sizes)} session file(s), {empty} empty (not listed), "
                f"{agents} flat agent file(s) (folded into their parent session when found)"
            )

    def scan(self, source: SourceInfo) -> Iterator[ConversationMeta]:
        """List one conversation per session id across all roots, by stat.

        Empty session files are not listed. Flat agent files are attached to their parent
        session when it is found in any root, and listed on their own otherwise.
        """
        sessions, copies, flat_agents = _session_files(source.roots)
        legacy: dict[str, list[Path]] = {}
        orphans: list[Path] = []
        for agent in flat_agents:
            parent = _agent_parent_session(agent)
            if parent is not None and parent in sessions:
                legacy.setdefault(parent, []).append(agent)
            else:
                orphans.append(agent)
        for session_id, first in sessions.items():
            found = copies.get(session_id)
            if found is None:
                yield self._session_meta(first, (), legacy.get(session_id, ()))
            else:
                primary = _primary_copy(found)
                others = [copy.path for copy in found if copy is not primary]
                yield self._session_meta(primary, others, legacy.get(session_id, ()))
        for agent in orphans:
            stat = _stat(agent)
            if stat is not None and stat.st_size > 0:
                yield self._standalone_agent_meta(agent, stat)

    def sniff(self, path: Path) -> float:
        """How sure we are that ``path`` is a Claude Code transcript, from its first lines."""
        if path.suffix != _SUFFIX or not path.is_file():
            return 0.0
        for record in _head_records(path):
            kind = record.get("type")
            if (
                isinstance(kind, str)
                and kind in _SNIFFED_TYPES
                and ("uuid" in record or "sessionId" in record or "leafUuid" in record)
            ):
                return 0.9
        return 0.1 if _PROJECTS in path.parts else 0.0

    def scan_path(self, path: Path) -> Iterator[ConversationMeta]:
        """One conversation for one transcript file, with its sub-agents found beside it."""
        if path.stat().st_size == 0:
            return
        if path.name.startswith(_AGENT_PREFIX):
            yield self._standalone_agent_meta(path, path.stat())
            return
        legacy = [
            Path(entry.path)
            for entry in _read_folder(str(path.parent)).flat_agents
            if _agent_parent_session(Path(entry.path)) == path.stem
        ]
        yield self._session_meta(_file(path, path.stat(), has_folder=True), [], legacy)

    def parse(self, meta: ConversationMeta) -> ParsedConversation:
        """Parse a session file and its sub-agent files into one conversation."""
        path = Path(meta.path)
        if meta.locator.get("layout") == "legacy-flat":
            alone = _Transcript.read(path, agent=True)
            _count_usages([alone])
            return alone.finish(self, meta, ())
        main = _Transcript.read(path, agent=False, session_id=meta.id)
        for other in filter(None, meta.locator.get("duplicates", "").split("\n")):
            main.warnings.append(f"session {meta.id} is also at {other}; that copy is not read")
        agents = [
            (agent_path, _Transcript.read(agent_path, agent=True))
            for agent_path in _subagent_files(path, meta.locator)
        ]
        _count_usages([main, *(transcript for _, transcript in agents)])
        subagents = [
            transcript.finish(self, self._subagent_meta(agent_path, meta.id, main, transcript), ())
            for agent_path, transcript in agents
        ]
        return main.finish(self, meta, subagents)

    # --- metas ---------------------------------------------------------------------------------

    def _session_meta(
        self, session: _File, others: Collection[str], legacy_agents: Iterable[Path]
    ) -> ConversationMeta:
        """A session file with its sub-agents; ``others`` are its copies in other roots."""
        locator = {"project_dir": session.project_dir}
        if others:
            locator["duplicates"] = "\n".join(others)
        agents = sorted(legacy_agents) if legacy_agents else []
        if agents:
            locator["legacy_agents"] = "\n".join(str(agent) for agent in agents)
        watched = agents
        if session.has_folder:
            watched = [*_new_layout_agents(Path(session.path)), *agents]
        return self._file_meta(session, _fingerprint(session, watched), locator)

    def _standalone_agent_meta(self, path: Path, stat: os.stat_result) -> ConversationMeta:
        locator = {"layout": "legacy-flat", "project_dir": path.parent.name}
        parent = _agent_parent_session(path)
        if parent is not None:
            locator["parent_session"] = parent
        if any(_is_warmup_prompt(record) for record in _head_records(path)):
            locator["warmup"] = "true"
        file = _file(path, stat)
        return self._file_meta(file, _fingerprint(file, ()), locator)

    def _subagent_meta(
        self, path: Path, parent_id: str, parent: _Transcript, agent: _Transcript
    ) -> ConversationMeta:
        stat = path.stat()
        agent_id = path.stem.removeprefix(_AGENT_PREFIX)
        locator = {
            "layout": _SUBAGENTS if _SUBAGENTS in path.parent.parts else "legacy-flat",
            "parent_session": parent_id,
            "agent_id": agent_id,
        }
        sidecar = path.with_name(path.stem + _SIDECAR_SUFFIX)
        if sidecar.is_file():
            locator |= _read_sidecar(sidecar)
        if "tool_use_id" not in locator and agent_id in parent.agent_tool_uses:
            locator["tool_use_id"] = parent.agent_tool_uses[agent_id]
        if agent.is_warmup():
            locator["warmup"] = "true"
        file = _file(path, stat)
        return self._file_meta(file, _fingerprint(file, ()), locator, locator.get("description"))

    def _file_meta(
        self, file: _File, fingerprint: str, locator: dict[str, str], title: str | None = None
    ) -> ConversationMeta:
        """A conversation that is one file: its id is the file name, size and time its stat."""
        return _build.conversation_meta(
            source=self.name,
            id=file.id,
            path=file.path,
            size=file.size,
            mtime=datetime.fromtimestamp(file.mtime, UTC),
            fingerprint=fingerprint,
            title=title,
            locator=locator,
        )


# --- finding files -----------------------------------------------------------------------------


def _projects_roots(host: Host) -> list[Path]:
    """Every existing ``projects`` folder: ``CLAUDE_CONFIG_DIR`` entries first, then defaults."""
    configured = host.getenv(CONFIG_DIR_VARIABLE) or ""
    dirs = [host.expand(part.strip()) for part in configured.split(",") if part.strip()]
    dirs += [host.home / relative for relative in _DEFAULT_CONFIG_DIRS]
    roots: list[Path] = []
    seen: set[str] = set()
    for directory in dirs:
        root = directory / _PROJECTS
        key = os.path.normcase(os.path.realpath(root))
        if key not in seen and root.is_dir():
            seen.add(key)
            roots.append(root)
    return roots


@frozen
class _Folder:
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


class _File(NamedTuple):
    """A transcript file, with what its folder's listing and its one stat said of it.

    ``id``: the file's name without ``.jsonl``. ``has_folder``: a ``<session>/`` folder (which
    may hold sub-agents) may be beside the file.
    """

    path: str
    id: str
    project_dir: str
    # The three figures of its stat that are used, not the stat_result: a tuple of plain values
    # is left alone by the garbage collector, which a scan holding 10,000 of them otherwise
    # walks again and again.
    size: int
    mtime: float
    mtime_ns: int
    has_folder: bool


class _SessionFiles(NamedTuple):
    """What the listing of every project folder found."""

    sessions: dict[str, _File]
    """The first file of each session id."""
    copies: dict[str, list[_File]]
    """Every file of a session id found more than once (in several roots; rare)."""
    flat_agents: list[Path]


def _session_files(roots: Iterable[str]) -> _SessionFiles:
    """Every non-empty session file and flat agent file of the projects roots.

    One ``os.scandir`` per project folder, and one stat per session file (cached by its
    ``DirEntry``): what any walk of the tree costs. A 10,000-file scan is dominated by it, so the
    loop keeps one :class:`_File` per session and builds nothing else.
    """
    found = _SessionFiles({}, {}, [])
    for root in roots:
        for folder in _project_folders(Path(root)):
            for entry in folder.sessions:
                stat = _stat(entry)
                if stat is None or not stat.st_size:
                    continue
                session_id = entry.name.removesuffix(_SUFFIX)
                file = _File(
                    entry.path,
                    session_id,
                    folder.name,
                    stat.st_size,
                    stat.st_mtime,
                    stat.st_mtime_ns,
                    has_folder=session_id in folder.subfolders,
                )
                first = found.sessions.setdefault(session_id, file)
                if first is not file:
                    found.copies.setdefault(session_id, [first]).append(file)
            found.flat_agents.extend(Path(entry.path) for entry in folder.flat_agents)
    return found


def _file(path: Path, stat: os.stat_result, *, has_folder: bool = False) -> _File:
    return _File(
        str(path),
        path.name.removesuffix(_SUFFIX),
        path.parent.name,
        stat.st_size,
        stat.st_mtime,
        stat.st_mtime_ns,
        has_folder=has_folder,
    )


def _project_folders(root: Path) -> Iterator[_Folder]:
    """Each project folder of a projects root, by name.

    A folder that cannot be listed (permissions, removed meanwhile) is passed over with a
    warning: the others are still read.
    """
    for path in _project_folder_paths(root, warn=True):
        yield _read_folder(path, warn=True)


def _project_folder_paths(root: Path, *, warn: bool = False) -> list[str]:
    try:
        with os.scandir(root) as entries:
            return sorted(entry.path for entry in entries if _is(entry.is_dir))
    except OSError as exc:
        if warn:
            unlistable(root, exc)
        return []


def _listdir(path: str) -> list[str]:
    try:
        return os.listdir(path)  # noqa: PTH208 -- names only: no Path or DirEntry per file
    except OSError:
        return []


def _read_folder(path: str, *, warn: bool = False) -> _Folder:
    sessions: list[os.DirEntry[str]] = []
    agents: list[os.DirEntry[str]] = []
    subfolders: set[str] = set()
    try:
        with os.scandir(path) as entries:
            for entry in entries:
                if entry.name.endswith(_SUFFIX):
                    if _is(entry.is_file):
                        is_agent = entry.name.startswith(_AGENT_PREFIX)
                        (agents if is_agent else sessions).append(entry)
                elif _is(entry.is_dir):
                    subfolders.add(entry.name)
    except OSError as exc:  # unreadable or gone: nothing to list here; the others go on
        if warn:
            unlistable(path, exc)
    sessions.sort(key=_name)
    agents.sort(key=_name)
    return _Folder(os.path.basename(path), sessions, agents, frozenset(subfolders))  # noqa: PTH119 -- a str path, as DirEntry gives


def _is(test: Callable[[], bool]) -> bool:
    """``DirEntry.is_file``/``is_dir``, but ``False`` where ``DirEntry`` would raise.

    A link loop, or an entry gone since the listing, is neither (as for ``Path.is_file``).
    """
    try:
        return test()
    except OSError:
        return False


def _stat(file: os.DirEntry[str] | Path) -> os.stat_result | None:
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


def _size(entry: os.DirEntry[str]) -> int:
    stat = _stat(entry)
    return 0 if stat is None else stat.st_size


def _name(entry: os.DirEntry[str]) -> str:
    return entry.name


def _new_layout_agents(session_file: Path) -> list[Path]:
    """``<session>/subagents/**/agent-*.jsonl`` (nested agents and workflow runs included)."""
    folder = session_file.with_suffix("") / _SUBAGENTS
    try:
        present = folder.is_dir()
    except OSError as exc:  # the <session>/ folder cannot be searched
        unlistable(folder, exc)
        return []
    return walk_files(folder, _is_agent_name) if present else []


def _is_agent_name(name: str) -> bool:
    return name.startswith(_AGENT_PREFIX) and name.endswith(_SUFFIX)


def _subagent_files(session_file: Path, locator: Mapping[str, str]) -> list[Path]:
    legacy = [Path(p) for p in locator.get("legacy_agents", "").split("\n") if p]
    return [*_new_layout_agents(session_file), *(p for p in legacy if p.is_file())]


def _primary_copy(copies: list[_File]) -> _File:
    """Of several files for one session id (several roots), read the largest, then the newest."""
    return max(
        copies,
        key=lambda copy: (copy.size, copy.mtime_ns, -copies.index(copy)),
    )


def _fingerprint(file: _File, watched: Collection[Path]) -> str:
    """Size and mtime of the file, plus those of its sub-agent files, which change apart."""
    own = f"{file.size}-{file.mtime_ns}"
    if not watched:
        return own
    digest = hashlib.sha256()
    for path in watched:
        info = _stat(path)
        state = "gone" if info is None else f"{info.st_size}:{info.st_mtime_ns}"
        digest.update(f"{path.name}:{state}\n".encode())
    return f"{own}+{digest.hexdigest()[:16]}"


def _head_records(path: Path) -> Iterator[dict[str, Any]]:
    """The JSON objects among the first few lines of a file."""
    with closing(iter_lines(path)) as lines:
        for index, line in enumerate(lines):
            if index >= _HEAD_LINES:
                return
            if isinstance(line, Line) and isinstance(line.value, dict):
                yield line.value


def _agent_parent_session(path: Path) -> str | None:
    for record in _head_records(path):
        session = record.get("sessionId")
        if isinstance(session, str) and session:
            return session
    return None


def _read_sidecar(path: Path) -> dict[str, str]:
    """The string fields of ``agent-<id>.meta.json`` we keep, under our locator names."""
    found: dict[str, str] = {}
    with closing(iter_kvitems(path, "")) as items:
        for item in items:
            if isinstance(item, Item) and isinstance(item.value, str) and item.value:
                name = _SUBAGENT_LOCATOR_KEYS.get(str(item.key))
                if name is not None:
                    found[name] = item.value
    return found


# --- reading one transcript --------------------------------------------------------------------


@define
class _Call:
    """A tool call while its result may still arrive."""

    id: str | None
    name: str
    input: Any
    output: str | None = None
    is_error: bool | None = None
    result: Any = None
    answered: bool = False


@define
class _Draft:
    """A message while its lines are still being read."""

    id: str
    role: Role
    kind: MessageKind
    raw_parent: str | None
    timestamp: datetime | None
    is_sidechain: bool
    texts: list[str] = field(factory=list)
    thinking: list[str] | None = None
    calls: list[_Call] = field(factory=list)
    images: list[ImageRef] = field(factory=list)
    model: str | None = None
    request_id: str | None = None
    api_id: str | None = None
    usage_raw: Mapping[str, Any] | None = None
    usage: Usage | None = None

    def think(self, text: str) -> None:
        """Add a thinking block (``thinking`` stays ``None`` for a message that has none)."""
        if self.thinking is None:
            self.thinking = [text]
        else:
            self.thinking.append(text)


@define
class _Unknown:
    line_no: int
    offset: int
    end_offset: int
    type: str | None
    version: str | None


class _Transcript:
    """Everything read from one JSON Lines file, before it is frozen into the model."""

    def __init__(self, path: Path, *, agent: bool, session_id: str | None) -> None:
        self.path = path
        self.agent = agent
        self.session_id = session_id
        self.drafts: list[_Draft] = []
        self.by_id: dict[str, _Draft] = {}
        # uuid of a line that is not (the first line of) a message -> its parent's uuid, or the
        # id of the message it belongs to: how the tree is kept connected across such lines.
        self.up: dict[str, str | None] = {}
        self.written: dict[str, int] = {}  # uuid -> offset of its line
        # hash of (type, timestamp, parent message, length) -> (uuid, offset) of such lines
        self.shapes: dict[int, tuple[tuple[str, int], ...]] = {}
        self.open_responses: dict[tuple[str, str | None], _Draft] = {}
        self.calls: dict[str, _Call] = {}
        self.call_owner: dict[str, _Draft] = {}
        self.agent_tool_uses: dict[str, str] = {}
        self.seen = 0
        self.used = 0
        self.malformed = 0
        self.skipped: Counter[str] = Counter()
        self.unknown: list[_Unknown] = []
        self.warnings: list[str] = []
        self.odd_blocks: Counter[str] = Counter()
        self.foreign_sessions: Counter[str] = Counter()
        self.reused: defaultdict[str, list[int]] = defaultdict(list)
        self.custom_title: str | None = None
        self.ai_title: str | None = None
        self.summaries: list[tuple[str | None, str]] = []
        self.slug: str | None = None
        self.cwd: str | None = None
        self.git_branch: str | None = None
        self.version: str | None = None

    @classmethod
    def read(cls, path: Path, *, agent: bool, session_id: str | None = None) -> _Transcript:
        """Read a file line by line; every line lands in exactly one diagnostics bucket."""
        transcript = cls(path, agent=agent, session_id=session_id)
        record = transcript.record
        for line in iter_lines(path):
            transcript.seen += 1
            if isinstance(line, Malformed):
                transcript.malformed += 1
            elif isinstance(line.value, dict) and isinstance(line.value.get("type"), str):
                record(line, line.value)
            else:
                transcript.malformed += 1  # JSON, but not an object with a type
        # What only reading needed; the tree (``up``, ``by_id``) is kept for the end.
        for bookkeeping in (transcript.written, transcript.shapes, transcript.open_responses):
            bookkeeping.clear()
        return transcript

    # --- one line ------------------------------------------------------------------------------

    def record(self, line: Line, record: dict[str, Any]) -> None:
        """Route one typed line: conversation, title, known noise, or unknown."""
        kind: str = record["type"]
        self.envelope(record)
        if kind in _CONVERSATION_TYPES:
            self.conversation(line, record, kind)
        elif kind in NOISE_TYPES:
            if kind == "attachment":
                subtype = record.get("attachment")
                kind = _typed(kind, subtype.get("type") if isinstance(subtype, dict) else None)
            self.skipped[kind] += 1
            self.pass_through(record)
        elif kind in ("custom-title", "ai-title"):
            value = record.get("customTitle" if kind == "custom-title" else "aiTitle")
            if isinstance(value, str) and value.strip():
                if kind == "custom-title":
                    self.custom_title = value.strip()
                else:
                    self.ai_title = value.strip()
            self.used += 1
        elif kind == "summary" and isinstance(record.get("summary"), str):
            self.summaries.append((_string(record.get("leafUuid")), record["summary"]))
        else:
            self.keep_unknown(line, record)

    def conversation(self, line: Line, record: dict[str, Any], kind: str) -> None:
        """A user, assistant or system line, unless it is a copy of an earlier one."""
        # The nearest message above the line: what a replay is compared by, and what tells
        # whether an assistant line continues the response before it.
        parent = _string(record.get("parentUuid"))
        above = self.resolve(parent)
        if self.is_duplicate(line, record, parent, above):
            return
        if kind == "assistant":
            self.assistant(line, record, above)
        elif kind == "user":
            self.user(line, record)
        else:
            self.system(line, record)

    def keep_unknown(self, line: Line, record: Mapping[str, Any]) -> None:
        """A line of a type (or shape) not known: its place is kept, to read it raw at the end."""
        kind, version = record["type"], _string(record.get("version"))
        self.unknown.append(_Unknown(line.line_no, line.offset, line.end_offset, kind, version))

    def envelope(self, record: Mapping[str, Any]) -> None:
        """Conversation-level fields that ride on every line: cwd, branch, version, slug.

        Every line repeats them, so a value equal to the one held is not looked at again.
        """
        if self.cwd is None:  # the launch directory; later lines follow `cd`
            self.cwd = _string(record.get("cwd"))
        branch = record.get("gitBranch")
        if branch != self.git_branch and isinstance(branch, str) and branch:
            self.git_branch = branch
        version = record.get("version")
        if version != self.version and isinstance(version, str) and version:
            self.version = version
        if self.slug is None and not self.agent:  # an agent repeats its parent session's slug
            self.slug = _string(record.get("slug"))
        session = record.get("sessionId")
        if session != self.session_id and self.session_id is not None and isinstance(session, str):
            self.foreign_sessions[session] += 1

    def is_duplicate(
        self, line: Line, record: dict[str, Any], parent: str | None, above: str | None
    ) -> bool:
        """Resumes re-write lines with their old uuid; compaction re-writes them with new ones.

        A line whose uuid was seen before, with the same type, timestamp and content, is the
        same event written again: the first copy is kept. So is a line with a new uuid that
        repeats an earlier line's type, timestamp, content and nearest message parent
        (``above``; ``parent`` is the line's own): a compaction replay, which is not a rewind
        (a rewind has a new timestamp). A uuid reused by a different record is kept, under an
        id made unique by its line number.

        Content is compared only when everything else matches, by reading the earlier line
        again: that is rare, and far cheaper than remembering every line's content.
        """
        uuid = record.get("uuid")
        if not uuid or type(uuid) is not str:
            return False
        # A copy has a new uuid and parent of its own, so its length is compared without them.
        length = line.end_offset - line.offset - len(uuid) - len(parent or "")
        earlier = self.written.get(uuid)
        if earlier is not None:
            if self.same_record(earlier, record):
                self.skip("duplicate-uuid")
                return True
            self.reused[uuid].append(line.line_no)
            uuid = record["uuid"] = f"{uuid}~line{line.line_no}"
        # A timestamp that is a list or object is unhashable: hashed by its repr instead.
        stamp = record.get("timestamp")
        if type(stamp) is not str and stamp is not None:
            stamp = repr(stamp)
        shape = hash((record["type"], stamp, above, length))
        here = (uuid, line.offset)
        alike = self.shapes.get(shape)
        if alike is None:
            # Tuples, not lists: the garbage collector stops tracking a tuple of strings and
            # numbers, and there is one per line.
            self.shapes[shape] = (here,)
        else:
            for original, offset in alike:
                if self.same_record(offset, record):
                    self.up[uuid] = original
                    self.skip("replay")
                    return True
            self.shapes[shape] = (*alike, here)
        self.written[uuid] = line.offset
        return False

    def same_record(self, offset: int, record: Mapping[str, Any]) -> bool:
        """Whether the line at ``offset`` has the type, time and content of ``record``."""
        with closing(iter_lines(self.path, start=offset)) as lines:
            earlier = next(lines, None)
        if not isinstance(earlier, Line) or not isinstance(earlier.value, dict):
            return False
        return all(
            earlier.value.get(key) == record.get(key) for key in ("type", "timestamp")
        ) and _content(earlier.value) == _content(record)

    def skip(self, kind: str) -> None:
        self.skipped[kind] += 1

    def pass_through(self, record: Mapping[str, Any]) -> None:
        """A line that is not a message: its children hang from its own parent instead."""
        uuid = _string(record.get("uuid"))
        if uuid is not None and uuid not in self.up and uuid not in self.by_id:
            self.up[uuid] = _string(record.get("parentUuid"))

    def new_draft(
        self, line: Line, record: Mapping[str, Any], role: Role, kind: MessageKind
    ) -> _Draft:
        uuid = _string(record.get("uuid"))
        message_id = uuid if uuid is not None and uuid not in self.by_id else f"line-{line.line_no}"
        draft = _Draft(
            id=message_id,
            role=role,
            kind=kind,
            raw_parent=_string(record.get("parentUuid")),
            timestamp=as_datetime(record.get("timestamp")),
            is_sidechain=self.agent or record.get("isSidechain") is True,
        )
        self.drafts.append(draft)
        self.by_id[message_id] = draft
        if uuid is not None and uuid != message_id:
            self.up[uuid] = message_id
        return draft

    # --- user lines ----------------------------------------------------------------------------

    def user(self, line: Line, record: dict[str, Any]) -> None:
        """A prompt, injected harness text, a command, or the results of tool calls."""
        message = record.get("message")
        if not isinstance(message, dict):
            self.keep_unknown(line, record)
            return
        blocks = _blocks(message.get("content"))
        structured = record.get("toolUseResult")
        texts, images, orphans = self.user_blocks(blocks, structured)
        if isinstance(structured, dict):
            self.note_agent_spawn(structured, blocks)
        kind: MessageKind = "message"
        text = ""
        if texts or images:  # else a line of tool results only: no text to read
            kind, text = _read_user_text("\n\n".join(texts), record)
            text, inline_images = _strip_images(text)
            images += inline_images
        visible = bool(text or images) or kind in ("command", "command_output")
        if not visible and not orphans:
            # Only paired tool results (the calls hold them now), or only harness text.
            if texts and not any(_is_result(block) for block in blocks):
                self.skip("harness-text-only")
            else:
                self.used += 1
            self.pass_through(record)
            return
        self.used += 1
        draft = self.new_draft(line, record, "user", "tool_result" if orphans else kind)
        draft.texts += orphans
        if visible:
            draft.texts.append(text)
            draft.images += images

    def user_blocks(
        self, blocks: list[Any], structured: object = None
    ) -> tuple[list[str], list[ImageRef], list[str]]:
        """Sort a user line's blocks: its texts, its images, and results that found no call.

        ``structured`` is the line's ``toolUseResult``: the structured form of its one result.
        A line answers one call; should it ever hold several results, the structured form is
        given to the first, the only reading that loses nothing.
        """
        texts: list[str] = []
        images: list[ImageRef] = []
        orphans: list[str] = []
        for block in blocks:
            kind = block.get("type") if isinstance(block, dict) else None
            if kind == "tool_result":  # the most common block of user lines, so tested first
                orphan = self.tool_result(block, structured)
                structured = None
                if orphan is not None:
                    orphans.append(orphan)
            elif isinstance(block, str):
                texts.append(block)
            elif kind == "text" and isinstance(block.get("text"), str):
                texts.append(block["text"])
            elif kind == "image":
                images.append(_image(block))
            else:
                self.odd_blocks[str(kind or type(block).__name__)] += 1
        return texts, images, orphans

    def tool_result(self, block: Mapping[str, Any], structured: object = None) -> str | None:
        """Pair a result with its call; return its text when there is no call to pair it with."""
        call_id = _string(block.get("tool_use_id"))
        output, images = _result_text(block.get("content"))
        is_error = block.get("is_error")
        if not isinstance(is_error, bool):
            is_error = None
        call = self.calls.get(call_id) if call_id is not None else None
        if call is None or call_id is None:
            if structured is not None:
                # The orphan's text becomes a message; its structured form has no call to go to.
                self.warnings.append(
                    f"the structured result of orphan tool result {call_id} was not kept"
                )
            return output
        if not call.answered:  # a second result for one call is a replay: the first stays
            call.output, call.is_error, call.answered = output, is_error, True
            call.result = _share_text(structured, output)
            if images:
                self.call_owner[call_id].images += images
        return None

    def note_agent_spawn(self, structured: Mapping[str, Any], blocks: list[Any]) -> None:
        """Remember which tool call started which sub-agent (``toolUseResult.agentId``)."""
        if not isinstance(structured.get("agentId"), str):
            return
        for block in blocks:
            if isinstance(block, dict) and isinstance(block.get("tool_use_id"), str):
                self.agent_tool_uses[structured["agentId"]] = block["tool_use_id"]

    # --- assistant lines -----------------------------------------------------------------------

    def assistant(self, line: Line, record: dict[str, Any], above: str | None) -> None:
        """One content block of a response; consecutive blocks of one response are merged.

        A line continues the message of its response (same ``message.id`` and ``requestId``)
        when it also chains to it: its nearest message above, ``above``, is that message.
        """
        message = record.get("message")
        if not isinstance(message, dict):
            self.keep_unknown(line, record)
            return
        api_id = _string(message.get("id"))
        request_id = _string(record.get("requestId"))
        model = _string(message.get("model"))
        draft = self.open_responses.get((api_id, request_id)) if api_id is not None else None
        if draft is None or above != draft.id:
            error = record.get("isApiErrorMessage") is True
            kind: MessageKind = "notice" if model == _SYNTHETIC_MODEL or error else "message"
            draft = self.new_draft(line, record, "assistant", kind)
            draft.api_id, draft.request_id = api_id, request_id
            if api_id is not None:
                self.open_responses[api_id, request_id] = draft
        else:
            uuid = _string(record.get("uuid"))
            if uuid is not None:
                self.up.setdefault(uuid, draft.id)
        if model != _SYNTHETIC_MODEL:
            if model is not None:
                draft.model = model
            usage = message.get("usage")
            if isinstance(usage, dict):
                draft.usage_raw = usage  # the last copy is the complete one
        self.used += 1
        for block in _blocks(message.get("content")):
            self.assistant_block(draft, block)

    def assistant_block(self, draft: _Draft, block: Any) -> None:
        if isinstance(block, str):
            draft.texts.append(block)
            return
        kind = block.get("type") if isinstance(block, dict) else type(block).__name__
        if kind == "text" and isinstance(block.get("text"), str):
            text, images = _strip_images(block["text"])
            draft.texts.append(text)
            if images:
                draft.images += images
        elif kind == "thinking":
            draft.think(_string(block.get("thinking")) or "")
        elif kind == "redacted_thinking":  # encrypted by the API: marked, never decoded
            draft.think(_REDACTED_THINKING)
        elif kind == "tool_use":
            call = _Call(
                id=_string(block.get("id")),
                name=str(block.get("name") or ""),
                input=block.get("input"),
            )
            draft.calls.append(call)
            if call.id is not None and call.id not in self.calls:
                self.calls[call.id] = call
                self.call_owner[call.id] = draft
        elif kind == "image":
            draft.images.append(_image(block))
        elif kind == "fallback":  # the model was switched mid-turn; the next model answers
            pass
        else:
            self.odd_blocks[str(kind)] += 1

    # --- system lines --------------------------------------------------------------------------

    def system(self, line: Line, record: dict[str, Any]) -> None:
        """Compaction boundaries and local commands are messages; other subtypes are noise."""
        subtype = _string(record.get("subtype"))
        content = record.get("content")
        if subtype not in _SYSTEM_KEPT or not isinstance(content, str):
            self.skip(_typed("system", subtype))
            self.pass_through(record)
            return
        self.used += 1
        if subtype == "compact_boundary":
            before = next((d.id for d in reversed(self.drafts) if not d.is_sidechain), None)
            draft = self.new_draft(line, record, "system", "notice")
            # The boundary starts a new root; its logical parent keeps the tree in one piece.
            # After a partial compaction that parent is a preserved message re-written *below*
            # the summary, which would close a loop: then the message read last stands in.
            logical = _string(record.get("logicalParentUuid"))
            if draft.raw_parent is None:
                known = logical is not None and (logical in self.by_id or logical in self.up)
                draft.raw_parent = logical if known else before
            draft.texts.append(content)
            return
        kind, text = _read_user_text(content, record)
        draft = self.new_draft(line, record, "system", kind if kind != "message" else "notice")
        draft.texts.append(text)

    def is_warmup(self) -> bool:
        """Whether the agent's first prompt is "Warmup": the harness pre-warming a cache."""
        first = next((d for d in self.drafts if d.role == "user"), None)
        return first is not None and "".join(first.texts).strip() == _WARMUP

    # --- the tree ------------------------------------------------------------------------------

    def resolve(self, uuid: str | None) -> str | None:
        """The id of the nearest message at or above the line ``uuid``; None past the file."""
        by_id = self.by_id
        if uuid is None or uuid in by_id:  # the line of a message: most parents are
            return uuid
        up = self.up
        seen: set[str] = set()  # lines may be linked in a circle
        while uuid not in by_id:
            if uuid in seen or uuid not in up:
                return None
            seen.add(uuid)
            uuid = up[uuid]
            if uuid is None:
                return None
        return uuid

    # --- freezing ------------------------------------------------------------------------------

    def finish(
        self,
        adapter: ClaudeCodeAdapter,
        meta: ConversationMeta,
        subagents: Iterable[ParsedConversation],
    ) -> ParsedConversation:
        known = set(self.by_id) | set(self.up)
        titled = [text for leaf, text in self.summaries if leaf is not None and leaf in known]
        self.used += len(titled)
        if len(self.summaries) > len(titled):  # they describe other sessions' branches
            self.skipped["summary"] += len(self.summaries) - len(titled)
        messages, orphaned = self.messages()
        if orphaned:
            self.warnings.append(
                f"{orphaned} message(s) point to a parent that is not in this file "
                "(resumed from another session, or lost to compaction); they are roots here"
            )
        for session, count in sorted(self.foreign_sessions.items()):
            self.warnings.append(
                f"{count} record(s) carry sessionId {session}, not this file's "
                "(copied from that session on resume, or the file was renamed)"
            )
        for uuid, lines in self.reused.items():
            where = ", ".join(str(n) for n in lines[:5]) + (", ..." if len(lines) > 5 else "")
            self.warnings.append(
                f"uuid {uuid} was reused by {len(lines)} different record(s) (line {where}); "
                "each is kept under an id suffixed with its line number"
            )
        for kind, count in sorted(self.odd_blocks.items()):
            self.warnings.append(f"{count} content block(s) of type {kind!r} were not understood")
        stamps = [m.timestamp for m in messages if m.timestamp is not None]
        title = (
            self.custom_title
            or self.ai_title
            or (titled[-1].strip() if titled else None)
            or meta.title
            or self.slug
            or _prompt_title(messages)
        )
        return ParsedConversation(
            source=adapter.name,
            id=meta.id,
            meta=meta,
            parser_version=adapter.parser_version,
            title=title,
            project_path=self.cwd,
            git_branch=self.git_branch,
            created_at=min(stamps, default=None),
            updated_at=max(stamps, default=None),
            producer_version=self.version,
            messages=messages,
            subagents=subagents,
            diagnostics=Diagnostics(
                records_seen=self.seen,
                records_used=self.used,
                malformed=self.malformed,
                skipped=dict(sorted(self.skipped.items())),
                unknown=self.unknown_records(),
                warnings=self.warnings,
            ),
        )

    def messages(self) -> tuple[list[Message], int]:
        messages: list[Message] = []
        orphaned = 0
        for draft in self.drafts:
            parent = self.resolve(draft.raw_parent)
            if parent == draft.id:
                parent = None
            known = draft.raw_parent in self.by_id or draft.raw_parent in self.up
            if draft.raw_parent is not None and not known:
                orphaned += 1
            messages.append(_freeze(draft, parent))
            draft.texts.clear()  # the message holds the text now; do not keep two copies
        return messages, orphaned

    def unknown_records(self) -> list[UnknownRecord]:
        """The unknown lines, re-read as raw text (they are rare, so each is read once more)."""
        if not self.unknown:
            return []
        spans = [(item.offset, item.end_offset) for item in self.unknown]
        return [
            UnknownRecord(
                where=f"line {item.line_no}",
                type=item.type,
                raw=raw,
                producer_version=item.version,
            )
            for item, raw in zip(self.unknown, read_spans(self.path, spans), strict=True)
        ]


def _is_warmup_prompt(record: Mapping[str, Any]) -> bool:
    message = record.get("message")
    return (
        record.get("type") == "user"
        and isinstance(message, dict)
        and message.get("content") == _WARMUP
    )


def _blocks(content: object) -> list[Any]:
    """A message's content as a list of blocks: a lone string or object is one block.

    ``list(content or [])`` crashed on a number (``TypeError``) and turned an object into its keys,
    read as text; anything that is not a list is now one block, counted if of an odd kind.
    """
    if isinstance(content, list):
        return content  # read, never changed: no copy
    return [] if content is None else [content]


def _is_result(block: Any) -> bool:
    return isinstance(block, dict) and block.get("type") == "tool_result"


# --- usage across files ------------------------------------------------------------------------


def _count_usages(transcripts: list[_Transcript]) -> None:
    """Mark which copy of each response's usage is counted, across a session and its agents.

    The key is (``message.id``, ``requestId``), or ``message.id`` alone when there is no
    request id. Of the copies sharing a key, the last non-sidechain copy is counted (else the
    last copy). A sidechain copy of a response that also has a non-sidechain copy under another
    request id is a replay (side questions re-send the parent's messages) and is not counted.
    """
    copies: dict[str, list[_Draft]] = {}
    main_responses: set[str] = set()
    for transcript in transcripts:
        for draft in transcript.drafts:
            if draft.usage_raw is None:
                continue
            if draft.api_id is None:  # nothing to match copies by: counted
                draft.usage = _usage(draft.usage_raw, dedup_key=None, counted=True)
                draft.usage_raw = None
                continue
            key = draft.api_id if draft.request_id is None else f"{draft.api_id}:{draft.request_id}"
            copies.setdefault(key, []).append(draft)
            if not draft.is_sidechain:
                main_responses.add(draft.api_id)
    for key, drafts in copies.items():
        main = [draft for draft in drafts if not draft.is_sidechain]
        winner = (main or drafts)[-1]
        for draft in drafts:
            replayed = draft.is_sidechain and not main and draft.api_id in main_responses
            counted = draft is winner and not replayed
            draft.usage = _usage(draft.usage_raw or {}, dedup_key=key, counted=counted)
            draft.usage_raw = None  # the API's whole usage object; only the counts are kept


# --- values ------------------------------------------------------------------------------------


def _freeze(draft: _Draft, parent: str | None) -> Message:
    strip = str.rstrip if draft.kind == "tool_result" else str.strip
    thinking = None if draft.thinking is None else _paragraphs(draft.thinking, str.strip)
    return _build.message(
        id=draft.id,
        role=draft.role,
        parent_id=parent,
        text=_paragraphs(draft.texts, strip),
        thinking=thinking,
        tool_calls=[
            _build.tool_call(
                id=c.id,
                name=c.name,
                input=c.input,
                output=c.output,
                is_error=c.is_error,
                result=c.result,
            )
            for c in draft.calls
        ],
        images=draft.images,
        timestamp=draft.timestamp,
        model=draft.model,
        usage=draft.usage,
        request_id=draft.request_id,
        is_sidechain=draft.is_sidechain,
        kind=draft.kind,
    )


def _paragraphs(parts: list[str], strip: Callable[[str], str]) -> str:
    """The parts, each stripped, that are not blank, joined by blank lines.

    Stripped once: a part with nothing to strip is the same object, so a message of one part
    keeps the very string that was decoded.
    """
    return "\n\n".join([part for part in map(strip, parts) if part])


def _read_user_text(text: str, record: Mapping[str, Any]) -> tuple[MessageKind, str]:
    """What kind of user text this is, and its visible form.

    Commands and their output are recognised by their tags (see :func:`_command_text`);
    everything else is cleaned of reminders, caveats and IDE context, then classified by the
    line's flags (``isCompactSummary``, ``isMeta``) and by the markers Claude Code writes.
    """
    # Only a text that *starts* with one of these tags is harness-written: a prompt that
    # merely quotes one (someone writing about Claude Code) stays a prompt.
    command = _command_text(text) if text.lstrip().startswith(_COMMAND_TAGS) else None
    if command is not None:
        return command
    cleaned = (strip_tags(text, _STRIPPED_TAGS) if "<" in text else text).strip()
    if cleaned.startswith(_CAVEAT_PREFIX):
        cleaned = cleaned.partition("\n\n")[2].strip()
    kind: MessageKind = "message"
    if record.get("isCompactSummary") is True:
        kind = "compaction_summary"
    elif record.get("isMeta") is True or cleaned.startswith((_INTERRUPTED, *_NOTIFICATION_TAGS)):
        kind = "notice"
    return kind, cleaned


def _command_text(text: str) -> tuple[MessageKind, str] | None:
    """A command or command output written with Claude Code's tags, or None.

    A slash command is ``<command-name>/model</command-name><command-args>sonnet</command-args>``
    (with a ``<command-message>`` echo, in either order); its output follows in another line as
    ``<local-command-stdout>``. The ``!`` shell mode writes ``<bash-input>`` and then
    ``<bash-stdout>``/``<bash-stderr>``; the ``#`` memory mode ``<user-memory-input>``.
    """
    name = _inner(text, "command-name")
    if name is not None:
        command = f"{name.strip()} {(_inner(text, 'command-args') or '').strip()}".strip()
        contents = (_inner(text, "command-contents") or "").strip()
        return "command", f"{command}\n\n{contents}" if contents else command
    output = _command_output(text, "local-command-stdout", "local-command-stderr")
    if output is None:
        output = _command_output(text, "bash-stdout", "bash-stderr")
    if output is not None:
        return "command_output", output
    shell = _inner(text, "bash-input")
    if shell is not None:
        return "command", f"!{shell.strip()}"
    memory = _inner(text, "user-memory-input")
    if memory is not None:
        return "command", f"#{memory.strip()}"
    return None


def _command_output(text: str, out_tag: str, err_tag: str) -> str | None:
    out, err = _inner(text, out_tag), _inner(text, err_tag)
    if out is None and err is None:
        return None
    parts = [strip_ansi(part).strip() for part in (out, err) if part]
    return "\n".join(part for part in parts if part)


def _inner(text: str, tag: str) -> str | None:
    """The text inside the first ``<tag>…</tag>``, whatever it contains (``<`` included).

    TODO(#5): belongs in chatparse.decoders.text next to strip_tags/unwrap_tags (a
    ``tag_contents(text, name)`` helper); kept here until it exists.
    """
    opening, closing_tag = f"<{tag}>", f"</{tag}>"
    start = text.find(opening)
    if start < 0:
        return None
    start += len(opening)
    end = text.find(closing_tag, start)
    return None if end < 0 else text[start:end]


def _result_text(content: Any) -> tuple[str, list[ImageRef]]:
    """A tool result's content as text: a string, or text blocks joined; images as placeholders.

    Outputs are the longest texts of a session: each step below returns the string it was given
    when it has nothing to change, so an output that needs no cleaning is kept as decoded, never
    copied.
    """
    if content is None:
        return "", []
    images: list[ImageRef] = []
    if isinstance(content, str):
        text = content
    else:
        text, images = _result_blocks(content if isinstance(content, list) else [content])
    if "<" in text:
        text = strip_tags(text, ("system-reminder",))
    # Leading spaces are kept: tool output is often indented (line-numbered file reads).
    text, inline = _strip_images(text.strip("\r\n").rstrip())
    return text, images + inline if inline else images


def _result_blocks(blocks: list[Any]) -> tuple[str, list[ImageRef]]:
    """The blocks of a tool result as one text; images as placeholders in it, and as refs."""
    parts: list[str] = []
    images: list[ImageRef] = []
    for block in blocks:
        if isinstance(block, str):
            parts.append(block)
        elif isinstance(block, dict) and block.get("type") == "text":
            parts.append(str(block.get("text") or ""))
        elif isinstance(block, dict) and block.get("type") == "image":
            image = _image(block)
            images.append(image)
            parts.append(f"[image: {image.media_type}, {image.byte_size} bytes]")
        elif isinstance(block, dict) and block.get("type") == "tool_reference":
            parts.append(f"[tool: {block.get('tool_name')}]")
        else:
            kind = block.get("type") if isinstance(block, dict) else type(block).__name__
            parts.append(f"[{kind}]")
    return "\n".join(parts), images


def _share_text(structured: object, text: str) -> object:
    """``structured`` with its top-level strings equal to ``text`` replaced by ``text`` itself.

    A ``toolUseResult`` often repeats its result's text (a command's ``stdout``): two equal
    strings, decoded apart. Keeping one object of them loses nothing and halves the memory a
    long output costs.
    """
    if isinstance(structured, dict) and text:
        for key, value in structured.items():
            # Only a string can equal a string, and strings of different lengths are told apart
            # without reading them.
            if value == text and value is not text:
                structured[key] = text  # an existing key: safe while iterating
    return structured


def _strip_images(text: str) -> tuple[str, list[ImageRef]]:
    """Replace ``data:image/...;base64,...`` URIs in ``text`` by placeholders."""
    text, found = strip_data_uri_images(text)
    return text, [_build.image(media_type=i.media_type, byte_size=i.byte_size) for i in found]


def _content(record: Mapping[str, Any]) -> object:
    """What a line says, without its envelope (uuid, parent, session, version)."""
    message = record.get("message")
    return message.get("content") if isinstance(message, dict) else record.get("content")


def _image(block: Mapping[str, Any]) -> ImageRef:
    source = block.get("source")
    if not isinstance(source, dict):
        return _build.image()
    data = source.get("data")
    return _build.image(
        media_type=_string(source.get("media_type")),
        byte_size=base64_decoded_size(data) if isinstance(data, str) else None,
    )


def _usage(raw: Mapping[str, Any], *, dedup_key: str | None, counted: bool) -> Usage | None:
    """Token counts of one response; ``thinking_tokens`` is a part of ``output_tokens``."""
    details = raw.get("output_tokens_details")
    counts = (
        as_count(raw.get("input_tokens")),
        as_count(raw.get("output_tokens")),
        as_count(raw.get("cache_read_input_tokens")),
        as_count(raw.get("cache_creation_input_tokens")),
        as_count(details.get("thinking_tokens")) if isinstance(details, dict) else None,
    )
    if counts == (None, None, None, None, None):
        return None
    return _build.usage(
        input_tokens=counts[0],
        output_tokens=counts[1],
        cache_read_tokens=counts[2],
        cache_write_tokens=counts[3],
        reasoning_tokens=counts[4],
        dedup_key=dedup_key,
        counted=counted,
    )


def _string(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _typed(kind: str, subtype: Any) -> str:
    return f"{kind}/{subtype}" if isinstance(subtype, str) and subtype else kind


def _prompt_title(messages: Iterable[Message]) -> str | None:
    """The first line of the first thing the user typed, cut to a title's length."""
    prompts = [m for m in messages if m.role == "user" and m.text]
    for kind in ("message", "command"):
        for message in prompts:
            if message.kind == kind:
                first = message.text.strip().splitlines()[0].strip()
                return first if len(first) <= _TITLE_LENGTH else first[: _TITLE_LENGTH - 1] + "…"
    return None
