"""The Mistral Vibe samples of ../shared/corpus-next/mistral-vibe (hand-made) parse in full.

The session folder is copied into a temporary home (never into the repo); the facts checked were
read off the raw files.
"""

from __future__ import annotations

import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest
from corpus_home import parse_home

from chatparse.adapters.mistral_vibe import MistralVibeAdapter

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus-next" / "mistral-vibe"
SESSION = CORPUS / "hand-made/logs/session/session_20260613_110000_def456gh"

pytestmark = pytest.mark.skipif(not SESSION.is_dir(), reason=f"no corpus at {SESSION}")


def test_the_hand_made_2x_session(tmp_path: Path) -> None:
    """Reasoning, a read_file call paired with its result, totals on the last answer."""
    shutil.copytree(SESSION, tmp_path / ".vibe" / "logs" / "session" / SESSION.name)
    (conversation,) = parse_home(MistralVibeAdapter(), tmp_path).values()
    assert conversation.diagnostics.records_seen == 5  # meta.json and four lines
    assert conversation.title == "Read the README file"
    assert conversation.project_path == "/home/user/projects/myapp"
    assert conversation.git_branch == "feature/tool-support"
    assert conversation.created_at == datetime(2026, 6, 13, 11, 0, tzinfo=UTC)
    user, first, last = conversation.messages
    assert user.text == "Read the README file"
    assert first.thinking == "The user wants README.md."
    assert first.model == "mistral-medium-latest"
    (call,) = first.tool_calls
    assert (call.id, call.name, call.input) == ("call_001", "read_file", {"path": "README.md"})
    assert call.output == "# My Project\n\nThis is a sample project."
    assert last.usage is not None
    assert (last.usage.input_tokens, last.usage.output_tokens) == (200, 100)
    assert last.usage.dedup_key == "mistral-vibe:def456gh-0000-4000-8000-000000000000"
