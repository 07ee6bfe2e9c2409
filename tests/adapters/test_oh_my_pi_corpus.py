"""The hand-made Oh My Pi sample of ../shared/corpus-next/pi/hand-made/omp parses in full.

The sample is copied into a temporary home (never into the repo); the facts checked were read
off its raw lines.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from corpus_home import parse_home

from chatparse.adapters.oh_my_pi import OhMyPiAdapter
from chatparse.model import ParsedConversation

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus-next" / "pi" / "hand-made" / "omp"
SESSION = "V1StGXR8_Z5jdHi6B-myT"

pytestmark = pytest.mark.skipif(not CORPUS.is_dir(), reason=f"no corpus at {CORPUS}")


@pytest.fixture
def conversation(tmp_path: Path) -> ParsedConversation:
    """The sample's session, laid out under ~/.omp/agent, parsed through detect and scan."""
    shutil.copytree(CORPUS / "sessions", tmp_path / ".omp" / "agent" / "sessions")
    (parsed,) = parse_home(OhMyPiAdapter(), tmp_path).values()  # the sub-agent is not apart
    return parsed


def test_session_title_slot_tools_and_usage(conversation: ParsedConversation) -> None:
    """Title from the slot; thinking and a read call paired with its result; per-message usage."""
    assert (conversation.id, conversation.title) == (SESSION, "Fix flaky login test")
    assert conversation.meta.title == "Fix flaky login test"  # the scan read the slot
    assert conversation.project_path == "/home/dev/code/demo"
    assert conversation.diagnostics.records_seen == 9
    assert conversation.diagnostics.skipped == {
        "model_change: setting": 1,
        "thinking_level_change: setting": 1,
    }
    prompt, call, answer = conversation.messages
    assert prompt.text == "The login test is flaky, find out why."
    assert call.thinking == "Look at the test first."
    (read,) = call.tool_calls
    assert (read.id, read.name, read.input) == ("toolu_01", "read", {"path": "tests/login.test.ts"})
    assert read.output is not None
    assert read.output.startswith("it('logs in', async () => { await sleep(50);")
    assert call.usage is not None
    assert (call.usage.input_tokens, call.usage.cache_write_tokens) == (2100 + 2048, 2048)
    assert answer.usage is not None
    assert (answer.usage.input_tokens, answer.usage.cache_read_tokens) == (40 + 4150, 4150)
    assert [m.parent_id for m in conversation.messages] == [None, prompt.id, call.id]


def test_the_scout_subagent_is_read_inside_its_parent(conversation: ParsedConversation) -> None:
    """<parent stem>/scout.jsonl: empty slot, session_init skipped, a string prompt, an answer."""
    (scout,) = conversation.subagents
    assert scout.id == "k3Jd9sP0aQ7mZx1YtR4wE"
    assert scout.meta.locator["agent"] == "scout"
    assert scout.meta.locator["parent_session"] == SESSION
    assert scout.title == "List files that import login()"
    assert [m.text for m in scout.messages] == [
        "List files that import login()",
        "src/auth.ts, tests/login.test.ts",
    ]
    assert scout.messages[1].model == "claude-haiku-4-5"
    assert scout.diagnostics.skipped == {
        "session_init: sub-agent setup (its task is the first prompt)": 1
    }
    total = conversation.usage_total()
    assert total.output_tokens == 60 + 25 + 12
