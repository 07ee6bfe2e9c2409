"""The state of one Qwen Code session file while its records are read.

Every record has a ``uuid`` and names its parent (``parentUuid``): the records form a tree, and
the session the tool resumes is the path from its last conversation record (a ``user``,
``assistant`` or ``tool_result`` record) back to the root. Records that make no message of their
own (telemetry, settings, a tool result paired into its call) are passed through: a message's
parent is the nearest message above its record.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import Any, Final

from attrs import define, field

from chatparse.adapter import Ledger, ToolCallPairing, UniqueIds, as_datetime, as_nonempty_text
from chatparse.adapters._gemini.drafts import Draft
from chatparse.adapters._gemini.parts import Parts
from chatparse.decoders.jsonl import Line
from chatparse.model import MessageKind, Role

__all__ = ["CONVERSATION_TYPES", "QwenReading", "Response"]

CONVERSATION_TYPES: Final = frozenset({"user", "assistant", "tool_result"})
"""The record types the resumed session ends on (its leaf); system records hang off it."""


@define
class Response:
    """One model response as the telemetry recorded it (``qwen-code.api_response``)."""

    record: str
    """The telemetry record's uuid: the response's dedup key, the same in a ``/branch`` copy."""
    parent: str | None
    line: int
    event: Mapping[str, Any]
    subagent: bool
    """Made by one of Qwen Code's own sub-agents (``subagent_name``), such as its memory
    extractor: never the answer of the main conversation's next record."""
    written: datetime | None = None
    """The telemetry record's own time, for an event without one."""
    answer: Draft | None = None
    """The assistant message this response wrote, once one claimed it."""


@define
class QwenReading:
    """What the records of one session file have given so far."""

    path: Path
    ledger: Ledger = field(factory=Ledger)
    ids: UniqueIds = field(factory=UniqueIds)
    pairing: ToolCallPairing = field(factory=ToolCallPairing)
    drafts: list[Draft] = field(factory=list)
    line_of: dict[str, int] = field(factory=dict)
    """Message id -> the line of the record that made it: the conversation's order."""
    up: dict[str, str | None] = field(factory=dict)
    """Record uuid -> its parent record's uuid."""
    message_of: dict[str, str] = field(factory=dict)
    """Record uuid -> the id of the message it made."""
    raw_parent: dict[str, str | None] = field(factory=dict)
    """Message id -> the parent uuid its record names."""
    merged: dict[str, tuple[str, Draft]] = field(factory=dict)
    """Record uuid -> (record type, message) of the first record with that uuid."""
    leaf: str | None = None
    responses: list[Response] = field(factory=list)
    pending: Response | None = None
    """The main conversation's last response no assistant record has claimed yet."""
    tool_events: list[tuple[int, Mapping[str, Any]]] = field(factory=list)
    titles: list[str] = field(factory=list)
    cwd: str | None = None
    git_branch: str | None = None
    version: str | None = None
    odd: Counter[str] = field(factory=Counter)

    def envelope(self, record: Mapping[str, Any]) -> None:
        """Read what every record repeats: the cwd, branch and version, and its tree link.

        The first cwd is the project's (later records follow ``cd``); the last branch and
        version win.
        """
        if self.cwd is None:
            self.cwd = as_nonempty_text(record.get("cwd"))
        self.git_branch = as_nonempty_text(record.get("gitBranch")) or self.git_branch
        self.version = as_nonempty_text(record.get("version")) or self.version
        uuid = as_nonempty_text(record.get("uuid"))
        if uuid is not None and uuid not in self.up:
            self.up[uuid] = as_nonempty_text(record.get("parentUuid"))

    def add(
        self,
        line: Line,
        record: Mapping[str, Any],
        role: Role,
        kind: MessageKind,
        parts: Parts | None = None,
    ) -> Draft:
        """The message of ``record``; a later record with its uuid and type adds to it."""
        uuid = as_nonempty_text(record.get("uuid"))
        record_type = str(record.get("type"))
        first = self.merged.get(uuid) if uuid is not None else None
        if first is not None and first[0] == record_type:
            draft = first[1]
        else:
            draft = self.new(
                uuid or f"line-{line.line_no}",
                line.line_no,
                as_nonempty_text(record.get("parentUuid")),
                role=role,
                kind=kind,
                timestamp=as_datetime(record.get("timestamp")),
            )
            draft.sidechain = record.get("isSidechain") is True
            if uuid is not None and uuid not in self.merged:
                self.merged[uuid] = (record_type, draft)
                self.message_of[uuid] = draft.id
        if parts is not None:
            draft.texts += parts.texts
            draft.thinking += parts.thoughts
            draft.images += parts.images
            self.odd.update(parts.odd)
        return draft

    def new(  # noqa: PLR0913 -- a message's place and kind
        self,
        wanted: str,
        line_no: int,
        parent: str | None,
        *,
        role: Role,
        kind: MessageKind,
        timestamp: datetime | None,
    ) -> Draft:
        """A message of its own, with an id of its own, at ``line_no`` under ``parent``."""
        draft = Draft(id=self.ids.take(wanted), role=role, kind=kind, timestamp=timestamp)
        self.drafts.append(draft)
        self.line_of[draft.id] = line_no
        self.raw_parent[draft.id] = parent
        return draft
