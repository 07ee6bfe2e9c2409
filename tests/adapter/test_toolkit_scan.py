"""The toolkit's helpers around files: a head, a stat and meta, decoded lines, ``explain``."""

from __future__ import annotations

import os
import warnings
from datetime import UTC, datetime
from pathlib import Path

import pytest

from chatparse.adapter import Ledger, explain_variable, file_meta, file_stat, read_head
from chatparse.errors import SkippedSourceWarning
from chatparse.host import Host


def test_read_head_reads_the_start_and_nothing_it_cannot_open(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    path.write_bytes(b"x" * 5000)
    assert read_head(path) == b"x" * 4096
    assert read_head(str(path), 3) == b"xxx"
    assert read_head(tmp_path / "gone") == b""
    assert read_head(tmp_path) == b""  # a folder


def test_file_meta_takes_size_time_and_fingerprint_from_the_stat(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"12345")
    os.utime(path, ns=(1, 2_000_000_003))
    meta = file_meta("toy", "s", path, path.stat(), title="Hi", locator={"layout": "flat"})
    assert (meta.source, meta.id, meta.path, meta.title) == ("toy", "s", str(path), "Hi")
    assert (meta.size, meta.fingerprint) == (5, "5:2000000003")
    assert meta.mtime == datetime(1970, 1, 1, 0, 0, 2, tzinfo=UTC)
    assert meta.locator == {"layout": "flat"}
    assert file_meta("toy", "s", str(path), path.stat(), fingerprint="k").fingerprint == "k"
    assert file_meta("toy", "s", path, path.stat()).locator == {}


def test_file_stat_is_none_for_a_gone_file_and_warns_for_an_unreadable_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"123")
    info = file_stat(path)
    assert info is not None
    assert info.st_size == 3
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert file_stat(tmp_path / "gone") is None

    def refuse(self: Path, **_: object) -> None:
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(Path, "stat", refuse)  # as for a file in a folder of mode r--
    with pytest.warns(SkippedSourceWarning, match=r"passed over .*s\.jsonl: cannot be read"):
        assert file_stat(path) is None


def test_explain_variable_says_whether_it_is_set_and_what_it_replaces(tmp_path: Path) -> None:
    bare = Host(home=tmp_path, env={"GROK_HOME": ""}, platform="linux")
    moved = Host(home=tmp_path, env={"GROK_HOME": "/x"}, platform="linux")
    assert explain_variable(bare, "GROK_HOME") == "GROK_HOME is not set"
    assert explain_variable(moved, "GROK_HOME") == "GROK_HOME is set: /x"
    assert explain_variable(bare, "GROK_HOME", "~/.grok") == "GROK_HOME is not set: using ~/.grok"
    assert (
        explain_variable(moved, "GROK_HOME", "~/.grok")
        == "GROK_HOME is set: /x (so ~/.grok is not read)"
    )


def test_decoded_lines_count_each_line_that_does_not_decode_as_malformed(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    path.write_bytes(b'{"a": 1}\nnot json\n\n[2]\n')
    ledger = Ledger()
    values = [(line.line_no, line.value) for line in ledger.decoded_lines(path)]
    assert values == [(1, {"a": 1}), (4, [2])]  # any JSON value; blank lines are no records
    assert (ledger.seen, ledger.malformed) == (1, 1)
    assert len(ledger.warnings) == 1
    assert ledger.warnings[0].startswith("line 2: ")
