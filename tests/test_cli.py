"""The command line as far as Foundation goes: --version and adapters."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

import chatparse
from chatparse import cli

PLUGIN_INSTALLED = os.environ.get("CHATPARSE_TEST_PLUGIN_INSTALLED") == "1"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "chatparse", *args], capture_output=True, text=True, check=False
    )


def test_version() -> None:
    """--version prints the installed version."""
    result = run("--version")
    assert result.returncode == 0
    assert result.stdout.strip() == f"chatparse {chatparse.__version__}"


def test_adapters_lists_builtins_with_status(capsys: pytest.CaptureFixture[str]) -> None:
    """`adapters` lists every built-in, where it comes from, and why it cannot load yet."""
    assert cli.main(["adapters"]) == 0
    lines = capsys.readouterr().out.splitlines()
    for name in ("claude-code", "codex", "copilot", "cursor", "trae"):
        [line] = [line for line in lines if line.startswith(f"{name} ")]
        assert "builtin (chatparse)" in line
        assert "NOT LOADABLE" in line


def test_adapters_json_and_check(capsys: pytest.CaptureFixture[str]) -> None:
    """--json gives one object per adapter; --check fails while an adapter cannot load."""
    assert cli.main(["adapters", "--json", "--check"]) == 1
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    by_name = {row["name"]: row for row in rows}
    assert by_name["codex"]["status"] == "error"
    assert by_name["codex"]["origin"] == "builtin"
    assert "does not include it yet" in by_name["codex"]["error"]


@pytest.mark.skipif(not PLUGIN_INSTALLED, reason="needs tests/plugin_pkg installed (nox -s tests)")
def test_adapters_lists_installed_plugin() -> None:
    """With the toy distribution installed, `chatparse adapters` lists and loads it."""
    result = run("adapters")
    assert result.returncode == 0
    [line] = [line for line in result.stdout.splitlines() if line.startswith("toy ")]
    assert "plugin (chatparse-toy)" in line
    assert "Toy Chat, parser 1" in line


def test_usage_error_exit_code() -> None:
    """An unknown command is a usage error (exit 2)."""
    assert run("frobnicate").returncode == 2
