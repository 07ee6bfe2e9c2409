"""The installed `chatparse` console script, run in a subprocess against real fixture homes."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import chatparse
from chatparse.testing import materialize

ROOT = Path(__file__).resolve().parent.parent
CASES = (
    "fixtures/claude-code/tool-pairing",
    "fixtures/codex/modern-rollout",
    "fixtures/cursor/heads-and-global-bubbles",
)
SOURCES = ("claude-code", "codex", "cursor")


def command() -> list[str]:
    """The console script installed beside this interpreter, as a user would run it."""
    script = Path(sys.executable).with_name("chatparse")
    return [str(script)] if script.exists() else [sys.executable, "-m", "chatparse"]


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*command(), *args], capture_output=True, text=True, check=False)


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """One home made of three sources' fixture homes, databases materialized."""
    if not (ROOT / "fixtures").is_dir():
        pytest.skip("needs the repository's fixtures")
    target = tmp_path_factory.mktemp("console") / "home"
    target.mkdir()
    for case in CASES:
        shutil.copytree(ROOT / case / "home", target, dirs_exist_ok=True)
    with materialize(target):
        yield target


def lines(result: subprocess.CompletedProcess[str]) -> list[dict[str, object]]:
    assert result.returncode == 0, result.stderr
    return [json.loads(line) for line in result.stdout.splitlines()]


@pytest.mark.skipif(
    sys.platform != "linux",
    reason="the Cursor fixture home is a Linux layout, and --home without --platform reads it as"
    " this OS's layout, where Cursor lives elsewhere",
)
def test_detect_and_scan_json(home: Path) -> None:
    """Detect and scan --json read back into model objects, one per source and conversation."""
    found = [
        chatparse.from_dict(chatparse.SourceInfo, row)
        for row in lines(run("--home", str(home), "detect", "--json"))
    ]
    assert sorted(info.source for info in found) == list(SOURCES)
    metas = [
        chatparse.from_dict(chatparse.ConversationMeta, row)
        for row in lines(run("--home", str(home), "scan", "--json"))
    ]
    assert sorted({meta.source for meta in metas}) == list(SOURCES)


def test_parse_by_id_json_and_markdown(home: Path) -> None:
    """Parse ID prints a conversation that reads back, or a Markdown transcript."""
    [meta] = [
        row
        for row in lines(run("--home", str(home), "--source", "codex", "scan", "--json"))
        if row["source"] == "codex"
    ]
    result = run("--home", str(home), "--source", "codex", "parse", str(meta["id"]))
    assert result.returncode == 0, result.stderr
    conversation = chatparse.from_json(chatparse.ParsedConversation, result.stdout)
    assert conversation.messages
    markdown = run("--home", str(home), "parse", str(meta["path"]), "--format", "markdown")
    assert markdown.returncode == 0, markdown.stderr
    assert markdown.stdout.startswith("# ")
    assert "\n## User · " in markdown.stdout


def test_export_twice_with_state_writes_nothing_new(home: Path, tmp_path: Path) -> None:
    """The second export with --state parses and writes nothing."""
    out, state = tmp_path / "out", tmp_path / "state.json"
    argv = ["--home", str(home), "export", "--out", str(out), "--format", "json"]
    argv += ["--state", str(state), "--json"]
    [first] = lines(run(*argv))
    assert first["exported"] == first["found"]
    assert first["failed"] == 0
    written = {path: path.stat().st_mtime_ns for path in out.rglob("*")}
    [second] = lines(run(*argv))
    assert second == {
        "found": first["found"],
        "exported": 0,
        "unchanged": first["found"],
        "failed": 0,
    }
    assert {path: path.stat().st_mtime_ns for path in out.rglob("*")} == written


def test_doctor_names_each_source(home: Path) -> None:
    """Doctor explains each adapter: where it looked and what it found."""
    result = run("--home", str(home), "doctor")
    assert result.returncode == 0, result.stderr
    for name in (*SOURCES, "copilot", "trae"):
        assert f"\n{name}\n" in result.stdout
    assert "CODEX_HOME is not set" in result.stdout
    assert "not found on this home" in result.stdout  # copilot and trae have no data here


def test_conformance_and_adapters() -> None:
    """Conformance prints its closing count; adapters --json lists every built-in as loadable."""
    result = run("conformance", str(ROOT / "fixtures" / "codex"))
    assert result.returncode == 0, result.stdout
    assert result.stdout.rstrip().endswith(" passed, 0 failed")
    rows = {row["name"]: row for row in lines(run("adapters", "--json", "--check"))}
    assert {name: rows[name]["status"] for name in (*SOURCES, "copilot", "trae")} == dict.fromkeys(
        (*SOURCES, "copilot", "trae"), "ok"
    )


def test_exit_codes() -> None:
    """Usage errors exit 2 with one line and no traceback; --debug shows the traceback."""
    result = run("--source", "nope", "scan")
    assert result.returncode == 2
    assert result.stderr.startswith("chatparse: error: no chatparse adapter is named 'nope'")
    assert "Traceback" not in result.stderr
    debug = run("--debug", "--source", "nope", "scan")
    assert "Traceback" in debug.stderr
