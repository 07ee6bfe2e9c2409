"""Gemini CLI's message records as messages: prompts, answers, notices, tool calls and results.

Each message id of a replayed session (its winning copy, see
:mod:`~chatparse.adapters._gemini.cli_log`) is routed by its ``type``:

* ``user``: a prompt. Its text is ``displayContent`` (what was typed) when recorded, else
  ``content`` (what was sent). Text the CLI injected is told by how it starts:
  ``<session_context>`` and ``<hook_context>`` make a ``notice``, ``<state_snapshot>`` (the
  summary ``/compress`` writes) a ``compaction_summary``, ``/`` and ``?`` a ``command``.
  ``functionResponse`` parts are tool results (since v0.44 every result is also written as
  such a record), paired into their calls by id: a record holding only results is not a message.
* ``gemini``: an answer. ``content`` holds its text (and, after a checkpoint, its thought and
  ``functionCall`` parts); ``thoughts`` its thought summaries (used when the content has no
  thought parts); ``toolCalls`` its calls with their results; ``tokens`` its usage.
* ``info``, ``error``, ``warning``: what the CLI showed the person, as ``notice`` messages of
  the ``system`` role.

A call is paired with its result by id: first from the answer's own ``toolCalls`` entry, then from
a ``functionResponse`` in a later user record. The first result of a call wins; a record whose
every result was already paired is a repeat, counted as skipped.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Mapping
from typing import Any, Final

from attrs import define, field

from chatparse.adapter import (
    Ledger,
    ToolCallPairing,
    UniqueIds,
    as_datetime,
    as_nonempty_text,
    as_text,
)
from chatparse.adapters._gemini.cli_log import Copy, Replay
from chatparse.adapters._gemini.drafts import Draft
from chatparse.adapters._gemini.parts import (
    Parts,
    read_parts,
    response_output,
    result_output,
    scrub,
)
from chatparse.adapters._gemini.usage import GEMINI_API, read_usage
from chatparse.model import MessageKind, Role

__all__ = ["REPEATED_RESULT", "Messages", "build_messages"]

REPEATED_RESULT: Final = "repeated tool result"

# How a user text the CLI wrote itself starts, and the kind of message it makes.
_STARTS: Final[tuple[tuple[str, MessageKind], ...]] = (
    ("<session_context>", "notice"),
    ("<hook_context>", "notice"),
    ("<state_snapshot>", "compaction_summary"),
    ("/", "command"),
    ("?", "command"),
)

# A tool call's status -> whether it failed; statuses of unfinished calls say nothing.
_FAILED: Final[Mapping[str, bool]] = {"success": False, "error": True, "cancelled": True}


@define
class Messages:
    """The messages of one replayed session, while they are made."""

    replay: Replay
    ids: UniqueIds = field(factory=UniqueIds)
    pairing: ToolCallPairing = field(factory=ToolCallPairing)
    drafts: list[Draft] = field(factory=list)
    record_of: dict[str, str] = field(factory=dict)
    """Message id -> the record it stands for (its own, or the record holding its result)."""
    odd: Counter[str] = field(factory=Counter)
    """Parts of no known kind, by their keys."""

    @property
    def ledger(self) -> Ledger:
        """The replay's ledger."""
        return self.replay.ledger

    def add(
        self,
        ident: str,
        role: Role,
        kind: MessageKind,
        record: Mapping[str, Any],
        *,
        made: str | None = None,
    ) -> Draft:
        """A new message for the record ``ident``; ``made`` asks for an id of its own."""
        draft = Draft(
            id=ident if made is None else self.ids.take(made),
            role=role,
            kind=kind,
            timestamp=as_datetime(record.get("timestamp")),
        )
        self.drafts.append(draft)
        self.record_of[draft.id] = ident
        return draft

    def fill(self, draft: Draft, parts: Parts) -> None:
        """Put a content's texts and images into a message; note parts of no known kind."""
        draft.texts += parts.texts
        draft.images += parts.images
        self.odd.update(parts.odd)


def _visible(parts: Parts) -> bool:
    return bool(parts.images) or any(text.strip() for text in parts.texts)


def _kind_of(parts: Parts) -> MessageKind:
    start = next((text.lstrip() for text in parts.texts if text.strip()), "")
    return next((kind for prefix, kind in _STARTS if start.startswith(prefix)), "message")


def _user(messages: Messages, ident: str, copy: Copy) -> None:
    record = copy.record
    sent = read_parts(record.get("content"))
    typed = read_parts(record.get("displayContent"))
    shown = typed if _visible(typed) else sent
    results = _answer_responses(messages, ident, record, sent.responses)
    if _visible(shown):
        draft = messages.add(ident, "user", _kind_of(shown), record)
        messages.fill(draft, shown)
        messages.ledger.use(copy.writes)
    elif sent.responses and not results:
        messages.ledger.skip(REPEATED_RESULT, copy.writes)
    elif sent.responses:
        messages.ledger.use(copy.writes)
    else:
        messages.ledger.skip("empty message", copy.writes)


def _answer_responses(
    messages: Messages, ident: str, record: Mapping[str, Any], responses: list[dict[str, Any]]
) -> int:
    """Pair a record's ``functionResponse`` parts into their calls; how many were new.

    A result for no call seen becomes a ``tool_result`` message of its own.
    """
    new = 0
    for response in responses:
        output, is_error = response_output(response)
        call_id = as_nonempty_text(response.get("id"))
        before = messages.pairing.repeated
        call = messages.pairing.answer(call_id, output, is_error=is_error)
        if call is None:
            made = f"{ident}:{call_id or 'result'}"
            orphan = messages.add(ident, "user", "tool_result", record, made=made)
            orphan.texts.append(output or "")
        if messages.pairing.repeated == before:
            new += 1
    return new


def _thought_summaries(record: Mapping[str, Any]) -> list[str]:
    """``thoughts`` as text: each summary's subject in bold, then its description."""
    thoughts = record.get("thoughts")
    found: list[str] = []
    for thought in thoughts if isinstance(thoughts, list) else ():
        if isinstance(thought, dict):
            subject = (as_text(thought.get("subject")) or "").strip()
            description = (as_text(thought.get("description")) or "").strip()
            found.append(
                "\n\n".join(filter(None, [f"**{subject}**" if subject else "", description]))
            )
    return found


def _gemini(messages: Messages, ident: str, copy: Copy) -> None:
    record = copy.record
    parts = read_parts(record.get("content"))
    draft = messages.add(ident, "assistant", "message", record)
    messages.fill(draft, parts)
    draft.thinking = parts.thoughts or _thought_summaries(record)
    draft.model = as_nonempty_text(record.get("model"))
    problems: list[str] = []
    draft.usage = read_usage(
        record.get("tokens"),
        "gemini-cli",
        thoughts_in_output=GEMINI_API,
        dedup_key=ident,
        problems=problems,
    )
    for problem in problems:
        messages.ledger.warn(f"message {ident}: {problem}")
    _calls(messages, draft, copy, parts)
    messages.ledger.use(copy.writes)


def _calls(messages: Messages, draft: Draft, copy: Copy, parts: Parts) -> None:
    """The answer's tool calls: its ``toolCalls``, then content calls not among them."""
    entries = copy.record.get("toolCalls")
    recorded = [e for e in entries if isinstance(e, dict)] if isinstance(entries, list) else []
    known = {as_nonempty_text(e.get("id")) for e in recorded} - {None}
    seen = {_fingerprint(e) for e in recorded}
    extra = [call for call in parts.calls if not _recorded(call, known, seen)]
    for entry in [*recorded, *extra]:
        ident = as_nonempty_text(entry.get("id"))
        name = as_nonempty_text(entry.get("name")) or "unknown"
        pending = messages.pairing.call(ident, name, scrub(entry.get("args"), draft.images))
        draft.calls.append(pending)
        finished = copy.results.get(ident) if ident is not None else None
        if finished is not None:
            _answer_from_entry(messages, draft, finished)


def _fingerprint(call: Mapping[str, Any]) -> str:
    """A call by its name and arguments, as Gemini CLI matches calls that have no id."""
    return f"{call.get('name')!r}:{call.get('args')!r}"


def _recorded(call: Mapping[str, Any], known: set[str | None], seen: set[str]) -> bool:
    """Whether a content call is among the ``toolCalls``: by id, else by name and arguments."""
    ident = as_nonempty_text(call.get("id"))
    return ident in known if ident is not None else _fingerprint(call) in seen


def _answer_from_entry(messages: Messages, draft: Draft, entry: Mapping[str, Any]) -> None:
    """A finished ``toolCalls`` entry answers its call: result, status and display."""
    output, failed, images = result_output(entry.get("result"))
    draft.images += images
    display = entry.get("resultDisplay")
    if output is None and isinstance(display, str):
        output = display
    status = entry.get("status")
    is_error = _FAILED.get(status, failed) if isinstance(status, str) else failed
    structured = None
    if isinstance(display, dict) or (isinstance(display, str) and display not in ("", output)):
        structured = scrub(display, draft.images)
    messages.pairing.answer(
        as_nonempty_text(entry.get("id")), output, is_error=is_error, result=structured
    )


def _notice(messages: Messages, ident: str, copy: Copy) -> None:
    parts = read_parts(copy.record.get("content"))
    if not (any(text.strip() for text in parts.texts) or parts.images):
        messages.ledger.skip("empty message", copy.writes)
        return
    draft = messages.add(ident, "system", "notice", copy.record)
    messages.fill(draft, parts)
    messages.ledger.use(copy.writes)


_TYPES: Final[Mapping[str, Callable[[Messages, str, Copy], None]]] = {
    "user": _user,
    "gemini": _gemini,
    "info": _notice,
    "error": _notice,
    "warning": _notice,
}


def build_messages(replay: Replay) -> Messages:
    """The messages of a replayed session, in the order their ids were first seen."""
    messages = Messages(replay)
    for ident in replay.order:  # record ids first: a made-up id must not take one of them
        messages.ids.take(ident)
    for ident in replay.order:
        copy = replay.copies[ident]
        kind = copy.record.get("type")
        read = _TYPES.get(kind) if isinstance(kind, str) else None
        if read is None:  # a later copy (an update) left it with no type we know: kept raw
            _keep_raw(messages, ident, copy, kind if isinstance(kind, str) else None)
        else:
            read(messages, ident, copy)
    return messages


def _keep_raw(messages: Messages, ident: str, copy: Copy, kind: str | None) -> None:
    """A message whose latest copy has a type no reader knows: kept as its JSON text."""
    if not copy.writes:  # only updates wrote it, and each was counted where it was read
        messages.ledger.warn(f"message {ident} was left with no known type by an update")
        return
    raw = json.dumps(copy.record, ensure_ascii=False, default=str)
    messages.ledger.keep(f"message {ident}", kind, raw)
    if copy.writes > 1:
        messages.ledger.skip("earlier copy of a message kept raw", copy.writes - 1)
