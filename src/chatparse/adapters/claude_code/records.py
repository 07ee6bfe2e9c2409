"""What each line type becomes: the routing table every line of a transcript goes through.

Every line is one JSON object with a ``type``. Conversation lines (``user``, ``assistant``,
``system``) may be messages (see ``turns``); a few lines name the session; many more are the
tool's own bookkeeping, counted as skipped; any other type is kept raw as unknown.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final, TypeAlias

from chatparse.adapter import as_nonempty_text, dig
from chatparse.adapters.claude_code.content import typed
from chatparse.adapters.claude_code.turns import assistant_line, system_line, user_line
from chatparse.decoders.jsonl import Line

if TYPE_CHECKING:
    from chatparse.adapters.claude_code.transcript import Transcript

__all__ = ["CONVERSATION_TYPES", "NOISE_TYPES", "ROUTES", "SNIFFED_TYPES"]

Route: TypeAlias = Callable[["Transcript", Line, dict[str, Any]], None]
"""What reads one line of a type: the transcript, the line, and its decoded object."""

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

CONVERSATION_TYPES: Final = frozenset({"user", "assistant", "system"})
"""Line types that may be messages: each is checked for being a copy of an earlier line."""

SNIFFED_TYPES: Final = NOISE_TYPES | CONVERSATION_TYPES | {"summary"}
"""Line types that make a file look like a transcript to ``sniff``."""

_TITLE_FIELDS: Final = {"custom-title": "customTitle", "ai-title": "aiTitle"}
"""Lines that name the session (set by the user, made by a model), and their title's field."""


def _noise(transcript: Transcript, _line: Line, record: dict[str, Any]) -> None:
    transcript.ledger.skip(record["type"])
    transcript.pass_through(record)


def _attachment(transcript: Transcript, _line: Line, record: dict[str, Any]) -> None:
    transcript.ledger.skip(typed("attachment", dig(record, "attachment", "type")))
    transcript.pass_through(record)


def _title(transcript: Transcript, _line: Line, record: dict[str, Any]) -> None:
    kind = record["type"]
    value = record.get(_TITLE_FIELDS[kind])
    if isinstance(value, str) and value.strip():
        transcript.titles[kind] = value.strip()
    transcript.ledger.use()


def _summary(transcript: Transcript, line: Line, record: dict[str, Any]) -> None:
    """A 1.0.x summary: counted at the end, when it is known whether its leaf is in the file."""
    summary = record.get("summary")
    if not isinstance(summary, str):
        transcript.keep_unknown(line, record)
        return
    transcript.summaries.append((as_nonempty_text(record.get("leafUuid")), summary))


def _conversation(transcript: Transcript, line: Line, record: dict[str, Any]) -> None:
    """A user, assistant or system line, unless it is a copy of an earlier one."""
    # The nearest message above the line: what a replay is compared by, and what tells
    # whether an assistant line continues the response before it.
    parent = as_nonempty_text(record.get("parentUuid"))
    above = transcript.resolve(parent)
    if transcript.copies.is_copy(line, record, parent, above):
        return
    kind = record["type"]
    if kind == "assistant":
        assistant_line(transcript, line, record, above)
    elif kind == "user":
        user_line(transcript, line, record)
    else:
        system_line(transcript, line, record)


ROUTES: Final[dict[str, Route]] = {
    **dict.fromkeys(NOISE_TYPES, _noise),
    "attachment": _attachment,
    **dict.fromkeys(CONVERSATION_TYPES, _conversation),
    **dict.fromkeys(_TITLE_FIELDS, _title),
    "summary": _summary,
}
"""Line type -> what reads it; any other type is kept raw (``Transcript.keep_unknown``)."""
