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
from collections.abc import Iterable, Iterator, Mapping
from contextlib import closing
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

from attrs import define, field

from chatparse.adapters._fields import as_count, as_datetime
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
    ToolCall,
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
        count = len({path.stem for root in roots for path, _ in _session_files(root)})
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
            sizes = [size for _path, size in _session_files(root)]
            empty = sum(1 for size in sizes if size == 0)
            agents = len(_flat_agent_files(root))
            yield (
                f"{root}: {len(sizes)} session file(s), {empty} empty (not listed), "
                f"{agents} flat agent file(s) (folded into their parent session when found)"
            )

    def scan(self, source: SourceInfo) -> Iterator[ConversationMeta]:
        """List one conversation per session id across all roots, by stat.

        Empty session files are not listed. Flat agent files are attached to their parent
        session when it is found in any root, and listed on their own otherwise.
        """
        sessions: dict[str, list[Path]] = {}
        flat_agents: list[Path] = []
        for root in (Path(r) for r in source.roots):
            for path, size in _session_files(root):
                if size > 0:
                    sessions.setdefault(path.stem, []).append(path)
            flat_agents += _flat_agent_files(root)
        legacy: dict[str, list[Path]] = {}
        orphans: list[Path] = []
        for agent in flat_agents:
            parent = _agent_parent_session(agent)
            if parent is not None and parent in sessions:
                legacy.setdefault(parent, []).append(agent)
            else:
                orphans.append(agent)
        for session_id, copies in sessions.items():
            yield self._session_meta(_primary_copy(copies), copies, legacy.get(session_id, ()))
        for agent in orphans:
            if agent.stat().st_size > 0:
                yield self._standalone_agent_meta(agent)

    def sniff(self, path: Path) -> float:
        """How sure we are that ``path`` is a Claude Code transcript, from its first lines."""
        if path.suffix != _SUFFIX or not path.is_file():
            return 0.0
        for record in _head_records(path):
            kind = record.get("type")
            if kind in {"user", "assistant", "system", "summary", *NOISE_TYPES} and (
                "uuid" in record or "sessionId" in record or "leafUuid" in record
            ):
                return 0.9
        return 0.1 if _PROJECTS in path.parts else 0.0

    def scan_path(self, path: Path) -> Iterator[ConversationMeta]:
        """One conversation for one transcript file, with its sub-agents found beside it."""
        if path.stat().st_size == 0:
            return
        if path.name.startswith(_AGENT_PREFIX):
            yield self._standalone_agent_meta(path)
            return
        legacy = [
            agent
            for agent in _flat_agent_files(path.parent)
            if _agent_parent_session(agent) == path.stem
        ]
        yield self._session_meta(path, [path], legacy)

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
        self, path: Path, copies: Iterable[Path], legacy_agents: Iterable[Path]
    ) -> ConversationMeta:
        stat = path.stat()
        locator = {"project_dir": path.parent.name}
        others = [str(copy) for copy in copies if copy != path]
        if others:
            locator["duplicates"] = "\n".join(others)
        agents = sorted(legacy_agents)
        if agents:
            locator["legacy_agents"] = "\n".join(str(agent) for agent in agents)
        watched = [*_new_layout_agents(path), *agents]
        return self._file_meta(path, stat, _fingerprint(stat, watched), locator)

    def _standalone_agent_meta(self, path: Path) -> ConversationMeta:
        stat = path.stat()
        locator = {"layout": "legacy-flat", "project_dir": path.parent.name}
        parent = _agent_parent_session(path)
        if parent is not None:
            locator["parent_session"] = parent
        if any(_is_warmup_prompt(record) for record in _head_records(path)):
            locator["warmup"] = "true"
        return self._file_meta(path, stat, _fingerprint(stat, ()), locator)

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
        return self._file_meta(
            path, stat, _fingerprint(stat, ()), locator, title=locator.get("description")
        )

    def _file_meta(
        self,
        path: Path,
        stat: os.stat_result,
        fingerprint: str,
        locator: dict[str, str],
        title: str | None = None,
    ) -> ConversationMeta:
        """A conversation that is one file: its id is the file name, size and time its stat."""
        return ConversationMeta(
            source=self.name,
            id=path.stem,
            path=str(path),
            size=stat.st_size,
            mtime=datetime.fromtimestamp(stat.st_mtime, UTC),
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


def _project_dirs(root: Path) -> list[Path]:
    return sorted(child for child in root.iterdir() if child.is_dir())


def _session_files(root: Path) -> Iterator[tuple[Path, int]]:
    """Top-level ``*.jsonl`` files of each project folder that are not agent files, with sizes."""
    for project in _project_dirs(root):
        for path in sorted(project.glob("*" + _SUFFIX)):
            if not path.name.startswith(_AGENT_PREFIX) and path.is_file():
                yield path, path.stat().st_size


def _flat_agent_files(root_or_project: Path) -> list[Path]:
    """Flat 2.0.x ``agent-*.jsonl`` files: in each project folder of a root, or in one folder."""
    if root_or_project.name == _PROJECTS:
        folders = _project_dirs(root_or_project)
    else:
        folders = [root_or_project]
    pattern = _AGENT_PREFIX + "*" + _SUFFIX
    return [path for folder in folders for path in sorted(folder.glob(pattern)) if path.is_file()]


def _new_layout_agents(session_file: Path) -> list[Path]:
    """``<session>/subagents/**/agent-*.jsonl`` (nested agents and workflow runs included)."""
    folder = session_file.with_suffix("") / _SUBAGENTS
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.rglob(_AGENT_PREFIX + "*" + _SUFFIX) if p.is_file())


def _subagent_files(session_file: Path, locator: Mapping[str, str]) -> list[Path]:
    legacy = [Path(p) for p in locator.get("legacy_agents", "").split("\n") if p]
    return [*_new_layout_agents(session_file), *(p for p in legacy if p.is_file())]


def _primary_copy(copies: list[Path]) -> Path:
    """Of several files for one session id (several roots), read the largest, then the newest."""
    return max(copies, key=lambda p: (p.stat().st_size, p.stat().st_mtime_ns, -copies.index(p)))


def _fingerprint(stat: os.stat_result, watched: Iterable[Path]) -> str:
    """Size and mtime of the file, plus those of its sub-agent files, which change apart."""
    own = f"{stat.st_size}-{stat.st_mtime_ns}"
    digest = hashlib.sha256()
    any_watched = False
    for path in watched:
        info = path.stat()
        digest.update(f"{path.name}:{info.st_size}:{info.st_mtime_ns}\n".encode())
        any_watched = True
    return f"{own}+{digest.hexdigest()[:16]}" if any_watched else own


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
        self.shapes: dict[int, list[tuple[str, int]]] = {}
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
        for line in iter_lines(path):
            transcript.seen += 1
            if isinstance(line, Malformed):
                transcript.malformed += 1
            elif not isinstance(line.value, dict) or not isinstance(line.value.get("type"), str):
                transcript.malformed += 1  # JSON, but not an object with a type
            else:
                transcript.record(line, line.value)
        # What only reading needed; the tree (``up``, ``by_id``) is kept for the end.
        for bookkeeping in (transcript.written, transcript.shapes, transcript.open_responses):
            bookkeeping.clear()
        return transcript

    # --- one line ------------------------------------------------------------------------------

    def record(self, line: Line, record: dict[str, Any]) -> None:
        """Route one typed line: conversation, title, known noise, or unknown."""
        kind: str = record["type"]
        self.envelope(record)
        if kind in ("user", "assistant", "system") and self.is_duplicate(line, record):
            return
        if kind == "user" and isinstance(record.get("message"), dict):
            self.user(line, record)
        elif kind == "assistant" and isinstance(record.get("message"), dict):
            self.assistant(line, record)
        elif kind == "system":
            self.system(line, record)
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
        elif kind in NOISE_TYPES:
            subtype = record.get("attachment") if kind == "attachment" else None
            self.skip(_typed(kind, subtype.get("type") if isinstance(subtype, dict) else None))
            self.pass_through(record)
        else:
            self.unknown.append(
                _Unknown(
                    line.line_no, line.offset, line.end_offset, kind, _string(record.get("version"))
                )
            )

    def envelope(self, record: Mapping[str, Any]) -> None:
        """Conversation-level fields that ride on every line: cwd, branch, version, slug."""
        cwd = record.get("cwd")
        if self.cwd is None and isinstance(cwd, str) and cwd:
            self.cwd = cwd  # the launch directory; later lines follow `cd`
        branch = record.get("gitBranch")
        if isinstance(branch, str) and branch:
            self.git_branch = branch
        version = record.get("version")
        if isinstance(version, str) and version:
            self.version = version
        slug = record.get("slug")  # an agent file repeats its parent session's slug
        if self.slug is None and not self.agent and isinstance(slug, str) and slug:
            self.slug = slug
        session = record.get("sessionId")
        if self.session_id is not None and isinstance(session, str) and session != self.session_id:
            self.foreign_sessions[session] += 1

    def is_duplicate(self, line: Line, record: dict[str, Any]) -> bool:
        """Resumes re-write lines with their old uuid; compaction re-writes them with new ones.

        A line whose uuid was seen before, with the same type, timestamp and content, is the
        same event written again: the first copy is kept. So is a line with a new uuid that
        repeats an earlier line's type, timestamp, content and (nearest message) parent: a
        compaction replay, which is not a rewind (a rewind has a new timestamp). A uuid reused
        by a different record is kept, under an id made unique by its line number.

        Content is compared only when everything else matches, by reading the earlier line
        again: that is rare, and far cheaper than remembering every line's content.
        """
        uuid = _string(record.get("uuid"))
        if uuid is None:
            return False
        parent = _string(record.get("parentUuid"))
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
        stamp = stamp if isinstance(stamp, str | None) else repr(stamp)
        shape = hash((record["type"], stamp, self.resolve(parent), length))
        for original, offset in self.shapes.get(shape, ()):
            if self.same_record(offset, record):
                self.up[uuid] = original
                self.skip("replay")
                return True
        self.written[uuid] = line.offset
        self.shapes.setdefault(shape, []).append((uuid, line.offset))
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
        content = record["message"].get("content")
        blocks = _blocks(content)
        texts, images, orphans = self.user_blocks(blocks, record.get("toolUseResult"))
        self.note_agent_spawn(record, blocks)
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
            if isinstance(block, str):
                texts.append(block)
            elif kind == "text" and isinstance(block.get("text"), str):
                texts.append(block["text"])
            elif kind == "image":
                images.append(_image(block))
            elif kind == "tool_result":
                orphan = self.tool_result(block, structured)
                structured = None
                if orphan is not None:
                    orphans.append(orphan)
            else:
                self.odd_blocks[str(kind or type(block).__name__)] += 1
        return texts, images, orphans

    def tool_result(self, block: Mapping[str, Any], structured: object = None) -> str | None:
        """Pair a result with its call; return its text when there is no call to pair it with."""
        call_id = _string(block.get("tool_use_id"))
        output, images = _result_text(block.get("content"))
        is_error = block.get("is_error") if isinstance(block.get("is_error"), bool) else None
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
            call.result = structured
            self.call_owner[call_id].images += images
        return None

    def note_agent_spawn(self, record: Mapping[str, Any], blocks: list[Any]) -> None:
        """Remember which tool call started which sub-agent (``toolUseResult.agentId``)."""
        structured = record.get("toolUseResult")
        if not isinstance(structured, dict) or not isinstance(structured.get("agentId"), str):
            return
        for block in blocks:
            if isinstance(block, dict) and isinstance(block.get("tool_use_id"), str):
                self.agent_tool_uses[structured["agentId"]] = block["tool_use_id"]

    # --- assistant lines -----------------------------------------------------------------------

    def assistant(self, line: Line, record: dict[str, Any]) -> None:
        """One content block of a response; consecutive blocks of one response are merged."""
        message = record["message"]
        api_id = _string(message.get("id"))
        request_id = _string(record.get("requestId"))
        draft = self.continued_response(api_id, request_id, _string(record.get("parentUuid")))
        if draft is None:
            synthetic = message.get("model") == _SYNTHETIC_MODEL
            error = record.get("isApiErrorMessage") is True
            kind: MessageKind = "notice" if synthetic or error else "message"
            draft = self.new_draft(line, record, "assistant", kind)
            draft.api_id, draft.request_id = api_id, request_id
            if api_id is not None:
                self.open_responses[api_id, request_id] = draft
        else:
            uuid = _string(record.get("uuid"))
            if uuid is not None:
                self.up.setdefault(uuid, draft.id)
        model = _string(message.get("model"))
        if model is not None and model != _SYNTHETIC_MODEL:
            draft.model = model
        usage = message.get("usage")
        if isinstance(usage, dict) and model != _SYNTHETIC_MODEL:
            draft.usage_raw = usage  # the last copy is the complete one
        self.used += 1
        content = message.get("content")
        for block in _blocks(content):
            self.assistant_block(draft, block)

    def continued_response(
        self, api_id: str | None, request_id: str | None, parent: str | None
    ) -> _Draft | None:
        """The message this line continues: same response, chained to one of its lines."""
        if api_id is None:
            return None
        draft = self.open_responses.get((api_id, request_id))
        if draft is None or parent is None:
            return None
        return draft if self.resolve(parent) == draft.id else None

    def assistant_block(self, draft: _Draft, block: Any) -> None:
        if isinstance(block, str):
            draft.texts.append(block)
            return
        kind = block.get("type") if isinstance(block, dict) else type(block).__name__
        if kind == "text" and isinstance(block.get("text"), str):
            text, images = _strip_images(block["text"])
            draft.texts.append(text)
            draft.images += images
        elif kind == "thinking":
            draft.thinking = [*(draft.thinking or []), _string(block.get("thinking")) or ""]
        elif kind == "redacted_thinking":  # encrypted by the API: marked, never decoded
            draft.thinking = [*(draft.thinking or []), _REDACTED_THINKING]
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
        if uuid is None or uuid in self.by_id:
            return uuid
        seen: set[str] = set()
        while uuid is not None and uuid not in seen:
            if uuid in self.by_id:
                return uuid
            seen.add(uuid)
            if uuid not in self.up:
                return None
            uuid = self.up[uuid]
        return None

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
        return list(content)
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
    texts = [strip(text) for text in draft.texts if text.strip()]
    thinking = None
    if draft.thinking is not None:
        thinking = "\n\n".join(part.strip() for part in draft.thinking if part.strip())
    return Message(
        id=draft.id,
        role=draft.role,
        parent_id=parent,
        text="\n\n".join(texts),
        thinking=thinking,
        tool_calls=[
            ToolCall(
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
    """A tool result's content as text: a string, or text blocks joined; images as placeholders."""
    if content is None:
        return "", []
    blocks: list[Any] = (
        [content]
        if isinstance(content, str)
        else list(content)
        if isinstance(content, list)
        else [content]
    )
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
    # Leading spaces are kept: tool output is often indented (line-numbered file reads).
    text = "\n".join(parts)
    if "<" in text:
        text = strip_tags(text, ("system-reminder",))
    text, inline = _strip_images(text.strip("\r\n").rstrip())
    return text, images + inline


def _strip_images(text: str) -> tuple[str, list[ImageRef]]:
    """Replace ``data:image/...;base64,...`` URIs in ``text`` by placeholders."""
    if "data:" not in text:  # the common case, and far cheaper than the regular expression
        return text, []
    text, found = strip_data_uri_images(text)
    return text, [ImageRef(media_type=i.media_type, byte_size=i.byte_size) for i in found]


def _content(record: Mapping[str, Any]) -> object:
    """What a line says, without its envelope (uuid, parent, session, version)."""
    message = record.get("message")
    return message.get("content") if isinstance(message, dict) else record.get("content")


def _image(block: Mapping[str, Any]) -> ImageRef:
    source = block.get("source")
    if not isinstance(source, dict):
        return ImageRef()
    data = source.get("data")
    return ImageRef(
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
    return Usage(
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
