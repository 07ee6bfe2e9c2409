"""The Cline adapter and the Cline family's shared reader: what the fixtures do not show."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import chatparse
from chatparse.adapters._cline.content import read_content
from chatparse.adapters._cline.usage import metrics_usage, request_usage
from chatparse.adapters.cline import ClineAdapter
from chatparse.adapters.cline.locate import data_dir, sessions_dir
from chatparse.host import Host
from chatparse.model import ParsedConversation
from chatparse.testing import AdapterConformance, check_conversation

REPO = Path(__file__).resolve().parents[2]
EXTENSION = Path(".config/Code/User/globalStorage/saoudrizwan.claude-dev")


class TestClineConformance(AdapterConformance):
    adapter = "cline"
    fixtures = REPO / "fixtures" / "cline"

    def make_adapter(self) -> chatparse.SourceAdapter:
        return ClineAdapter()


def write(path: Path, value: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(value if isinstance(value, str) else json.dumps(value), encoding="utf-8")
    return path


def parse_all(home: Path, env: dict[str, str] | None = None) -> list[ParsedConversation]:
    adapter = ClineAdapter()
    found = adapter.detect(Host(home=home, env=env or {}, platform="linux"))
    assert found is not None
    parsed = [adapter.parse(meta) for meta in adapter.scan(found)]
    for conversation in parsed:
        assert check_conversation(conversation) == []
        assert conversation.diagnostics.balanced
    return parsed


def request(ts: int, **info: Any) -> dict[str, Any]:
    return {"ts": ts, "type": "say", "say": "api_req_started", "text": json.dumps(info)}


# --- usage ------------------------------------------------------------------------------------


def test_request_usage_adds_the_cache_to_anthropic_style_input() -> None:
    """Anthropic style: input is tokensIn + cacheReads + cacheWrites (tokensIn has no cache)."""
    problems: list[str] = []
    usage = request_usage(
        {"tokensIn": 10, "tokensOut": 5, "cacheReads": 100, "cacheWrites": 20}, "k", problems
    )
    assert usage is not None
    assert (usage.input_tokens, usage.output_tokens) == (130, 5)
    assert (usage.cache_read_tokens, usage.cache_write_tokens) == (100, 20)
    assert usage.reasoning_tokens is None
    assert problems == []


def test_request_usage_of_roo_openai_protocol_already_counts_the_cache() -> None:
    """Roo's apiProtocol "openai": tokensIn includes the cached tokens."""
    usage = request_usage(
        {"tokensIn": 300, "tokensOut": 5, "cacheReads": 250, "apiProtocol": "openai"}, None, []
    )
    assert usage is not None
    assert (usage.input_tokens, usage.cache_read_tokens, usage.cache_write_tokens) == (
        300,
        250,
        None,
    )


def test_request_without_counts_has_no_usage_and_bad_counts_are_said() -> None:
    """No count at all: no usage (never zeros); a count that is no count: left out, said."""
    assert request_usage({"request": "x", "cost": 0}, "k", []) is None
    problems: list[str] = []
    usage = request_usage({"tokensIn": -1, "tokensOut": 7}, "k", problems)
    assert usage is not None
    assert (usage.input_tokens, usage.output_tokens) == (None, 7)
    assert problems == ["tokensIn -1 is not a token count; left out"]


def test_sdk_metrics_input_already_includes_the_cache() -> None:
    """Cline 4.x metrics: inputTokens is the whole prompt, never less than its cached parts."""
    usage = metrics_usage(
        {
            "inputTokens": 35912,
            "outputTokens": 164,
            "cacheReadTokens": 34332,
            "cacheWriteTokens": 0,
        },
        "cline:msg",
        [],
    )
    assert usage is not None
    assert (usage.input_tokens, usage.cache_read_tokens) == (35912, 34332)
    assert metrics_usage("not an object", None, []) is None


# --- content ------------------------------------------------------------------------------------


def test_xml_tool_tags_become_calls_and_thinking_tags_thinking() -> None:
    parts = read_content(
        "<thinking>Look first.</thinking>\nReading.\n<read_file>\n<path>a.py</path>\n</read_file>"
        "<not_a_tool>kept</not_a_tool>",
        "assistant",
    )
    assert parts.thinking == ["Look first."]
    assert parts.calls == [(None, "read_file", {"path": "a.py"})]
    assert parts.joined_text == "Reading.\n<not_a_tool>kept</not_a_tool>"


def test_xml_results_take_the_text_blocks_after_their_header() -> None:
    """A '[tool for x] Result:' block, then its output; the feedback after it is the person's."""
    parts = read_content(
        [
            {"type": "text", "text": "[read_file for 'a.py'] Result:"},
            {"type": "text", "text": "print(1)"},
            {"type": "text", "text": "<feedback>\nlooks good\n</feedback>"},
            {
                "type": "text",
                "text": "<environment_details>\n# Current Working Directory (/w) Files\n"
                "</environment_details>",
            },
        ],
        "user",
    )
    assert parts.results == [(None, "read_file", "print(1)", None)]
    assert parts.joined_text == "looks good"
    assert parts.environment is not None


def test_images_in_blocks_and_tool_results_are_measured_not_kept() -> None:
    data = "iVBORw0KGgo" + "A1b2C3d4" * 40
    parts = read_content(
        [
            {
                "type": "image",
                "source": {"type": "base64", "media_type": "image/png", "data": data},
            },
            {
                "type": "tool_result",
                "tool_use_id": "t",
                "content": [
                    {
                        "type": "image",
                        "source": {"type": "base64", "media_type": "image/jpeg", "data": data},
                    }
                ],
            },
        ],
        "user",
    )
    assert [image.media_type for image in parts.images] == ["image/png", "image/jpeg"]
    assert all(image.byte_size for image in parts.images)
    assert data not in repr(parts)


# --- task folders --------------------------------------------------------------------------------


def test_requests_pair_by_position_without_history_indexes(tmp_path: Path) -> None:
    """No conversationHistoryIndex: the n-th request answers with the n-th assistant message."""
    task = tmp_path / EXTENSION / "tasks" / "1767225600000"
    write(
        task / "api_conversation_history.json",
        [
            {"role": "user", "content": "<task>\nhi\n</task>"},
            {"role": "assistant", "content": "one"},
            {"role": "user", "content": "<feedback>\nmore\n</feedback>"},
            {"role": "assistant", "content": "two"},
        ],
    )
    write(
        task / "ui_messages.json",
        [
            {"ts": 1767225600000, "type": "say", "say": "task", "text": "hi"},
            request(1767225601000, tokensIn=1, tokensOut=2),
            request(1767225605000, tokensIn=3, tokensOut=4),
        ],
    )
    (conversation,) = parse_all(tmp_path)
    prompt, one, more, two = conversation.messages
    assert [m.text for m in conversation.messages] == ["hi", "one", "more", "two"]
    assert one.usage is not None
    assert one.usage.output_tokens == 2
    assert two.usage is not None
    assert two.usage.output_tokens == 4
    assert more.timestamp == two.timestamp  # the request that sent it
    assert prompt.timestamp is not None
    assert one.timestamp is not None
    assert prompt.timestamp < one.timestamp


def test_a_task_without_its_files_is_not_listed_and_a_gone_one_raises(tmp_path: Path) -> None:
    write(tmp_path / EXTENSION / "tasks" / "1" / "task_metadata.json", {})
    task = tmp_path / EXTENSION / "tasks" / "2"
    write(task / "ui_messages.json", [{"ts": 1, "type": "say", "say": "task", "text": "x"}])
    adapter = ClineAdapter()
    found = adapter.detect(Host(home=tmp_path, env={}, platform="linux"))
    assert found is not None
    (meta,) = adapter.scan(found)
    assert meta.id == "2"
    (task / "ui_messages.json").unlink()
    with pytest.raises(chatparse.SourceUnavailableError):
        adapter.parse(meta)


def test_the_same_response_in_a_fork_has_one_dedup_key(tmp_path: Path) -> None:
    """4.x message ids are copied into a fork: both copies of a response share a dedup key."""
    message = {
        "id": "msg_a",
        "role": "assistant",
        "ts": 1784100000000,
        "content": "ok",
        "metrics": {"inputTokens": 10, "outputTokens": 1},
    }
    for session in ("1784100000000_aaaaa", "1784100000001_bbbbb"):
        folder = tmp_path / ".cline" / "data" / "sessions" / session
        write(folder / f"{session}.messages.json", {"version": 1, "messages": [message]})
    first, second = parse_all(tmp_path)
    keys = [c.messages[0].usage.dedup_key for c in (first, second)]  # type: ignore[union-attr]
    assert keys == ["cline:msg_a", "cline:msg_a"]
    assert len(chatparse.usage_report([first, second], by="source")) == 1
    (row,) = chatparse.usage_report([first, second], by="source")
    assert row.input_tokens == 10


# --- where --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("env", "data", "sessions"),
    [
        ({}, "~/.cline/data", "~/.cline/data/sessions"),
        ({"CLINE_DIR": "~/c"}, "~/c/data", "~/c/data/sessions"),
        ({"CLINE_DATA_DIR": "/d", "CLINE_DIR": "~/c"}, "/d", "/d/sessions"),
        ({"CLINE_SESSION_DATA_DIR": "/s"}, "~/.cline/data", "/s"),
    ],
)
def test_data_and_session_folders_follow_clines_variables(
    tmp_path: Path, env: dict[str, str], data: str, sessions: str
) -> None:
    host = Host(home=tmp_path, env=env, platform="linux")
    assert data_dir(host) == host.expand(data)
    assert sessions_dir(host) == host.expand(sessions)


def test_every_editor_and_remote_server_is_searched(tmp_path: Path) -> None:
    for user in (".config/VSCodium/User", ".config/Windsurf/User", ".cursor-server/data/User"):
        folder = tmp_path / user / "globalStorage" / "saoudrizwan.claude-dev" / "tasks"
        write(
            folder / user.split("/")[1] / "ui_messages.json",
            [{"ts": 1, "type": "say", "say": "task", "text": user}],
        )
    adapter = ClineAdapter()
    found = adapter.detect(Host(home=tmp_path, env={}, platform="linux"))
    assert found is not None
    assert len(found.roots) == 3
    assert len(list(adapter.scan(found))) == 3


def test_sniff_and_scan_path(tmp_path: Path) -> None:
    adapter = ClineAdapter()
    task = write(
        tmp_path / EXTENSION / "tasks" / "7" / "ui_messages.json",
        [{"ts": 1, "type": "say", "say": "task", "text": "x"}],
    )
    session = write(
        tmp_path / "s" / "9_abcde" / "9_abcde.messages.json", {"version": 1, "messages": []}
    )
    other = write(tmp_path / "notes.json", [])
    assert adapter.sniff(task) == 0.9
    assert adapter.sniff(session) == 0.9
    assert adapter.sniff(other) == 0.0
    assert [m.id for m in adapter.scan_path(task)] == ["7"]
    assert [m.id for m in adapter.scan_path(session)] == ["9_abcde"]


def test_explain_names_the_variables_and_folders(tmp_path: Path) -> None:
    write(tmp_path / EXTENSION / "tasks" / "7" / "ui_messages.json", [])
    lines = list(
        ClineAdapter().explain(Host(home=tmp_path, env={"CLINE_DIR": "~/c"}, platform="linux"))
    )
    assert "CLINE_DIR=~/c" in lines
    assert any(line.endswith("1 task folder(s)") for line in lines)
    assert any("4.x session folder" in line or "no 4.x SDK sessions" in line for line in lines)
