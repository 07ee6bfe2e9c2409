"""Tests for the Claude Code adapter: its conformance cases and the rules behind them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import chatparse
from chatparse.adapters.claude_code import ClaudeCodeAdapter
from chatparse.host import Host
from chatparse.model import ParsedConversation
from chatparse.testing import AdapterConformance, check_conversation

REPO = Path(__file__).resolve().parents[2]
SESSION = "0b5c4a7e-1d2f-4e3a-9b8c-7d6e5f4a3b2c"


class TestClaudeCodeConformance(AdapterConformance):
    adapter = "claude-code"
    fixtures = REPO / "fixtures" / "claude-code"


def line(**record: Any) -> str:
    return json.dumps(record, separators=(",", ":"))


def user(uuid: str, parent: str | None, content: Any, **extra: Any) -> str:
    return line(
        type="user",
        uuid=uuid,
        parentUuid=parent,
        sessionId=SESSION,
        timestamp=f"2025-05-01T10:00:{len(uuid):02d}.000Z",
        message={"role": "user", "content": content},
        **extra,
    )


def assistant(
    uuid: str, parent: str | None, blocks: list[Any], response: tuple[str, str | None], out: int
) -> str:
    msg, req = response
    record: dict[str, Any] = {
        "type": "assistant",
        "uuid": uuid,
        "parentUuid": parent,
        "sessionId": SESSION,
        "timestamp": "2025-05-01T10:01:00.000Z",
        "message": {
            "id": msg,
            "model": "claude-opus-4-1",
            "role": "assistant",
            "content": blocks,
            "usage": {"input_tokens": 4, "output_tokens": out, "cache_read_input_tokens": 10},
        },
    }
    if req is not None:
        record["requestId"] = req
    return line(**record)


def write_session(home: Path, lines: list[str], name: str = SESSION) -> Path:
    path = home / ".claude" / "projects" / "-home-u-app" / f"{name}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def parse_one(path: Path) -> ParsedConversation:
    (conversation,) = chatparse.parse_path(path, source="claude-code")
    assert check_conversation(conversation) == []
    return conversation


def test_split_response_is_one_message_with_blocks_in_order(tmp_path: Path) -> None:
    """Lines sharing message.id and requestId merge into one message: thinking, text, tool call."""
    path = write_session(
        tmp_path,
        [
            user("u1", None, "Hi"),
            assistant("a1", "u1", [{"type": "thinking", "thinking": "hmm"}], ("m", "r"), out=1),
            assistant("a2", "a1", [{"type": "text", "text": "Reading."}], ("m", "r"), out=1),
            assistant(
                "a3",
                "a2",
                [{"type": "tool_use", "id": "t1", "name": "Read", "input": {"p": 1}}],
                ("m", "r"),
                out=9,
            ),
            user("r1", "a3", [{"type": "tool_result", "tool_use_id": "t1", "content": "data"}]),
            assistant("a4", "r1", [{"type": "text", "text": "Done."}], ("n", "s"), out=2),
        ],
    )
    conversation = parse_one(path)
    first, response, answer = conversation.messages
    assert (response.thinking, response.text) == ("hmm", "Reading.")
    assert [(c.name, c.output) for c in response.tool_calls] == [("Read", "data")]
    assert answer.parent_id == response.id
    assert response.usage is not None
    assert response.usage.output_tokens == 9  # the last, complete copy
    assert conversation.usage_total().output_tokens == 11
    assert [m.id for m in conversation.main_thread()] == [first.id, response.id, answer.id]


def test_replayed_response_is_kept_but_counted_once(tmp_path: Path) -> None:
    """A second copy of one response keeps its usage with counted=False under the same key."""
    path = write_session(
        tmp_path,
        [
            user("u1", None, "Hi"),
            assistant("a1", "u1", [{"type": "text", "text": "One."}], ("m", None), out=5),
            user("u2", "a1", "Again"),
            assistant("a2", "u2", [{"type": "text", "text": "One."}], ("m", None), out=5),
        ],
    )
    usages = [m.usage for m in parse_one(path).messages if m.usage is not None]
    assert [(u.dedup_key, u.counted) for u in usages] == [("m", False), ("m", True)]


def test_command_args_containing_a_less_than_sign_survive() -> None:
    """A slash command's arguments are read whole even when they contain '<'."""
    from chatparse.adapters.claude_code import _read_user_text  # noqa: PLC0415 -- private helper

    text = "<command-name>/review</command-name><command-args>if a < b</command-args>"
    assert _read_user_text(text, {}) == ("command", "/review if a < b")


def test_untagged_caveat_and_reminders_are_removed() -> None:
    """The 1.0.x plain-text caveat and system reminders are harness text, not the user's."""
    from chatparse.adapters.claude_code import _read_user_text  # noqa: PLC0415 -- private helper

    caveat = "Caveat: The messages below were generated by the user while running local commands."
    assert _read_user_text(caveat, {"isMeta": True}) == ("notice", "")
    reminded = "Fix it<system-reminder>x < y</system-reminder>"
    assert _read_user_text(reminded, {}) == ("message", "Fix it")


def test_parent_cycle_does_not_hang(tmp_path: Path) -> None:
    """Lines whose parents form a loop parse, and main_thread() stops at the loop."""
    path = write_session(
        tmp_path,
        [user("x", "y", "first"), user("y", "x", "second")],
    )
    conversation = parse_one(path)
    assert len(conversation.messages) == 2
    assert len(conversation.main_thread()) <= 2


def test_a_message_below_a_loop_of_bookkeeping_lines_is_a_root(tmp_path: Path) -> None:
    """Lines that are not messages linked in a circle: finding the message above them stops."""
    path = write_session(
        tmp_path,
        [
            user("u1", None, "first"),
            line(type="progress", uuid="p1", parentUuid="p2", sessionId=SESSION),
            line(type="progress", uuid="p2", parentUuid="p1", sessionId=SESSION),
            user("u2", "p1", "second"),
        ],
    )
    first, second = parse_one(path).messages
    assert (first.parent_id, second.parent_id) == (None, None)


def test_structured_result_repeating_the_output_shares_its_string(tmp_path: Path) -> None:
    """``toolUseResult.stdout`` equal to the result's text is kept as that very string object."""
    output = "line one\n  indented line two"
    path = write_session(
        tmp_path,
        [
            user("u1", None, "Run it"),
            assistant(
                "a1",
                "u1",
                [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "ls"}}],
                ("m", "r"),
                out=3,
            ),
            user(
                "r1",
                "a1",
                [{"type": "tool_result", "tool_use_id": "t1", "content": output}],
                toolUseResult={"stdout": output, "stderr": "", "interrupted": False},
            ),
        ],
    )
    (call,) = parse_one(path).messages[1].tool_calls
    assert call.output == output
    assert call.result == {"stdout": output, "stderr": "", "interrupted": False}
    assert call.result["stdout"] is call.output


def test_unknown_record_keeps_its_raw_line(tmp_path: Path) -> None:
    """A record of an unknown type is kept byte for byte, with the version it was written by."""
    raw = line(type="brand-new", version="9.9.9", payload={"a": [1, 2]})
    path = write_session(tmp_path, [user("u1", None, "Hi"), raw])
    (unknown,) = parse_one(path).diagnostics.unknown
    assert (unknown.where, unknown.type, unknown.raw, unknown.producer_version) == (
        "line 2",
        "brand-new",
        raw,
        "9.9.9",
    )


def test_scan_uses_host_environment_and_skips_empty_files(tmp_path: Path) -> None:
    """CLAUDE_CONFIG_DIR is read from the Host; 0-byte session files are not listed."""
    custom = tmp_path / "cfg"
    write_session(custom.parent / "elsewhere", [user("u1", None, "Hi")], name="ignored")
    session = custom / "projects" / "-p" / f"{SESSION}.jsonl"
    session.parent.mkdir(parents=True)
    session.write_text(user("u1", None, "Hi") + "\n", encoding="utf-8")
    (session.parent / "empty.jsonl").write_bytes(b"")
    adapter = ClaudeCodeAdapter()
    found = adapter.detect(Host(home=tmp_path / "home", env={"CLAUDE_CONFIG_DIR": str(custom)}))
    assert found is not None
    assert [meta.id for meta in adapter.scan(found)] == [SESSION]
    assert adapter.detect(Host(home=tmp_path / "home", env={})) is None


def test_sniff_recognises_transcripts_only(tmp_path: Path) -> None:
    """sniff() is confident on a transcript and says no to other JSON Lines files."""
    adapter = ClaudeCodeAdapter()
    transcript = write_session(tmp_path, [user("u1", None, "Hi")])
    other = tmp_path / "rollout.jsonl"
    other.write_text(line(type="session_meta", payload={"id": "x"}) + "\n", encoding="utf-8")
    assert adapter.sniff(transcript) > 0.5
    assert adapter.sniff(other) == 0.0
    assert adapter.sniff(tmp_path / "notes.txt") == 0.0


def test_parse_path_on_an_empty_file_yields_nothing(tmp_path: Path) -> None:
    """An empty transcript is not a conversation."""
    path = write_session(tmp_path, [])
    path.write_bytes(b"")
    assert chatparse.parse_path(path, source="claude-code") == []


@pytest.mark.parametrize("bad", ['"text"', "42", "[1]", '{"no": "type"}', '{"type":"user"'])
def test_malformed_lines_are_counted_not_raised(tmp_path: Path, bad: str) -> None:
    """Valid JSON that is not a typed object, and torn lines, count as malformed."""
    path = write_session(tmp_path, [user("u1", None, "Hi"), bad])
    diagnostics = parse_one(path).diagnostics
    assert (diagnostics.records_seen, diagnostics.malformed) == (2, 1)


def test_subagent_replay_of_a_parent_response_is_not_counted(tmp_path: Path) -> None:
    """A sub-agent line replaying a parent response under another requestId is not counted."""
    path = write_session(
        tmp_path,
        [
            user("u1", None, "Hi"),
            assistant("a1", "u1", [{"type": "text", "text": "Main."}], ("m", "r1"), out=7),
        ],
    )
    agent = path.with_suffix("") / "subagents" / "agent-abc.jsonl"
    agent.parent.mkdir(parents=True)
    agent.write_text(
        "\n".join(
            [
                user("s1", None, "Side question", isSidechain=True),
                assistant("s2", "s1", [{"type": "text", "text": "Main."}], ("m", "r2"), out=7),
                assistant("s3", "s2", [{"type": "text", "text": "Own."}], ("o", "r3"), out=3),
            ]
        )
        + "\n",
        encoding="utf-8",
    )
    conversation = parse_one(path)
    (subagent,) = conversation.subagents
    counted = [m.usage.counted for m in subagent.messages if m.usage is not None]
    assert counted == [False, True]
    assert conversation.usage_total().output_tokens == 10
    assert subagent.meta.locator["layout"] == "subagents"


def test_a_prompt_quoting_command_tags_stays_a_prompt() -> None:
    """Only text that starts with a command tag is a command; quoting one is ordinary prose."""
    from chatparse.adapters.claude_code import _read_user_text  # noqa: PLC0415 -- private helper

    prose = "Why does my parser choke on <command-name>/x</command-name> lines?"
    assert _read_user_text(prose, {}) == ("message", prose)
