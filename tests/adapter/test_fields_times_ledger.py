"""The helpers every built-in adapter shares: typed field readers and the record ledger."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from chatparse.adapter.fields import as_count, as_text, as_token_count, dig, parts_within_wholes
from chatparse.adapter.ledger import Ledger
from chatparse.adapter.times import as_datetime


@pytest.mark.parametrize(
    ("value", "text", "count"),
    [
        ("a", "a", None),
        ("", "", None),
        (3, None, 3),
        (0, None, 0),
        (-1, None, None),
        (True, None, None),
        (2.0, None, None),
        (None, None, None),
        ({}, None, None),
    ],
)
def test_typed_readers(value: object, text: str | None, count: int | None) -> None:
    """A value of the wrong type reads as None, never as a coerced value."""
    assert as_text(value) == text
    assert as_count(value) == count


def test_dig_stops_at_the_first_missing_level() -> None:
    """Walking objects with dig gives None at the first level that is not there."""
    data = {"a": {"b": {"c": 1}}, "x": [1]}
    assert dig(data, "a", "b", "c") == 1
    assert dig(data, "a", "z", "c") is None
    assert dig(data, "x", "0") is None
    assert dig("not an object", "a") is None


def test_as_datetime_needs_a_zone() -> None:
    """ISO strings with a zone become UTC; without a zone or not a string, None."""
    assert as_datetime("2025-01-01T01:00:00+01:00") == datetime(2025, 1, 1, tzinfo=UTC)
    assert as_datetime("2025-01-01T00:00:00Z") == datetime(2025, 1, 1, tzinfo=UTC)
    assert as_datetime("2025-01-01T00:00:00") is None
    assert as_datetime("yesterday") is None
    assert as_datetime(1735689600) is None


def test_ledger_balances_and_reports() -> None:
    """Every record lands in one bucket, and the diagnostics balance."""
    ledger = Ledger()
    ledger.use()
    ledger.skip("noise")
    ledger.skip("noise")
    ledger.bad("line 4", "not valid JSON")
    ledger.bad()
    ledger.keep("line 6", "future", '{"type":"future","x":"\ud83d"}', "9.9")
    diagnostics = ledger.diagnostics()
    assert diagnostics.balanced
    assert (diagnostics.records_seen, diagnostics.records_used, diagnostics.malformed) == (6, 1, 2)
    assert dict(diagnostics.skipped) == {"noise": 2}
    assert diagnostics.warnings == ("line 4: not valid JSON",)
    [unknown] = diagnostics.unknown
    assert unknown.raw == '{"type":"future","x":"\ufffd"}'
    assert unknown.producer_version == "9.9"
    assert ledger.diagnostics(["store damaged"]).warnings == ("store damaged",)


@pytest.mark.parametrize(
    ("value", "expected", "said"),
    [
        (0, 0, False),
        (10**12, 10**12, False),
        (None, None, False),
        (10**12 + 1, None, True),
        (-1, None, True),
        (1.5, None, True),
        (True, None, True),
        ("7", None, True),
    ],
)
def test_token_counts_that_are_no_counts_are_said(
    value: object, expected: int | None, *, said: bool
) -> None:
    problems: list[str] = []
    assert as_token_count(value, problems, "usage.input") == expected
    assert bool(problems) is said
    if said:
        assert problems == [f"usage.input {value!r} is not a token count; left out"]


def test_parts_within_their_wholes_are_kept() -> None:
    counts = {
        "input_tokens": 100,
        "cache_read_tokens": 60,
        "cache_write_tokens": 40,
        "output_tokens": 10,
        "reasoning_tokens": 10,
    }
    problems: list[str] = []
    assert parts_within_wholes(counts, problems) == counts
    assert problems == []


def test_parts_larger_than_their_wholes_are_left_out_and_said() -> None:
    """Both cache counts go when their sum is too large; reasoning goes alone; input stays."""
    counts = {
        "input_tokens": 100,
        "cache_read_tokens": 70,
        "cache_write_tokens": 40,
        "output_tokens": 10,
        "reasoning_tokens": 11,
    }
    problems: list[str] = []
    kept = parts_within_wholes(counts, problems)
    assert kept == {
        "input_tokens": 100,
        "cache_read_tokens": None,
        "cache_write_tokens": None,
        "output_tokens": 10,
        "reasoning_tokens": None,
    }
    assert counts["cache_read_tokens"] == 70  # the caller's counts are not changed
    assert problems == [
        "cache reads and writes (110) exceed input_tokens (100); left out",
        "reasoning_tokens (11) exceed output_tokens (10); left out",
    ]


def test_parts_of_an_unknown_whole_are_kept() -> None:
    """Without input_tokens (or output_tokens) nothing is known to be too large."""
    counts = {"input_tokens": None, "cache_read_tokens": 70, "reasoning_tokens": 11}
    problems: list[str] = []
    assert parts_within_wholes(counts, problems) == counts
    assert problems == []
