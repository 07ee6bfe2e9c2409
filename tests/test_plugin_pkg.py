"""The toy third-party adapter, installed as a real distribution, used through the public API."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import chatparse
from chatparse.adapter import Explainer

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


def test_toy_plugin_honours_its_variable_and_explains_it(tmp_path: Path) -> None:
    """``$TOYCHAT_HOME`` moves the folder; ``explain`` (for ``chatparse doctor``) says where."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "moved.chat").write_text("user: here\n", encoding="utf-8")
    host = chatparse.Host(home=tmp_path, env={"TOYCHAT_HOME": str(elsewhere)}, platform="linux")
    adapter = chatparse.get_adapter("toy")
    assert isinstance(adapter, Explainer)
    assert [f"conversations: {elsewhere} (found; $TOYCHAT_HOME moves it)"] == list(
        adapter.explain(host)
    )
    [conversation] = list(chatparse.iter_conversations(host, sources=["toy"]))
    assert (conversation.id, conversation.title) == ("moved", "here")


def test_toy_plugin_raises_a_typed_cause_for_a_vanished_file(tmp_path: Path) -> None:
    """Only a container that cannot be read raises, with a cause programs can test."""
    chats = tmp_path / ".toychat"
    chats.mkdir()
    (chats / "gone.chat").write_text("user: soon gone\n", encoding="utf-8")
    host = chatparse.Host(home=tmp_path, env={}, platform="linux")
    [meta] = list(chatparse.scan(host, sources=["toy"]))
    (chats / "gone.chat").unlink()
    with pytest.raises(chatparse.SourceUnavailableError) as caught:
        chatparse.parse(meta)
    assert caught.value.cause is chatparse.UnavailableCause.MISSING


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root reads anything")
def test_toy_plugin_scan_names_a_folder_it_cannot_list(tmp_path: Path) -> None:
    """A folder that cannot be listed is passed over with a warning, never in silence."""
    chats = tmp_path / ".toychat"
    chats.mkdir()
    host = chatparse.Host(home=tmp_path, env={}, platform="linux")
    chats.chmod(0)
    try:
        with pytest.warns(chatparse.SkippedSourceWarning, match=r"\.toychat: cannot be listed"):
            assert list(chatparse.scan(host, sources=["toy"])) == []
    finally:
        chats.chmod(0o700)
