"""The elements of a thread's ``messages`` array, read into message drafts.

Each element is one record, Anthropic-style: ``{role, messageId, content: [blocks]}``.

* ``user``: ``text`` and ``image`` blocks are what was typed or pasted (``meta.sentAt``, epoch
  milliseconds, is when); ``tool_result`` blocks ``{toolUseID, run: {status, result | error}}``
  answer the calls of the answer before. A user element holding only results is no turn of its
  own: its results go into their calls. A result answering no call is kept as a ``tool_result``
  message.
* ``assistant``: ``text``, ``thinking`` (signed reasoning), ``tool_use {id, name, input}`` and
  ``image`` blocks; ``usage`` gives its model, time (``usage.timestamp``, written by newer CLIs
  only) and token counts; ``state`` says whether it finished (not kept).

Any other role (a newer Amp's, or a shared thread's ``parent`` record) is kept raw. Amp writes no
times on tool-result elements and none on answers in older files: those messages have none (the
last time seen before them is not theirs, so it is not borrowed).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from attrs import define, field

from chatparse.adapter import (
    Ledger,
    MessageDraft,
    ToolCallPairing,
    UniqueIds,
    as_count,
    as_datetime,
    as_epoch,
    as_nonempty_text,
    as_text,
    dig,
    drop_payloads,
)
from chatparse.adapters._anthropic.blocks import Blocks, sort_blocks
from chatparse.adapters.amp.usage import message_usage, usage_key
from chatparse.decoders.value import encode

__all__ = ["Draft", "Reading", "read_message"]

_FAILED: Final = frozenset({"error", "cancelled", "rejected-by-user"})
"""``run.status`` of a call that did not succeed: it failed, was stopped, or was refused."""
_DONE: Final = "done"


@define(kw_only=True, eq=False)
class Draft(MessageDraft):
    """A message being read, with the ``messageId`` a usage-ledger event names it by."""

    number: int | None = None


@define
class Reading:
    """What the elements of one thread have given so far."""

    thread_id: str
    ledger: Ledger = field(factory=Ledger)
    ids: UniqueIds = field(factory=UniqueIds)
    tools: ToolCallPairing = field(factory=ToolCallPairing)
    drafts: list[Draft] = field(factory=list)

    def add(self, where: str, number: int | None, **fields: Any) -> Draft:
        """A message, named by its ``messageId`` (else by its place in the array)."""
        wanted = f"message-{number}" if number is not None else where
        draft = Draft(id=self.ids.take(wanted), number=number, **fields)
        self.drafts.append(draft)
        return draft


def run_outcome(run: object) -> tuple[str | None, bool | None, Any]:
    """A ``tool_result``'s ``run``: its output text, whether it failed, and its structure.

    ``done`` runs have a ``result``; failed, cancelled and refused ones an ``error`` (or a
    ``result``). Text stays text; any other value is kept as structure and given as JSON text.
    A status still in progress says neither success nor failure.
    """
    status = as_text(dig(run, "status"))
    is_error = True if status in _FAILED else False if status == _DONE else None
    value = dig(run, "error") if status in _FAILED and dig(run, "error") is not None else None
    value, _images = drop_payloads(value if value is not None else dig(run, "result"))
    if value is None:
        return None, is_error, None
    if isinstance(value, str):
        return value, is_error, None
    return encode(value), is_error, value


def _answer_results(reading: Reading, blocks: Blocks, where: str, number: int | None) -> None:
    for block in blocks.results:
        output, is_error, result = run_outcome(block.get("run"))
        ident = as_nonempty_text(block.get("toolUseID")) or as_nonempty_text(
            block.get("tool_use_id")
        )
        if reading.tools.answer(ident, output, is_error=is_error, result=result) is None:
            reading.add(where, number, role="user", kind="tool_result", text=output or "")


def _user(reading: Reading, record: dict[str, Any], where: str) -> str | None:
    blocks = sort_blocks(record.get("content"))
    number = as_count(record.get("messageId"))
    blocks.warn_odd(reading.ledger, where)
    _answer_results(reading, blocks, where, number)
    if blocks.texts or blocks.images:
        reading.add(
            where,
            number,
            role="user",
            text=blocks.text(),
            images=blocks.images,
            timestamp=as_epoch(dig(record, "meta", "sentAt"), "ms"),
        )
    elif not blocks.results:
        return "user message without content"
    return None


def _assistant(reading: Reading, record: dict[str, Any], where: str) -> str | None:
    blocks = sort_blocks(record.get("content"))
    number = as_count(record.get("messageId"))
    found = record.get("usage")
    usage: dict[str, Any] = found if isinstance(found, dict) else {}
    problems: list[str] = []
    draft = reading.add(
        where,
        number,
        role="assistant",
        text=blocks.text(),
        thinking=blocks.reasoning(),
        images=blocks.images,
        timestamp=as_datetime(usage.get("timestamp")),
        model=as_nonempty_text(usage.get("model")),
        usage=message_usage(usage, usage_key(reading.thread_id, number, where), problems),
    )
    blocks.make_calls(draft, reading.tools)
    for problem in problems:
        reading.ledger.warn(f"{where}: {problem}")
    _answer_results(reading, blocks, where, number)
    blocks.warn_odd(reading.ledger, where)
    return None


_ROLES: Final[dict[str, Callable[[Reading, dict[str, Any], str], str | None]]] = {
    "user": _user,
    "assistant": _assistant,
}
"""The readers of each role; each returns ``None`` when its element was used, else why not."""


def read_message(reading: Reading, record: object, index: int) -> None:
    """Read element ``index`` of ``messages`` into ``reading``, and account for it."""
    where = f"messages[{index}]"
    role = dig(record, "role")
    reader = _ROLES.get(role) if isinstance(role, str) else None
    if not isinstance(record, dict):
        reading.ledger.bad(where, "not a message object")
    elif reader is None:
        reading.ledger.keep(where, role if isinstance(role, str) else None, encode(record))
    elif (skipped := reader(reading, record, where)) is not None:
        reading.ledger.skip(skipped)
    else:
        reading.ledger.use()
