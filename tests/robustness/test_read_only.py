"""No adapter writes, creates, renames or deletes anything under the home, for any fixture case."""

from __future__ import annotations

import os
import sqlite3
import tempfile
import warnings
from contextlib import closing
from pathlib import Path

import pytest

import chatparse
from chatparse.errors import SkippedSourceWarning
from chatparse.testing import Case
from chatparse.testing._home import compare_snapshots, snapshot
from robustness._readonly import watch_writes
from robustness._support import ADAPTERS, case_home, cases_of, host_for

CASES = [case for adapter in ADAPTERS for case in cases_of(adapter)]


def _exercise(case: Case, home: Path) -> int:
    """Everything a caller can do to a home: detect, scan, parse, iterate, doctor, parse_path."""
    adapter = chatparse.get_adapter(case.adapter)
    host = host_for(case, home)
    count = 0
    found = adapter.detect(host)
    explain = getattr(adapter, "explain", None)
    if explain is not None:
        list(explain(host))
    if found is None:
        return 0
    for meta in list(adapter.scan(found)):
        adapter.parse(meta)
        chatparse.parse_path(meta.path, source=case.adapter)
        count += 1
    count += sum(
        1 for _ in chatparse.iter_conversations(host, sources=case.adapter, errors="raise")
    )
    return count


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_nothing_under_the_home_is_written(case: Case) -> None:
    """Detect, scan, parse, doctor and parse_path open nothing for writing and change no file."""
    with (
        tempfile.TemporaryDirectory(prefix="chatparse-ro-") as tmp,
        case_home(case, Path(tmp)) as home,
    ):
        before = snapshot(home)
        # A case with a damaged store is passed over with a warning: not what is tested here.
        with watch_writes(home) as writes, warnings.catch_warnings():
            warnings.simplefilter("ignore", SkippedSourceWarning)
            _exercise(case, home)
        assert writes == []
        assert compare_snapshots(before, snapshot(home)) == []


def test_the_watch_sees_writes_renames_deletions_and_read_write_connections(tmp_path: Path) -> None:
    """Each kind of write the read-only test looks for is recorded, so that test can fail."""
    target = tmp_path / "a.txt"
    outside = tmp_path.parent / f"{tmp_path.name}-outside.txt"
    with watch_writes(tmp_path) as writes:
        target.write_text("x", encoding="utf-8")
        target.read_text(encoding="utf-8")
        target.rename(tmp_path / "b.txt")
        (tmp_path / "b.txt").unlink()
        (tmp_path / "d").mkdir()
        with closing(sqlite3.connect(tmp_path / "db")):
            pass
        with closing(sqlite3.connect(f"{(tmp_path / 'db').as_uri()}?mode=ro", uri=True)):
            pass
        outside.write_text("not watched", encoding="utf-8")
    outside.unlink()
    kinds = [entry.partition("(")[0] for entry in writes]
    assert kinds == ["open", "os.rename", "os.rename", "os.remove", "os.mkdir", "sqlite3.connect"]
    assert os.fspath(target) in writes[0]
