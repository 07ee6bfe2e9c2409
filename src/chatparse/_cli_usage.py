"""``chatparse usage``: token usage across every conversation, grouped, as a table or JSON lines.

The command around :func:`chatparse.usage_report`: it parses the home (in ``--workers``
processes when asked, each sending back only what the report reads: :func:`usage_only`), groups
by ``--by``, and prints one row per group. Costs appear only with
``--prices FILE``; models the file has no price for are named on stderr, never priced at zero.
"""

from __future__ import annotations

import argparse
import json
from datetime import UTC, date, tzinfo
from typing import TextIO

from attrs import asdict

from chatparse import _api
from chatparse.host import Host
from chatparse.model import Message, ParsedConversation
from chatparse.prices import PriceTable
from chatparse.usage import REPORT_BY, UNKNOWN_KEY, UsageRow, usage_report

__all__ = ["add_arguments", "processes", "run", "usage_only"]

_COLUMNS = (
    ("input", "input_tokens"),
    ("output", "output_tokens"),
    ("cache read", "cache_read_tokens"),
    ("cache write", "cache_write_tokens"),
    ("reasoning", "reasoning_tokens"),
    ("total", "total_tokens"),
    ("responses", "responses"),
    ("conversations", "conversations"),
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``usage`` command's own options."""
    parser.add_argument(
        "--by", choices=REPORT_BY, default="day", help="what a row is (default: day)"
    )
    parser.add_argument(
        "--since", metavar="DATE", type=_day, help="only responses on or after this day"
    )
    parser.add_argument(
        "--until", metavar="DATE", type=_day, help="only responses on or before this day"
    )
    parser.add_argument(
        "--utc", action="store_true", help="cut days in UTC (default: this machine's time zone)"
    )
    parser.add_argument(
        "--prices",
        metavar="FILE",
        help="per-model prices in LiteLLM's model_prices_and_context_window.json format",
    )
    parser.add_argument(
        "--workers", metavar="N", type=processes, help="parse in N processes (0: one per core)"
    )


def run(args: argparse.Namespace, host: Host, out: TextIO, err: TextIO) -> int:
    """Print the report (a table, or with ``--json`` one JSON object per row)."""
    prices = PriceTable.from_litellm(args.prices) if args.prices else None
    zone: tzinfo | None = UTC if args.utc else None
    conversations = _api.map_conversations(
        usage_only, host, sources=args.source, workers=args.workers
    )
    rows = usage_report(
        conversations, by=args.by, tz=zone, since=args.since, until=args.until, prices=prices
    )
    if args.json:
        _json_lines(rows, out)
    else:
        _table(rows, args.by, out, priced=prices is not None)
    if prices is not None:
        _name_unpriced(rows, args.by, err)
    return 0


def usage_only(conversation: ParsedConversation) -> ParsedConversation:
    """The conversation with only what :func:`~chatparse.usage_report` reads, sub-agents included.

    Its source, id and project, and of each message with a counted usage its id, role, time,
    model and usage: the same report, from a small fraction of the conversation, so that a
    worker process sends back little.
    """
    return ParsedConversation(
        source=conversation.source,
        id=conversation.id,
        meta=conversation.meta,
        parser_version=conversation.parser_version,
        project_path=conversation.project_path,
        messages=tuple(
            Message(
                id=message.id,
                role=message.role,
                timestamp=message.timestamp,
                model=message.model,
                usage=message.usage,
            )
            for message in conversation.messages
            if message.usage is not None and message.usage.counted
        ),
        subagents=tuple(usage_only(subagent) for subagent in conversation.subagents),
    )


def processes(text: str) -> int:
    """A ``--workers`` value: a whole number, 0 (one per core) or more."""
    try:
        count = int(text)
    except ValueError:
        count = -1
    if count < 0:
        msg = f"not a number of processes: {text!r} (0 for one per core)"
        raise argparse.ArgumentTypeError(msg)
    return count


def _day(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError:
        msg = f"not a day: {text!r} (write it as YYYY-MM-DD)"
        raise argparse.ArgumentTypeError(msg) from None


def _json_lines(rows: tuple[UsageRow, ...], out: TextIO) -> None:
    out.writelines(json.dumps(asdict(row)) + "\n" for row in rows)


def _table(rows: tuple[UsageRow, ...], by: str, out: TextIO, *, priced: bool) -> None:
    header = [by, *(label for label, _name in _COLUMNS)] + (["cost"] if priced else [])
    body = [
        [row.key, *(_number(getattr(row, name)) for _label, name in _COLUMNS)]
        + ([_cost(row)] if priced else [])
        for row in rows
    ]
    if not body:
        out.write("no usage recorded\n")
        return
    widths = [max(len(line[i]) for line in (header, *body)) for i in range(len(header))]
    for line in (header, *body):
        cells = [line[0].ljust(widths[0])] + [
            cell.rjust(width) for cell, width in zip(line[1:], widths[1:], strict=True)
        ]
        out.write("  ".join(cells).rstrip() + "\n")


def _number(value: int | None) -> str:
    return "-" if value is None else f"{value:,}"


def _cost(row: UsageRow) -> str:
    if row.cost is None:
        return "-"
    text = f"${row.cost:,.2f}"
    return f"{text} +{row.unpriced_responses} unpriced" if row.unpriced_responses else text


def _name_unpriced(rows: tuple[UsageRow, ...], by: str, err: TextIO) -> None:
    unpriced = sum(row.unpriced_responses for row in rows)
    if not unpriced:
        return
    models = sorted(
        row.key if row.key != UNKNOWN_KEY else "(no model recorded)"
        for row in rows
        if row.unpriced_responses
    )
    where = f": {', '.join(models)}" if by == "model" else " (run with --by model to see which)"
    err.write(
        f"chatparse: {unpriced} response(s) not priced, their model not in the price file{where}\n"
    )
