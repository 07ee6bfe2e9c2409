"""The real goose 1.45 sessions.db of ../shared/corpus-next/goose parses, every record counted.

The database is copied into a temporary home laid out as Goose lays it out (never into the
repo); the facts checked were read off the raw rows.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from chatparse.adapters.goose import GooseAdapter
from chatparse.host import Host
from chatparse.model import ParsedConversation
from chatparse.testing import check_conversation

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus-next" / "goose"
SAMPLE = CORPUS / "WildChildForLife__lantern/fixtures/goose-home/sessions/sessions.db"

pytestmark = pytest.mark.skipif(not SAMPLE.is_file(), reason=f"no sample at {SAMPLE}")


@pytest.fixture(scope="module")
def conversations(tmp_path_factory: pytest.TempPathFactory) -> dict[str, ParsedConversation]:
    home = tmp_path_factory.mktemp("home")
    folder = home / ".local" / "share" / "goose" / "sessions"
    folder.mkdir(parents=True)
    shutil.copy(SAMPLE, folder / "sessions.db")
    adapter = GooseAdapter()
    found = adapter.detect(Host(home=home, env={}, platform="linux"))
    assert found is not None
    parsed = {meta.id: adapter.parse(meta) for meta in adapter.scan(found)}
    assert sorted(p.name for p in folder.iterdir()) == ["sessions.db"]
    return parsed


def test_every_session_parses_within_the_invariants(
    conversations: dict[str, ParsedConversation],
) -> None:
    assert sorted(conversations) == [f"20260805_{n}" for n in range(1, 5)]
    for conversation in conversations.values():
        assert check_conversation(conversation) == []
        assert conversation.diagnostics.records_seen == conversation.diagnostics.records_used
    # 4 session rows and 22 message rows in all.
    assert sum(c.diagnostics.records_seen for c in conversations.values()) == 26


def test_streamed_thinking_is_joined_and_a_missing_tool_is_an_error(
    conversations: dict[str, ParsedConversation],
) -> None:
    first = conversations["20260805_1"]
    assert first.title == "What does average_item_price do?"
    assert first.project_path == "/work"
    prompt, asked, answered = first.messages
    assert prompt.text == "What does average_item_price do? One sentence."
    assert asked.thinking is not None
    assert asked.thinking.startswith("Okay, the user is asking what average_item_price does.")
    (call,) = asked.tool_calls
    assert call.name == "average_item_price"
    assert call.is_error is True
    assert call.output is not None
    assert call.output.startswith("-32002: Tool 'average_item_price' not found.")
    assert answered.text.startswith("The tool 'average_item_price' is not available")


def test_usage_is_per_message_and_the_tool_that_ran_and_failed_is_an_error(
    conversations: dict[str, ParsedConversation],
) -> None:
    second = conversations["20260805_2"]
    usages = [(m.usage.input_tokens, m.usage.output_tokens) for m in second.messages if m.usage]
    assert usages == [(2050, 518), (2050, 374)]
    assert {m.model for m in second.messages if m.role == "assistant"} == {"qwen3:0.6b"}
    image_call = second.messages[-1].tool_calls[0]
    assert image_call.name == "read_image"
    assert image_call.is_error is True  # status success, isError true: the tool ran and failed
    third = conversations["20260805_3"]
    totals = third.usage_total()
    assert (totals.input_tokens, totals.output_tokens) == (6150, 1444)  # accumulated_* columns
