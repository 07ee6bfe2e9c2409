"""The Kilo Code sample of ../shared/corpus-next/kilo-code parses in full.

The sample is copied into a temporary home (never into the repo); the facts checked were read
off the raw file.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from chatparse.adapters.kilo_code import KiloCodeAdapter
from chatparse.host import Host
from chatparse.testing import check_conversation

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus-next" / "kilo-code"
SAMPLE = CORPUS / "yigitkonur__cli-continues" / "test-fixtures" / "kilo-code" / "tasks"

pytestmark = pytest.mark.skipif(not CORPUS.is_dir(), reason=f"no corpus at {CORPUS}")


def test_the_legacy_ui_log(tmp_path: Path) -> None:
    """Prompt, a streamed answer, feedback, reasoning for the next answer, usage per request."""
    shutil.copytree(SAMPLE, tmp_path / ".config/Code/User/globalStorage/kilocode.kilo-code/tasks")
    adapter = KiloCodeAdapter()
    found = adapter.detect(Host(home=tmp_path, env={}, platform="linux"))
    assert found is not None
    (meta,) = adapter.scan(found)
    conversation = adapter.parse(meta)
    assert check_conversation(conversation) == []
    assert conversation.diagnostics.balanced
    assert conversation.diagnostics.records_seen == 8
    assert conversation.title == "Implement rate limiting middleware for our Express API"
    texts = [(m.role, m.text) for m in conversation.messages if m.text]
    assert texts[2] == ("user", "Add separate limits for authenticated and anonymous users")
    final = conversation.messages[-1]
    assert final.thinking is not None
    assert final.thinking.startswith("Need different rate limit tiers")
    assert final.usage is not None
    assert (final.usage.input_tokens, final.usage.output_tokens) == (350, 400)
    assert conversation.usage_total().output_tokens == 0 + 250 + 400
