"""The real Crush database of ../shared/corpus-next/crush parses, every record accounted for.

The database (the main file only: its -wal was not published) is copied into a temporary
project named through CHATPARSE_PROJECTS (never into the repo); the facts checked were
read off the raw rows.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from chatparse.adapters.crush import CrushAdapter
from chatparse.host import Host
from chatparse.model import ParsedConversation
from chatparse.testing import check_conversation

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus-next" / "crush"
SAMPLE = CORPUS / "dbos-inc__dbos-transact-golang/.crush/crush.db"
LONG = "a20c5ed5-41d4-45f7-88eb-7ba0645f1341"
SHORT = "f306c145-4c83-492c-b575-739c30bbced4"

pytestmark = pytest.mark.skipif(not SAMPLE.is_file(), reason=f"no sample at {SAMPLE}")


@pytest.fixture(scope="module")
def conversations(tmp_path_factory: pytest.TempPathFactory) -> dict[str, ParsedConversation]:
    home = tmp_path_factory.mktemp("home")
    project = home / "code" / "dbos"
    (project / ".crush").mkdir(parents=True)
    shutil.copy(SAMPLE, project / ".crush" / "crush.db")
    adapter = CrushAdapter()
    host = Host(home=home, env={"CHATPARSE_PROJECTS": str(project)}, platform="darwin")
    found = adapter.detect(host)
    assert found is not None
    parsed = {meta.id: adapter.parse(meta) for meta in adapter.scan(found)}
    assert sorted(p.name for p in (project / ".crush").iterdir()) == ["crush.db"]
    return parsed


def test_both_sessions_parse_within_the_invariants(
    conversations: dict[str, ParsedConversation],
) -> None:
    assert sorted(conversations) == [LONG, SHORT]
    for conversation in conversations.values():
        assert check_conversation(conversation) == []
    long = conversations[LONG].diagnostics
    # 1 session row + 78 message rows used; 15 files rows skipped.
    assert (long.records_seen, long.records_used) == (94, 79)
    assert long.skipped == {"file snapshot (files table)": 15}


def test_tools_pair_by_id_and_api_errors_are_notices(
    conversations: dict[str, ParsedConversation],
) -> None:
    long = conversations[LONG]
    assert long.title == "Create and Enhance CRUSH.md with Codebase Guidelines"
    assert long.project_path is not None
    assert long.project_path.endswith("dbos")
    calls = [call for m in long.messages for call in m.tool_calls]
    assert len(calls) == 40  # and 1 in the other session: 41 tool_call parts in all
    assert all(call.output is not None for call in calls)
    assert calls[0].name == "ls"
    assert calls[0].input == {"path": "/Users/max/codeZ/dbos-transact-golang"}
    errors = [c for c in calls if c.is_error]
    assert "File not found: /Users/max/codeZ/dbos-transact-golang/.gitignore" in {
        (c.output or "").split("\n")[0] for c in errors
    }
    notices = [m for m in long.messages if m.kind == "notice"]
    assert len(notices) == 3
    assert all(m.text.startswith("API Error: POST") for m in notices)
    assert {m.model for m in long.messages if m.role == "assistant"} == {"gpt-5"}


def test_the_session_counts_go_to_the_last_answer(
    conversations: dict[str, ParsedConversation],
) -> None:
    short = conversations[SHORT]
    assert [m.role for m in short.messages] == ["user", "assistant", "assistant"]
    usage = short.messages[-1].usage
    assert usage is not None
    assert (usage.input_tokens, usage.output_tokens) == (15805, 59)
    assert short.created_at is not None
    assert short.created_at.isoformat() == "2025-08-22T19:43:06+00:00"
