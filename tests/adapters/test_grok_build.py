"""The Grok Build adapter: what the conformance cases do not show."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

import chatparse
from chatparse.adapters.grok_build import GrokBuildAdapter
from chatparse.adapters.grok_build.locate import decode_cwd
from chatparse.errors import SourceUnavailableError
from chatparse.host import Host
from chatparse.model import ConversationMeta, ParsedConversation
from chatparse.testing import AdapterConformance, check_conversation

REPO = Path(__file__).resolve().parents[2]
CWD_FOLDER = "%2Fhome%2Fdev%2Fp"


class TestGrokBuildConformance(AdapterConformance):
    adapter = "grok-build"
    fixtures = REPO / "fixtures" / "grok-build"

    def make_adapter(self) -> chatparse.SourceAdapter:
        return GrokBuildAdapter()


# --- helpers ---


def session(home: Path, ident: str, *, folder: str = CWD_FOLDER, **summary: Any) -> Path:
    """A session folder with a one-prompt chat history, and a summary when fields are given."""
    path = home / ".grok" / "sessions" / folder / ident
    path.mkdir(parents=True)
    lines = [
        {"type": "user", "content": [{"type": "text", "text": f"prompt of {ident}"}]},
        {"type": "assistant", "content": f"answer of {ident}", "model_id": "grok-4.5"},
    ]
    (path / "chat_history.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    if summary:
        (path / "summary.json").write_text(json.dumps({"info": {"id": ident}, **summary}))
    return path


def scan(home: Path, **env: str) -> list[ConversationMeta]:
    adapter = GrokBuildAdapter()
    found = adapter.detect(Host(home=home, env=env, platform="linux"))
    assert found is not None
    return list(adapter.scan(found))


def parse_all(home: Path) -> list[ParsedConversation]:
    conversations = [GrokBuildAdapter().parse(meta) for meta in scan(home)]
    for conversation in conversations:
        assert check_conversation(conversation) == []
    return conversations


# --- where it looks ---


def test_nothing_to_detect_without_a_sessions_folder(tmp_path: Path) -> None:
    """A ~/.grok without sessions/ (the config of a fresh install) is not a source."""
    (tmp_path / ".grok").mkdir()
    (tmp_path / ".grok" / "config.toml").write_text("")
    assert GrokBuildAdapter().detect(Host(home=tmp_path, env={}, platform="darwin")) is None


def test_an_empty_grok_home_variable_means_the_default(tmp_path: Path) -> None:
    """GROK_HOME= is unset, as Grok Build itself reads it: ~/.grok is read."""
    session(tmp_path, "019f0000-0000-7000-8000-000000000001")
    assert [m.id for m in scan(tmp_path, GROK_HOME="")] == ["019f0000-0000-7000-8000-000000000001"]


def test_a_folder_without_a_session_file_is_not_a_session(tmp_path: Path) -> None:
    """Grok Build's other per-session files alone (signals.json) make no conversation."""
    session(tmp_path, "019f0000-0000-7000-8000-000000000001")
    other = tmp_path / ".grok" / "sessions" / CWD_FOLDER / "019f0000-0000-7000-8000-000000000002"
    other.mkdir()
    (other / "signals.json").write_text("{}")
    assert [m.id for m in scan(tmp_path)] == ["019f0000-0000-7000-8000-000000000001"]


def test_the_cwd_comes_from_the_folder_name_when_no_summary_says(tmp_path: Path) -> None:
    """A URL-encoded folder name is the cwd; a slug without a .cwd file gives none."""
    session(tmp_path, "019f0000-0000-7000-8000-000000000001", folder="%2Fsrv%2Fmy%20app")
    session(tmp_path, "019f0000-0000-7000-8000-000000000002", folder="proj-0123456789abcdef")
    projects = {m.id: m.project_path for m in scan(tmp_path)}
    assert projects == {
        "019f0000-0000-7000-8000-000000000001": "/srv/my app",
        "019f0000-0000-7000-8000-000000000002": None,
    }
    assert decode_cwd(Path("C%3A%5CUsers%5Cdev")) == "C:\\Users\\dev"


def test_one_session_id_under_two_cwd_folders_is_listed_once_the_newest_copy(
    tmp_path: Path,
) -> None:
    """A session moved to another working directory leaves two folders: the newer one is read."""
    ident = "019f0000-0000-7000-8000-000000000001"
    old = session(tmp_path, ident, folder="%2Fold")
    new = session(tmp_path, ident, folder="%2Fnew")
    os.utime(old / "chat_history.jsonl", (1_700_000_000, 1_700_000_000))
    os.utime(new / "chat_history.jsonl", (1_800_000_000, 1_800_000_000))
    (meta,) = scan(tmp_path)
    assert meta.path == str(new / "chat_history.jsonl")
    assert meta.project_path == "/new"


# --- sub-agents ---


def test_a_subagent_is_read_inside_its_parent_and_its_usage_is_not_counted_twice(
    tmp_path: Path,
) -> None:
    """The child session names its parent: one conversation, the child's usage uncounted."""
    parent, child = "019f0000-0000-7000-8000-00000000000a", "019f0000-0000-7000-8000-00000000000b"
    session(tmp_path, parent, generated_title="Parent")
    folder = session(
        tmp_path, child, session_kind="subagent", parent_session_id=parent, folder="%2Felsewhere"
    )
    update = {
        "timestamp": 1_785_492_807,
        "method": "_x.ai/session/update",
        "params": {
            "sessionId": child,
            "update": {
                "sessionUpdate": "turn_completed",
                "prompt_id": "p1",
                "stop_reason": "end_turn",
                "usage": {"inputTokens": 10, "outputTokens": 2},
            },
        },
    }
    user = {
        "timestamp": 1_785_492_800,
        "method": "session/update",
        "params": {
            "sessionId": child,
            "update": {"sessionUpdate": "user_message_chunk", "content": {"type": "text"}},
        },
    }
    (folder / "updates.jsonl").write_text(json.dumps(user) + "\n" + json.dumps(update) + "\n")
    (conversation,) = parse_all(tmp_path)
    assert conversation.id == parent
    (sub,) = conversation.subagents
    assert sub.id == child
    assert sub.project_path == "/elsewhere"
    usage = sub.messages[-1].usage
    assert usage is not None
    assert (usage.input_tokens, usage.counted) == (10, False)
    assert conversation.usage_total().input_tokens in (0, None)


def test_parent_loops_do_not_hide_sessions(tmp_path: Path) -> None:
    """Two sub-agents naming each other as parent are both listed, each on its own."""
    a, b = "019f0000-0000-7000-8000-00000000000a", "019f0000-0000-7000-8000-00000000000b"
    session(tmp_path, a, session_kind="subagent", parent_session_id=b)
    session(tmp_path, b, session_kind="subagent", parent_session_id=a)
    assert sorted(c.id for c in parse_all(tmp_path)) == [a, b]


def test_a_change_in_a_subagent_changes_the_parents_fingerprint(tmp_path: Path) -> None:
    """The parent's output holds the child, so its change key must see the child's files."""
    parent, child = "019f0000-0000-7000-8000-00000000000a", "019f0000-0000-7000-8000-00000000000b"
    session(tmp_path, parent)
    folder = session(tmp_path, child, session_kind="subagent", parent_session_id=parent)
    (before,) = scan(tmp_path)
    with (folder / "chat_history.jsonl").open("a") as stream:
        stream.write(json.dumps({"type": "assistant", "content": "more"}) + "\n")
    (after,) = scan(tmp_path)
    assert before.fingerprint != after.fingerprint


# --- reading ---


def test_a_session_folder_gone_since_the_scan_cannot_be_parsed(tmp_path: Path) -> None:
    """A moved or deleted session is an unavailable source, not an empty conversation."""
    folder = session(tmp_path, "019f0000-0000-7000-8000-000000000001")
    (meta,) = scan(tmp_path)
    shutil.rmtree(folder)
    with pytest.raises(SourceUnavailableError):
        GrokBuildAdapter().parse(meta)


def test_a_summary_alone_is_a_conversation_without_messages(tmp_path: Path) -> None:
    """A session whose chat history was never written still has its title and times."""
    folder = session(
        tmp_path,
        "019f0000-0000-7000-8000-000000000001",
        generated_title="Only a summary",
        created_at="2026-01-02T03:04:05Z",
    )
    (folder / "chat_history.jsonl").unlink()
    (conversation,) = parse_all(tmp_path)
    assert (conversation.title, conversation.messages) == ("Only a summary", ())
    assert conversation.created_at is not None
    assert conversation.diagnostics.records_used == 1


def test_a_time_without_a_unit_is_never_guessed(tmp_path: Path) -> None:
    """An update without a timestamp (0, as serde writes a missing one) gives its prompt none."""
    folder = session(tmp_path, "019f0000-0000-7000-8000-000000000001")
    chunk = {
        "timestamp": 0,
        "method": "session/update",
        "params": {"update": {"sessionUpdate": "user_message_chunk", "content": {}}},
    }
    (folder / "updates.jsonl").write_text(json.dumps(chunk) + "\n")
    (conversation,) = parse_all(tmp_path)
    assert conversation.messages[0].timestamp is None
    assert conversation.diagnostics.skipped["update: user_message_chunk"] == 1


# --- parse_path and doctor ---


def test_sniff_and_scan_path_take_a_session_folder_or_one_of_its_files(tmp_path: Path) -> None:
    """A session folder, its chat history and its summary all lead to the one session."""
    folder = session(tmp_path, "019f0000-0000-7000-8000-000000000001", generated_title="T")
    adapter = GrokBuildAdapter()
    for path in (folder, folder / "chat_history.jsonl", folder / "summary.json"):
        assert adapter.sniff(path) == pytest.approx(0.9)
        (meta,) = adapter.scan_path(path)
        assert (meta.id, meta.title) == ("019f0000-0000-7000-8000-000000000001", "T")
    loose = tmp_path / "elsewhere" / "chat_history.jsonl"
    loose.parent.mkdir()
    shutil.copy(folder / "chat_history.jsonl", loose)
    assert adapter.sniff(loose) == pytest.approx(0.6)
    assert adapter.sniff(tmp_path / "elsewhere") == pytest.approx(0.6)
    assert adapter.sniff(folder / "signals.json") == 0.0
    (other := tmp_path / "notes.jsonl").write_text("{}\n")
    assert adapter.sniff(other) == 0.0


def test_explain_says_where_it_looked_and_what_it_found(tmp_path: Path) -> None:
    """Doctor names the variable, the sessions folder and what is in it."""
    adapter = GrokBuildAdapter()
    lines = list(adapter.explain(Host(home=tmp_path, env={}, platform="linux")))
    assert lines[0] == "GROK_HOME is not set: using ~/.grok"
    assert lines[1].endswith("missing")
    session(tmp_path / "custom", "019f0000-0000-7000-8000-000000000001")
    moved = Host(home=tmp_path, env={"GROK_HOME": str(tmp_path / "custom" / ".grok")})
    lines = list(adapter.explain(moved))
    assert lines[0].startswith("GROK_HOME is set")
    assert lines[1].endswith("1 session folder(s) in 1 working-directory folder(s)")
