"""The Oh My Pi adapter: Pi's reading with Oh My Pi's entries, its roots, and sub-agents."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Final

from chatparse.adapters._pi import (
    OMP_ENTRIES,
    Dialect,
    Found,
    Head,
    SessionFilesAdapter,
    finish,
    meta_of,
    read_session,
)
from chatparse.adapters._pi.locate import watched_fingerprint
from chatparse.adapters.oh_my_pi.locate import (
    CONFIG_DIR_ENV,
    agent_override,
    every_subagent_file,
    session_files,
    session_roots,
    subagent_files,
)
from chatparse.host import Host
from chatparse.model import ConversationMeta, ParsedConversation

__all__ = ["OhMyPiAdapter"]

OMP: Final = Dialect(source="oh-my-pi", entries=OMP_ENTRIES)


class OhMyPiAdapter(SessionFilesAdapter):
    """Reads the sessions of Oh My Pi (``omp``), a fork of Pi, with their sub-agents.

    .. versionadded:: 0.2
    """

    name = "oh-my-pi"
    display_name = "Oh My Pi"
    parser_version = "1"
    dialect = OMP

    def roots(self, host: Host) -> list[Path]:
        """See :func:`~chatparse.adapters.oh_my_pi.locate.session_roots`."""
        return session_roots(host)

    def session_paths(self, root: Path) -> Iterable[Path]:
        """Each session of a root; sub-agents are read with their parent."""
        return session_files(root)

    def confidence(self, path: Path, head: Head) -> float:
        """Sure of a file that begins with the title slot; of a Pi header under ``.omp/``."""
        if head.slot:
            return 0.95
        if head.id is None:
            return 0.0
        return 0.9 if ".omp" in path.parts else 0.5

    def meta(self, found: Found, locator: Mapping[str, str]) -> ConversationMeta:
        """The session's file, watching its sub-agents' files too."""
        watched = list(every_subagent_file(found.path))
        fingerprint = watched_fingerprint(found, watched)
        return meta_of(self.name, found, fingerprint=fingerprint, locator=locator)

    def subagents(self, meta: ConversationMeta) -> list[ParsedConversation]:
        """The sub-agents the session started, each with its own sub-agents."""
        return self._subagents_of(Path(meta.path), meta.id)

    def _subagents_of(self, session: Path, parent_id: str) -> list[ParsedConversation]:
        parsed = []
        for path in subagent_files(session):
            found = Found.at(path)
            if found is None:
                continue
            locator = {"parent_session": parent_id, "agent": path.stem}
            meta = meta_of(self.name, found, locator=locator)
            reading = read_session(self.dialect, path)
            parsed.append(finish(self, meta, reading, self._subagents_of(path, meta.id)))
        return parsed

    def explain(self, host: Host) -> Iterator[str]:
        """Where Oh My Pi's sessions are looked for on ``host``, for ``chatparse doctor``."""
        override = agent_override(host)
        if override is not None:
            yield f"{override[0]} is set: {override[1]} (so ~/.omp/agent is not read)"
        configured = host.getenv(CONFIG_DIR_ENV)
        if configured:
            yield f"{CONFIG_DIR_ENV} is set: ~/{configured} is read instead of ~/.omp"
        for root in self.roots(host):
            state = "found" if root.is_dir() else "missing"
            yield f"{root}: {state}"
        yield "sessions kept elsewhere with --session-dir are not found"
