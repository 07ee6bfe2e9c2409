"""The moved clock the kit parses a case under: every usual way of reading "now" is moved."""

from __future__ import annotations

import datetime as dt
import sys
import time
import types
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta

import pytest

from chatparse.testing._home import moved_clock

OFFSET = timedelta(days=3653, hours=7)
SLACK = timedelta(minutes=5)  # the test's own time passing, and local-time offsets

READER = """
import datetime as dt
import time
from datetime import UTC, date, datetime
from time import time as clock


def readings():
    return {
        "datetime.now": datetime.now(UTC),
        "datetime.today": datetime.today().astimezone(UTC),
        "module datetime.now": dt.datetime.now(UTC),
        "time.time": datetime.fromtimestamp(time.time(), UTC),
        "imported time": datetime.fromtimestamp(clock(), UTC),
        "time.time_ns": datetime.fromtimestamp(time.time_ns() / 1e9, UTC),
        "time.gmtime": datetime(*time.gmtime()[:6], tzinfo=UTC),
    }


def utcnow():
    return datetime.utcnow().replace(tzinfo=UTC)


def made():
    return datetime(2020, 1, 1, tzinfo=UTC), date(2020, 1, 1), date.today()
"""


@pytest.fixture
def reader() -> Iterator[types.ModuleType]:
    """A module of a package ``kit_clock_pkg`` that reads the clock in every usual way."""
    module = types.ModuleType("kit_clock_pkg.reader")
    sys.modules[module.__name__] = module
    exec(compile(READER, "<reader>", "exec"), module.__dict__)  # noqa: S102 -- test source
    yield module
    del sys.modules[module.__name__]


def test_every_reading_is_moved(reader: types.ModuleType) -> None:
    """Inside the block every reading is OFFSET ahead; outside, none is."""
    with moved_clock(OFFSET, ["kit_clock_pkg"]):
        moved = reader.readings()
        moved["datetime.utcnow"] = reader.utcnow()  # deprecated outside (3.12): inside only
    now = datetime.now(UTC)
    for name, reading in moved.items():
        assert abs(reading - (now + OFFSET)) < SLACK, name
    for name, reading in reader.readings().items():
        assert abs(reading - now) < SLACK, name


def test_values_made_inside_are_real_and_compare_as_usual(reader: types.ModuleType) -> None:
    """A datetime made inside is a real datetime; isinstance and equality are unchanged."""
    with moved_clock(OFFSET, ["kit_clock_pkg"]):
        made, day, today = reader.made()
        assert isinstance(datetime(2021, 1, 1, tzinfo=UTC), reader.datetime)
        assert isinstance(made, dt.datetime)
    assert type(made) is datetime
    assert made == datetime(2020, 1, 1, tzinfo=UTC)
    assert type(day) is date
    assert abs(today - (datetime.now(UTC) + OFFSET).date()) <= timedelta(days=1)


def test_everything_is_put_back(reader: types.ModuleType) -> None:
    """After the block, also one left by an exception, the modules hold the real things."""
    originals = (time.time, time.time_ns, dt.datetime, dt.date)
    with pytest.raises(RuntimeError), moved_clock(OFFSET, ["kit_clock_pkg"]):
        raise RuntimeError
    assert (time.time, time.time_ns, dt.datetime, dt.date) == originals
    assert (reader.datetime, reader.date, reader.clock) == (datetime, date, time.time)


def test_other_packages_keep_their_imported_names(reader: types.ModuleType) -> None:
    """Only the named packages' own imports are replaced: this test module keeps its clock."""
    with moved_clock(OFFSET, ["kit_clock_pkg"]):
        assert abs(datetime.now(UTC) - dt.datetime.now(UTC)) > OFFSET - SLACK
        assert reader.datetime is not datetime
