"""``usage_report``: each response once across conversations, grouped, and priced from a file."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta, timezone
from pathlib import Path

import pytest

import chatparse
from chatparse import PriceFileError, PriceTable, UsageRow, usage_report
from chatparse.model import ConversationMeta, Message, ParsedConversation, Usage

DAY1 = datetime(2025, 1, 31, 23, 30, tzinfo=UTC)
DAY2 = datetime(2025, 2, 1, 10, 0, tzinfo=UTC)


def response(  # noqa: PLR0913 -- a test's knobs, keyword-only
    ident: str,
    *,
    at: datetime | None = DAY1,
    model: str | None = "claude-sonnet-4",
    key: str | None = None,
    counted: bool = True,
    input_tokens: int | None = 100,
    output_tokens: int | None = 10,
    cache_read: int | None = None,
    cache_write: int | None = None,
    reasoning: int | None = None,
) -> Message:
    usage = Usage(
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        cache_read_tokens=cache_read,
        cache_write_tokens=cache_write,
        reasoning_tokens=reasoning,
        dedup_key=key,
        counted=counted,
    )
    return Message(id=ident, role="assistant", timestamp=at, model=model, usage=usage)


def conversation(
    ident: str,
    messages: list[Message],
    *,
    source: str = "claude-code",
    project: str | None = "/p",
    subagents: tuple[ParsedConversation, ...] = (),
) -> ParsedConversation:
    meta = ConversationMeta(source=source, id=ident, path=f"/{ident}", fingerprint="f")
    return ParsedConversation(
        source=source,
        id=ident,
        meta=meta,
        parser_version="1",
        project_path=project,
        messages=tuple(messages),
        subagents=subagents,
    )


def test_a_response_replayed_in_another_file_counts_once() -> None:
    original = conversation("a", [response("1", key="msg_1"), response("2", key="msg_2")])
    resumed = conversation("b", [response("1", key="msg_1"), response("3", key="msg_3")])
    naive_sum = sum(c.usage_total().input_tokens or 0 for c in (original, resumed))
    [row] = usage_report([original, resumed], by="source")
    assert naive_sum == 400
    assert (row.key, row.input_tokens, row.output_tokens, row.responses) == (
        "claude-code",
        300,
        30,
        3,
    )
    assert row.conversations == 2
    assert row.total_tokens == 330


def test_copies_marked_not_counted_stay_out() -> None:
    partial = response("1", key="k", counted=False, output_tokens=1)
    final = response("1b", key="k", output_tokens=50)
    [row] = usage_report([conversation("a", [partial, final])], by="model")
    assert (row.output_tokens, row.responses) == (50, 1)


def test_days_weeks_and_months_are_cut_in_the_given_zone() -> None:
    items = [conversation("a", [response("1", at=DAY1), response("2", at=DAY2)])]
    assert [r.key for r in usage_report(items, by="day", tz=UTC)] == ["2025-01-31", "2025-02-01"]
    tokyo = timezone(timedelta(hours=9))
    assert [(r.key, r.responses) for r in usage_report(items, by="day", tz=tokyo)] == [
        ("2025-02-01", 2)
    ]
    assert [r.key for r in usage_report(items, by="month", tz=UTC)] == ["2025-01", "2025-02"]
    assert [r.key for r in usage_report(items, by="week", tz=UTC)] == ["2025-W05"]


def test_unknowns_are_grouped_last_and_counts_never_invented() -> None:
    items = [
        conversation(
            "a",
            [
                response("1", at=None, model=None, output_tokens=None),
                response("2", at=DAY2, model="gpt-5", input_tokens=None, output_tokens=None),
            ],
            project=None,
        )
    ]
    by_day = usage_report(items, by="day", tz=UTC)
    assert [r.key for r in by_day] == ["2025-02-01", "(unknown)"]
    assert (by_day[0].input_tokens, by_day[0].output_tokens, by_day[0].total_tokens) == (
        None,
        None,
        None,
    )
    assert (by_day[1].input_tokens, by_day[1].output_tokens) == (100, None)
    assert [r.key for r in usage_report(items, by="model")] == ["gpt-5", "(unknown)"]
    assert [r.key for r in usage_report(items, by="project")] == ["(unknown)"]


def test_sessions_include_their_subagents() -> None:
    child = conversation("child", [response("c1", key="c1", input_tokens=5)])
    parent = conversation("p", [response("p1", key="p1")], subagents=(child,))
    other = conversation("q", [response("q1", key="q1")], source="codex")
    rows = usage_report([parent, other], by="session")
    assert [(r.key, r.input_tokens, r.conversations) for r in rows] == [
        ("claude-code:p", 105, 1),
        ("codex:q", 100, 1),
    ]


def test_since_and_until_are_inclusive_days() -> None:
    items = [
        conversation("a", [response("1", at=DAY1), response("2", at=DAY2), response("3", at=None)])
    ]
    rows = usage_report(items, by="source", tz=UTC, since=date(2025, 2, 1))
    assert rows[0].responses == 1
    rows = usage_report(items, by="source", tz=UTC, until=date(2025, 1, 31))
    assert rows[0].responses == 1
    assert usage_report(items, by="source", tz=UTC, since=date(2026, 1, 1)) == ()


def test_one_pass_over_an_iterator() -> None:
    def conversations() -> Iterator[ParsedConversation]:
        for n in range(3):
            yield conversation(str(n), [response(str(n), key=f"k{n}")])

    [row] = usage_report(conversations(), by="source")
    assert (row.responses, row.conversations) == (3, 3)


def test_an_unknown_grouping_is_refused() -> None:
    with pytest.raises(ValueError, match="by must be one of"):
        usage_report([], by="hour")  # type: ignore[arg-type] # the point of the test


def test_usage_derived_counts() -> None:
    usage = Usage(input_tokens=100, output_tokens=20, cache_read_tokens=60, cache_write_tokens=30)
    assert (usage.total_tokens, usage.uncached_input_tokens) == (120, 10)
    assert Usage().total_tokens is None
    assert Usage(output_tokens=3).uncached_input_tokens is None


# --- prices ---------------------------------------------------------------------------------

PRICES = {
    "sample_spec": {"max_tokens": "set to max_output_tokens", "input_cost_per_token": 0},
    "claude-sonnet-4": {
        "input_cost_per_token": 3e-06,
        "output_cost_per_token": 1.5e-05,
        "cache_read_input_token_cost": 3e-07,
        "cache_creation_input_token_cost": 3.75e-06,
        "input_cost_per_token_above_200k_tokens": 6e-06,
        "output_cost_per_token_above_200k_tokens": 2.25e-05,
        "max_input_tokens": 1000000,
    },
    "openai/gpt-5": {"input_cost_per_token": 1.25e-06, "output_cost_per_token": 1e-05},
}


@pytest.fixture
def prices(tmp_path: Path) -> PriceTable:
    path = tmp_path / "prices.json"
    path.write_text(json.dumps(PRICES, indent=2), encoding="utf-8")
    return PriceTable.from_litellm(path)


def test_costs_follow_the_table_with_cache_and_long_context_prices(prices: PriceTable) -> None:
    cached = response("1", input_tokens=1000, cache_read=600, cache_write=300, output_tokens=100)
    long = response("2", input_tokens=300_000, output_tokens=1000)
    gpt = response("3", model="gpt-5", input_tokens=1000, output_tokens=100)
    [row] = usage_report([conversation("a", [cached, long, gpt])], by="source", prices=prices)
    expected = (
        (100 * 3e-06 + 600 * 3e-07 + 300 * 3.75e-06 + 100 * 1.5e-05)
        + (300_000 * 6e-06 + 1000 * 2.25e-05)
        + (1000 * 1.25e-06 + 100 * 1e-05)
    )
    assert row.cost == pytest.approx(expected)
    assert row.unpriced_responses == 0


def test_unknown_models_are_listed_not_priced_at_zero(prices: PriceTable) -> None:
    items = [
        conversation(
            "a",
            [
                response("1", model="mystery-model"),
                response("2", model=None),
                response("3", model="gpt-5", cache_read=10),  # the table has no cache price
            ],
        )
    ]
    rows = usage_report(items, by="model", prices=prices)
    assert [(r.key, r.cost, r.unpriced_responses) for r in rows] == [
        ("gpt-5", None, 1),
        ("mystery-model", None, 1),
        ("(unknown)", None, 1),
    ]
    assert usage_report(items, by="model")[0].cost is None  # no table: no cost at all


def test_the_sample_spec_and_short_names(prices: PriceTable) -> None:
    assert prices.price("sample_spec") is None
    assert prices.price("gpt-5") is prices.price("openai/gpt-5")
    assert prices.price("anthropic/claude-sonnet-4") is prices.price("claude-sonnet-4")
    assert prices.price(None) is None


@pytest.mark.parametrize(
    ("text", "line", "why"),
    [
        ('{\n  "m": {\n    "input_cost_per_token": 1e-6 2\n  }\n}', 3, "not JSON"),
        ("[1, 2]", 1, "not a JSON object"),
        (
            '{\n"a": {},\n"m": {"input_cost_per_token": "cheap", "output_cost_per_token": 1}}',
            3,
            "cheap",
        ),
        ('{"m": {"input_cost_per_token": -1, "output_cost_per_token": 1}}', 1, "not a price"),
    ],
)
def test_a_bad_price_file_names_the_file_and_line(
    tmp_path: Path, text: str, line: int, why: str
) -> None:
    path = tmp_path / "prices.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(PriceFileError, match=why) as caught:
        PriceTable.from_litellm(path)
    assert caught.value.line == line
    assert str(caught.value).startswith(f"{path}, line {line}: ")


def test_a_missing_price_file(tmp_path: Path) -> None:
    with pytest.raises(PriceFileError, match="cannot be read"):
        PriceTable.from_litellm(tmp_path / "absent.json")


def test_rows_are_public_and_frozen() -> None:
    row = UsageRow(key="k")
    assert chatparse.UsageRow is UsageRow
    with pytest.raises(AttributeError):
        row.key = "other"  # type: ignore[misc] # frozen
