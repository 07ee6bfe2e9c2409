"""Token usage across conversations: ``usage_report`` groups every response once.

Each conversation's :meth:`~chatparse.model.ParsedConversation.usage_total` is right on its own,
but summing them over-counts: a resumed Claude Code session replays earlier responses into a new
file, and one session can be found under two roots. :func:`usage_report` counts each response
once across everything it is given, by :attr:`~chatparse.model.Usage.dedup_key` (copies within
one conversation are already marked ``counted=False`` by their adapter), and groups the counts
by day, week, month, session, project, model or source.

Counts follow the one meaning of :class:`~chatparse.model.Usage` in every source: input includes
cache reads and writes, output includes reasoning. A count no response in a group recorded stays
``None``.

Costs come only from a price table the caller gives (:class:`PriceTable`, read from a file in
the format of LiteLLM's ``model_prices_and_context_window.json``); nothing is fetched, and
without prices ``cost`` is ``None``. A response whose model has no price, or whose recorded
counts need a price the table lacks, is not priced at zero: it is counted in
:attr:`UsageRow.unpriced_responses`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from datetime import date, datetime, tzinfo
from typing import Final, Literal, TypeAlias, get_args

from attrs import define, field, frozen

from chatparse.model import Message, ParsedConversation, Usage
from chatparse.prices import PriceTable

__all__ = ["REPORT_BY", "ReportBy", "UsageRow", "usage_report"]

ReportBy: TypeAlias = Literal["day", "week", "month", "session", "project", "model", "source"]
"""What a :func:`usage_report` groups by."""

REPORT_BY: Final[tuple[ReportBy, ...]] = get_args(ReportBy)

UNKNOWN_KEY: Final = "(unknown)"
"""The key of responses whose day, project or model the source did not record."""

_COUNTS: Final = (
    "input_tokens",
    "output_tokens",
    "cache_read_tokens",
    "cache_write_tokens",
    "reasoning_tokens",
)


@frozen(kw_only=True)
class UsageRow:
    """The usage of one group of responses (one day, one model...).

    Attributes:
        key: The group as text: ``2025-01-31`` (day), ``2025-W05`` (ISO week), ``2025-01``
            (month), ``<source>:<conversation id>`` (session), the project path, the model
            name, or the source name; ``(unknown)`` where the source did not record it.
        input_tokens: Every prompt token of the group's responses, cached ones included.
        output_tokens: Every generated token, reasoning included.
        cache_read_tokens: The part of ``input_tokens`` read from a prompt cache.
        cache_write_tokens: The part of ``input_tokens`` written into a prompt cache.
        reasoning_tokens: The part of ``output_tokens`` spent on reasoning.
        total_tokens: ``input_tokens + output_tokens`` (recorded parts only).
        responses: How many model responses the counts come from, each counted once.
        conversations: How many conversations (sub-agents counted with their parent) have a
            response in the group.
        cost: The cost of the group's priced responses in the price table's currency (US
            dollars for LiteLLM's file); ``None`` without a price table, or when no response
            of the group could be priced.
        unpriced_responses: Responses left out of ``cost`` because the table has no price for
            their model, or not for every kind of token they recorded. Always 0 without a table.

    Each count is ``None`` when no response in the group recorded it.

    .. versionadded:: 0.2
    """

    key: str
    input_tokens: int | None = None
    output_tokens: int | None = None
    cache_read_tokens: int | None = None
    cache_write_tokens: int | None = None
    reasoning_tokens: int | None = None
    total_tokens: int | None = None
    responses: int = 0
    conversations: int = 0
    cost: float | None = None
    unpriced_responses: int = 0


@define
class _Group:
    counts: dict[str, int | None] = field(factory=lambda: dict.fromkeys(_COUNTS))
    responses: int = 0
    conversations: int = 0
    cost: float | None = None
    unpriced: int = 0

    def add(self, usage: Usage) -> None:
        self.responses += 1
        for name in _COUNTS:
            value = getattr(usage, name)
            if value is not None:
                self.counts[name] = (self.counts[name] or 0) + value

    def row(self, key: str) -> UsageRow:
        total = Usage(
            input_tokens=self.counts["input_tokens"], output_tokens=self.counts["output_tokens"]
        ).total_tokens
        return UsageRow(
            key=key,
            **self.counts,
            total_tokens=total,
            responses=self.responses,
            conversations=self.conversations,
            cost=self.cost,
            unpriced_responses=self.unpriced,
        )


def usage_report(  # noqa: PLR0913 -- keyword-only options of one report
    conversations: Iterable[ParsedConversation],
    *,
    by: ReportBy = "day",
    tz: tzinfo | None = None,
    since: date | None = None,
    until: date | None = None,
    prices: PriceTable | None = None,
) -> tuple[UsageRow, ...]:
    """The usage of ``conversations`` by group, each response counted once across all of them.

    Groups are days, ISO weeks, months, sessions, projects, models or sources (``by``).
    ``conversations`` is read once, in one pass (an iterator such as
    :func:`chatparse.iter_conversations` is fine); what is kept while it runs is one entry per
    distinct response key and one per group, not the conversations. Sub-agents count with the
    conversation that started them.

    Args:
        conversations: Parsed conversations, of any sources.
        by: What a row is.
        tz: The time zone days, weeks and months are cut in; ``None`` for this machine's.
        since: Only responses on or after this day (in ``tz``); responses without a time are
            then left out.
        until: Only responses on or before this day (in ``tz``), likewise.
        prices: Per-model prices, for ``cost``.

    Returns:
        One row per group, sorted by key (``(unknown)`` last).

    Raises:
        ValueError: ``by`` is not one of :data:`REPORT_BY`.

    .. versionadded:: 0.2
    """
    if by not in REPORT_BY:
        msg = f"by must be one of {', '.join(REPORT_BY)}; got {by!r}"
        raise ValueError(msg)
    groups: dict[str, _Group] = {}
    counted: set[str] = set()
    for conversation in conversations:
        touched: set[str] = set()
        for message in _responses(conversation):
            usage = message.usage
            assert usage is not None  # noqa: S101 -- _responses yields only messages with one
            if usage.dedup_key is not None:
                if usage.dedup_key in counted:
                    continue
                counted.add(usage.dedup_key)
            day = _local_day(message.timestamp, tz)
            if not _within(day, since, until):
                continue
            key = _key(by, conversation, message, day)
            group = groups.get(key) or groups.setdefault(key, _Group())
            group.add(usage)
            if prices is not None:
                _price(group, prices, message)
            touched.add(key)
        for key in touched:
            groups[key].conversations += 1
    return tuple(groups[key].row(key) for key in sorted(groups, key=_order))


def _responses(conversation: ParsedConversation) -> Iterator[Message]:
    """Every message with a counted usage, the sub-agents' included, in conversation order."""
    for message in conversation.messages:
        if message.usage is not None and message.usage.counted:
            yield message
    for subagent in conversation.subagents:
        yield from _responses(subagent)


def _local_day(stamp: datetime | None, tz: tzinfo | None) -> date | None:
    return stamp.astimezone(tz).date() if stamp is not None else None


def _within(day: date | None, since: date | None, until: date | None) -> bool:
    if since is None and until is None:
        return True
    if day is None:
        return False
    return (since is None or day >= since) and (until is None or day <= until)


def _key(by: ReportBy, conversation: ParsedConversation, message: Message, day: date | None) -> str:
    if by in _BY_DAY:
        return _BY_DAY[by](day) if day is not None else UNKNOWN_KEY
    return _BY_CONVERSATION[by](conversation, message) or UNKNOWN_KEY


def _iso_week(day: date) -> str:
    year, week, _weekday = day.isocalendar()
    return f"{year}-W{week:02d}"


def _month(day: date) -> str:
    return f"{day.year:04d}-{day.month:02d}"


def _session(conversation: ParsedConversation, _message: Message) -> str:
    return f"{conversation.source}:{conversation.id}"


def _project(conversation: ParsedConversation, _message: Message) -> str | None:
    return conversation.project_path


def _model(_conversation: ParsedConversation, message: Message) -> str | None:
    return message.model


def _source(conversation: ParsedConversation, _message: Message) -> str:
    return conversation.source


_BY_DAY: Final[dict[str, Callable[[date], str]]] = {
    "day": date.isoformat,
    "week": _iso_week,
    "month": _month,
}
_BY_CONVERSATION: Final[dict[str, Callable[[ParsedConversation, Message], str | None]]] = {
    "session": _session,
    "project": _project,
    "model": _model,
    "source": _source,
}


def _price(group: _Group, prices: PriceTable, message: Message) -> None:
    usage = message.usage
    cost = prices.cost(message.model, usage) if usage is not None else None
    if cost is None:
        group.unpriced += 1
    else:
        group.cost = (group.cost or 0.0) + cost


def _order(key: str) -> tuple[bool, str]:
    return key == UNKNOWN_KEY, key
