"""Every real Cursor database in ../shared/corpus parses in place, fully accounted, as in a home."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

import chatparse
from chatparse.host import Host
from chatparse.model import ParsedConversation
from chatparse.testing import check_conversation

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus" / "cursor"
GNOMON = "gnomon_state.synthetic.vscdb"
S2 = "s2thend_v016_composer-global-state.synthetic.vscdb"
SLEVIN = "slevin48_workspace_state_chat-rows.vscdb"

pytestmark = pytest.mark.skipif(not CORPUS.is_dir(), reason=f"no corpus at {CORPUS}")


def corpus_file(name: str) -> Path:
    path = CORPUS / name
    if not path.is_file():
        pytest.skip(f"corpus file {name} is not here")
    return path


def checked(conversations: list[ParsedConversation]) -> list[ParsedConversation]:
    for conversation in conversations:
        assert check_conversation(conversation) == []
        assert conversation.diagnostics.balanced
    return conversations


def home_with(tmp_path: Path, global_db: str | None, workspace_db: str | None) -> Host:
    """A Linux home whose Cursor databases are links to the corpus files (never copies)."""
    user = tmp_path / ".config" / "Cursor" / "User"
    if global_db is not None:
        (user / "globalStorage").mkdir(parents=True)
        (user / "globalStorage" / "state.vscdb").symlink_to(corpus_file(global_db))
    if workspace_db is not None:
        (user / "workspaceStorage" / "74b0ce6c").mkdir(parents=True)
        (user / "workspaceStorage" / "74b0ce6c" / "state.vscdb").symlink_to(
            corpus_file(workspace_db)
        )
    return Host(home=tmp_path, env={}, platform="linux")


def test_corpus_home_of_a_global_and_a_workspace_db(tmp_path: Path) -> None:
    """A home holding the S2 global DB and the real 2024 workspace DB yields all 32 chats."""
    host = home_with(tmp_path, S2, SLEVIN)
    conversations = checked(list(chatparse.iter_conversations(host, sources="cursor")))
    by_kind: dict[str, list[ParsedConversation]] = {}
    for conversation in conversations:
        by_kind.setdefault(conversation.meta.locator["kind"], []).append(conversation)
    counts = {
        kind: (
            len(group),
            sum(len(c.messages) for c in group),
            sum(c.diagnostics.records_seen for c in group),
            sum(sum(c.diagnostics.skipped.values()) for c in group),
        )
        for kind, group in by_kind.items()
    }
    # kind: (conversations, messages, records seen, records skipped)
    assert counts == {
        "composer": (1, 6, 8, 1),
        "inline": (26, 82, 108, 0),
        "legacy": (5, 44, 54, 5),
    }
    assert all(c.title for c in conversations)
    assert not any(c.diagnostics.unknown or c.diagnostics.malformed for c in conversations)


def test_corpus_real_inline_composers(tmp_path: Path) -> None:
    """The real late-2024 composers alternate user and assistant, with code kept in the text."""
    host = home_with(tmp_path, None, SLEVIN)
    inline = [
        c
        for c in checked(list(chatparse.iter_conversations(host, sources="cursor")))
        if c.meta.locator["kind"] == "inline"
    ]
    assert len(inline) == 26
    for conversation in inline:
        roles = [m.role for m in conversation.messages]
        assert roles == ["user", "assistant"] * (len(roles) // 2)
    longest = max(inline, key=lambda c: len(c.messages))
    assert longest.id.startswith("a76419da")
    assert len(longest.messages) == 14
    assert "```" in longest.messages[1].text
    named = [c for c in inline if c.meta.title is not None]
    assert len(named) == 7


def test_corpus_legacy_chat_tabs(tmp_path: Path) -> None:
    """The five real chat-pane tabs keep their titles and models; the empty drafts are skipped."""
    host = home_with(tmp_path, None, SLEVIN)
    tabs = [
        c
        for c in checked(list(chatparse.iter_conversations(host, sources="cursor")))
        if c.meta.locator["kind"] == "legacy"
    ]
    assert min(c.title or "" for c in tabs) == "Android SDK Not Found Error Fix"
    assert sum(c.diagnostics.skipped.get("empty user bubble", 0) for c in tabs) == 5
    models = Counter(m.model for c in tabs for m in c.messages if m.role == "assistant")
    assert sum(models.values()) == 22
    assert None not in models


def test_corpus_s2_global_edge_rows() -> None:
    """The S2 fixture: a header matched by the inner bubbleId, a NULL row, an empty-id bubble."""
    (conversation,) = checked(chatparse.parse_path(corpus_file(S2), source="cursor"))
    assert conversation.title == "Synthetic v0.16 Composer session"
    assert conversation.project_path == "/fixture/v016/project"
    assert [m.id for m in conversation.messages] == [
        "native-user-016",
        "synthetic-collision-row",
        "fallback-assistant-016",
        "native-tool-read-016",
        "native-tool-search-016",
        "empty-id-row-016",
    ]
    assert conversation.diagnostics.skipped == {"bubble row with a NULL value": 1}
    calls = [call for m in conversation.messages for call in m.tool_calls]
    assert [(c.name, c.output) for c in calls] == [
        ("read_file", "synthetic read result"),
        ("search", "synthetic search result"),
    ]


def test_corpus_gnomon_tool_statuses_and_usage(tmp_path: Path) -> None:
    """The gnomon fixture: tool-only bubbles kept, error and cancelled calls flagged, usage read."""
    host = home_with(tmp_path, GNOMON, None)
    conversations = checked(list(chatparse.iter_conversations(host, sources="cursor")))
    assert [c.id for c in conversations] == ["demo-session", "old-only-session"]
    demo = conversations[0]
    assert len(demo.messages) == 5
    calls = [call for m in demo.messages for call in m.tool_calls]
    assert [c.is_error for c in calls] == [False, True, True, False]
    assert demo.usage_total().input_tokens == 350
    assert demo.usage_total().output_tokens == 150
    assert all(m.timestamp is not None for m in demo.messages)
