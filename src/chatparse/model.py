"""The typed model every adapter produces: one :class:`ParsedConversation` per conversation.

Plain attrs classes with no I/O; this module imports nothing else of chatparse but the rule for
source names, so it is safe to use from anywhere. All classes are frozen and
keyword-only; sequences are tuples and mappings are read-only views, so a parsed conversation can
be shared between threads and cached without defensive copies. ``None`` always means *not
recorded by the source*: chatparse never invents a value (no "now" for a missing timestamp, no
zero for a missing token count).

The classes have attrs' own ``__init__``. They have no ``__weakref__`` slot (model objects cannot
be weakly referenced) so that adapters can build the objects they make once per record through
the cheaper constructors of :mod:`chatparse.adapter.build`, which need the slots to be exactly
the fields.

Datetimes are timezone-aware and normalised to UTC on construction; a naive datetime is refused,
because guessing its zone would silently shift every timestamp by hours.

Closed sets of values are listed in :data:`ROLES` and :data:`MESSAGE_KINDS`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator, Mapping
from datetime import UTC, datetime
from types import MappingProxyType
from typing import Any, Final, Literal, TypeAlias, TypeVar

import attrs
from attrs import field, frozen

from chatparse._names import SOURCE_NAME

__all__ = [
    "MESSAGE_KINDS",
    "ROLES",
    "ConversationMeta",
    "Diagnostics",
    "ImageRef",
    "Message",
    "MessageKind",
    "ParsedConversation",
    "Role",
    "SourceInfo",
    "ToolCall",
    "UnknownRecord",
    "Usage",
]

Role: TypeAlias = Literal["user", "assistant", "system"]
"""Who a message is from. Tool output is not a role: it is paired into :attr:`ToolCall.output`."""

ROLES: Final[tuple[Role, ...]] = ("user", "assistant", "system")
"""Every :data:`Role`, in this order."""

MessageKind: TypeAlias = Literal[
    "message",
    "compaction_summary",
    "command",
    "command_output",
    "tool_result",
    "notice",
]
"""What a message is, beyond who wrote it. The set is closed; a new value is a schema change.

``message``
    An ordinary turn: what a person typed or what the model answered.
``compaction_summary``
    A summary the tool wrote to replace earlier history when the context was compacted.
``command``
    A slash command or similar instruction to the tool itself (``/compact``, ``/model``).
``command_output``
    What such a command printed back, recorded in the conversation.
``tool_result``
    A record carrying only tool output that could not be paired with its call (an orphan);
    paired output lives in :attr:`ToolCall.output` instead.
``notice``
    Text the tool injected rather than a participant wrote: interruption markers, caveats,
    errors, environment context.
"""

MESSAGE_KINDS: Final[tuple[MessageKind, ...]] = (
    "message",
    "compaction_summary",
    "command",
    "command_output",
    "tool_result",
    "notice",
)
"""Every :data:`MessageKind`, in this order."""


def _utc(value: datetime | None) -> datetime | None:
    if value is None or (value.__class__ is datetime and value.tzinfo is UTC):
        return value  # the common case, from adapters: already a UTC datetime
    if not isinstance(value, datetime):  # reachable from untyped callers, such as plugins
        msg = f"expected a datetime or None, got {type(value).__name__}"  # type: ignore[unreachable]
        raise TypeError(msg)
    if value.tzinfo is None or value.utcoffset() is None:
        msg = f"naive datetime {value.isoformat()} has no time zone; attach one (UTC if unsure)"
        raise ValueError(msg)
    return value.astimezone(UTC)


def _read_only(value: Mapping[str, Any]) -> Mapping[str, Any]:
    # A copy behind a read-only view: the caller's dict can change later without changing us.
    return MappingProxyType(dict(value))


_T = TypeVar("_T")


def _rebuild(cls: type[_T], fields: dict[str, Any]) -> _T:
    return cls(**fields)


def _reduce_with_mappings(self: Any) -> tuple[Callable[..., Any], tuple[Any, ...]]:
    """Pickle by fields, read-only mappings as plain dicts (a mapping proxy does not pickle).

    The object is rebuilt through the class, whose converter makes the view again.
    """
    fields = {
        attribute.name: dict(value) if isinstance(value, MappingProxyType) else value
        for attribute in attrs.fields(type(self))
        for value in (getattr(self, attribute.name),)
    }
    return _rebuild, (type(self), fields)


@functools.lru_cache(maxsize=64)
def _is_source_name(value: str) -> bool:
    # Cached: a scan builds one ConversationMeta per file, all with the same few source names.
    return SOURCE_NAME.fullmatch(value) is not None


def _source_name(_instance: object, attribute: attrs.Attribute[str], value: str) -> None:
    if not _is_source_name(value):
        msg = (
            f"{attribute.name} must be lower-case words of letters and digits joined by single "
            f"hyphens, got {value!r}"
        )
        raise ValueError(msg)


# Validators are plain functions rather than attrs' composable ones (``optional(ge(0))`` is two
# calls per field): adapters build a model object per message, and these checks are on that path.
def _optional_count(
    _instance: object, attribute: attrs.Attribute[int | None], value: int | None
) -> None:
    if value is not None and value < 0:
        msg = f"{attribute.name} must be None or >= 0, got {value!r}"
        raise ValueError(msg)


def _count(_instance: object, attribute: attrs.Attribute[int], value: int) -> None:
    if value < 0:
        msg = f"{attribute.name} must be >= 0, got {value!r}"
        raise ValueError(msg)


def _one_of(options: tuple[str, ...]) -> Callable[[object, attrs.Attribute[str], str], None]:
    allowed = frozenset(options)

    def validate(_instance: object, attribute: attrs.Attribute[str], value: str) -> None:
        try:
            known = value in allowed
        except TypeError:  # unhashable, from an untyped caller
            known = False
        if not known:
            msg = f"{attribute.name} must be one of {options!r}, got {value!r}"
            raise ValueError(msg)

    return validate


# One named converter per element type: mypy's attrs plugin types the constructor argument from
# the converter's signature, and a generic or a bare ``tuple`` would erase the element type.
def _strings(items: Iterable[str]) -> tuple[str, ...]:
    return tuple(items)


def _tool_calls(items: Iterable[ToolCall]) -> tuple[ToolCall, ...]:
    return tuple(items)


def _images(items: Iterable[ImageRef]) -> tuple[ImageRef, ...]:
    return tuple(items)


def _messages(items: Iterable[Message]) -> tuple[Message, ...]:
    return tuple(items)


def _unknown_records(items: Iterable[UnknownRecord]) -> tuple[UnknownRecord, ...]:
    return tuple(items)


def _conversations(items: Iterable[ParsedConversation]) -> tuple[ParsedConversation, ...]:
    return tuple(items)


@frozen(kw_only=True, weakref_slot=False)
class SourceInfo:
    """One source found on this machine by an adapter's ``detect``.

    Attributes:
        source: The adapter's name, such as ``"claude-code"``: lower-case words of letters and
            digits joined by single hyphens.
        display_name: The name people know the tool by, such as ``"Claude Code"``.
        roots: The directories or database files the source was found in.
        conversation_count: How many conversations there are, when it was cheap to count; else
            ``None``, which means *not counted*, not zero.

    .. versionadded:: 0.1
    """

    source: str = field(validator=_source_name)
    display_name: str
    roots: tuple[str, ...] = field(default=(), converter=_strings)
    conversation_count: int | None = field(default=None, validator=_optional_count)


@frozen(kw_only=True, weakref_slot=False)
class ConversationMeta:
    """What a scan knows about one conversation before parsing it.

    ``fingerprint`` is the key callers store to decide whether to parse again. For a file of its
    own it is derived from size and mtime; for a conversation inside a shared database it is
    derived from that conversation's own rows, never from the shared file, so a change to one chat
    does not make every other chat in the same database look changed.

    Attributes:
        source: The name of the adapter that listed it; :func:`chatparse.parse` hands the meta
            back to that adapter.
        id: The conversation's id: unique within its source and the same on every scan (the
            source's own session id where it has one).
        path: The file or database that holds the conversation.
        fingerprint: The change key described above: opaque text, equal as long as the
            conversation has not changed. Compare it; do not parse it.
        size: Size in bytes of :attr:`path` (the whole database, for a conversation inside one);
            ``None`` when unknown.
        mtime: When :attr:`path` was last modified, in UTC; ``None`` when unknown. A time of the
            file, never used as a time of the conversation.
        title: The title, when the scan found one without parsing; else ``None`` (the parsed
            conversation has the full rule, see :attr:`ParsedConversation.title`).
        project_path: The folder the conversation was about (the tool's working directory or
            workspace folder), when the scan found it.
        created_at: When the conversation started, in UTC, when the scan found it.
        updated_at: When the conversation last changed, in UTC, when the scan found it.
        locator: Adapter-private keys to find the conversation again, such as a workspace
            database and a row key: a read-only mapping of text to text that callers pass back
            unchanged and need not understand.

    .. versionadded:: 0.1
    """

    source: str = field(validator=_source_name)
    id: str
    path: str
    fingerprint: str
    size: int | None = field(default=None, validator=_optional_count)
    mtime: datetime | None = field(default=None, converter=_utc)
    title: str | None = None
    project_path: str | None = None
    created_at: datetime | None = field(default=None, converter=_utc)
    updated_at: datetime | None = field(default=None, converter=_utc)
    locator: Mapping[str, str] = field(factory=dict, converter=_read_only)

    __reduce__ = _reduce_with_mappings


@frozen(kw_only=True, weakref_slot=False)
class Usage:
    """Token counts for one model response, as the source recorded them.

    One response is often recorded several times (split over lines, replayed by a fork or a
    sidechain). Every copy is kept so totals can be explained, but only one has ``counted=True``;
    ``dedup_key`` says which copies belong together.

    The counts mean the same in every source (the OpenTelemetry GenAI and OpenAI conventions); an
    adapter converts what its source writes, and the source's page says how. Each count is ``None``
    when the source did not record it, never ``0`` for unknown, and never negative.

    Attributes:
        input_tokens: Every prompt token the model read for this response, cached or not.
        output_tokens: Every token the model generated, reasoning included.
        cache_read_tokens: The part of :attr:`input_tokens` read from a prompt cache.
        cache_write_tokens: The part of :attr:`input_tokens` written to a prompt cache.
        reasoning_tokens: The part of :attr:`output_tokens` spent on reasoning.
        dedup_key: The same text on every copy of one response, so that totals count it once;
            ``None`` when the source gives no way to tell copies apart.
        counted: Whether totals count this copy: of the copies that share a ``dedup_key``, only
            one does.

    .. versionadded:: 0.1
    """

    input_tokens: int | None = field(default=None, validator=_optional_count)
    output_tokens: int | None = field(default=None, validator=_optional_count)
    cache_read_tokens: int | None = field(default=None, validator=_optional_count)
    cache_write_tokens: int | None = field(default=None, validator=_optional_count)
    reasoning_tokens: int | None = field(default=None, validator=_optional_count)
    dedup_key: str | None = None
    counted: bool = True

    @property
    def total_tokens(self) -> int | None:
        """``input_tokens + output_tokens``: every token read and written for the response.

        A part the source did not record counts as nothing; ``None`` when neither is recorded.

        .. versionadded:: 0.2
        """
        if self.input_tokens is None and self.output_tokens is None:
            return None
        return (self.input_tokens or 0) + (self.output_tokens or 0)

    @property
    def uncached_input_tokens(self) -> int | None:
        """The prompt tokens read neither from nor into a prompt cache; ``None`` without input.

        Never negative: cache counts beyond ``input_tokens`` (which the kit reports as an adapter
        bug) leave zero.

        .. versionadded:: 0.2
        """
        if self.input_tokens is None:
            return None
        cached = (self.cache_read_tokens or 0) + (self.cache_write_tokens or 0)
        return max(self.input_tokens - cached, 0)


_USAGE_COUNTS: Final = (
    "input_tokens",
    "output_tokens",
    "cache_read_tokens",
    "cache_write_tokens",
    "reasoning_tokens",
)


@frozen(kw_only=True, weakref_slot=False)
class ImageRef:
    """An image that was part of a message. The image data itself is never kept.

    Attributes:
        media_type: The MIME type, such as ``"image/png"``; ``None`` when not recorded.
        byte_size: Size of the decoded image in bytes, measured from its base64 payload without
            decoding it; ``None`` when unknown.

    .. versionadded:: 0.1
    """

    media_type: str | None = None
    byte_size: int | None = field(default=None, validator=_optional_count)


@frozen(kw_only=True, weakref_slot=False)
class ToolCall:
    """A tool the model called, with its paired result when the source recorded one.

    Attributes:
        id: The source's call id, which links the call to its result; ``None`` when the source
            has none.
        name: The tool's name as the source wrote it, such as ``"Bash"`` or ``"read_file"``.
        input: The call's arguments as a JSON value (dicts, lists, str, int, float, bool,
            None), as the source wrote them, but for base64 payloads, replaced by a placeholder
            saying their media type and size. Not frozen: treat it as read-only.
        output: The result as text, paired from the record that answered the call; ``None``
            when no result was recorded (an unanswered call).
        is_error: Whether the tool reported a failure; ``None`` when the source does not say.
        result: The result's structured form, when the source recorded one besides the text (a
            JSON value, such as Claude Code's ``toolUseResult``); kept as written so nothing is
            lost, but for base64 payloads, replaced by a placeholder saying their size.

    .. versionadded:: 0.1
    """

    id: str | None
    name: str
    input: Any = None
    output: str | None = None
    is_error: bool | None = None
    result: Any = None


@frozen(kw_only=True, weakref_slot=False)
class Message:
    """One message in a conversation.

    Attributes:
        id: Unique within the conversation and the same on every parse of the same input: the
            source's own id where it has one (a repeated id gets ``#2``, ``#3``...), else one
            derived from the record's stable position. Never random, never from the clock.
        role: Who wrote it: ``"user"``, ``"assistant"`` or ``"system"`` (:data:`ROLES`). Tool
            output is not a role: it is paired into :attr:`ToolCall.output`.
        parent_id: The :attr:`id` of the message this one follows, in sources that record a
            tree (rewinds and edits branch it); ``None`` for a root, or when the source records
            none. It may name a message that is not in the conversation (a cut chain).
        text: The visible text, with the tool's wrappers and image payloads removed (an image
            leaves a placeholder such as ``[image: image/png, 1234 bytes]``); may be empty.
        thinking: The model's reasoning text, when the source kept it; else ``None``.
        tool_calls: The tools this message called, in order, each with its result.
        images: The images that were part of the message, in text order.
        timestamp: When the message was written, in UTC; ``None`` when the source recorded no
            time with a zone (a zone is never guessed).
        timestamp_synthesized: ``True`` when the source had no time for this message and the
            adapter derived one (the source's page says how); then :attr:`timestamp` is not
            the source's.
        model: The model that wrote the message, as the source names it; ``None`` when not
            recorded, and for messages no model wrote.
        usage: The token counts of the response this message is part of, when recorded.
        request_id: The API request the message belongs to, when recorded: the messages of one
            response share it.
        is_sidechain: ``True`` for a message off the main line: a side chain the tool ran, a
            replayed or undone turn. Such messages are kept, marked, never dropped.
        kind: What the message is, beyond who wrote it (:data:`MESSAGE_KINDS`): ``"message"``
            for an ordinary turn.

    .. versionadded:: 0.1
    """

    id: str
    role: Role = field(validator=_one_of(ROLES))
    parent_id: str | None = None
    text: str = ""
    thinking: str | None = None
    tool_calls: tuple[ToolCall, ...] = field(default=(), converter=_tool_calls)
    images: tuple[ImageRef, ...] = field(default=(), converter=_images)
    timestamp: datetime | None = field(default=None, converter=_utc)
    timestamp_synthesized: bool = False
    model: str | None = None
    usage: Usage | None = None
    request_id: str | None = None
    is_sidechain: bool = False
    kind: MessageKind = field(default="message", validator=_one_of(MESSAGE_KINDS))

    @property
    def has_tool_use(self) -> bool:
        """Whether the message calls at least one tool."""
        return bool(self.tool_calls)


@frozen(kw_only=True, weakref_slot=False)
class UnknownRecord:
    """A record of a shape the adapter does not know, kept raw so nothing is lost.

    Attributes:
        where: Where it was found, such as ``"line 17"`` or ``"row composerData:abc"``; a record
            of a part read apart says which (``"transcript: line 3"``).
        type: The record's own type tag, when it had one.
        raw: The record's text as read (after string repair: lone surrogates become U+FFFD);
            unlike message text, nothing is removed from it but base64 payloads, each replaced
            by a placeholder saying its size.
        producer_version: The version of the tool that wrote the record, when recorded: an
            unknown shape from a newer version is expected, from a known one it is a gap.

    .. versionadded:: 0.1
    """

    where: str
    type: str | None
    raw: str
    producer_version: str | None = None


@frozen(kw_only=True, weakref_slot=False)
class Diagnostics:
    """An account of every record read, so that nothing is lost without a trace.

    A *record* is the smallest unit a source stores on its own: a line of a JSON Lines file, a row
    of a table, an element of a document's message array. The invariant, checked by
    :attr:`balanced` and by the conformance kit: every record seen was either used for the output,
    skipped as known noise, malformed, or kept as unknown (see :mod:`chatparse.adapter.ledger`).

    Attributes:
        records_seen: Every record the adapter read for this conversation.
        records_used: Records that went into the output: a message, a part of one (a tool
            result paired into its call, a usage merged into its response), or the
            conversation's own fields (a title record).
        malformed: Records that could not be decoded (not JSON, torn, of the wrong type for
            their place).
        skipped: Known noise, counted by reason (usually the record type): records the adapter
            knows and leaves out on purpose, such as progress ticks. A read-only mapping.
        unknown: Records of a shape the adapter does not know, each kept raw, in reading order.
        warnings: Notes for people about the conversation: where a malformed record was and
            why, a damaged store, a newer format version. Their wording may change.
        redactions: The secrets :func:`chatparse.redact` replaced in this conversation (not its
            sub-agents, which count their own), counted by kind, such as ``{"github-pat": 1}``;
            empty when it was not redacted or nothing was found. A read-only mapping.
            (Added in 0.2.)

    .. versionadded:: 0.1
    """

    records_seen: int = field(default=0, validator=_count)
    records_used: int = field(default=0, validator=_count)
    malformed: int = field(default=0, validator=_count)
    skipped: Mapping[str, int] = field(factory=dict, converter=_read_only)
    unknown: tuple[UnknownRecord, ...] = field(default=(), converter=_unknown_records)
    warnings: tuple[str, ...] = field(default=(), converter=_strings)
    redactions: Mapping[str, int] = field(factory=dict, converter=_read_only)

    @property
    def balanced(self) -> bool:
        """Whether every record seen is accounted for exactly once."""
        accounted = (
            self.records_used + self.malformed + sum(self.skipped.values()) + len(self.unknown)
        )
        return accounted == self.records_seen

    __reduce__ = _reduce_with_mappings


@frozen(kw_only=True, weakref_slot=False)
class ParsedConversation:
    """One conversation, parsed.

    Attributes:
        source: The adapter's name, as in :attr:`ConversationMeta.source`.
        id: The conversation's id, as in :attr:`ConversationMeta.id`.
        meta: What the scan knew, as it was handed to ``parse``.
        parser_version: The adapter's version: store it, and parse again when it changes.
        title: The title the source stored, else the one the scan found, else one made from the
            first prompt (its first line with text, at most 100 characters, "…" when cut; see
            :func:`chatparse.adapter.title_from`); ``None`` when there is none.
        project_path: The folder the conversation was about (the tool's working directory or
            workspace folder), when recorded.
        git_branch: The git branch checked out in the project, when the source recorded it.
        created_at: When the conversation started: the source's own time, else the scan's, else
            the earliest message time; ``None`` when there is none. Never a file's time, never
            "now".
        updated_at: When the conversation last changed, by the same rule (the latest message
            time).
        producer_version: The writing tool's version when recorded (Claude Code's ``version``,
            Codex's ``cli_version``).
        messages: Every message, in conversation order, side branches included.
        subagents: Conversations this one started (sub-agents, tasks), each parsed in full.
        diagnostics: Where every record read for this conversation went.

    .. versionadded:: 0.1
    """

    source: str = field(validator=_source_name)
    id: str
    meta: ConversationMeta
    parser_version: str
    title: str | None = None
    project_path: str | None = None
    git_branch: str | None = None
    created_at: datetime | None = field(default=None, converter=_utc)
    updated_at: datetime | None = field(default=None, converter=_utc)
    producer_version: str | None = None
    messages: tuple[Message, ...] = field(default=(), converter=_messages)
    subagents: tuple[ParsedConversation, ...] = field(default=(), converter=_conversations)
    diagnostics: Diagnostics = field(factory=Diagnostics)

    def usage_total(self, *, include_subagents: bool = True) -> Usage:
        """Sum the usage of every message whose usage is ``counted``.

        A count stays ``None`` when no counted usage recorded it, so "unknown" is not reported
        as zero. Sub-agents are included by default because their tokens were spent on behalf of
        this conversation.
        """
        totals: dict[str, int | None] = dict.fromkeys(_USAGE_COUNTS)
        for usage in self._counted_usages(include_subagents=include_subagents):
            for name in _USAGE_COUNTS:
                value = getattr(usage, name)
                if value is not None:
                    totals[name] = (totals[name] or 0) + value
        return Usage(
            input_tokens=totals["input_tokens"],
            output_tokens=totals["output_tokens"],
            cache_read_tokens=totals["cache_read_tokens"],
            cache_write_tokens=totals["cache_write_tokens"],
            reasoning_tokens=totals["reasoning_tokens"],
        )

    def _counted_usages(self, *, include_subagents: bool) -> Iterator[Usage]:
        for message in self.messages:
            if message.usage is not None and message.usage.counted:
                yield message.usage
        if include_subagents:
            for subagent in self.subagents:
                yield from subagent._counted_usages(include_subagents=True)  # noqa: SLF001 -- same class

    def main_thread(self) -> tuple[Message, ...]:
        """The messages from the root to the newest leaf, following ``parent_id``.

        Rewinds and edits leave abandoned branches in the record; this is the line the user
        ended up on. The newest leaf is the one with the latest timestamp (side chains only when
        there is nothing else); ties and missing timestamps go to the later message in
        conversation order. A conversation without any ``parent_id`` is a plain list, returned
        whole. A chain that points at a missing parent, or loops, stops there.
        """
        if not any(message.parent_id is not None for message in self.messages):
            return self.messages
        by_id = {message.id: message for message in self.messages}
        # The main line is made of non-sidechain messages; a side chain hanging off a message
        # does not stop that message from being the main line's leaf.
        line = [m for m in self.messages if not m.is_sidechain] or list(self.messages)
        parents = {message.parent_id for message in line}
        candidates = [m for m in line if m.id not in parents]
        if not candidates:  # every message is someone's parent: a cycle with no leaf
            return self.messages
        order = {id(message): index for index, message in enumerate(self.messages)}
        newest = max(candidates, key=lambda m: (m.timestamp is not None, m.timestamp, order[id(m)]))
        thread: list[Message] = []
        seen: set[str] = set()
        current: Message | None = newest
        while current is not None and current.id not in seen:
            seen.add(current.id)
            thread.append(current)
            current = by_id.get(current.parent_id) if current.parent_id is not None else None
        thread.reverse()
        return tuple(thread)
