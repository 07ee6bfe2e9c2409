"""The OpenHands samples of ../shared/corpus-next/openhands parse, every record accounted for.

The samples are hand-made (no real OpenHands CLI conversation under a permissive licence was
found); they are copied into a temporary home laid out as the CLI lays it out (never into the
repo). The facts checked were read off the raw files.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from corpus_home import parse_home

from chatparse.adapters.openhands import OpenHandsAdapter

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus-next" / "openhands"
CONVERSATIONS = CORPUS / "hand-made" / "conversations"
IDENT = "086c7ecf6cb746b69fbcb900358d1247"

pytestmark = pytest.mark.skipif(not CONVERSATIONS.is_dir(), reason=f"no corpus at {CORPUS}")


def test_the_hand_made_conversation(tmp_path: Path) -> None:
    shutil.copytree(CONVERSATIONS, tmp_path / ".openhands" / "conversations")
    (parsed,) = parse_home(OpenHandsAdapter(), tmp_path).values()
    assert parsed.id == IDENT
    diagnostics = parsed.diagnostics
    assert (diagnostics.records_seen, diagnostics.records_used) == (5, 5)
    assert parsed.project_path == "/home/dev/code/server"
    prompt, action, final = parsed.messages
    assert (prompt.role, prompt.text) == ("user", "Help me debug the server")
    assert action.text == "I'll inspect the logs first."
    assert action.thinking == "Start with the failing process."
    (call,) = action.tool_calls
    assert (call.id, call.name, call.input) == (
        "toolu_123",
        "terminal",
        {"command": "tail -40 /tmp/server.log"},
    )
    assert (call.output, call.is_error) == ("panic: boom", False)
    assert action.usage is not None
    assert (action.usage.input_tokens, action.usage.output_tokens) == (5210, 180)
    assert (action.usage.cache_read_tokens, action.usage.cache_write_tokens) == (3900, 1200)
    assert action.usage.dedup_key == "openhands:msg_01"
    assert final.text == "The panic happens during startup."
    assert final.model == "litellm_proxy/claude-sonnet-4-6"
    assert all(m.timestamp is None for m in parsed.messages)  # times carry no zone
