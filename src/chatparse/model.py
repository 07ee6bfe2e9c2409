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

    .. versionadded:: 0.1
    """

    source: str = field(validator=_source_name)
    """The adapter name, such as ``"claude-code"``."""
    display_name: str
    """The name people know the tool by, such as ``"Claude Code"``."""
    roots: tuple[str, ...] = field(default=(), converter=_strings)
    """The directories or database files the source was found in."""
    conversation_count: int | None = field(default=None, validator=_optional_count)
    """How many conversations there are, when it was cheap to count; else ``None``."""


@frozen(kw_only=True, weakref_slot=False)
class ConversationMeta:
    """What a scan knows about one conversation before parsing it.

    ``fingerprint`` is the key callers store to decide whether to parse again. For a file of its
    own it is derived from size and mtime; for a conversation inside a shared database it is
    derived from that conversation's own rows, never from the shared file, so a change to one chat
    does not make every other chat in the same database look changed.

    .. versionadded:: 0.1
    """

    source: str = field(validator=_source_name)
    id: str
    path: str
    """The file or database that holds the conversation."""
    fingerprint: str
    size: int | None = field(default=None, validator=_optional_count)
    """Size in bytes of :attr:`path`."""
    mtime: datetime | None = field(default=None, converter=_utc)
    """Modification time of :attr:`path`."""
    title: str | None = None
    project_path: str | None = None
    created_at: datetime | None = field(default=None, converter=_utc)
    updated_at: datetime | None = field(default=None, converter=_utc)
    locator: Mapping[str, str] = field(factory=dict, converter=_read_only)
    """Adapter-private keys to find the conversation again, such as a workspace DB and row key."""

    __reduce__ = _reduce_with_mappings


@frozen(kw_only=True, weakref_slot=False)
class Usage:
    """Token counts for one model response, as the source recorded them.

    One response is often recorded several times (split over lines, replayed by a fork or a
    sidechain). Every copy is kept so totals can be explained, but only one has ``counted=True``;
    ``dedup_key`` says which copies belong together.

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

    .. versionadded:: 0.1
    """

    media_type: str | None = None
    byte_size: int | None = field(default=None, validator=_optional_count)
    """Size of the decoded image in bytes."""


@frozen(kw_only=True, weakref_slot=False)
class ToolCall:
    """A tool the model called, with its paired result when the source recorded one.

    .. versionadded:: 0.1
    """

    id: str | None
    """The source's call id; ``None`` when the source has none."""
    name: str
    input: Any = None
    """The call's arguments as a JSON value (dicts, lists, str, int, float, bool, None).

    Kept as the source wrote it, not frozen: treat it as read-only.
    """
    output: str | None = None
    """The result as text, paired from the record that answered the call."""
    is_error: bool | None = None
    result: Any = None
    """The result's structured form, when the source recorded one besides the text (a JSON
    value, such as Claude Code's ``toolUseResult``); kept as written so nothing is lost."""


@frozen(kw_only=True, weakref_slot=False)
class Message:
    """One message in a conversation.

    .. versionadded:: 0.1
    """

    id: str
    """Unique within the conversation and the same on every parse of the same input."""
    role: Role = field(validator=_one_of(ROLES))
    parent_id: str | None = None
    text: str = ""
    """The visible text, with wrappers and image payloads removed; may be empty."""
    thinking: str | None = None
    tool_calls: tuple[ToolCall, ...] = field(default=(), converter=_tool_calls)
    images: tuple[ImageRef, ...] = field(default=(), converter=_images)
    timestamp: datetime | None = field(default=None, converter=_utc)
    timestamp_synthesized: bool = False
    """True when the source had no time for this message and the adapter derived one."""
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

    .. versionadded:: 0.1
    """

    where: str
    """Where it was found, such as ``"line 17"`` or ``"row composerData:abc"``."""
    type: str | None
    """The record's own type tag, when it had one."""
    raw: str
    """The record's text exactly as read (after string repair)."""
    producer_version: str | None = None


@frozen(kw_only=True, weakref_slot=False)
class Diagnostics:
    """An account of every record read, so that nothing is lost without a trace.

    The invariant, checked by :attr:`balanced` and by the conformance kit: every record seen was
    either used for the output, skipped as known noise, malformed, or kept as unknown.

    .. versionadded:: 0.1
    """

    records_seen: int = field(default=0, validator=_count)
    records_used: int = field(default=0, validator=_count)
    """Records that went into messages or conversation metadata."""
    malformed: int = field(default=0, validator=_count)
    skipped: Mapping[str, int] = field(factory=dict, converter=_read_only)
    """Known noise, counted by record type."""
    unknown: tuple[UnknownRecord, ...] = field(default=(), converter=_unknown_records)
    warnings: tuple[str, ...] = field(default=(), converter=_strings)

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

    .. versionadded:: 0.1
    """

    source: str = field(validator=_source_name)
    id: str
    meta: ConversationMeta
    parser_version: str
    """The adapter's version: store it, and parse again when it changes."""
    title: str | None = None
    project_path: str | None = None
    git_branch: str | None = None
    created_at: datetime | None = field(default=None, converter=_utc)
    updated_at: datetime | None = field(default=None, converter=_utc)
    producer_version: str | None = None
    """The writing tool's version when recorded (Claude Code's ``version``, Codex's
    ``cli_version``)."""
    messages: tuple[Message, ...] = field(default=(), converter=_messages)
    """Every message, in conversation order, side branches included."""
    subagents: tuple[ParsedConversation, ...] = field(default=(), converter=_conversations)
    """Conversations this one started (sub-agents, tasks), each parsed in full."""
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
