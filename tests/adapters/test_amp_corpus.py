"""The real Amp threads of ../shared/corpus-next/amp parse, every record accounted for.

The documents are copied into a temporary home where Amp keeps them (never into the repo); the
facts checked were read off the raw files.
"""

from __future__ import annotations

import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest
from corpus_home import parse_home

from chatparse.adapters.amp import AmpAdapter
from chatparse.model import ParsedConversation

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus-next" / "amp"
THREADS = CORPUS / "git-ai-project__git-ai" / "tests" / "fixtures" / "amp-threads"
PLAN = "T-019ca1ce-3ae2-7686-a41e-ccc078837f8a"
APPEND = "T-019ca1f6-7f21-77b5-a308-65416ebbdf48"

pytestmark = pytest.mark.skipif(not THREADS.is_dir(), reason=f"no corpus at {THREADS}")


@pytest.fixture(scope="module")
def parsed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, ParsedConversation]:
    home = tmp_path_factory.mktemp("home")
    folder = home / ".local" / "share" / "amp" / "threads"
    folder.mkdir(parents=True)
    for path in sorted(THREADS.glob("T-*.json")):
        shutil.copy(path, folder / path.name)
    conversations = parse_home(AmpAdapter(), home, "darwin")
    for conversation in conversations.values():
        assert conversation.diagnostics.warnings == ()
    return conversations


def test_every_sample_is_listed(parsed: dict[str, ParsedConversation]) -> None:
    assert sorted(parsed) == [PLAN, APPEND]


def test_the_plan_thread(parsed: dict[str, ParsedConversation]) -> None:
    conversation = parsed[PLAN]
    assert conversation.title == "Add jokes CLI with CSV data source"
    assert conversation.project_path == "/Users/svarlamov/projects/testing-git-amp"
    assert conversation.git_branch == "master"
    assert conversation.producer_version == "0.0.1772237000-g924883"
    assert conversation.created_at == datetime(2026, 2, 28, 1, 12, 53, 221000, tzinfo=UTC)
    assert conversation.diagnostics.records_seen == 7  # 6 messages and the document's fields
    roles = [(m.id, m.role) for m in conversation.messages]
    assert roles == [
        ("message-0", "user"),
        ("message-1", "assistant"),  # message-2 and -4 are tool results, paired into calls
        ("message-3", "assistant"),
        ("message-5", "assistant"),
    ]
    first = conversation.messages[1]
    assert first.thinking is not None
    assert first.thinking.startswith("The user wants me")
    assert first.text == "Let me check what's already in the workspace."
    assert [call.name for call in first.tool_calls] == ["Read", "Read", "Read"]
    assert all(call.is_error is False and call.output for call in first.tool_calls)
    assert first.tool_calls[2].result["isDirectory"] is True
    usage = first.usage
    assert usage is not None
    # inputTokens 3 + cacheCreationInputTokens 1619 + cacheReadInputTokens 13248 = totalInputTokens
    assert (usage.input_tokens, usage.output_tokens) == (14870, 239)
    assert (usage.cache_read_tokens, usage.cache_write_tokens) == (13248, 1619)
    assert first.model == "claude-opus-4-6"
    assert first.timestamp == datetime(2026, 2, 28, 1, 13, 27, 454000, tzinfo=UTC)
    assert conversation.messages[0].timestamp == datetime(
        2026, 2, 28, 1, 13, 21, 792000, tzinfo=UTC
    )


def test_the_append_thread(parsed: dict[str, ParsedConversation]) -> None:
    conversation = parsed[APPEND]
    assert conversation.title == "Read jokes CSV and append new row"
    edit = conversation.messages[2].tool_calls[0]
    assert edit.name == "edit_file"
    assert edit.output is not None
    assert "+14,Why do programmers hate nature?" in edit.output
    last = conversation.messages[-1].usage
    assert last is not None
    assert (last.input_tokens, last.cache_write_tokens, last.cache_read_tokens) == (15684, 15683, 0)
    totals = sum(m.usage.output_tokens or 0 for m in conversation.messages if m.usage)
    assert totals == 70 + 170 + 30
