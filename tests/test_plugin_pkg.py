"""The toy third-party adapter, installed as a real distribution, used through the public API."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import chatparse

pytestmark = pytest.mark.skipif(
    os.environ.get("CHATPARSE_TEST_PLUGIN_INSTALLED") != "1",
    reason="needs tests/plugin_pkg installed (nox -s tests)",
)


def test_toy_plugin_end_to_end(tmp_path: Path) -> None:
    """A pip-installed plugin is discovered, loaded lazily and parses through the public API."""
    chats = tmp_path / ".toychat"
    chats.mkdir()
    (chats / "hello.chat").write_text(
        "title: Greeting\nuser: hi\nassistant: hello\n???\n", encoding="utf-8"
    )
    host = chatparse.Host(home=tmp_path, env={}, platform="linux")
    assert "toy" in chatparse.adapter_names()
    [conversation] = list(chatparse.iter_conversations(host, sources=["toy"]))
    assert conversation.title == "Greeting"
    assert [(m.role, m.text) for m in conversation.messages] == [
        ("user", "hi"),
        ("assistant", "hello"),
    ]
    assert conversation.diagnostics.balanced
    assert conversation.diagnostics.unknown[0].where == "line 4"
    assert chatparse.parse_path(chats / "hello.chat", source="toy") == [conversation]
