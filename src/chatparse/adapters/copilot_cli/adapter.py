"""The Copilot CLI adapter: where it looks (detect, explain), what it lists (scan), how it reads."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Final

from attrs import evolve

from chatparse.adapter import build_conversation, explain_variable, is_dir, is_file, read_head
from chatparse.adapters.copilot_cli.drafts import Draft, Session
from chatparse.adapters.copilot_cli.events import read_events
from chatparse.adapters.copilot_cli.legacy import read_legacy
from chatparse.adapters.copilot_cli.locate import (
    HOME_ENV,
    LAYOUTS,
    Found,
    copilot_home,
    found_in,
    meta_of,
    sessions_root_exists,
)
from chatparse.adapters.copilot_cli.usage import give_usage
from chatparse.errors import SourceUnavailableError
from chatparse.host import Host
from chatparse.model import ConversationMeta, ParsedConversation, SourceInfo

__all__ = ["CopilotCliAdapter"]


class CopilotCliAdapter:
    """Reads GitHub Copilot CLI sessions: the event log in every layout, and legacy documents.

    .. versionadded:: 0.3
    """

    name = "copilot-cli"
    display_name = "GitHub Copilot CLI"
    parser_version = "1"
    scan_reads_content: Final = ("*/workspace.yaml",)
    """``scan`` reads each session's ``workspace.yaml`` (title, cwd, times); the event logs and
    documents are listed by name and stat only."""

    def detect(self, host: Host) -> SourceInfo | None:
        """The Copilot home, when it has a session folder of either layout."""
        home = copilot_home(host)
        if not sessions_root_exists(home):
            return None
        return SourceInfo(source=self.name, display_name=self.display_name, roots=(str(home),))

    def scan(self, source: SourceInfo) -> Iterator[ConversationMeta]:
        """One conversation per session id.

        Its event log folder, else its flat log, else its legacy document (which Copilot
        migrates to the event log when the session is resumed).
        """
        chosen: dict[str, Found] = {}
        for home in map(Path, source.roots):
            for found in found_in(home):
                known = chosen.get(found.session_id)
                if known is None or LAYOUTS.index(found.layout) < LAYOUTS.index(known.layout):
                    chosen[found.session_id] = found
        for ident in sorted(chosen):
            meta = meta_of(self.name, chosen[ident])
            if meta is not None:
                yield meta

    def parse(self, meta: ConversationMeta) -> ParsedConversation:
        """Read one session's event log or legacy document."""
        path = Path(meta.path)
        if not is_file(path):
            raise SourceUnavailableError(
                meta.path, "no such file", "Scan again: the session was moved or deleted."
            )
        session = Session()
        if meta.locator.get("layout") == "legacy":
            read_legacy(path, session)
        else:
            read_events(path, session)
        give_usage(meta.id, session.drafts, session.shutdowns, session.ledger)
        main = [d for d in session.drafts if d.agent is None or d.agent not in session.agents]
        return build_conversation(
            self,
            meta,
            [draft.freeze() for draft in main],
            session.ledger,
            project_path=session.cwd,
            git_branch=session.branch,
            created_at=session.started,
            producer_version=session.version,
            subagents=[self._subagent(meta, session, ident) for ident in session.agents],
        )

    def _subagent(self, meta: ConversationMeta, session: Session, ident: str) -> ParsedConversation:
        """A sub-agent run: the messages of the run the tool call ``ident`` started.

        Its own account is empty: its records are counted in the session's.
        """
        drafts: list[Draft] = [d for d in session.drafts if d.agent == ident]
        child = evolve(
            meta,
            id=f"{meta.id}/{ident}",
            title=session.agents[ident],
            locator={
                **meta.locator,
                "tool_call": ident,
            },
        )
        return build_conversation(
            self,
            child,
            [draft.freeze() for draft in drafts],
            type(session.ledger)(),
            title=session.agents[ident],
            project_path=session.cwd,
            created_at=min((d.timestamp for d in drafts if d.timestamp), default=None),
            updated_at=max((d.timestamp for d in drafts if d.timestamp), default=None),
        )

    # Optional protocols: PathSniffer (sniff, scan_path) and Explainer (explain).

    def sniff(self, path: Path) -> float:
        """How sure the adapter is that ``path`` is a Copilot CLI session.

        Sure of an event log (``session.start`` with ``producer: copilot-agent``) or a legacy
        document with ``chatMessages``; surest in Copilot's own folders.
        """
        if not is_file(path):
            return 0.0
        head = read_head(path)
        in_home = ".copilot" in path.parts
        if path.suffix == ".jsonl" and b'"session.start"' in head:
            agent = b'"copilot-agent"' in head
            return 0.95 if agent and (in_home or path.name == "events.jsonl") else 0.6
        if path.suffix == ".json" and b'"chatMessages"' in head and b'"sessionId"' in head:
            return 0.9 if path.parent.name == "history-session-state" else 0.5
        return 0.0

    def scan_path(self, path: Path) -> Iterator[ConversationMeta]:
        """The session in one event log or legacy document."""
        layout = (
            "legacy"
            if path.suffix == ".json"
            else "events"
            if path.name == "events.jsonl"
            else "flat"
        )
        ident = path.parent.name if layout == "events" else path.stem
        meta = meta_of(self.name, Found(ident, path, layout))
        if meta is not None:
            yield meta

    def explain(self, host: Host) -> Iterator[str]:
        """Where Copilot CLI's sessions are looked for on ``host``, for ``chatparse doctor``."""
        yield explain_variable(host, HOME_ENV, "~/.copilot")
        home = copilot_home(host)
        if not is_dir(home):
            yield f"{home}: missing"
            return
        counts = dict.fromkeys(LAYOUTS, 0)
        for found in found_in(home):
            counts[found.layout] += 1
        yield (
            f"{home}: {counts['events']} session folder(s), {counts['flat']} flat event log(s), "
            f"{counts['legacy']} legacy session document(s)"
        )
        yield "session.db and session-store.db are indexes derived from the event logs: not read"
