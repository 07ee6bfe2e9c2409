"""Export: each conversation exactly once in the output, after any runs, changes and interruptions.

The interruptions are real: a `chatparse export` subprocess gets SIGINT or SIGTERM from this test
while it is parsing, or SIGKILL (a crash) at a chosen step of writing its files.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

import chatparse
from chatparse import _export, cli, registry
from chatparse.host import Host
from chatparse.serialize import json_bytes

from conftest import NoteAdapter

TESTS = Path(__file__).resolve().parent
NOTES = ("alpha", "bravo", "charlie", "delta", "echo")

# The command line in a subprocess, with the notes adapter registered. Its parse reports each
# conversation in the PROGRESS file and waits at PAUSE_AT for the test's signal; CRASH_AT
# ("before:N" or "after:N", with CRASH_SIGNAL) signals the process itself around its Nth file
# rename, the step that makes a written file part of the output.
CHILD = """
import os, signal, sys, time
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from conftest import NoteAdapter
import chatparse
from chatparse import _export, cli, registry
from chatparse.host import Host
from chatparse.serialize import json_bytes

class Paced(NoteAdapter):
    def parse(self, meta):
        with open(os.environ["PROGRESS"], "a", encoding="utf-8") as progress:
            progress.write(meta.id + "\\n")
        if meta.id == os.environ.get("PAUSE_AT"):
            time.sleep(60)
        return super().parse(meta)

crash = os.environ.get("CRASH_AT")
if crash:
    when, count = crash.split(":")
    renames = [0]
    real_replace = Path.replace
    stop = lambda: os.kill(os.getpid(), int(os.environ["CRASH_SIGNAL"]))

    def replace(self, target):
        renames[0] += 1
        hit = renames[0] == int(count)
        if hit and when == "before":
            stop()
        result = real_replace(self, target)
        if hit and when == "after":
            stop()
        return result

    Path.replace = replace

chatparse.register_adapter(Paced())
sys.exit(cli.main(sys.argv[2:]))
"""


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A home with five notes conversations."""
    folder = tmp_path / "home" / ".notes"
    folder.mkdir(parents=True)
    for name in NOTES:
        (folder / f"{name}.txt").write_text(f"{name} says hello\n", encoding="utf-8")
    return tmp_path / "home"


def export_argv(home: Path, out: Path, fmt: str, *, state: bool = True) -> list[str]:
    argv = ["--home", str(home), "--source", "notes", "--json", "export", "--out", str(out)]
    argv += ["--format", fmt]
    return [*argv, "--state", str(out / "state.json")] if state else argv


def start(argv: list[str], progress: Path, **env: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", CHILD, str(TESTS), *argv],
        env={**os.environ, "PROGRESS": str(progress), **env},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def run(argv: list[str], progress: Path, **env: str) -> subprocess.CompletedProcess[str]:
    child = start(argv, progress, **env)
    out, err = child.communicate(timeout=60)
    return subprocess.CompletedProcess(child.args, child.returncode, out, err)


def interrupt_while_parsing(argv: list[str], progress: Path, at: str, signum: int) -> int:
    """Start an export, wait until it is parsing conversation ``at``, send ``signum``."""
    progress.write_text("", encoding="utf-8")
    child = start(argv, progress, PAUSE_AT=at)
    deadline = time.monotonic() + 30
    while at not in progress.read_text(encoding="utf-8").split():
        assert child.poll() is None, child.communicate()
        assert time.monotonic() < deadline, "the export never reached the conversation"
        time.sleep(0.02)
    child.send_signal(signum)
    child.communicate(timeout=30)
    return child.returncode


def exported(out: Path, fmt: str) -> Counter[str]:
    """Each conversation id in the output, with how often it is there (every file must read)."""
    if fmt == "jsonl":
        target = out / "conversations.jsonl"
        texts = target.read_text(encoding="utf-8").splitlines() if target.exists() else []
    else:
        texts = [path.read_text(encoding="utf-8") for path in sorted(out.rglob("*.json"))]
        texts = [text for text in texts if '"schema_version"' in text]  # not the state file
    return Counter(chatparse.from_json(chatparse.ParsedConversation, t).id for t in texts)


def current_texts(out: Path) -> dict[str, str]:
    """What each exported conversation (jsonl) says, by id."""
    lines = (out / "conversations.jsonl").read_text(encoding="utf-8").splitlines()
    conversations = [chatparse.from_json(chatparse.ParsedConversation, line) for line in lines]
    return {c.id: c.messages[0].text for c in conversations}


@pytest.mark.parametrize("fmt", ["jsonl", "json"])
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
@pytest.mark.parametrize("at", ["alpha", "charlie", "echo"])
def test_signal_while_parsing_keeps_what_was_done_and_never_duplicates(
    home: Path, tmp_path: Path, fmt: str, signum: int, at: str
) -> None:
    """Ctrl-C or SIGTERM mid-export: what was parsed is saved, once; the next run finishes."""
    out, progress = tmp_path / "out", tmp_path / "progress"
    argv = export_argv(home, out, fmt)
    code = interrupt_while_parsing(argv, progress, at, signum)
    assert code == 128 + signum
    done_before = NOTES[: NOTES.index(at)]
    assert exported(out, fmt) == Counter(done_before)
    second = run(argv, progress)
    assert second.returncode == 0, second.stderr
    assert json.loads(second.stdout)["unchanged"] == len(done_before)
    assert exported(out, fmt) == Counter(NOTES)


@pytest.mark.parametrize(
    ("fmt", "crash"),
    [
        ("jsonl", "before:1"),  # conversations.jsonl about to be replaced
        ("jsonl", "after:1"),  # replaced, the state not yet
        ("jsonl", "before:2"),  # the state about to be replaced
        ("markdown", "before:3"),  # two conversation files written, the third not
        ("markdown", "after:5"),  # every file written, the state not
    ],
)
@pytest.mark.parametrize("signum", [signal.SIGKILL, signal.SIGINT])
def test_crash_while_writing_leaves_output_and_state_consistent(
    home: Path, tmp_path: Path, fmt: str, crash: str, signum: int
) -> None:
    """Killed at any step of writing, a run leaves no part-file; the next run completes it."""
    out, progress = tmp_path / "out", tmp_path / "progress"
    argv = export_argv(home, out, fmt)
    assert run(argv, progress).returncode == 0  # a complete export first
    for name in NOTES:  # then every conversation changes
        (home / ".notes" / f"{name}.txt").write_text(f"{name} changed\n", encoding="utf-8")
    crashed = run(argv, progress, CRASH_AT=crash, CRASH_SIGNAL=str(int(signum)))
    assert crashed.returncode in {-signal.SIGKILL, 128 + signal.SIGINT}, crashed.stderr
    visible = [p.name for p in out.rglob("*") if p.is_file() and not p.name.startswith(".")]
    assert all(name.endswith((".jsonl", ".json", ".md")) for name in visible), visible
    if fmt == "jsonl":
        assert exported(out, fmt) == Counter(NOTES)  # the old file, or the new one: whole
    final = run(argv, progress)
    assert final.returncode == 0, final.stderr
    assert sorted(p.name for p in out.rglob(".*")) == []  # leftovers of the killed run removed
    if fmt == "jsonl":
        assert exported(out, fmt) == Counter(NOTES)
        assert set(current_texts(out).values()) == {f"{name} changed" for name in NOTES}
    else:
        assert len(list(out.rglob("*.md"))) == len(NOTES)


@pytest.mark.parametrize("crash", ["before:1", "after:1", "before:2"])
def test_crash_during_a_first_jsonl_export_leaves_nothing_or_the_whole_file(
    home: Path, tmp_path: Path, crash: str
) -> None:
    """A first export renames its scratch file into place; killed around that, no part-file."""
    out, progress = tmp_path / "out", tmp_path / "progress"
    argv = export_argv(home, out, "jsonl")
    crashed = run(argv, progress, CRASH_AT=crash, CRASH_SIGNAL=str(int(signal.SIGKILL)))
    assert crashed.returncode == -signal.SIGKILL, crashed.stderr
    assert exported(out, "jsonl") == (Counter() if crash == "before:1" else Counter(NOTES))
    final = run(argv, progress)
    assert final.returncode == 0, final.stderr
    assert sorted(p.name for p in out.rglob(".*")) == []
    assert exported(out, "jsonl") == Counter(NOTES)


def test_runs_changes_and_interruptions_in_any_order(home: Path, tmp_path: Path) -> None:
    """A sequence of runs, edits, new notes and interruptions ends with each note exactly once."""
    out, progress = tmp_path / "out", tmp_path / "progress"
    with_state = export_argv(home, out, "jsonl")
    without_state = export_argv(home, out, "jsonl", state=False)
    notes = home / ".notes"
    assert run(with_state, progress).returncode == 0
    (notes / "bravo.txt").write_text("bravo edited\n", encoding="utf-8")
    (notes / "foxtrot.txt").write_text("foxtrot is new\n", encoding="utf-8")
    assert interrupt_while_parsing(with_state, progress, "foxtrot", signal.SIGINT) == 130
    assert max(exported(out, "jsonl").values()) == 1
    assert run(without_state, progress).returncode == 0
    (notes / "delta.txt").write_text("delta edited\n", encoding="utf-8")
    crashed = run(with_state, progress, CRASH_AT="after:1", CRASH_SIGNAL=str(int(signal.SIGKILL)))
    assert crashed.returncode == -signal.SIGKILL
    (out / "state.json").unlink()
    assert run(without_state, progress).returncode == 0
    assert run(with_state, progress).returncode == 0
    assert exported(out, "jsonl") == Counter([*NOTES, "foxtrot"])
    texts = current_texts(out)
    assert (texts["bravo"], texts["delta"], texts["foxtrot"]) == (
        "bravo edited",
        "delta edited",
        "foxtrot is new",
    )


# The same guarantees without subprocesses, for the cases that need no signal.


def export(capsys: pytest.CaptureFixture[str], argv: list[str]) -> dict[str, int]:
    code = cli.main(argv)
    out = capsys.readouterr().out
    assert code == 0, out
    summary: dict[str, int] = json.loads(out)
    return summary


@pytest.fixture
def notes_registered(fresh_registry: registry.Registry) -> None:
    """Only the notes adapter is registered."""
    fresh_registry.register(NoteAdapter, replace=False)


@pytest.mark.usefixtures("notes_registered")
def test_jsonl_twice_without_state_writes_each_conversation_once(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A second run without --state finds the conversations already in the file."""
    out = tmp_path / "out"
    argv = export_argv(home, out, "jsonl", state=False)
    assert export(capsys, argv)["exported"] == len(NOTES)
    before = (out / "conversations.jsonl").stat().st_mtime_ns
    assert export(capsys, argv) == {
        "found": len(NOTES),
        "exported": 0,
        "unchanged": len(NOTES),
        "failed": 0,
    }
    assert (out / "conversations.jsonl").stat().st_mtime_ns == before
    assert exported(out, "jsonl") == Counter(NOTES)


@pytest.mark.usefixtures("notes_registered")
@pytest.mark.parametrize("state", [True, False])
def test_changed_conversation_replaces_its_line(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], *, state: bool
) -> None:
    """A changed conversation is written again in place of its old line, not beside it."""
    out = tmp_path / "out"
    argv = export_argv(home, out, "jsonl", state=state)
    export(capsys, argv)
    (home / ".notes" / "charlie.txt").write_text("charlie changed his mind\n", encoding="utf-8")
    assert export(capsys, argv)["exported"] == 1
    assert exported(out, "jsonl") == Counter(NOTES)
    assert current_texts(out)["charlie"] == "charlie changed his mind"


@pytest.mark.usefixtures("notes_registered")
@pytest.mark.parametrize(("fmt", "pattern"), [("jsonl", "*.jsonl"), ("markdown", "*.md")])
def test_deleted_output_is_written_again_despite_the_state(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], fmt: str, pattern: str
) -> None:
    """The state never stands in for the output: what was deleted from it is exported again."""
    out = tmp_path / "out"
    argv = export_argv(home, out, fmt)
    export(capsys, argv)
    victims = sorted(out.rglob(pattern))[:1]
    victims[0].unlink()
    summary = export(capsys, argv)
    assert summary["exported"] == (len(NOTES) if fmt == "jsonl" else 1)
    assert len(list(out.rglob(pattern))) == (1 if fmt == "jsonl" else len(NOTES))
    assert sorted(out.rglob(pattern))[:1] == victims


@pytest.mark.usefixtures("notes_registered")
def test_duplicates_and_a_torn_line_from_another_writer_are_repaired(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A file with a conversation twice and a torn last line ends with each conversation once."""
    out = tmp_path / "out"
    argv = export_argv(home, out, "jsonl", state=False)
    export(capsys, argv)
    target = out / "conversations.jsonl"
    lines = target.read_text(encoding="utf-8").splitlines(keepends=True)
    target.write_text("".join([*lines, lines[0], lines[1][:40]]), encoding="utf-8")
    export(capsys, argv)
    assert exported(out, "jsonl") == Counter(NOTES)


@pytest.mark.usefixtures("notes_registered")
@pytest.mark.parametrize(
    ("content", "reason"),
    [
        ("garbage", "not JSON"),
        ('{"state_version": 1, "conversations": {}}', "another chatparse version"),
        ('{"state_version": 2, "conversations": 3}', "damaged"),
    ],
)
def test_unusable_state_file_names_itself_and_how_to_start_over(
    home: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    content: str,
    reason: str,
) -> None:
    """A damaged state file is a one-line error naming the file and saying how to start over."""
    out = tmp_path / "out"
    out.mkdir()
    (out / "state.json").write_text(content, encoding="utf-8")
    assert cli.main(export_argv(home, out, "jsonl")) == cli.EXIT_USAGE
    err = capsys.readouterr().err
    assert err.startswith(f"chatparse: error: {out / 'state.json'}: ")
    assert reason in err
    assert "To start over, delete it" in err
    assert err.count("\n") == 1


@pytest.mark.usefixtures("notes_registered")
def test_jsonl_lines_are_the_conversations_json(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each line of conversations.jsonl is json_bytes of its conversation, in scan order."""
    out = tmp_path / "out"
    export(capsys, export_argv(home, out, "jsonl"))
    conversations = chatparse.iter_conversations(Host(home=home, env={}, platform="linux"))
    expected = b"".join(json_bytes(c) + b"\n" for c in conversations)
    assert (out / "conversations.jsonl").read_bytes() == expected


@pytest.mark.usefixtures("notes_registered")
def test_a_line_cut_short_in_the_scratch_file_never_reaches_the_output(
    home: Path, tmp_path: Path
) -> None:
    """A first export whose scratch file ends in a torn line copies the whole lines, not it."""
    host = Host(home=home, env={}, platform="linux")
    metas = list(chatparse.scan(host))
    export = _export.open_export(tmp_path / "out", "jsonl", None)
    for meta in metas[:2]:
        export.add(meta, _export.render("jsonl", None, chatparse.parse(meta)), "1")
    assert isinstance(export, _export._LinesExport)
    assert export.scratch is not None
    export.scratch.write(b'{"schema_version": 1, "source": "no')  # as an interrupted add leaves
    export.commit()
    assert exported(tmp_path / "out", "jsonl") == Counter(NOTES[:2])
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["conversations.jsonl"]
