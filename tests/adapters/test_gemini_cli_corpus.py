"""Every Gemini CLI sample in ../shared/corpus-next parses, laid out as in a real home."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from corpus_home import parse_home

from chatparse.adapters.gemini_cli import GeminiCliAdapter
from chatparse.model import ParsedConversation

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus-next" / "gemini-cli"
LEGACY = CORPUS / "kvsankar__agent-history/tests/fixtures/real_sessions/gemini/session-01.json"
LOG = CORPUS / "jazzyalex__agent-sessions/Resources/Fixtures/stage0/agents/gemini/jsonl_v040.jsonl"

pytestmark = pytest.mark.skipif(not CORPUS.is_dir(), reason=f"no corpus at {CORPUS}")


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A home with each sample copied where Gemini CLI writes sessions (never into the repo)."""
    for sample, folder, name in [
        (LEGACY, "legacy", "session-2026-06-05T04-59-dcbe78d3.json"),
        (LOG, "log", "session-2026-04-29T21-39-gemini_s.jsonl"),
    ]:
        if not sample.is_file():
            pytest.skip(f"corpus file {sample.name} is not here")
        chats = tmp_path / ".gemini" / "tmp" / folder / "chats"
        chats.mkdir(parents=True)
        shutil.copyfile(sample, chats / name)
    return tmp_path


def parse_all(home: Path) -> dict[str, ParsedConversation]:
    return parse_home(GeminiCliAdapter(), home)


def test_every_sample_is_one_conversation(home: Path) -> None:
    """The scan lists both samples by the session id their head gives."""
    assert sorted(parse_all(home)) == [
        "dcbe78d3-ea75-4786-929e-d6cff0fc00ed",
        "gemini_stage0_jsonl",
    ]


def test_the_real_legacy_document(home: Path) -> None:
    """session-01.json: a prompt, an answer with one thought summary, and its six counters."""
    conversation = parse_all(home)["dcbe78d3-ea75-4786-929e-d6cff0fc00ed"]
    prompt, reply = conversation.messages
    assert (prompt.role, prompt.text, reply.role, reply.text) == (
        "user",
        "[REDACTED_PROMPT]",
        "assistant",
        "[REDACTED_ASSISTANT_TEXT]",
    )
    assert reply.thinking == "**Generating Specific Response**\n\n[REDACTED_THOUGHT]"
    assert reply.model == "gemini-2.5-flash"
    assert reply.usage is not None
    # input 4383, output 8 + thoughts 28 (the total 4419 counts them beside the output)
    usage = reply.usage
    counts = (
        usage.input_tokens,
        usage.output_tokens,
        usage.reasoning_tokens,
        usage.cache_read_tokens,
    )
    assert counts == (4383, 36, 28, 0)
    assert str(conversation.created_at) == "2026-06-05 04:59:39.932000+00:00"
    assert str(conversation.updated_at) == "2026-06-05 04:59:44.839000+00:00"
    assert conversation.diagnostics.records_seen == 3  # the header, two messages


def test_the_replay_log_sample(home: Path) -> None:
    """jsonl_v040.jsonl: a shell call paired with its result, then the answer; the $set is used."""
    conversation = parse_all(home)["gemini_stage0_jsonl"]
    prompt, call, reply = conversation.messages
    assert prompt.text == "Say hello and list files."
    (tool,) = call.tool_calls
    assert (tool.name, tool.input["command"], tool.is_error) == (
        "run_shell_command",
        "ls -F",
        False,
    )
    assert tool.output == "Output: AgentSessions/\nREADME.md\nProcess Group PGID: 12345"
    assert tool.result == "AgentSessions/\nREADME.md"  # the display, kept beside the output
    assert reply.text == "Hello! I listed the files."
    assert reply.usage is not None
    assert (reply.usage.input_tokens, reply.usage.cache_read_tokens) == (12069, 11502)
    assert [m.parent_id for m in conversation.messages] == [None, prompt.id, call.id]
    assert conversation.title == "Say hello and list files."
    assert conversation.diagnostics.records_seen == conversation.diagnostics.records_used == 5
