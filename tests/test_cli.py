"""The chatparse command: every subcommand, JSON output read back, and exit codes."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

import chatparse
from chatparse import cli, registry

from conftest import GHOST_BUILTIN, NoteAdapter

PLUGIN_INSTALLED = os.environ.get("CHATPARSE_TEST_PLUGIN_INSTALLED") == "1"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    """Run the command in a fresh interpreter, as a user would."""
    return subprocess.run(
        [sys.executable, "-m", "chatparse", *args], capture_output=True, text=True, check=False
    )


@pytest.fixture
def notes(tmp_path: Path, ghost_builtins: registry.Registry) -> Path:
    """A home with two notes conversations, the notes adapter, and one unwritten built-in."""
    ghost_builtins.register(NoteAdapter, replace=False)
    folder = tmp_path / "home" / ".notes"
    folder.mkdir(parents=True)
    (folder / "first.txt").write_text("hello\n# not a heading\n", encoding="utf-8")
    (folder / "second.txt").write_text("again\n", encoding="utf-8")
    return tmp_path / "home"


def call(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_version() -> None:
    """--version prints the installed version."""
    result = run("--version")
    assert result.returncode == 0
    assert result.stdout.strip() == f"chatparse {chatparse.__version__}"


def test_help_has_examples() -> None:
    """Every subcommand's --help shows examples."""
    for command in ("adapters", "detect", "scan", "parse", "export", "conformance", "doctor"):
        result = run(command, "--help")
        assert result.returncode == 0
        assert "examples:" in result.stdout


def test_usage_error_exit_code() -> None:
    """An unknown command is a usage error (exit 2)."""
    assert run("frobnicate").returncode == 2


def test_missing_home_is_one_line_error() -> None:
    """An environment error is one line on stderr and exit 2, no traceback."""
    result = run("--home", "/definitely/not/here", "scan")
    assert result.returncode == 2
    assert result.stderr.strip() == "chatparse: error: --home /definitely/not/here: not a directory"


def test_adapters_lists_builtins() -> None:
    """`adapters` lists every built-in with where it comes from."""
    result = run("adapters")
    assert result.returncode == 0
    for name in ("claude-code", "codex", "copilot", "cursor", "trae"):
        assert any(
            line.startswith(f"{name} ") and "builtin (chatparse)" in line
            for line in result.stdout.splitlines()
        )


@pytest.mark.usefixtures("ghost_builtins")
def test_adapters_json_and_check(capsys: pytest.CaptureFixture[str]) -> None:
    """--json gives one object per adapter; --check fails while an adapter cannot load."""
    code, out, _ = call(capsys, "adapters", "--json", "--check")
    assert code == 1
    by_name = {row["name"]: row for row in map(json.loads, out.splitlines())}
    assert by_name[GHOST_BUILTIN]["status"] == "error"
    assert by_name[GHOST_BUILTIN]["origin"] == "builtin"
    assert "does not include it yet" in by_name[GHOST_BUILTIN]["error"]
    code, out, _ = call(capsys, "adapters")
    assert code == 0
    assert "NOT LOADABLE" in out


@pytest.mark.skipif(not PLUGIN_INSTALLED, reason="needs tests/plugin_pkg installed (nox -s tests)")
def test_adapters_lists_installed_plugin() -> None:
    """With the toy distribution installed, `chatparse adapters` lists and loads it."""
    result = run("adapters")
    assert result.returncode == 0
    [line] = [line for line in result.stdout.splitlines() if line.startswith("toy ")]
    assert "plugin (chatparse-toy)" in line
    assert "Toy Chat, parser 2" in line


def test_detect_and_scan(notes: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Detect and scan report the fake home, as a table and as JSON lines read back."""
    code, out, err = call(capsys, "--home", str(notes), "--source", "notes", "detect")
    assert code == 0
    assert "notes" in out
    assert str(notes / ".notes") in out
    assert err == ""
    code, out, _ = call(capsys, "--home", str(notes), "scan", "--json", "--source", "notes")
    assert code == 0
    metas = [
        chatparse.from_dict(chatparse.ConversationMeta, json.loads(line))
        for line in out.splitlines()
    ]
    assert [meta.id for meta in metas] == ["first", "second"]
    code, out, err = call(capsys, "--home", str(notes), "scan")
    assert code == 0
    assert "2 conversation(s)" in out
    assert "does not include it yet" in err  # the unwritten built-in, as a one-line warning
    assert err.startswith("chatparse: warning:")


def test_parse_by_id_and_path(notes: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Parse takes an id (found by scanning) or a path, and prints JSON or Markdown."""
    code, out, _ = call(capsys, "--home", str(notes), "--source", "notes", "parse", "first")
    assert code == 0
    parsed = chatparse.from_json(chatparse.ParsedConversation, out)
    assert [m.text for m in parsed.messages] == ["hello", "# not a heading"]
    path = str(notes / ".notes" / "second.txt")
    code, out, _ = call(capsys, "parse", path, "--source", "notes", "--format", "markdown")
    assert code == 0
    assert out.startswith("# second\n")
    code, _, err = call(capsys, "--home", str(notes), "--source", "notes", "parse", "nope")
    assert code == 2
    assert "no conversation has that id" in err


def test_export_is_incremental(
    notes: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A second export with --state writes nothing; a changed conversation is written again."""
    out_dir = tmp_path / "out"
    state = tmp_path / "state.json"
    argv = ["--home", str(notes), "--source", "notes", "export", "--out", str(out_dir)]
    argv += ["--format", "markdown", "--state", str(state), "--json"]
    code, out, _ = call(capsys, *argv)
    assert (code, json.loads(out)) == (0, {"found": 2, "exported": 2, "unchanged": 0, "failed": 0})
    files = sorted(out_dir.rglob("*.md"))
    assert len(files) == 2
    before = {path: path.stat().st_mtime_ns for path in [*files, state]}
    code, out, _ = call(capsys, *argv)
    assert json.loads(out) == {"found": 2, "exported": 0, "unchanged": 2, "failed": 0}
    assert {path: path.stat().st_mtime_ns for path in [*files, state]} == before
    (notes / ".notes" / "second.txt").write_text("again\nand more\n", encoding="utf-8")
    code, out, _ = call(capsys, *argv)
    assert json.loads(out)["exported"] == 1


@pytest.mark.parametrize("fmt", ["jsonl", "json"])
def test_export_formats_read_back(
    notes: Path, tmp_path: Path, fmt: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Exported JSON and JSONL read back into equal conversations."""
    out_dir = tmp_path / fmt
    code, _, _ = call(
        capsys,
        "--home",
        str(notes),
        "--source",
        "notes",
        "export",
        "--out",
        str(out_dir),
        "--format",
        fmt,
    )
    assert code == 0
    if fmt == "jsonl":
        rows = (out_dir / "conversations.jsonl").read_text(encoding="utf-8").splitlines()
        texts = rows
    else:
        texts = [path.read_text(encoding="utf-8") for path in sorted(out_dir.rglob("*.json"))]
    ids = sorted(chatparse.from_json(chatparse.ParsedConversation, text).id for text in texts)
    assert ids == ["first", "second"]


def test_export_reports_failures_and_exits_1(
    notes: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A conversation that fails to parse is reported and skipped; the exit code is 1."""
    (notes / ".notes" / "boom.txt").write_text("x\n", encoding="utf-8")
    code, out, err = call(
        capsys, "--home", str(notes), "--source", "notes", "export", "--out", str(tmp_path / "o")
    )
    assert code == 1
    assert "failed: notes boom" in err
    assert "2 exported, 0 unchanged, 1 failed" in out


def test_doctor_explains(notes: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Doctor says which adapters cannot load, which found nothing, and what was found."""
    (notes / ".notes" / "empty.txt").write_text("", encoding="utf-8")
    code, out, _ = call(capsys, "--home", str(notes), "doctor")
    assert code == 0
    assert f"{GHOST_BUILTIN}\n  cannot be loaded:" in out
    assert "3 conversation(s) listed, 0 failed to parse" in out
    assert "1 conversation(s) have no messages" in out


def test_platform_needs_home() -> None:
    """--platform only makes sense for another machine's home."""
    result = run("--platform", "darwin", "detect")
    assert result.returncode == 2
    assert "--platform needs --home" in result.stderr


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_export_progress_only_on_a_terminal(notes: Path, tmp_path: Path) -> None:
    """Progress (done/total, rate, ETA) goes to stderr when it is a terminal, and only then."""
    args = cli._build_parser().parse_args(
        ["--home", str(notes), "--source", "notes", "export", "--out", str(tmp_path / "a")]
    )
    terminal = _Terminal()
    assert cli._export(args, io.StringIO(), terminal) == 0
    assert "2/2 conversations" in terminal.getvalue()
    assert "ETA" in terminal.getvalue()
    args.out = tmp_path / "b"
    piped = io.StringIO()
    assert cli._export(args, io.StringIO(), piped) == 0
    assert piped.getvalue() == ""


@pytest.mark.parametrize("output", ["json", "markdown"])
def test_parse_of_a_file_with_no_conversation_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], output: str
) -> None:
    """An empty session file is valid, not an error; but an empty page alone would look like one."""
    session = tmp_path / ".claude" / "projects" / "-p" / "empty.jsonl"
    session.parent.mkdir(parents=True)
    session.write_bytes(b"")
    assert cli.main(["parse", str(session), "--format", output]) == cli.EXIT_OK
    captured = capsys.readouterr()
    assert f"chatparse: no conversation in {session}" in captured.err
    assert captured.out.strip() == ("[]" if output == "json" else "")


# --- the command as a Unix citizen (issue #22) ---------------------------------------------

ROOT = Path(__file__).resolve().parent.parent
DEMO_HOME = Path(chatparse.__file__).parent / "_demo" / "home"
DEMO_ROLLOUT = next(DEMO_HOME.glob(".codex/sessions/**/*.jsonl"))


def run_into_closed_pipe(*args: str) -> subprocess.CompletedProcess[str]:
    """Run the command with its stdout a pipe whose reader has already gone (`| head -0`)."""
    read, write = os.pipe()
    os.close(read)
    try:
        return subprocess.run(
            [sys.executable, "-m", "chatparse", *args],
            stdout=write,
            stderr=subprocess.PIPE,
            text=True,
            check=False,
        )
    finally:
        os.close(write)


@pytest.mark.skipif(sys.platform == "win32", reason="SIGPIPE and its exit status are POSIX")
@pytest.mark.parametrize(
    "argv",
    [
        ["--demo", "scan"],
        ["--demo", "doctor"],
        ["--demo", "detect", "--json"],
        ["adapters"],
        ["parse", str(DEMO_ROLLOUT), "--format", "markdown"],
    ],
)
def test_closed_pipe_stops_quietly(argv: list[str]) -> None:
    """`chatparse … | head` is not an error: no message, and the status cat would have (141)."""
    result = run_into_closed_pipe(*argv)
    assert (result.returncode, result.stderr) == (141, "")


def json_objects(out: str) -> list[dict[str, object]]:
    """Every line of ``out`` as a JSON object; fails on a line that is not one."""
    rows = [json.loads(line) for line in out.splitlines()]
    assert rows, "no output"
    assert all(isinstance(row, dict) for row in rows)
    return rows


@pytest.mark.parametrize(
    "argv",
    [
        ["adapters"],
        ["--demo", "detect"],
        ["--demo", "scan"],
        ["--demo", "doctor"],
        ["parse", str(DEMO_ROLLOUT)],
    ],
)
def test_json_is_one_object_per_line_on_every_command(
    capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    """--json prints JSON lines and nothing else, whatever the command."""
    code, out, _ = call(capsys, *argv, "--json")
    assert code == 0
    json_objects(out)


def test_json_shapes_of_parse_and_doctor(capsys: pytest.CaptureFixture[str]) -> None:
    """With --json, parse prints a conversation a line, and doctor an object per adapter."""
    _, out, _ = call(capsys, "--json", "parse", str(DEMO_ROLLOUT))
    [line] = out.splitlines()
    assert chatparse.from_json(chatparse.ParsedConversation, line).source == "codex"
    _, out, _ = call(capsys, "--demo", "--json", "doctor")
    rows = {row["source"]: row for row in json_objects(out)}
    assert set(rows) >= {"claude-code", "codex", "copilot", "cursor", "trae"}
    assert rows["codex"]["found"] is True
    assert rows["codex"]["conversations"] == 1
    assert rows["codex"]["failed"] == []


def test_json_with_markdown_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    """--json and --format markdown ask for two things at once."""
    code, _, err = call(capsys, "--json", "parse", str(DEMO_ROLLOUT), "--format", "markdown")
    assert code == 2
    assert "--json" in err


@pytest.mark.skipif(not (ROOT / "fixtures").is_dir(), reason="needs the repository's fixtures")
def test_conformance_json(capsys: pytest.CaptureFixture[str]) -> None:
    """With --json, conformance prints an object per case, and its closing count on stderr."""
    case = ROOT / "fixtures" / "codex" / "modern-rollout"
    code, out, err = call(capsys, "conformance", str(case), "--json")
    assert code == 0
    assert json_objects(out) == [
        {
            "case": "codex/modern-rollout",
            "adapter": "codex",
            "passed": True,
            "problems": [],
            "golden_updated": False,
        }
    ]
    assert err.strip() == "1 passed, 0 failed"


@pytest.mark.parametrize("source", [[], ["--source", "codex"], ["--source", "cursor"]])
def test_parse_of_a_directory_says_what_to_pass(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], source: list[str]
) -> None:
    """A directory is named as one, whatever --source says, with what to pass instead."""
    code, _, err = call(capsys, *source, "parse", str(tmp_path))
    assert code == 2
    assert f"{tmp_path} is a directory" in err
    assert "--home DIR" in err


def test_file_with_only_malformed_records_fails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Nothing readable in a file is a failure (exit 1), with the counts on stderr."""
    noise = tmp_path / "random.jsonl"
    noise.write_bytes(b"not json\n{broken\n\x00\x01\n")
    code, _, err = call(capsys, "--source", "codex", "parse", str(noise))
    assert code == 1
    assert f"{noise}: all 3 record(s) are malformed" in err


def test_unrecognised_file_names_the_flag(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The command line tells you its own flag, not the Python keyword."""
    noise = tmp_path / "random.bin"
    noise.write_bytes(b"\x00\x01\x02")
    code, _, err = call(capsys, "parse", str(noise))
    assert code == 2
    assert "pass --source NAME" in err
    assert "source=" not in err


def test_detect_shows_no_unexplained_count(capsys: pytest.CaptureFixture[str]) -> None:
    """Detect lists sources and roots; counting is what scan does, and it says so."""
    code, out, _ = call(capsys, "--demo", "detect")
    assert code == 0
    header, *rows, footer = out.splitlines()
    assert header.split() == ["SOURCE", "NAME", "ROOTS"]
    found = chatparse.detect(chatparse.Host(home=DEMO_HOME, env={}, platform="linux"))
    assert [row.split()[0] for row in rows] == [info.source for info in found]
    assert "?" not in out
    assert "`chatparse scan` lists and counts" in footer


def test_doctor_says_each_warning_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A store the adapter explains is not warned about a second time."""
    storage = tmp_path / ".config" / "Cursor" / "User" / "globalStorage"
    storage.mkdir(parents=True)
    (storage / "state.vscdb").write_text("not a database", encoding="utf-8")
    code, out, err = call(capsys, "--home", str(tmp_path), "--source", "cursor", "doctor")
    assert code == 0
    assert (out + err).count(str(storage / "state.vscdb")) == 1


@pytest.mark.usefixtures("ghost_builtins")
def test_doctor_keeps_warnings_no_explanation_covers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A warning that the adapter's own explanation does not cover is reported, once."""

    class Grumbling(NoteAdapter):
        name = "grumbling"

        def scan(self, source: chatparse.SourceInfo) -> Iterator[chatparse.ConversationMeta]:
            warnings.warn("the notes look odd today", chatparse.ChatparseWarning, stacklevel=1)
            warnings.warn("the notes look odd today", chatparse.ChatparseWarning, stacklevel=1)
            yield from super().scan(source)

    chatparse.register_adapter(Grumbling)
    (tmp_path / ".notes").mkdir()
    code, out, err = call(capsys, "--home", str(tmp_path), "--source", "grumbling", "doctor")
    assert code == 0
    assert (out + err).count("the notes look odd today") == 1
    assert "  warning: the notes look odd today\n" in out
