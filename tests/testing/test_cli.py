"""``chatparse conformance DIR``: output lines, exit codes, --update and --adapter."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import chatparse
from chatparse.cli import main

pytestmark = pytest.mark.skipif(
    "toy" not in chatparse.adapter_names(), reason="needs the chatparse-toy plugin installed"
)


@pytest.fixture
def fixtures(tmp_path: Path, toy_fixtures: Path) -> Path:
    """A writable copy of the toy plugin's fixtures."""
    copy = tmp_path / "fixtures"
    shutil.copytree(toy_fixtures, copy)
    return copy


def test_all_pass(fixtures: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """One PASS line per case, then the count, exit 0."""
    assert main(["conformance", str(fixtures)]) == 0
    out = capsys.readouterr().out
    assert out == "PASS toy/basic\nPASS toy/no-source\nPASS toy/two-chats\n3 passed, 0 failed\n"


def test_failure_lines_details_and_exit_code(
    fixtures: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A wrong golden gives FAIL name: reason on stdout, the diff and the command on stderr."""
    golden = fixtures / "toy" / "basic" / "expected.json"
    golden.write_text(golden.read_text(encoding="utf-8").replace("Greeting", "Farewell"))
    (fixtures / "toy" / "two-chats" / "expected.json").unlink()
    assert main(["conformance", str(fixtures)]) == 1
    captured = capsys.readouterr()
    assert captured.out.splitlines() == [
        "FAIL toy/basic: the output differs from expected.json",
        "PASS toy/no-source",
        "FAIL toy/two-chats: no golden: expected.json is missing (a missing golden fails)",
        "1 passed, 2 failed",
    ]
    assert '-      "title": "Farewell",' in captured.err
    assert '+      "title": "Greeting",' in captured.err
    assert f"chatparse conformance {fixtures} --update" in captured.err


def test_update_then_pass(fixtures: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--update rewrites what differs, says so, and the next run passes."""
    (fixtures / "toy" / "basic" / "expected.json").write_text("{}\n", encoding="utf-8")
    assert main(["conformance", str(fixtures), "--update"]) == 0
    captured = capsys.readouterr()
    assert "PASS toy/basic (golden updated)" in captured.out
    assert "PASS toy/no-source\n" in captured.out
    assert "rewrote 1 golden file(s)" in captured.err
    assert main(["conformance", str(fixtures)]) == 0


def test_adapter_filter_and_no_cases(fixtures: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--adapter selects cases; selecting none is a failure, not a silent pass."""
    assert main(["conformance", str(fixtures), "--adapter", "toy"]) == 0
    assert capsys.readouterr().out.endswith("3 passed, 0 failed\n")
    assert main(["conformance", str(fixtures), "--adapter", "other"]) == 1
    out = capsys.readouterr().out
    assert out.splitlines()[-1] == "0 passed, 0 failed"
    assert "no conformance cases for adapter 'other'" in out


def test_single_case_and_adapter_folder(fixtures: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """DIR may be one adapter's folder or one case."""
    assert main(["conformance", str(fixtures / "toy")]) == 0
    assert main(["conformance", str(fixtures / "toy" / "basic")]) == 0
    assert capsys.readouterr().out.endswith("PASS toy/basic\n1 passed, 0 failed\n")


def test_orphan_golden_fails(fixtures: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A golden whose case is gone fails the run."""
    orphan = fixtures / "toy" / "gone"
    orphan.mkdir()
    (orphan / "expected.json").write_text("{}\n", encoding="utf-8")
    assert main(["conformance", str(fixtures), "--update"]) == 1
    assert "FAIL toy/gone: orphan golden" in capsys.readouterr().out


def test_missing_directory_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A DIR that does not exist exits 2 with a message."""
    assert main(["conformance", str(tmp_path / "nope")]) == 2
    assert "not a directory" in capsys.readouterr().err


def test_real_command_in_a_subprocess(fixtures: Path) -> None:
    """The real command, run as ``python -m chatparse``, uses the same engine end to end."""
    done = subprocess.run(
        [sys.executable, "-m", "chatparse", "conformance", str(fixtures)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "3 passed, 0 failed"


def test_engine_main_parses_its_own_arguments(
    fixtures: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """chatparse.testing.main(argv) is the same command without the chatparse prefix."""
    from chatparse.testing import main as engine_main  # noqa: PLC0415 -- the name under test

    assert engine_main([str(fixtures), "--adapter", "toy"]) == 0
    assert capsys.readouterr().out.endswith("3 passed, 0 failed\n")
