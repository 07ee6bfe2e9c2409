"""The Kimi samples of ../shared/corpus-next/kimi parse, every record accounted for.

The files are copied into a temporary home laid out as Kimi CLI and Kimi Code lay it out (never
into the repo); the facts checked were read off the raw lines.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from corpus_home import parse_home

from chatparse.adapters.kimi import KimiAdapter
from chatparse.model import ParsedConversation

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus-next" / "kimi"
CAPTURE = CORPUS / "jazzyalex__agent-sessions/Resources/Fixtures/stage0/agents/kimi"
CLI = CORPUS / "hand-made" / "kimi-cli"
CODE_ID = "session_9eb1bf57-c1af-48a5-b658-0e8d9fe794f5"
CLI_ID = "2d9c1f4e-8a7b-4c3e-9f10-5b6a7c8d9e0f"

pytestmark = pytest.mark.skipif(not CORPUS.is_dir(), reason=f"no corpus at {CORPUS}")


@pytest.fixture
def parsed(tmp_path: Path) -> dict[str, ParsedConversation]:
    session = tmp_path / ".kimi-code" / "sessions" / "wd_project_ac3bb318f98e" / CODE_ID
    (session / "agents" / "main").mkdir(parents=True)
    (session / "agents" / "agent-0").mkdir()
    shutil.copy(CAPTURE / "small.jsonl", session / "agents" / "main" / "wire.jsonl")
    shutil.copy(CAPTURE / "subagent_agent-0.jsonl", session / "agents" / "agent-0" / "wire.jsonl")
    shutil.copy(CAPTURE / "state.json", session / "state.json")
    shutil.copytree(CLI, tmp_path / ".kimi")
    return parse_home(KimiAdapter(), tmp_path, "darwin")


def test_the_captured_kimi_code_session(parsed: dict[str, ParsedConversation]) -> None:
    """Two cancelled turns: the prompts and the steer are messages, the steps have no answer."""
    conversation = parsed[CODE_ID]
    assert conversation.title == "hi"
    assert conversation.project_path == "/private/tmp/as-agent-lab/kimi/project"
    assert [m.text for m in conversation.messages if m.role == "user"] == ["hi", "hi", "stop"]
    assert conversation.diagnostics.records_seen == 37  # state.json and 36 lines


def test_the_captured_subagent_usage_and_model(parsed: dict[str, ParsedConversation]) -> None:
    """agent-0: three steps, each with its step.end usage (input = other + cache reads)."""
    (subagent,) = parsed[CODE_ID].subagents
    answers = [m for m in subagent.messages if m.role == "assistant"]
    assert [m.model for m in answers] == ["kimi-k2.7-code"] * 3
    usages = [m.usage for m in answers]
    assert [(u.input_tokens, u.output_tokens, u.cache_read_tokens) for u in usages if u] == [
        (10982 + 1792, 75, 1792),
        (1652 + 12544, 136, 12544),
        (271 + 14080, 119, 14080),
    ]
    assert answers[0].tool_calls[0].input == {
        "pattern": "**/*.swift",
        "path": "/private/tmp/as-agent-lab/kimi/project",
    }
    assert answers[1].tool_calls[0].output == "    3124\n"


def test_the_hand_made_kimi_cli_session(parsed: dict[str, ParsedConversation]) -> None:
    """The wire is read: two steps, usage per StatusUpdate, the cwd from kimi.json's md5."""
    conversation = parsed[CLI_ID]
    assert conversation.project_path == "/home/dev/code/demo"
    assert conversation.title == "List the files here"
    first, second = (m for m in conversation.messages if m.role == "assistant")
    assert first.thinking == "Run ls in the work dir."
    assert first.tool_calls[0].output == "README.md\nsrc\n"
    assert first.usage is not None
    assert first.usage.input_tokens == 1024 + 4056
    assert first.usage.dedup_key == "kimi:chatcmpl-1"
    assert second.text == "README.md and src/."
