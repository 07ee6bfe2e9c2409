"""A chatparse adapter for the "toy chat" format, built only from chatparse's public names.

A conversation is a UTF-8 text file ``<id>.chat`` in ``~/.toychat`` (or in ``$TOYCHAT_HOME``).
Each line that is not blank is one *record*, ``<tag> <words>: <text>``:

``title: <text>``
    The conversation's title.
``time: <time>``
    When the messages below it were written: ISO 8601 with a zone, or seconds since the epoch.
    A time without a zone is malformed (no zone is guessed): the messages below it have none.
``user: <text>``, ``assistant: <text>``, or ``user <id>: <text>``
    A message, with its id when the tool wrote one. Inline ``data:image/...`` URIs are images.
``call <id> <name>: <JSON arguments>``
    A tool call of the assistant message above it.
``result <id>: <text>``
    What the call ``<id>`` returned. A second result for the same call is a replay.
``typing: <who>``
    The tool's typing indicator: noise.

A line of any other shape is kept as an unknown record.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path

from attrs import define, evolve, field, frozen

from chatparse import ConversationMeta, Host, Message, ParsedConversation, SourceInfo
from chatparse.adapter import (
    Ledger,
    PendingCall,
    ToolCallPairing,
    UniqueIds,
    as_time,
    build_conversation,
    is_dir,
    is_file,
    new_message,
    new_meta,
    stat_fingerprint,
    strip_images,
    title_from,
    unlistable,
)
from chatparse.decoders.value import Invalid, decode
from chatparse.errors import SourceUnavailableError, UnavailableCause
from chatparse.model import MessageKind, Role

__all__ = ["ToyAdapter"]

SUFFIX = ".chat"
ROLES: dict[str, Role] = {"user": "user", "assistant": "assistant"}
CAUSES = {FileNotFoundError: UnavailableCause.MISSING, PermissionError: UnavailableCause.UNREADABLE}


@frozen
class Record:
    """One line that is not blank: ``<tag> <args>: <text>``."""

    number: int
    tag: str
    args: tuple[str, ...]
    text: str

    @property
    def where(self) -> str:
        return f"line {self.number}"


@define
class Draft:
    """A message, and the tool calls it made while their results may still arrive."""

    message: Message
    calls: list[PendingCall] = field(factory=list)

    def freeze(self) -> Message:
        if not self.calls:
            return self.message
        return evolve(self.message, tool_calls=[call.freeze() for call in self.calls])


@define
class Reading:
    """What the records of one conversation have given so far."""

    ledger: Ledger = field(factory=Ledger)
    ids: UniqueIds = field(factory=UniqueIds)
    tools: ToolCallPairing = field(factory=ToolCallPairing)
    drafts: list[Draft] = field(factory=list)
    title: str | None = None
    time: datetime | None = None

    def add(self, record: Record, role: Role, kind: MessageKind, wanted: str | None) -> None:
        """A message from ``record``, with the id ``wanted``, else one from the line number."""
        text, images = strip_images(record.text)
        message = new_message(
            id=self.ids.take(wanted or f"line-{record.number}"),  # a taken id gets "#2"
            parent_id=self.drafts[-1].message.id if self.drafts else None,
            role=role,
            kind=kind,
            text=text,
            images=images,
            timestamp=self.time,
        )
        self.drafts.append(Draft(message))


def read_title(reading: Reading, record: Record) -> None:
    reading.title = title_from(record.text)
    reading.ledger.use()


def read_time(reading: Reading, record: Record) -> None:
    reading.time = as_time(record.text, "s")
    if reading.time is None:
        reading.ledger.bad(record.where, f"not a time with a zone: {record.text!r}")
    else:
        reading.ledger.use()


def read_message(reading: Reading, record: Record) -> None:
    reading.add(record, ROLES[record.tag], "message", record.args[0] if record.args else None)
    reading.ledger.use()


def read_call(reading: Reading, record: Record) -> None:
    ident, name = record.args
    arguments = decode(record.text)
    speaker = reading.drafts[-1] if reading.drafts else None
    if isinstance(arguments, Invalid):
        reading.ledger.bad(record.where, f"arguments are not JSON: {arguments.reason}")
    elif speaker is None or speaker.message.role != "assistant":
        reading.ledger.bad(record.where, "a call with no assistant message above it")
    else:
        speaker.calls.append(reading.tools.call(ident, name, arguments))
        reading.ledger.use()


def read_result(reading: Reading, record: Record) -> None:
    replays = reading.tools.repeated
    if reading.tools.answer(record.args[0], record.text) is None:
        reading.add(record, "user", "tool_result", None)  # an orphan: its text is kept
    if reading.tools.repeated > replays:
        reading.ledger.skip("repeated result")  # the first result stays
    else:
        reading.ledger.use()


# Which reader takes a record, by its tag and the number of words after the tag.
READERS: dict[tuple[str, int], Callable[[Reading, Record], None]] = {
    ("title", 0): read_title,
    ("time", 0): read_time,
    ("user", 0): read_message,
    ("user", 1): read_message,
    ("assistant", 0): read_message,
    ("assistant", 1): read_message,
    ("call", 2): read_call,
    ("result", 1): read_result,
    ("typing", 0): lambda reading, _record: reading.ledger.skip("typing"),
}


def read_line(reading: Reading, number: int, line: str) -> None:
    head, colon, text = line.partition(":")
    tag, *args = head.split() or [""]
    read = READERS.get((tag, len(args))) if colon else None
    if read is None:
        reading.ledger.keep(f"line {number}", tag if colon else None, line)
    else:
        read(reading, Record(number, tag, tuple(args), text.strip()))


class ToyAdapter:
    """Reads ``~/.toychat/*.chat``."""

    name = "toy"
    display_name = "Toy Chat"
    parser_version = "2"

    def root(self, host: Host) -> Path:
        """``$TOYCHAT_HOME`` when it is set, else ``~/.toychat``."""
        configured = host.getenv("TOYCHAT_HOME")
        return Path(configured) if configured else host.home / ".toychat"

    def detect(self, host: Host) -> SourceInfo | None:
        """The folder, when it exists."""
        root = self.root(host)
        if not is_dir(root):
            return None
        return SourceInfo(source=self.name, display_name=self.display_name, roots=(str(root),))

    def scan(self, source: SourceInfo) -> Iterator[ConversationMeta]:
        """One conversation per ``.chat`` file, by stat only."""
        for root in map(Path, source.roots):
            try:
                paths = sorted(root.iterdir())
            except OSError as error:
                unlistable(root, error)  # warn, and go on with the next root
                continue
            yield from (self.meta(p) for p in paths if p.suffix == SUFFIX and is_file(p))

    def meta(self, path: Path) -> ConversationMeta:
        """What ``scan`` knows of one file: its stat; nothing is read."""
        info = path.stat()
        return new_meta(
            source=self.name,
            id=path.stem,
            path=str(path),
            size=info.st_size,
            mtime=datetime.fromtimestamp(info.st_mtime, UTC),
            fingerprint=stat_fingerprint(info),
        )

    def parse(self, meta: ConversationMeta) -> ParsedConversation:
        """Every record read goes to the ledger; bad content is counted, never raised."""
        try:
            text = Path(meta.path).read_text(encoding="utf-8", errors="replace")
        except OSError as error:
            cause = CAUSES.get(type(error), UnavailableCause.OTHER)
            raise SourceUnavailableError(
                meta.path, error.strerror or str(error), cause=cause
            ) from error
        reading = Reading()
        for number, line in enumerate(text.splitlines(), start=1):
            if line.strip():  # a blank line is not a record
                read_line(reading, number, line)
        messages = [draft.freeze() for draft in reading.drafts]
        return build_conversation(self, meta, messages, reading.ledger, title=reading.title)

    # Optional protocols: PathSniffer (sniff, scan_path) and Explainer (explain).

    def sniff(self, path: Path) -> float:
        """Sure of a ``.chat`` file, not interested in anything else."""
        return 1.0 if path.suffix == SUFFIX and is_file(path) else 0.0

    def scan_path(self, path: Path) -> Iterator[ConversationMeta]:
        """A ``.chat`` file holds exactly one conversation."""
        yield self.meta(path)

    def explain(self, host: Host) -> Iterator[str]:
        """Where ``detect`` looks, and what it found there."""
        root = self.root(host)
        found = "found" if is_dir(root) else "not found"
        yield f"conversations: {root} ({found}; $TOYCHAT_HOME moves it)"
