"""The Kilo Code sample of ../shared/corpus-next/kilo-code parses in full.

The sample is copied into a temporary home (never into the repo); the facts checked were read
off the raw file. There is no public Kilo 7.x store: a real OpenCode database (the format Kilo
7.x keeps, ../shared/corpus-next/opencode) stands in for one, copied in as ``kilo.db``.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from chatparse.adapters.kilo_code import KiloCodeAdapter
from chatparse.adapters.opencode import OpenCodeAdapter
from chatparse.host import Host
from chatparse.testing import check_conversation

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus-next" / "kilo-code"
SAMPLE = CORPUS / "yigitkonur__cli-continues" / "test-fixtures" / "kilo-code" / "tasks"
OPENCODE_DB = (
    CORPUS.parent / "opencode" / "WildChildForLife__lantern" / "fixtures" / "opencode-sqlite"
) / "opencode.db"

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


def test_an_opencode_database_read_as_kilo_7_is_read_alike(tmp_path: Path) -> None:
    """The shared reader: OpenCode's real database as kilo.db gives OpenCode's conversations."""
    if not OPENCODE_DB.is_file():
        pytest.skip("no OpenCode sample database")
    parsed = {}
    for adapter, folder in ((KiloCodeAdapter(), "kilo"), (OpenCodeAdapter(), "opencode")):
        home = tmp_path / folder
        (home / ".local/share" / folder).mkdir(parents=True)
        shutil.copyfile(OPENCODE_DB, home / ".local/share" / folder / f"{folder}.db")
        found = adapter.detect(Host(home=home, env={}, platform="linux"))
        assert found is not None
        parsed[folder] = [adapter.parse(meta) for meta in adapter.scan(found)]
    assert len(parsed["kilo"]) == len(parsed["opencode"]) == 3
    for kilo, opencode in zip(parsed["kilo"], parsed["opencode"], strict=True):
        assert check_conversation(kilo) == []
        assert kilo.source == "kilo-code"
        assert (kilo.id, kilo.title, kilo.diagnostics) == (
            opencode.id,
            opencode.title,
            opencode.diagnostics,
        )
        assert [(m.id, m.text, m.model) for m in kilo.messages] == [
            (m.id, m.text, m.model) for m in opencode.messages
        ]
        keys = [m.usage.dedup_key for m in kilo.messages if m.usage and m.usage.dedup_key]
        assert keys
        assert all(key.startswith("kilo-code:") for key in keys)
