"""The OpenClaw adapter: a session's transcript and archived copies, as one conversation.

Its sub-agents are read inside it, its title taken from the ``sessions.json`` index.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from stat import S_ISREG
from typing import Final, NamedTuple

from chatparse.adapter import file_stat, is_file, unlistable
from chatparse.adapters._pi import (
    PI_ENTRIES,
    Dialect,
    Found,
    Head,
    SessionFilesAdapter,
    finish,
    meta_of,
    read_head,
    read_session,
)
from chatparse.adapters._pi.locate import watched_fingerprint
from chatparse.adapters.openclaw.index import INDEX, read_index, spawned
from chatparse.adapters.openclaw.locate import (
    ENCRYPTED,
    HOME_ENV,
    STATE_DIRS,
    Named,
    classify,
    is_encrypted,
    session_roots,
    state_dirs,
    transcripts,
)
from chatparse.adapters.openclaw.text import GATEWAY_MODELS, answer_text, prompt_text
from chatparse.host import Host
from chatparse.model import ConversationMeta, ParsedConversation, SourceInfo

__all__ = ["OPENCLAW", "OpenClawAdapter"]

OPENCLAW: Final = Dialect(
    source="openclaw",
    entries=PI_ENTRIES,
    prompt_text=prompt_text,
    answer_text=answer_text,
    injected=GATEWAY_MODELS,
)
_AGENT_STORE: Final = Path("agent") / "openclaw-agent.sqlite"
_LINES, _FIELDS = "\n", "\t"
_MAGIC: Final = ENCRYPTED.decode().strip()


class _Copy(NamedTuple):
    path: Path
    named: Named
    size: int
    mtime_ns: int


class _Session(NamedTuple):
    """A session's files, oldest first and the one read last (its meta's path) at the end."""

    agent: str
    files: list[Path]


class OpenClawAdapter(SessionFilesAdapter):
    """Reads OpenClaw's (formerly Clawdbot's, Moltbot's) agent transcripts.

    .. versionadded:: 0.2
    """

    name = "openclaw"
    display_name = "OpenClaw"
    parser_version = "1"
    dialect = OPENCLAW
    scan_reads_content = ("*.jsonl", "*.jsonl.*", f"*/{INDEX}")
    """``scan`` reads the header of each session's main file (an archive when it is all that is
    left), and each agent's index."""

    def roots(self, host: Host) -> list[Path]:
        """Each agent's ``sessions/`` folder in every state folder."""
        return session_roots(host)

    def scan(self, source: SourceInfo) -> Iterator[ConversationMeta]:
        """One conversation per session id, its copies and sub-agents with it."""
        found = _Found()
        for root in map(Path, source.roots):
            found.add(root)
        children: dict[str, list[str]] = {}
        for ident in found.sessions:
            top = found.top(ident)
            if top != ident:
                children.setdefault(top, []).append(ident)
        nested = {child for group in children.values() for child in group}
        for ident in sorted(found.sessions):
            if ident not in nested:
                meta = self._meta(ident, found, sorted(children.get(ident, [])))
                if meta is not None:
                    yield meta

    def _meta(self, ident: str, found: _Found, children: list[str]) -> ConversationMeta | None:
        session = found.sessions[ident]
        main = Found.at(session.files[-1], ident)
        if main is None:
            return None
        locator = {"agent": session.agent}
        if len(session.files) > 1:
            locator["copies"] = _LINES.join(map(str, session.files[:-1]))
        if children:  # per line: the session that started it, then its files in reading order
            locator["subagents"] = _LINES.join(
                _FIELDS.join([found.parents[child], *map(str, found.sessions[child].files)])
                for child in children
            )
        elif ident in found.parents:  # a sub-agent whose parent has no transcript left
            locator["parent_session"] = found.parents[ident]
        watched = [*session.files[:-1], *(p for c in children for p in found.sessions[c].files)]
        return meta_of(
            self.name,
            main,
            fingerprint=watched_fingerprint(main, watched),
            title=found.titles.get(ident),
            locator=locator,
        )

    def parse(self, meta: ConversationMeta) -> ParsedConversation:
        """Read the session's copies, oldest first, then its main file; then its sub-agents."""
        copies = [Path(p) for p in meta.locator.get("copies", "").split(_LINES) if p]
        reading = read_session(self.dialect, Path(meta.path), copies)
        if reading.header is None and reading.ledger.malformed and is_encrypted(Path(meta.path)):
            reading.ledger.warn(f"{meta.path} is encrypted ({_MAGIC}): not read")
        subagents = [
            self._subagent(line.split(_FIELDS), meta.locator.get("agent", ""))
            for line in meta.locator.get("subagents", "").split(_LINES)
            if line
        ]
        return finish(self, meta, reading, [s for s in subagents if s is not None])

    def _subagent(self, fields: list[str], agent: str) -> ParsedConversation | None:
        parent, *copies, main = fields
        named = classify(Path(main).name)
        found = Found.at(Path(main), named.id if named is not None else None)
        if found is None:
            return None
        locator = {"agent": agent, "parent_session": parent}
        if copies:
            locator["copies"] = _LINES.join(copies)
        meta = meta_of(self.name, found, locator=locator)
        return finish(self, meta, read_session(self.dialect, found.path, list(map(Path, copies))))

    def confidence(self, path: Path, head: Head) -> float:
        """Sure of a transcript in an OpenClaw state folder; less of one elsewhere.

        In a state folder a file needs no header (rotation may have cut it off), but must begin
        with an entry; elsewhere it must have a header.
        """
        named = classify(path.name)
        if named is None or head.slot:
            return 0.0
        if head.entry and _in_state_folder(path):
            return 0.9
        if head.id is None:
            return 0.0
        return 0.55 if named.live else 0.85

    def sniff(self, path: Path) -> float:
        """How sure the adapter is that ``path`` is an OpenClaw transcript or archived copy."""
        if classify(path.name) is None or not is_file(path):
            return 0.0
        return self.confidence(path, read_head(path))

    def scan_path(self, path: Path) -> Iterator[ConversationMeta]:
        """The session in one transcript file (its copies beside it are not looked for)."""
        named = classify(path.name)
        found = Found.at(path, named.id if named is not None else None)
        if found is not None:
            yield meta_of(self.name, found, locator={"agent": path.parent.parent.name})

    def explain(self, host: Host) -> Iterator[str]:
        """Where OpenClaw's transcripts are looked for on ``host``, for ``chatparse doctor``."""
        if host.getenv(HOME_ENV):
            yield f"{HOME_ENV} is set: {host.getenv(HOME_ENV)} is read as the home folder"
        variable, states = state_dirs(host)
        if variable is not None:
            yield f"{variable} is set: {states[0]} (so ~/.openclaw and its old homes are not read)"
        for state in states:
            yield f"{state}: {'found' if state.is_dir() else 'missing'}"
        for root in self.roots(host):
            names = _names(root, warn=False)
            count = sum(1 for _ in transcripts(root, names))
            index = read_index(root)
            said = "missing" if index == [] else "damaged" if index is None else "read"
            yield f"{root}: {count} transcript file(s); {INDEX} {said}"
            packed = sum(1 for name in names if name.endswith(".zst"))
            if packed:
                yield f"{root}: {packed} Zstandard-compressed archive(s) are not read"
            locked = sum(1 for path, _named in transcripts(root, names) if is_encrypted(path))
            if locked:
                yield f"{root}: {locked} encrypted transcript(s) ({_MAGIC}) are not read"
            store = root.parent / _AGENT_STORE
            if store.is_file():
                yield f"{store}: OpenClaw's SQLite session store, which chatparse does not read yet"


def _in_state_folder(path: Path) -> bool:
    """Whether ``path`` is in a state folder, or at least in ``agents/<id>/sessions/``."""
    parents = path.parents
    return any(name in path.parts for name in STATE_DIRS) or (
        len(parents) > 2 and parents[2].name == "agents"
    )


def _names(root: Path, *, warn: bool) -> list[str]:
    try:
        return sorted(os.listdir(root))  # noqa: PTH208 -- names only
    except FileNotFoundError:
        return []
    except OSError as exc:
        if warn:
            unlistable(root, exc)
        return []


def _copies(root: Path) -> Iterator[_Copy]:
    for path, named in transcripts(root, _names(root, warn=True)):
        stat = file_stat(path)
        if stat is not None and S_ISREG(stat.st_mode) and stat.st_size:
            yield _Copy(path, named, stat.st_size, stat.st_mtime_ns)


def _in_order(copies: list[_Copy]) -> list[Path]:
    """The files of one session, oldest first, the one to read last at the end.

    That one is the live transcript (the largest, if several roots hold one), else the newest
    archive.
    """
    ordered = sorted(copies, key=lambda c: (c.named.order, c.mtime_ns, str(c.path)))
    live = [c for c in ordered if c.named.live]
    last = max(live, key=lambda c: (c.size, c.mtime_ns)) if live else ordered[-1]
    return [*(c.path for c in ordered if c is not last), last.path]


class _Found:
    """What a scan found in the sessions folders: each session's files, titles, and parents."""

    def __init__(self) -> None:
        self.copies: dict[str, list[_Copy]] = {}
        self.agents: dict[str, str] = {}
        self.titles: dict[str, str] = {}
        self.parents: dict[str, str] = {}
        self._sessions: dict[str, _Session] | None = None

    def add(self, root: Path) -> None:
        """Everything in one agent's ``sessions/`` folder."""
        for copy in _copies(root):
            self.copies.setdefault(copy.named.id, []).append(copy)
            self.agents.setdefault(copy.named.id, root.parent.name)
        index = read_index(root) or []
        self.titles |= {entry.session_id: entry.title for entry in index if entry.title}
        self.parents |= spawned(index)

    @property
    def sessions(self) -> dict[str, _Session]:
        """Each session's files in reading order, by id."""
        if self._sessions is None:
            self._sessions = {
                ident: _Session(self.agents[ident], _in_order(copies))
                for ident, copies in self.copies.items()
            }
        return self._sessions

    def top(self, ident: str) -> str:
        """The session at the top of the chain that started ``ident``, among those found.

        ``ident`` itself when nothing found started it, or when the chain goes round in a circle
        (an index that contradicts itself): then no session of the circle swallows another.
        """
        seen = [ident]
        while (parent := self.parents.get(seen[-1])) is not None and parent in self.copies:
            if parent in seen:
                return ident
            seen.append(parent)
        return seen[-1]
