"""The Antigravity samples of ../shared/corpus-next/antigravity parse, every step accounted for.

Hand-made and sanitised CLI transcripts in the real shapes (agent-sessions, codeburn), copied
into a temporary home as the ``agy`` CLI lays them out (never into the repo), beside a brain
artifact; the facts checked were read off the raw lines.
"""

from __future__ import annotations

import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest
from corpus_home import parse_home

from chatparse.adapters.antigravity import AntigravityAdapter
from chatparse.model import ParsedConversation

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus-next" / "antigravity"
STAGE0 = CORPUS / "jazzyalex__agent-sessions/Resources/Fixtures/stage0/agents/antigravity"
CODEBURN = CORPUS / "getagentseal__codeburn/tests/fixtures/antigravity-cli-current/brain"
SAMPLES = {
    "small": STAGE0 / "cli_small.jsonl",
    "drift": STAGE0 / "cli_schema_drift.jsonl",
    "fixture-current-cli": CODEBURN / "fixture-current-cli/.system_generated/logs/transcript.jsonl",
}
ARTIFACT = STAGE0 / "small.md"

pytestmark = pytest.mark.skipif(not CORPUS.is_dir(), reason=f"no corpus at {CORPUS}")


@pytest.fixture(scope="module")
def parsed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, ParsedConversation]:
    """Each transcript sample as a CLI conversation's transcript.jsonl, parsed."""
    home = tmp_path_factory.mktemp("home")
    brain = home / ".gemini" / "antigravity-cli" / "brain"
    for ident, sample in SAMPLES.items():
        logs = brain / ident / ".system_generated" / "logs"
        logs.mkdir(parents=True)
        shutil.copy(sample, logs / "transcript.jsonl")
    (brain / "artifacts-only").mkdir()
    shutil.copy(ARTIFACT, brain / "artifacts-only" / "task.md")
    return parse_home(AntigravityAdapter(), home)


def test_every_transcript_is_listed_and_the_artifact_folder_is_not(
    parsed: dict[str, ParsedConversation],
) -> None:
    """Three transcripts; a brain folder holding only Markdown is no conversation."""
    assert sorted(parsed) == ["drift", "fixture-current-cli", "small"]


def test_the_current_cli_transcript(parsed: dict[str, ParsedConversation]) -> None:
    """The two steps of codeburn's sample: the prompt unwrapped, the answer with its thinking."""
    user, answer = parsed["fixture-current-cli"].messages
    assert user.text == "sanitized fixture prompt"
    assert user.timestamp == datetime(2026, 6, 21, 13, 32, 13, tzinfo=UTC)
    assert (answer.text, answer.thinking) == (
        "sanitized fixture response",
        "sanitized fixture reasoning",
    )
    assert answer.usage is None  # usage is only in the conversation database: not read


def test_the_small_transcript(parsed: dict[str, ParsedConversation]) -> None:
    """Double-encoded arguments, the chosen model, a checkpoint, clipped steps, placeholders."""
    conversation = parsed["small"]
    diagnostics = conversation.diagnostics
    assert (diagnostics.records_seen, diagnostics.records_used) == (19, 18)
    assert diagnostics.skipped == {"CONVERSATION_HISTORY: no content": 1}
    assert conversation.title == "List the files."
    listing = conversation.messages[2]
    assert listing.model == "Gemini 3.5 Flash (Medium)"
    assert listing.thinking == "Listing the directory."
    (call,) = listing.tool_calls
    assert (call.name, call.input) == (
        "list_dir",
        {"DirectoryPath": "/tmp/repo", "toolSummary": "Listing contents"},  # noqa: S108 -- the sample's text
    )
    assert call.output == '{"name":"a.txt"}\n{"name":"b.txt"}\n'
    kinds = [(m.id, m.kind) for m in conversation.messages if m.role == "system"]
    assert ("step-7", "compaction_summary") in kinds
    assert ("step-0#2", "notice") in kinds  # the model selection
    (warning,) = diagnostics.warnings
    assert warning.startswith("clipped by Antigravity (truncated_fields)")
    assert "step-4 (content)" in warning
    # The trailing placeholder steps ("[trimmed for fixture]") have no time: none invented.
    assert [m.timestamp for m in conversation.messages[-6:]] == [None] * 6


def test_schema_drift(parsed: dict[str, ParsedConversation]) -> None:
    """Unknown keys ignored, empty tool_calls, BROWSER_NAVIGATE read as a result of no call."""
    user, answer, navigate = parsed["drift"].messages
    assert user.text == "Go"
    assert (answer.text, answer.thinking, answer.tool_calls) == ("", "...", ())
    assert (navigate.role, navigate.kind, navigate.text) == (
        "user",
        "tool_result",
        "opened https://example.com",
    )
