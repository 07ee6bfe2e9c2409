"""Per-conversation invariants and the canonical golden form, without a runner around them."""

from __future__ import annotations

import base64
import json
import random
from pathlib import Path

import pytest

from chatparse import (
    ConversationMeta,
    Diagnostics,
    Message,
    ParsedConversation,
    SourceInfo,
    ToolCall,
    UnknownRecord,
    Usage,
)
from chatparse.decoders.jsonl import MAX_DEPTH
from chatparse.testing import check_conversation, golden_diff, looks_like_base64, render_golden

META = ConversationMeta(source="kit-test", id="c1", path="/h/x", fingerprint="f")
# Seeded, not os.urandom: the check is a heuristic, and about 1 random run in 80 has separators
# dense enough to pass for a path; a test must not flip on such a draw.
_RANDOM = random.Random(20261130)  # noqa: S311 -- test data, not secrets
PNG = base64.b64encode(_RANDOM.randbytes(120)).decode()
URLSAFE = base64.urlsafe_b64encode(_RANDOM.randbytes(120)).decode()


def conversation(**fields: object) -> ParsedConversation:
    """A valid conversation, with ``fields`` replaced."""
    base: dict[str, object] = {
        "source": "kit-test",
        "id": "c1",
        "meta": META,
        "parser_version": "1",
        "messages": [Message(id="m1", role="user", text="hi")],
        "diagnostics": Diagnostics(records_seen=1, records_used=1),
    }
    base.update(fields)
    return ParsedConversation(**base)  # type: ignore[arg-type]


def test_valid_conversation_has_no_problems() -> None:
    """A well-formed conversation passes every check."""
    assert check_conversation(conversation()) == []


@pytest.mark.parametrize(
    "text",
    [
        PNG,
        URLSAFE,
        f"see data:image/png;base64,{PNG} here",
    ],
)
def test_base64_payloads_are_recognised(text: str) -> None:
    """Standard and URL-safe base64 runs over the limit are payloads."""
    assert looks_like_base64(text)


@pytest.mark.parametrize(
    "text",
    [
        "/Users/someone/Projects/chatparse/src/chatparse/adapters/claude/" * 3,
        "a" * 500,
        "0123456789abcdef" * 8,
        PNG[:100],
        "some_long_snake_case_identifier_" * 5,
        "The quick brown fox jumps over the lazy dog. " * 10,
    ],
)
def test_ordinary_text_is_not_base64(text: str) -> None:
    """Deep paths, hex digests, identifiers, prose and short runs are not payloads."""
    assert not looks_like_base64(text)


def test_base64_found_in_tool_input_keys_and_nested_values() -> None:
    """Strings are walked everywhere, including JSON tool inputs."""
    call = ToolCall(id="t", name="write", input={"files": [{"content": PNG}]})
    message = Message(id="m1", role="assistant", tool_calls=[call])
    [problem] = check_conversation(conversation(messages=[message]))
    assert "$.messages[0].tool_calls[0].input.files[0].content" in problem


def test_input_as_deep_as_the_decoders_accept_is_checked_not_crashed() -> None:
    """The walk, the round trip and the JSON check all reach the innermost string."""
    deep: object = {"content": PNG}
    for _ in range(MAX_DEPTH - 2):
        deep = [deep]
    call = ToolCall(id="t", name="write", input=deep)
    message = Message(id="m1", role="assistant", tool_calls=[call])
    [problem] = check_conversation(conversation(messages=[message]))
    assert "[0]" * (MAX_DEPTH - 2) + ".content holds a base64-looking payload" in problem


@pytest.mark.parametrize(
    ("field", "path"),
    [
        ("result", "$.messages[0].tool_calls[0].result.file.base64"),
        ("raw", "$.diagnostics.unknown[0].raw"),
    ],
)
def test_base64_found_in_every_field(field: str, path: str) -> None:
    """A structured tool result and a record kept raw are walked like any other string."""
    result = {"file": {"base64": PNG}} if field == "result" else None
    call = ToolCall(id="t", name="Read", output="[image]", result=result)
    raw = f'{{"data": "{PNG}"}}' if field == "raw" else "{}"
    unknown = UnknownRecord(where="line 2", type="image", raw=raw)
    diagnostics = Diagnostics(records_seen=2, records_used=1, unknown=[unknown])
    message = Message(id="m1", role="assistant", tool_calls=[call])
    [problem] = check_conversation(conversation(messages=[message], diagnostics=diagnostics))
    assert f"{path} holds a base64-looking payload" in problem


RESULT = ToolCall(id="t1", name="Bash", output="3 passed")


@pytest.mark.parametrize(
    "message",
    [
        Message(id="m2", role="user", tool_calls=[RESULT]),
        Message(id="m2", role="user", text=" \n", tool_calls=[RESULT, RESULT]),
    ],
)
def test_a_user_turn_made_only_of_tool_results_is_found(message: Message) -> None:
    """Tool output on a user message of kind "message", with nothing typed, is a result."""
    call = Message(id="m1", role="assistant", tool_calls=[ToolCall(id="t1", name="Bash")])
    diagnostics = Diagnostics(records_seen=2, records_used=2)
    [problem] = check_conversation(conversation(messages=[call, message], diagnostics=diagnostics))
    assert "message 'm2' is a user turn (kind 'message') made only of tool results" in problem


@pytest.mark.parametrize(
    "message",
    [
        Message(id="m2", role="user", kind="tool_result", text="3 passed"),
        Message(id="m2", role="user", text="and now?", tool_calls=[RESULT]),
        Message(id="m2", role="assistant", tool_calls=[RESULT]),
        Message(id="m2", role="user", text="3 passed"),  # typed, or a result: no way to tell
    ],
)
def test_what_is_not_a_turn_made_of_tool_results(message: Message) -> None:
    """An orphan result's own kind, a turn with text, the assistant's calls all pass."""
    diagnostics = Diagnostics(records_seen=1, records_used=1)
    assert check_conversation(conversation(messages=[message], diagnostics=diagnostics)) == []


def test_lone_surrogate_in_a_key_is_found() -> None:
    """Dictionary keys must be well-formed too."""
    call = ToolCall(id="t", name="x", input={"bad\udc00key": 1})
    message = Message(id="m1", role="assistant", tool_calls=[call])
    [problem] = check_conversation(conversation(messages=[message]), label="[k/c] ")
    assert problem.startswith("[k/c] conversation 'c1': $.messages[0].tool_calls[0].input.<key")
    assert "not well-formed" in problem


def test_many_problems_are_capped() -> None:
    """Twenty broken strings are reported as five examples and a count."""
    messages = [Message(id=f"m{i}", role="user", text="\ud800") for i in range(20)]
    diagnostics = Diagnostics(records_seen=20, records_used=20)
    problems = check_conversation(conversation(messages=messages, diagnostics=diagnostics))
    assert len(problems) == 6
    assert problems[-1].endswith("and 15 more like these")


def test_subagent_problems_name_the_chain() -> None:
    """A broken sub-agent is named under its parent."""
    child = conversation(id="kid", diagnostics=Diagnostics(records_seen=3))
    [problem] = check_conversation(conversation(subagents=[child]))
    assert problem.startswith("conversation 'c1' > subagent 'kid': diagnostics do not balance")


def test_render_golden_is_canonical(tmp_path: Path) -> None:
    """Keys sorted, conversations by id, home as ~, two-space indent, trailing newline."""
    home = tmp_path / "home"
    meta_b = ConversationMeta(source="kit-test", id="b", path=f"{home}/b", fingerprint="1")
    meta_a = ConversationMeta(source="kit-test", id="a", path=f"{home}/a", fingerprint="2")
    convs = [
        conversation(id="b", meta=meta_b, title="Ünïcode"),
        conversation(id="a", meta=meta_a),
    ]
    info = SourceInfo(source="kit-test", display_name="K", roots=[str(home)])
    text = render_golden(info, convs, home=home)
    assert text.endswith("}\n")
    assert str(tmp_path) not in text
    assert "Ünïcode" in text
    data = json.loads(text)
    assert [c["id"] for c in data["conversations"]] == ["a", "b"]
    assert data["detect"]["roots"] == ["~"]
    assert data["conversations"][0]["meta"]["path"] == "~/a"
    assert text == json.dumps(data, ensure_ascii=False, indent=2, sort_keys=True) + "\n"
    assert render_golden(info, reversed(convs), home=home) == text


def test_golden_diff_is_capped() -> None:
    """A huge diff is cut, saying how much was left out."""
    diff = golden_diff("a\n" * 1000, "b\n" * 1000, name="g")
    assert diff.splitlines()[-1].startswith("... ")
    assert diff.startswith("--- g\n+++ g (actual output)\n")


@pytest.mark.parametrize(
    ("usage", "problem"),
    [
        (Usage(input_tokens=10, cache_read_tokens=8, cache_write_tokens=5), "exceed input_tokens"),
        (Usage(input_tokens=0, cache_write_tokens=1), "exceed input_tokens"),
        (Usage(output_tokens=3, reasoning_tokens=4), "exceed output_tokens"),
    ],
)
def test_usage_outside_the_one_meaning_is_reported(usage: Usage, problem: str) -> None:
    """A plugin that reports cache tokens apart from input (or reasoning apart from output)."""
    message = Message(id="m1", role="assistant", usage=usage)
    [found] = check_conversation(conversation(messages=[message]))
    assert problem in found
    assert "'m1'" in found


@pytest.mark.parametrize(
    "usage",
    [
        Usage(input_tokens=10, cache_read_tokens=6, cache_write_tokens=4),
        Usage(cache_read_tokens=6),  # input not recorded: nothing to compare with
        Usage(output_tokens=5, reasoning_tokens=5),
        Usage(),
    ],
)
def test_usage_in_the_one_meaning_passes(usage: Usage) -> None:
    message = Message(id="m1", role="assistant", usage=usage)
    assert check_conversation(conversation(messages=[message])) == []
