"""One transcript file read into drafts and a ledger, then frozen into a conversation.

Every line lands in exactly one place of the :class:`~chatparse.adapter.Ledger`: what each line
type becomes is in ``records`` and ``turns``. What is kept here is what spans lines:
the conversation's own fields that ride on every line, and the message tree, which lines that
are not messages must keep connected.
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from chatparse.adapter import (
    Ledger,
    PendingCall,
    SourceAdapter,
    ToolCallPairing,
    as_datetime,
    as_nonempty_text,
    build_conversation,
    prompt_title,
)
from chatparse.adapters.claude_code.content import WARMUP
from chatparse.adapters.claude_code.copies import Copies
from chatparse.adapters.claude_code.draft import Draft, freeze
from chatparse.adapters.claude_code.records import ROUTES
from chatparse.adapters.claude_code.usage import settle_usages
from chatparse.decoders.jsonl import Line, Malformed, iter_lines
from chatparse.model import ConversationMeta, Message, MessageKind, ParsedConversation, Role

if TYPE_CHECKING:
    from chatparse._streaming import IdHorizons

__all__ = ["Transcript"]

_TITLE_PROMPTS: Final[tuple[MessageKind, ...]] = ("message", "command")
"""A title is made from the first typed prompt, else from the first slash command."""


class Transcript:
    """Everything read from one JSON Lines file, before it is frozen into the model."""

    def __init__(self, path: Path, *, agent: bool, session_id: str | None) -> None:
        self.path = path
        self.agent = agent
        self.session_id = session_id
        self.ledger = Ledger()
        self.drafts: deque[Draft] = deque()
        self.ids: set[str] = set()  # every message id given: ids stay unique, parents resolve
        self.last_main_id: str | None = None  # of the last message not on a side chain
        # uuid of a line that is not (the first line of) a message -> its parent's uuid, or the
        # id of the message it belongs to: how the tree is kept connected across such lines.
        self.up: dict[str, str | None] = {}
        self.copies = Copies(path, self.ledger, self.up)
        self.open_responses: dict[tuple[str, str | None], Draft] = {}
        # API message id -> every message of a response with that id: the copies of its usage.
        self.response_copies: dict[str, list[Draft]] = {}
        self.calls = ToolCallPairing()
        # A tool call -> the message that made it, which its result's images go to.
        self.callers: dict[PendingCall, Draft] = {}
        self.agent_tool_uses: dict[str, str] = {}
        self.odd_blocks: Counter[str] = Counter()
        self.foreign_sessions: Counter[str] = Counter()
        self.titles: dict[str, str] = {}  # line type (custom-title, ai-title) -> the last title
        self.summaries: list[tuple[str | None, str]] = []
        self.slug: str | None = None
        self.cwd: str | None = None
        self.git_branch: str | None = None
        self.version: str | None = None

    @classmethod
    def read(cls, path: Path, *, agent: bool, session_id: str | None = None) -> Transcript:
        """Read a file line by line; every line lands in exactly one place of the ledger."""
        transcript = cls(path, agent=agent, session_id=session_id)
        take = transcript.take
        for line in iter_lines(path):
            take(line)
        # What only reading needed; the tree (``up``, ``ids``) is kept for the end.
        transcript.copies.forget()
        transcript.open_responses.clear()
        transcript.response_copies.clear()
        return transcript

    @classmethod
    def stream(
        cls,
        path: Path,
        *,
        agent: bool,
        session_id: str | None,
        counted_elsewhere: Callable[[str], bool],
    ) -> Iterator[Message]:
        """The messages ``read`` then ``finish`` make of a file, each once nothing can change it.

        What is held is the window from the oldest message not yet settled (see
        :meth:`blocked_until`) to the line being read; ``counted_elsewhere`` says whether the
        session's other files hold a copy of a usage key (see
        :func:`~chatparse.adapters.claude_code.usage.settle_usages`).
        """
        # Here, not at the top: ``parse`` never needs it, nor its compiled patterns.
        from chatparse._streaming import IdHorizons  # noqa: PLC0415 -- see above

        transcript = cls(path, agent=agent, session_id=session_id)
        horizons = IdHorizons(path)
        drafts, blocked_until, release = (
            transcript.drafts,
            transcript.blocked_until,
            transcript.release,
        )
        until = 0  # where the oldest message held can settle, at the earliest
        for line in iter_lines(path):
            transcript.take(line)
            if line.end_offset < until:
                continue
            while drafts:
                until = blocked_until(drafts[0], line, horizons)
                if until:
                    break
                yield release(drafts.popleft(), counted_elsewhere)
        while drafts:  # the end of the file: nothing can change any more
            yield release(drafts.popleft(), counted_elsewhere)

    def take(self, line: Line | Malformed) -> None:
        """Read one line into the transcript."""
        if isinstance(line, Malformed):
            self.ledger.bad()
            return
        record = line.value
        if isinstance(record, dict) and isinstance(record.get("type"), str):
            self.envelope(record)
            ROUTES.get(record["type"], Transcript.keep_unknown)(self, line, record)
        else:
            self.ledger.bad()  # JSON, but not an object with a type

    def keep_unknown(self, line: Line, record: Mapping[str, Any]) -> None:
        """A line of a type (or shape) not known: its place is kept, to read it raw at the end."""
        self.ledger.keep_span(
            f"line {line.line_no}",
            record["type"],
            self.path,
            start=line.offset,
            end=line.end_offset,
            producer_version=as_nonempty_text(record.get("version")),
        )

    def envelope(self, record: Mapping[str, Any]) -> None:
        """Conversation-level fields that ride on every line: cwd, branch, version, slug.

        Every line repeats them, so a value equal to the one held is not looked at again.
        """
        if self.cwd is None:  # the launch directory; later lines follow `cd`
            self.cwd = as_nonempty_text(record.get("cwd"))
        branch = record.get("gitBranch")
        if branch != self.git_branch and isinstance(branch, str) and branch:
            self.git_branch = branch
        version = record.get("version")
        if version != self.version and isinstance(version, str) and version:
            self.version = version
        if self.slug is None and not self.agent:  # an agent repeats its parent session's slug
            self.slug = as_nonempty_text(record.get("slug"))
        session = record.get("sessionId")
        if session != self.session_id and self.session_id is not None and isinstance(session, str):
            self.foreign_sessions[session] += 1

    # --- the tree ------------------------------------------------------------------------------

    def pass_through(self, record: Mapping[str, Any]) -> None:
        """A line that is not a message: its children hang from its own parent instead."""
        uuid = as_nonempty_text(record.get("uuid"))
        if uuid is not None and uuid not in self.up and uuid not in self.ids:
            self.up[uuid] = as_nonempty_text(record.get("parentUuid"))

    def new_draft(
        self, line: Line, record: Mapping[str, Any], role: Role, kind: MessageKind
    ) -> Draft:
        """A new message, at the line ``record``: its id is the line's uuid when still free."""
        uuid = as_nonempty_text(record.get("uuid"))
        message_id = uuid if uuid is not None and uuid not in self.ids else f"line-{line.line_no}"
        draft = Draft(
            id=message_id,
            role=role,
            kind=kind,
            raw_parent=as_nonempty_text(record.get("parentUuid")),
            timestamp=as_datetime(record.get("timestamp")),
            is_sidechain=self.agent or record.get("isSidechain") is True,
        )
        self.drafts.append(draft)
        self.ids.add(message_id)
        if not draft.is_sidechain:
            self.last_main_id = message_id
        if uuid is not None and uuid != message_id:
            self.up[uuid] = message_id
        return draft

    def resolve(self, uuid: str | None) -> str | None:
        """The id of the nearest message at or above the line ``uuid``; None past the file."""
        ids = self.ids
        if uuid is None or uuid in ids:  # the line of a message: most parents are
            return uuid
        up = self.up
        seen: set[str] = set()  # lines may be linked in a circle
        while uuid not in ids:
            if uuid in seen or uuid not in up:
                return None
            seen.add(uuid)
            uuid = up[uuid]
            if uuid is None:
                return None
        return uuid

    # --- streaming ------------------------------------------------------------------------------

    def blocked_until(self, draft: Draft, line: Line | Malformed, horizons: IdHorizons) -> int:
        """Where reading must be before the message ``draft`` becomes is final; ``0``: it is.

        Past the offset returned, the question is asked again.

        Later lines change a message through ids: a line of its response (its API message id)
        adds blocks or a copy of its usage, a result (its calls' ids) answers a call, a line
        with the uuid its parent points to (or any uuid on the way up to a message) decides
        its parent. Once every such id is past its horizon, the message is final.
        """
        offset = line.end_offset
        if offset > horizons.size:  # the file grew: only its end settles anything
            return horizons.NEVER
        waits = [horizons.horizon(draft.api_id)] if draft.api_id is not None else []
        waits += [horizons.horizon(c.id) for c in draft.calls if not c.answered and c.id]
        uuid = draft.raw_parent
        seen: set[str] = set()  # lines may be linked in a circle
        while uuid is not None and uuid not in self.ids and uuid not in seen:
            # Ids this reader makes are settled where they are made: ``line-<n>`` at line
            # ``n``, ``<uuid>~line<n>`` (a reused uuid) by a line that carries ``<uuid>``.
            number = uuid.removeprefix("line-")
            if number != uuid and number.isdigit() and int(number) > line.line_no:
                waits.append(offset + 1)
            waits += (horizons.horizon(uuid), horizons.horizon(uuid.partition("~line")[0]))
            seen.add(uuid)
            uuid = self.up.get(uuid)
        until = max(waits, default=0)
        return until if until > offset else 0

    def release(self, draft: Draft, counted_elsewhere: Callable[[str], bool]) -> Message:
        """The message of a settled draft; what the reader kept for it is let go."""
        if draft.api_id is not None:
            copies = self.response_copies.pop(draft.api_id, None)
            if copies is not None:  # the first copy of its response to go: all are settled
                settle_usages(copies, counted_elsewhere)
                for copy in copies:
                    self.open_responses.pop((draft.api_id, copy.request_id), None)
        elif draft.usage_raw is not None:
            settle_usages((draft,), counted_elsewhere)
        parent = self.resolve(draft.raw_parent)
        message = freeze(draft, None if parent == draft.id else parent)
        for call in draft.calls:
            del self.callers[call]
            # Spent: its result can no longer arrive, and the message holds what it had.
            call.input = call.output = call.result = None
        return message

    def is_warmup(self) -> bool:
        """Whether the agent's first prompt is "Warmup": the harness pre-warming a cache."""
        first = next((d for d in self.drafts if d.role == "user"), None)
        return first is not None and "".join(first.texts).strip() == WARMUP

    # --- freezing ------------------------------------------------------------------------------

    def finish(
        self,
        adapter: SourceAdapter,
        meta: ConversationMeta,
        subagents: Iterable[ParsedConversation],
    ) -> ParsedConversation:
        """The conversation, its sub-agents given; the transcript is spent afterwards."""
        summary = self.count_summaries()
        messages, orphaned = self.messages()
        for warning in self.warnings(orphaned):
            self.ledger.warn(warning)
        title = (
            self.titles.get("custom-title")
            or self.titles.get("ai-title")
            or summary
            or meta.title
            or self.slug
            or prompt_title(messages, _TITLE_PROMPTS)
        )
        return build_conversation(
            adapter,
            meta,
            messages,
            self.ledger,
            title=title,
            project_path=self.cwd,
            git_branch=self.git_branch,
            producer_version=self.version,
            subagents=subagents,
        )

    def count_summaries(self) -> str | None:
        """Count the 1.0.x summary lines; the text of the last that titles this file's tree."""
        known = self.ids | self.up.keys()
        titled = [text for leaf, text in self.summaries if leaf is not None and leaf in known]
        self.ledger.use(len(titled))
        if len(self.summaries) > len(titled):  # they describe other sessions' branches
            self.ledger.skip("summary", len(self.summaries) - len(titled))
        return titled[-1].strip() if titled else None

    def messages(self) -> tuple[list[Message], int]:
        """The messages, each under its nearest message parent; and how many lost theirs."""
        messages: list[Message] = []
        orphaned = 0
        for draft in self.drafts:
            parent = self.resolve(draft.raw_parent)
            if parent == draft.id:
                parent = None
            known = draft.raw_parent in self.ids or draft.raw_parent in self.up
            if draft.raw_parent is not None and not known:
                orphaned += 1
            messages.append(freeze(draft, parent))
            draft.texts.clear()  # the message holds the text now; do not keep two copies
        return messages, orphaned

    def warnings(self, orphaned: int) -> Iterator[str]:
        """What the reading found odd about the file as a whole."""
        if orphaned:
            yield (
                f"{orphaned} message(s) point to a parent that is not in this file "
                "(resumed from another session, or lost to compaction); they are roots here"
            )
        for session, count in sorted(self.foreign_sessions.items()):
            yield (
                f"{count} record(s) carry sessionId {session}, not this file's "
                "(copied from that session on resume, or the file was renamed)"
            )
        yield from self.copies.warnings()
        for kind, count in sorted(self.odd_blocks.items()):
            yield f"{count} content block(s) of type {kind!r} were not understood"
