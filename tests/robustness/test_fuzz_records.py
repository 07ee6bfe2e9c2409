"""Property tests: real records from every adapter's fixtures, damaged, never crash or unbalance."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chatparse.testing import Case, materialize
from robustness._mutate import mutate_db, mutate_document, mutate_jsonl
from robustness._support import ADAPTERS, budget, cases_of, check_all, run_adapter

# Every case that has something to damage: a JSON Lines file, a JSON file or a database.
# Every case that has something to damage: a JSON Lines file, a JSON file, a database, or a
# line-based text log (Aider's chat and input histories, damaged like JSON Lines).
_TEXT_LOGS = (".jsonl", ".aider.chat.history.md", ".aider.input.history")
_SUFFIXES = (*_TEXT_LOGS, ".json", ".sqlite.toml", ".vscdb")


def _targets(case: Case) -> list[str]:
    return sorted(
        path.relative_to(case.home_dir).as_posix()
        for path in case.home_dir.rglob("*")
        if path.is_file() and path.name.endswith(_SUFFIXES)
    )


def _fuzzable(adapter: str) -> list[tuple[Case, list[str]]]:
    return [(case, targets) for case in cases_of(adapter) if (targets := _targets(case))]


@pytest.mark.parametrize("adapter", ADAPTERS)
@settings(
    max_examples=budget(12),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(data=st.data())
def test_damaged_records_parse_balanced_and_round_trip(adapter: str, data: st.DataObject) -> None:
    """A fixture home with damaged records parses without raising, balanced and round-tripping."""
    case, targets = data.draw(st.sampled_from(_fuzzable(adapter)), label="case")
    target = data.draw(st.sampled_from(targets), label="file")
    with tempfile.TemporaryDirectory(prefix="chatparse-fuzz-") as tmp:
        home = Path(tmp) / "home"
        shutil.copytree(case.home_dir, home, symlinks=True)
        path = home / target
        if target.endswith(_TEXT_LOGS):
            path.write_bytes(mutate_jsonl(data, path.read_bytes()))
        elif target.endswith(".json"):
            path.write_bytes(mutate_document(data, path.read_bytes()))
        with materialize(home):
            if target.endswith(".sqlite.toml"):
                mutate_db(data, home / target.removesuffix(".sqlite.toml"))
            elif target.endswith(".vscdb"):
                mutate_db(data, path)
            parsed = run_adapter(case, home)
        check_all(parsed)
