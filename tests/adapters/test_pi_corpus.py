"""The real Pi files of ../shared/corpus-next/pi parse, every record accounted for.

The files are copied into a temporary home laid out as Pi lays it out (never into the repo);
the facts checked were read off the raw lines.
"""

from __future__ import annotations

import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest
from corpus_home import parse_home

from chatparse.adapters.pi import PiAdapter
from chatparse.model import ParsedConversation

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus-next" / "pi"
SMALL = CORPUS / "jazzyalex__agent-sessions/Resources/Fixtures/stage0/agents/pi/small.jsonl"
EXCERPT = (
    CORPUS / "badlogic__pi-mono/packages/coding-agent/test/fixtures/before-compaction.excerpt.jsonl"
)

pytestmark = pytest.mark.skipif(not CORPUS.is_dir(), reason=f"no corpus at {CORPUS}")


def parse(tmp_path: Path, sample: Path, name: str) -> ParsedConversation:
    """Parse ``sample`` as the one session of a fake home, under Pi's own file name."""
    if not sample.is_file():
        pytest.skip(f"{sample.name} is not in the corpus")
    folder = tmp_path / ".pi" / "agent" / "sessions" / "--home-dev-project--"
    folder.mkdir(parents=True)
    shutil.copy(sample, folder / name)
    (conversation,) = parse_home(PiAdapter(), tmp_path).values()
    return conversation


def test_real_writer_version_3_with_two_compactions(tmp_path: Path) -> None:
    """Pi run against a mock model: two turns, each followed by a compaction."""
    name = "2026-05-12T01-02-27-657Z_019e19b4-eb48-746a-aa6b-8dfcfa37954b.jsonl"
    conversation = parse(tmp_path, SMALL, name)
    assert conversation.id == "019e19b4-eb48-746a-aa6b-8dfcfa37954b"
    assert conversation.project_path == "/tmp/as-agent-fixture/project"  # noqa: S108 -- the sample's own
    assert conversation.meta.locator["format_version"] == "3"
    assert [(m.role, m.kind) for m in conversation.messages] == [
        ("user", "message"),
        ("assistant", "message"),
        ("system", "compaction_summary"),
        ("user", "message"),
        ("assistant", "message"),
        ("system", "compaction_summary"),
    ]
    assert conversation.title == "Read hello.py and summarize what it prints without editing files."
    answers = [m for m in conversation.messages if m.role == "assistant"]
    assert {m.model for m in answers} == {"pi-fixture-model"}
    assert all(m.request_id == "chatcmpl-pi-fixture" for m in answers)
    # The mock gives every response the same id: their creation times keep them apart.
    usages = [m.usage for m in answers if m.usage is not None]
    assert [(u.input_tokens, u.output_tokens) for u in usages] == [(12, 7), (12, 7)]
    assert len({u.dedup_key for u in usages}) == 2
    assert conversation.usage_total().input_tokens == 24
    # The tree runs through both compactions: one line, nothing off it.
    assert [m.id for m in conversation.main_thread()] == [m.id for m in conversation.messages]
    assert conversation.diagnostics.skipped == {
        "model_change: setting": 1,
        "thinking_level_change: setting": 1,
    }
    assert conversation.created_at == datetime(2026, 5, 12, 1, 2, 27, 657000, tzinfo=UTC)


def test_real_version_1_excerpt_from_the_authors_session(tmp_path: Path) -> None:
    """The pi-mono excerpt: a version 1 file, linear, with tools, an abort and a !command."""
    name = "2025-12-09T00-53-29-825Z_ffae836b-9420-4060-ac13-7745215f90ff.jsonl"
    conversation = parse(tmp_path, EXCERPT, name)
    assert conversation.meta.locator["format_version"] == "1"
    assert conversation.meta.locator["parent_session"].endswith(
        "2025-12-09T00-52-54-397Z_d97339c6-6c10-4827-846b-9ff1d9c3dc37.jsonl"
    )
    assert conversation.project_path == "/Users/badlogic/workspaces/pi-mono"
    assert conversation.diagnostics.records_seen == 19
    assert len(conversation.messages) == 16
    assert all(m.parent_id is None for m in conversation.messages)
    # The header was written at 00:53; the first entry is from 23:21 the evening before.
    assert conversation.created_at == datetime(2025, 12, 8, 23, 21, 18, 23000, tzinfo=UTC)
    first = conversation.messages[0]
    assert (first.role, first.text, first.model) == ("assistant", "", "claude-opus-4-5")
    assert [c.name for c in first.tool_calls] == ["bash"]
    assert first.tool_calls[0].is_error is False
    assert first.tool_calls[0].output is not None
    assert first.tool_calls[0].output.startswith("Running formatting, linting")
    assert first.usage is not None
    assert (first.usage.input_tokens, first.usage.cache_read_tokens) == (1 + 173039 + 531, 173039)
    kinds = [m.kind for m in conversation.messages]
    assert kinds.count("compaction_summary") == 1
    assert kinds.count("command") == kinds.count("command_output") == 1
    aborted = [m for m in conversation.messages if m.kind == "notice"]
    assert [m.text for m in aborted] == ["Request was aborted.", "Request was aborted."]
    assert all(m.usage is None for m in aborted)
    thinking = next(m for m in conversation.messages if m.thinking)
    assert thinking.thinking is not None
    assert thinking.thinking.startswith("The user is joking about the context compaction")
    # The excerpt cut one call out: its result stays, as a message of its own.
    (orphan,) = [m for m in conversation.messages if m.kind == "tool_result"]
    assert orphan.text.startswith("Running formatting, linting, and type checking...")
    command = next(m for m in conversation.messages if m.kind == "command")
    assert command.text == "!ls"
    assert conversation.messages[-1].text == "wow, it works"
    assert conversation.title == "ok, i hope i haven't lobotimized you by compacting"
