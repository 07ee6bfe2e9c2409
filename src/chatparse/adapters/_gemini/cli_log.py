"""Gemini CLI's two containers replayed into the messages they hold, and the tree they form.

**The JSON Lines log** (v0.39+) is replayed as Gemini CLI replays it. Each line is one of four
records, told apart by their keys:

* ``{"$rewindTo": id}``: that message and every one after it leave the current line; an unknown
  id empties it;
* ``{id, type, ...}``: a message *upsert*: a later copy of an id replaces the earlier one, and
  the message keeps the place it was first given;
* ``{"$set": {...}}``: fields merged into the header; with ``messages`` it is a *checkpoint*
  (after ``/compress``, tool-output masking, a resume): the current line becomes that array;
* ``{sessionId, projectHash, ...}``: the header (with ``messages``, a whole legacy record on one
  line, read as a checkpoint).

Nothing is deleted here. A message leaves the *current line* (the messages Gemini CLI would load)
but stays in the output, and each message's parent is the message before it in the last line it
was placed in; so a rewound turn is a branch off the line, and the turns a ``/compress``
checkpoint dropped stay before its summary, whose parent is the last message dropped.

**The legacy document** (v0.4 to v0.38) is one JSON object rewritten whole on every change; its
``messages`` array is the conversation, without a tree (``/rewind`` truncated it in place).

Which copy of a message wins: the last one, for everything but tool results, where the first
copy that recorded a result wins (a later checkpoint may hold a masked copy of it).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any, Final, TypeAlias

from attrs import define, field

from chatparse.adapter import Ledger, UniqueIds, as_nonempty_text
from chatparse.decoders import bigjson
from chatparse.decoders.jsonl import Line, Malformed, iter_lines
from chatparse.decoders.value import encode
from chatparse.errors import SourceUnavailableError, UnavailableCause

__all__ = ["FINISHED", "MESSAGE_TYPES", "Copy", "Replay", "read_document", "read_log"]

MESSAGE_TYPES: Final = frozenset({"user", "gemini", "info", "error", "warning"})
"""The message types Gemini CLI writes; a message of another type is kept raw."""

FINISHED: Final = frozenset({"success", "error", "cancelled"})
"""Tool call states after which nothing more happens to the call."""

_BOM: Final = b"\xef\xbb\xbf"
_PROBE: Final = 4096


@define
class Copy:
    """One message id: its latest copy, and what only an earlier copy may hold."""

    record: dict[str, Any]
    writes: int = 0
    """Records (lines, array items) that wrote a copy of it on their own."""
    results: dict[str, dict[str, Any]] = field(factory=dict)
    """Tool call id -> the first copy of that call that had finished."""

    def take(self, record: dict[str, Any]) -> None:
        """A later copy: it wins, except for tool results already recorded."""
        self.record = record
        calls = record.get("toolCalls")
        for call in calls if isinstance(calls, list) else ():
            if not isinstance(call, dict):
                continue
            ident = as_nonempty_text(call.get("id"))
            status = call.get("status")
            done = call.get("result") is not None or (
                isinstance(status, str) and status in FINISHED
            )
            if ident is not None and done and ident not in self.results:
                self.results[ident] = call


@define
class Replay:
    """The state of one session file while it is replayed."""

    tree: bool
    """Whether parents are kept: the log has a tree, the legacy document none."""
    ledger: Ledger = field(factory=Ledger)
    header: dict[str, Any] = field(factory=dict)
    copies: dict[str, Copy] = field(factory=dict)
    order: list[str] = field(factory=list)
    """Message ids in the order they were first seen."""
    line: list[str] = field(factory=list)
    """The current line: the messages Gemini CLI would load now."""
    on_line: set[str] = field(factory=set)
    parents: dict[str, str | None] = field(factory=dict)
    ids: UniqueIds = field(factory=UniqueIds)
    """The ids given out to the legacy document's messages, which may repeat one."""

    def _copy(self, ident: str, record: dict[str, Any]) -> None:
        copy = self.copies.get(ident)
        if copy is None:
            copy = self.copies[ident] = Copy(record)
            self.order.append(ident)
        copy.take(record)

    def _set_line(self, line: list[str]) -> None:
        self.line, self.on_line = line, set(line)

    def message(self, record: dict[str, Any], ident: str | None = None) -> None:
        """An upsert: a message written on its own (a line, an item of the document)."""
        if ident is None:
            ident = record["id"]
        self._copy(ident, record)
        self.copies[ident].writes += 1
        if ident not in self.on_line:
            self.parents[ident] = self.line[-1] if self.line else None
            self.line.append(ident)
            self.on_line.add(ident)

    def checkpoint(self, messages: list[Any], where: str) -> None:
        """The current line becomes ``messages``, each after the one before it."""
        wanted = [m for m in messages if isinstance(m, dict) and _message_id(m) is not None]
        kept = {_message_id(m) for m in wanted}
        anchor = next((m for m in reversed(self.line) if m not in kept), None)
        line: list[str] = []
        placed: set[str] = set()
        for record in wanted:
            ident = record["id"]
            self._copy(ident, record)
            if ident in placed:
                continue
            before = line[-1] if line else anchor
            self.parents[ident] = before if before != ident else None
            line.append(ident)
            placed.add(ident)
        if len(wanted) < len(messages):
            self.ledger.warn(
                f"{where}: {len(messages) - len(wanted)} checkpoint item(s) are not messages"
            )
        self._set_line(line)

    def rewind(self, target: str) -> None:
        """``$rewindTo``: the target and what follows it leave the line (all, if unknown)."""
        self._set_line(self.line[: self.line.index(target)] if target in self.on_line else [])

    def merge(self, fields: Mapping[str, Any], where: str) -> None:
        """Header fields; ``messages`` among them is a checkpoint."""
        messages = fields.get("messages")
        self.header.update((k, v) for k, v in fields.items() if k != "messages")
        if isinstance(messages, list):
            self.checkpoint(messages, where)


def _message_id(record: Mapping[str, Any]) -> str | None:
    ident = record.get("id")
    return ident if isinstance(ident, str) else None


# --- the log ------------------------------------------------------------------------------------


def _rewind(replay: Replay, line: Line, _path: Path) -> None:
    replay.rewind(line.value["$rewindTo"])
    replay.ledger.use()


def _message(replay: Replay, line: Line, path: Path) -> None:
    record = line.value
    kind = record.get("type")
    if isinstance(kind, str) and kind in MESSAGE_TYPES:
        replay.message(record)  # counted with its copies when the messages are made
    else:
        _keep(replay, line, path, kind if isinstance(kind, str) else None)


def _set(replay: Replay, line: Line, _path: Path) -> None:
    replay.merge(line.value["$set"], f"line {line.line_no}")
    replay.ledger.use()


def _header(replay: Replay, line: Line, _path: Path) -> None:
    replay.merge(line.value, f"line {line.line_no}")
    replay.ledger.use()


def _keep(replay: Replay, line: Line, path: Path, kind: str | None = None) -> None:
    replay.ledger.keep_span(
        f"line {line.line_no}", kind, path, start=line.offset, end=line.end_offset
    )


_Test: TypeAlias = Callable[[dict[str, Any]], bool]
_Read: TypeAlias = Callable[[Replay, Line, Path], None]

# Each record kind, in the order Gemini CLI tests them, with the test that tells it.
_RECORDS: Final[tuple[tuple[_Test, _Read], ...]] = (
    (lambda r: isinstance(r.get("$rewindTo"), str), _rewind),
    (lambda r: isinstance(r.get("id"), str), _message),
    (lambda r: isinstance(r.get("$set"), dict), _set),
    (
        lambda r: isinstance(r.get("sessionId"), str) and isinstance(r.get("projectHash"), str),
        _header,
    ),
)


def read_log(path: Path, replay: Replay) -> None:
    """Replay a JSON Lines session file; every line lands in one place of the ledger."""
    for line in iter_lines(path):
        if isinstance(line, Malformed) or not isinstance(line.value, dict):
            replay.ledger.bad()
            continue
        record = line.value
        read = next((read for test, read in _RECORDS if test(record)), _keep)
        read(replay, line, path)


# --- the legacy document ------------------------------------------------------------------------


def read_document(path: Path, replay: Replay) -> None:
    """Read a legacy session document: its header fields and its ``messages``, in order.

    A document cut short (a crash while it was rewritten) gives the messages before the damage
    and one malformed record.
    """
    fields = read_messages = False
    with _opened(path) as stream:
        if _blank(stream):
            return  # an empty file holds no record
        items = list(bigjson.iter_kvitems(stream, ""))
    for item in items:
        if isinstance(item, bigjson.Malformed):
            if not read_messages:
                _salvage(replay, path)
            replay.ledger.bad("document", f"cut short or damaged ({item.reason})")
            break
        if item.key == "messages" and isinstance(item.value, list):
            read_messages = True
            for index, record in enumerate(item.value):
                _document_message(replay, record, index)
        else:
            replay.header[str(item.key)] = item.value
            fields = True
    if fields:
        replay.ledger.use()  # the document's own fields, one record
    elif not replay.ledger.seen:
        replay.ledger.bad("document", "not a session object")


def _salvage(replay: Replay, path: Path) -> None:
    """The messages of a damaged document that come before the damage."""
    with _opened(path) as stream:
        for item in bigjson.iter_items(stream, "messages.item"):
            if isinstance(item, bigjson.Malformed):
                return
            _document_message(replay, item.value, int(item.key))


def _blank(stream: IO[bytes]) -> bool:
    """Whether what is left of ``stream`` is only whitespace; the position is kept."""
    start = stream.tell()
    probe = stream.read(_PROBE)
    stream.seek(start)
    return len(probe) < _PROBE and not probe.strip()


@contextmanager
def _opened(path: Path) -> Iterator[IO[bytes]]:
    """The document, past a UTF-8 byte order mark (a Windows editor may have added one)."""
    try:
        stream = path.open("rb")
    except OSError as exc:
        raise SourceUnavailableError(
            str(path),
            f"cannot open: {exc.strerror or exc}",
            "Check the path and its permissions.",
            UnavailableCause.of(exc),
        ) from exc
    with stream:
        if stream.read(len(_BOM)) != _BOM:
            stream.seek(0)
        yield stream


def _document_message(replay: Replay, record: object, index: int) -> None:
    where = f"messages[{index}]"
    if not isinstance(record, dict):
        replay.ledger.bad(where, "not a message object")
        return
    kind = record.get("type")
    if not (isinstance(kind, str) and kind in MESSAGE_TYPES):
        replay.ledger.keep(where, kind if isinstance(kind, str) else None, encode(record))
        return
    # The document is not replayed: an id written twice is two messages.
    replay.message(record, replay.ids.take(_message_id(record) or where))
