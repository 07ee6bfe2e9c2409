"""The Claude Code adapter: where it looks, what it lists, and what it parses."""

from __future__ import annotations

import os
from collections.abc import Callable, Collection, Iterable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Final

from chatparse.adapter import new_meta
from chatparse.adapters.claude_code.content import is_warmup_prompt
from chatparse.adapters.claude_code.locate import (
    AGENT_PREFIX,
    CONFIG_DIR_VARIABLE,
    DEFAULT_CONFIG_DIRS,
    PROJECTS,
    SIDECAR_SUFFIX,
    SUBAGENTS,
    SUFFIX,
    File,
    agent_parent_session,
    file_of,
    fingerprint_of,
    head_records,
    listdir,
    new_layout_agents,
    primary_copy,
    project_folder_paths,
    project_folders,
    projects_roots,
    read_folder,
    read_sidecar,
    session_files,
    size_of,
    stat_of,
    subagent_files,
)
from chatparse.adapters.claude_code.peek import peek_transcript
from chatparse.adapters.claude_code.records import SNIFFED_TYPES
from chatparse.adapters.claude_code.transcript import Transcript
from chatparse.adapters.claude_code.usage import count_usages, usage_key
from chatparse.host import Host
from chatparse.model import ConversationMeta, Message, ParsedConversation, SourceInfo

__all__ = ["ClaudeCodeAdapter"]


class ClaudeCodeAdapter:
    """Reads Claude Code session transcripts (``~/.claude/projects/**/<session>.jsonl``).

    .. versionadded:: 0.1
    """

    name = "claude-code"
    display_name = "Claude Code"
    parser_version = "2"
    scan_reads_content: Final = ("*/agent-*.jsonl",)
    """``scan`` reads the head of flat 2.0.x ``agent-*.jsonl`` files, and only those: the
    parent session they belong to is written inside them, not in their name."""

    def detect(self, host: Host) -> SourceInfo | None:
        """Find the projects roots on ``host``; count the sessions in them by name."""
        roots = projects_roots(host)
        if not roots:
            return None
        # By name only, from bare listings: detect must stay cheap, and scan lists them again.
        count = len(
            {
                name.removesuffix(SUFFIX)
                for root in roots
                for folder in project_folder_paths(root)
                for name in listdir(folder)
                if name.endswith(SUFFIX) and not name.startswith(AGENT_PREFIX)
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
        found = projects_roots(host)
        candidates = [host.expand(p.strip()) for p in (configured or "").split(",") if p.strip()]
        candidates += [host.home / relative for relative in DEFAULT_CONFIG_DIRS]
        for directory in candidates:
            root = directory / PROJECTS
            if root not in found:
                yield f"{root}: missing"
                continue
            folders = list(project_folders(root))
            sizes = [size_of(entry) for folder in folders for entry in folder.sessions]
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
        sessions, copies, flat_agents = session_files(source.roots)
        legacy: dict[str, list[Path]] = {}
        orphans: list[Path] = []
        for agent in flat_agents:
            parent = agent_parent_session(agent)
            if parent is not None and parent in sessions:
                legacy.setdefault(parent, []).append(agent)
            else:
                orphans.append(agent)
        for session_id, first in sessions.items():
            found = copies.get(session_id)
            if found is None:
                yield self._session_meta(first, (), legacy.get(session_id, ()))
            else:
                primary = primary_copy(found)
                others = [copy.path for copy in found if copy is not primary]
                yield self._session_meta(primary, others, legacy.get(session_id, ()))
        for agent in orphans:
            stat = stat_of(agent)
            if stat is not None and stat.st_size > 0:
                yield self._standalone_agent_meta(agent, stat)

    def sniff(self, path: Path) -> float:
        """How sure we are that ``path`` is a Claude Code transcript, from its first lines."""
        if path.suffix != SUFFIX or not path.is_file():
            return 0.0
        for record in head_records(path):
            kind = record.get("type")
            if (
                isinstance(kind, str)
                and kind in SNIFFED_TYPES
                and ("uuid" in record or "sessionId" in record or "leafUuid" in record)
            ):
                return 0.9
        return 0.1 if PROJECTS in path.parts else 0.0

    def scan_path(self, path: Path) -> Iterator[ConversationMeta]:
        """One conversation for one transcript file, with its sub-agents found beside it."""
        if path.stat().st_size == 0:
            return
        if path.name.startswith(AGENT_PREFIX):
            yield self._standalone_agent_meta(path, path.stat())
            return
        legacy = [
            Path(entry.path)
            for entry in read_folder(str(path.parent)).flat_agents
            if agent_parent_session(Path(entry.path)) == path.stem
        ]
        yield self._session_meta(file_of(path, path.stat(), has_folder=True), [], legacy)

    def peek(self, meta: ConversationMeta) -> ConversationMeta:
        """``meta`` with its title, project and last time, from the ends of its file."""
        return peek_transcript(self, meta)

    def parse(self, meta: ConversationMeta) -> ParsedConversation:
        """Parse a session file and its sub-agent files into one conversation."""
        path = Path(meta.path)
        if meta.locator.get("layout") == "legacy-flat":
            alone = Transcript.read(path, agent=True)
            count_usages([(alone.drafts, alone.ledger)])
            return alone.finish(self, meta, ())
        main = Transcript.read(path, agent=False, session_id=meta.id)
        for other in filter(None, meta.locator.get("duplicates", "").split("\n")):
            main.ledger.warn(f"session {meta.id} is also at {other}; that copy is not read")
        agents = [
            (agent_path, Transcript.read(agent_path, agent=True))
            for agent_path in subagent_files(path, meta.locator)
        ]
        count_usages([(main.drafts, main.ledger), *((t.drafts, t.ledger) for _, t in agents)])
        subagents = [
            transcript.finish(self, self._subagent_meta(agent_path, meta.id, main, transcript), ())
            for agent_path, transcript in agents
        ]
        return main.finish(self, meta, subagents)

    def iter_messages(self, meta: ConversationMeta) -> Iterator[Message]:
        """The messages of ``parse(meta)``, one by one, reading the session file once.

        Sub-agent files are read only if the session has side-chain responses inline (1.0.x),
        to know which copy of their usage counts; one at a time, keeping only their usage keys.
        """
        path = Path(meta.path)
        if meta.locator.get("layout") == "legacy-flat":
            return Transcript.stream(
                path, agent=True, session_id=None, counted_elsewhere=lambda _key: False
            )
        agents = _AgentUsageKeys(lambda: subagent_files(path, meta.locator))
        return Transcript.stream(
            path, agent=False, session_id=meta.id, counted_elsewhere=agents.__contains__
        )

    # --- metas ---------------------------------------------------------------------------------

    def _session_meta(
        self, session: File, others: Collection[str], legacy_agents: Iterable[Path]
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
            watched = [*new_layout_agents(Path(session.path)), *agents]
        return self._file_meta(session, fingerprint_of(session, watched), locator)

    def _standalone_agent_meta(self, path: Path, stat: os.stat_result) -> ConversationMeta:
        locator = {"layout": "legacy-flat", "project_dir": path.parent.name}
        parent = agent_parent_session(path)
        if parent is not None:
            locator["parent_session"] = parent
        if any(is_warmup_prompt(record) for record in head_records(path)):
            locator["warmup"] = "true"
        file = file_of(path, stat)
        return self._file_meta(file, fingerprint_of(file, ()), locator)

    def _subagent_meta(
        self, path: Path, parent_id: str, parent: Transcript, agent: Transcript
    ) -> ConversationMeta:
        stat = path.stat()
        agent_id = path.stem.removeprefix(AGENT_PREFIX)
        locator = {
            "layout": SUBAGENTS if SUBAGENTS in path.parent.parts else "legacy-flat",
            "parent_session": parent_id,
            "agent_id": agent_id,
        }
        sidecar = path.with_name(path.stem + SIDECAR_SUFFIX)
        if sidecar.is_file():
            locator |= read_sidecar(sidecar)
        if "tool_use_id" not in locator and agent_id in parent.agent_tool_uses:
            locator["tool_use_id"] = parent.agent_tool_uses[agent_id]
        if agent.is_warmup():
            locator["warmup"] = "true"
        file = file_of(path, stat)
        return self._file_meta(file, fingerprint_of(file, ()), locator, locator.get("description"))

    def _file_meta(
        self, file: File, fingerprint: str, locator: dict[str, str], title: str | None = None
    ) -> ConversationMeta:
        """A conversation that is one file: its id is the file name, size and time its stat."""
        return new_meta(
            source=self.name,
            id=file.id,
            path=file.path,
            size=file.size,
            mtime=datetime.fromtimestamp(file.mtime, UTC),
            fingerprint=fingerprint,
            title=title,
            locator=locator,
        )


class _AgentUsageKeys:
    """The usage keys of a session's sub-agent files, read on first use."""

    def __init__(self, paths: Callable[[], Iterable[Path]]) -> None:
        self._paths = paths
        self._keys: set[str | None] | None = None

    def __contains__(self, key: str) -> bool:
        if self._keys is None:
            self._keys = {
                usage_key(draft)
                for path in self._paths()
                for draft in Transcript.read(path, agent=True).drafts
                if draft.usage_raw is not None
            }
        return key in self._keys
