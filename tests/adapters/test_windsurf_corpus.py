"""The Windsurf sample of ../shared/corpus-next/windsurf parses, every step accounted for.

A real Cascade hook transcript (git-ai's maintainer's, 27 steps), copied into a temporary home
where Windsurf writes transcripts (never into the repo); the facts checked were read off the
raw lines.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from corpus_home import parse_home

from chatparse.adapters.windsurf import WindsurfAdapter
from chatparse.model import ParsedConversation

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus-next" / "windsurf"
SAMPLE = CORPUS / "git-ai-project__git-ai/tests/fixtures/windsurf-session-simple.jsonl"
PROJECT = "/Users/aidancunniffe/Desktop/testing-gitflows-git-ai"

pytestmark = pytest.mark.skipif(not SAMPLE.is_file(), reason=f"no sample at {SAMPLE}")


@pytest.fixture(scope="module")
def parsed(tmp_path_factory: pytest.TempPathFactory) -> ParsedConversation:
    """The sample as the transcript of trajectory ``sample``, parsed."""
    home = tmp_path_factory.mktemp("home")
    folder = home / ".windsurf" / "transcripts"
    folder.mkdir(parents=True)
    shutil.copy(SAMPLE, folder / "sample.jsonl")
    (conversation,) = parse_home(WindsurfAdapter(), home, "darwin").values()
    return conversation


def test_every_step_is_used(parsed: ParsedConversation) -> None:
    """27 lines, 27 steps used: none malformed, none unknown, nothing skipped."""
    diagnostics = parsed.diagnostics
    assert (diagnostics.records_seen, diagnostics.records_used) == (27, 27)
    assert (diagnostics.malformed, diagnostics.unknown, diagnostics.warnings) == (0, (), ())


def test_prompts_answers_and_tool_steps(parsed: ParsedConversation) -> None:
    """4 prompts, 5 answers with text, 18 tool steps, each a call with its result."""
    prompts = [m.text for m in parsed.messages if m.role == "user"]
    assert prompts == [
        "Write a song in @[xyz.md] ",
        "Eraase rewrite you cand o bettter",
        "@[xyz.md] ",
        "call some tools :) ",
    ]
    answers = [m for m in parsed.messages if m.role == "assistant"]
    assert sum(bool(m.text) for m in answers) == 5
    calls = [call for m in answers for call in m.tool_calls]
    assert len(calls) == 18
    assert {c.name for c in calls} == {
        "view_file",
        "code_action",
        "run_command",
        "list_directory",
        "find",
        "grep_search",
        "list_resources",
    }
    # Two turns start with a tool step before any answer: an answer without text holds them.
    assert [m.id for m in answers if not m.text] == ["line-12", "line-19"]
    assert parsed.title == "Write a song in @[xyz.md]"
    assert parsed.project_path == PROJECT
    assert parsed.created_at is None
    assert all(m.timestamp is None and m.model is None and m.usage is None for m in parsed.messages)


def test_tool_results_and_failures(parsed: ParsedConversation) -> None:
    """The list_resources step has status error; commands ran with exit code 0."""
    calls = [call for m in parsed.messages for call in m.tool_calls]
    failed = [c.name for c in calls if c.is_error]
    assert failed == ["list_resources"]
    commands = [c for c in calls if c.name == "run_command"]
    assert [c.input["command"] for c in commands] == [
        "git commit -a",
        "clear",
        "git-ai status",
        "git commit -a",
        "open ~/.windsurf/transcripts",
        "git log --oneline -5",
    ]
    assert commands[-1].output is not None
    assert commands[-1].output.startswith("049a887 (HEAD -> main) abc")
    edit = next(c for c in calls if c.name == "code_action")
    assert edit.input["original_content"] == "# XYZ\n"
    assert edit.result == {"acknowledgement_type": "ACKNOWLEDGEMENT_TYPE_ACCEPT"}
