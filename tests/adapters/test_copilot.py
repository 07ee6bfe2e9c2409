"""The GitHub Copilot Chat adapter: conformance cases, the log replay, and the rules one by one."""

from __future__ import annotations

import json
import sqlite3
import tracemalloc
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

import chatparse
from chatparse.adapters.copilot import CopilotAdapter
from chatparse.errors import SkippedSourceWarning, SourceUnavailableError
from chatparse.model import ConversationMeta, Message, ParsedConversation
from chatparse.testing import AdapterConformance, check_conversation

REPO = Path(__file__).resolve().parents[2]
T0 = 1767348000000  # 2026-01-02T10:00:00Z in epoch milliseconds


class TestCopilotConformance(AdapterConformance):
    adapter = "copilot"
    fixtures = REPO / "fixtures"


# --- helpers ---


def md(text: str) -> dict[str, Any]:
    return {"value": text, "supportThemeIcons": False}


def request(rid: str, text: str, parts: Iterable[object] = (), **extra: Any) -> dict[str, Any]:
    return {
        "requestId": rid,
        "timestamp": T0 + 1000,
        "message": {"text": text, "parts": [{"kind": "text", "text": text}]},
        "response": list(parts),
        "responseId": f"response-{rid}",
        **extra,
    }


def state(*requests: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"version": 3, "sessionId": "s1", "creationDate": T0, "requests": list(requests)} | extra


def write_log(path: Path, entries: Iterable[object], tail: str = "") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = "".join(json.dumps(e, separators=(",", ":")) + "\n" for e in entries) + tail
    path.write_text(text, encoding="utf-8")
    return path


def write_doc(path: Path, document: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def parse_file(path: Path) -> ParsedConversation:
    adapter = CopilotAdapter()
    (meta,) = adapter.scan_path(path)
    conversation = adapter.parse(meta)
    assert check_conversation(conversation) == []
    assert conversation.diagnostics.balanced
    return conversation


def parse_log(tmp_path: Path, entries: Iterable[object], tail: str = "") -> ParsedConversation:
    return parse_file(write_log(tmp_path / "chatSessions" / "s1.jsonl", entries, tail))


def parse_state(tmp_path: Path, session: dict[str, Any]) -> ParsedConversation:
    return parse_log(tmp_path, [{"kind": 0, "v": session}])


def answer(conversation: ParsedConversation, index: int = 0) -> Message:
    return [m for m in conversation.messages if m.role == "assistant"][index]


def texts(conversation: ParsedConversation) -> list[tuple[str, str]]:
    return [(m.role, m.text) for m in conversation.messages]


# --- the mutation log (§3.4) ---


def test_replay_of_the_worked_example(tmp_path: Path) -> None:
    """The worked example: a pushed turn, a streamed and rewritten response, a Set and a Delete."""
    conversation = parse_log(
        tmp_path,
        [
            {
                "kind": 0,
                "v": {"version": 3, "sessionId": "s1", "creationDate": 1000, "requests": []},
            },
            {"kind": 2, "k": ["requests"], "v": [request("r1", "hi")]},
            {"kind": 2, "k": ["requests", 0, "response"], "v": [md("Hel")]},
            {"kind": 2, "k": ["requests", 0, "response"], "v": [md("Hello!")], "i": 0},
            {"kind": 1, "k": ["requests", 0, "modelState"], "v": {"value": 1, "completedAt": 1005}},
            {"kind": 3, "k": ["inputState"]},
        ],
    )
    assert texts(conversation) == [("user", "hi"), ("assistant", "Hello!")]
    reply = answer(conversation)
    assert reply.timestamp is not None
    assert reply.timestamp.timestamp() == 1.005
    assert conversation.diagnostics.records_used == 6 + 2  # six lines, one request, one part


def test_push_with_truncate_index_and_no_value_removes_trailing_turns(tmp_path: Path) -> None:
    """A Push with ``i`` and no ``v`` drops the items from ``i`` on, as when turns are removed."""
    conversation = parse_log(
        tmp_path,
        [
            {"kind": 0, "v": state(request("r1", "one"), request("r2", "two"))},
            {"kind": 2, "k": ["requests"], "i": 1},
        ],
    )
    assert [m.text for m in conversation.messages] == ["one"]


def test_push_with_index_replaces_a_turn_at_that_position(tmp_path: Path) -> None:
    """A different request id at position n is written as a Push with ``i = n`` and the rest."""
    conversation = parse_log(
        tmp_path,
        [
            {"kind": 0, "v": state(request("r1", "one"), request("r2", "two"))},
            {"kind": 2, "k": ["requests"], "v": [request("r3", "three")], "i": 1},
        ],
    )
    assert [m.request_id for m in conversation.messages] == ["r1", "r3"]


def test_set_at_the_end_of_an_array_appends(tmp_path: Path) -> None:
    """A Set at index ``len`` grows the array, as assigning past the end does in JavaScript."""
    conversation = parse_log(
        tmp_path,
        [
            {"kind": 0, "v": state(request("r1", "q", [md("a")]))},
            {"kind": 1, "k": ["requests", 0, "response", 1], "v": md("b")},
        ],
    )
    assert answer(conversation).text == "ab"


def test_a_second_initial_entry_resets_the_state(tmp_path: Path) -> None:
    """A later kind-0 line replaces everything before it (a compacted or rewritten log)."""
    conversation = parse_log(
        tmp_path,
        [
            {"kind": 0, "v": state(request("r1", "gone"), customTitle="Old")},
            {"kind": 0, "v": state(request("r2", "kept"))},
        ],
    )
    assert [m.text for m in conversation.messages if m.role == "user"] == ["kept"]
    assert conversation.title == "kept"


def test_empty_path_set_and_delete_are_ignored(tmp_path: Path) -> None:
    """VS Code ignores a root Set or Delete; they are counted as skipped, not applied."""
    conversation = parse_log(
        tmp_path,
        [
            {"kind": 0, "v": state(request("r1", "q"))},
            {"kind": 1, "k": [], "v": {"requests": []}},
            {"kind": 3, "k": []},
        ],
    )
    assert [m.text for m in conversation.messages] == ["q"]
    assert sum(conversation.diagnostics.skipped.values()) == 2


def test_entries_before_the_initial_state_are_skipped_with_a_warning(tmp_path: Path) -> None:
    """A Set before any kind 0 cannot apply; it is skipped, warned about, and replay goes on."""
    conversation = parse_log(
        tmp_path,
        [
            {"kind": 1, "k": ["customTitle"], "v": "early"},
            {"kind": 0, "v": state(request("r1", "q"))},
        ],
    )
    assert conversation.title == "q"
    assert conversation.diagnostics.skipped == {"log entry before the initial state": 1}
    assert "line 1" in conversation.diagnostics.warnings[0]


def test_a_missing_parent_path_skips_only_that_entry(tmp_path: Path) -> None:
    """Intermediate containers are never created: the entry is skipped, later entries apply."""
    conversation = parse_log(
        tmp_path,
        [
            {"kind": 0, "v": state(request("r1", "q"))},
            {"kind": 1, "k": ["requests", 3, "modelState"], "v": {"value": 1}},
            {"kind": 1, "k": ["customTitle"], "v": "After"},
        ],
    )
    assert conversation.title == "After"
    assert conversation.diagnostics.skipped == {"log entry: the path's parent does not exist": 1}


def test_a_set_far_past_an_arrays_end_skips_only_that_entry(tmp_path: Path) -> None:
    """A damaged index does not grow the array to billions of holes (a MemoryError before)."""
    conversation = parse_log(
        tmp_path,
        [
            {"kind": 0, "v": state(request("r1", "q"))},
            {"kind": 1, "k": ["requests", 3_000_000_000], "v": request("r2", "lost")},
            {"kind": 1, "k": ["requests", 1], "v": request("r2", "kept")},
        ],
    )
    assert [m.text for m in conversation.messages if m.role == "user"] == ["q", "kept"]
    assert conversation.diagnostics.skipped == {
        "log entry: an array index far past the array's end": 1
    }


def test_a_malformed_line_stops_the_replay_and_keeps_earlier_turns(tmp_path: Path) -> None:
    """Lines after a bad line are counted but not applied: VS Code would refuse the whole log."""
    path = tmp_path / "chatSessions" / "s1.jsonl"
    write_log(path, [{"kind": 0, "v": state(request("r1", "kept"))}])
    with path.open("a", encoding="utf-8") as stream:
        stream.write("{not json\n")
        stream.write(json.dumps({"kind": 2, "k": ["requests"], "v": [request("r2", "x")]}) + "\n")
    conversation = parse_file(path)
    assert [m.text for m in conversation.messages] == ["kept"]
    assert conversation.diagnostics.malformed == 1
    assert conversation.diagnostics.skipped == {"log entry after a malformed line": 1}


def test_a_torn_last_line_is_malformed_never_an_exception(tmp_path: Path) -> None:
    """A last line cut off mid-write counts as malformed and the turns before it stay."""
    conversation = parse_log(
        tmp_path, [{"kind": 0, "v": state(request("r1", "kept"))}], tail='{"kind":2,"k":["req'
    )
    assert [m.text for m in conversation.messages] == ["kept"]
    assert conversation.diagnostics.malformed == 1


def test_an_unknown_entry_kind_is_kept_raw(tmp_path: Path) -> None:
    """An entry kind outside 0-3 is kept as an unknown record with its line's text."""
    conversation = parse_log(
        tmp_path, [{"kind": 0, "v": state(request("r1", "q"))}, {"kind": 9, "k": ["x"]}]
    )
    (unknown,) = conversation.diagnostics.unknown
    assert (unknown.where, unknown.type, unknown.raw) == (
        "line 2",
        "kind 9",
        '{"kind":9,"k":["x"]}',
    )


def test_a_log_with_only_bad_lines_gives_an_empty_conversation(tmp_path: Path) -> None:
    """No initial state at all: no messages, every line accounted for."""
    conversation = parse_log(tmp_path, [{"kind": 1, "k": ["a"], "v": 1}, [1, 2]])
    assert conversation.messages == ()
    assert conversation.diagnostics.records_seen == 2


def test_replay_memory_follows_the_state_not_the_log(tmp_path: Path) -> None:
    """Rewriting one response 2,000 times costs the memory of one response, not of the log."""
    chunk = "x" * 2000
    entries: list[object] = [{"kind": 0, "v": state(request("r1", "q"))}]
    entries += [
        {"kind": 2, "k": ["requests", 0, "response"], "v": [md(chunk + str(n))], "i": 0}
        for n in range(2000)
    ]
    path = write_log(tmp_path / "chatSessions" / "s1.jsonl", entries)
    tracemalloc.start()
    try:
        conversation = CopilotAdapter().parse(next(CopilotAdapter().scan_path(path)))
        _current, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert answer(conversation).text == chunk + "1999"
    assert peak < path.stat().st_size / 10


# --- the .json document and titles ---


@pytest.mark.parametrize(
    ("fields", "title"),
    [
        ({"customTitle": "Ignored"}, "first line"),  # v1: no version, custom title dropped
        ({"version": 2, "computedTitle": "Computed", "customTitle": "No"}, "Computed"),
        ({"version": 3, "customTitle": "Custom"}, "Custom"),
        ({"version": 3, "customTitle": "  "}, "first line"),
    ],
)
def test_title_follows_vscode_version_normalisation(
    tmp_path: Path, fields: dict[str, Any], title: str
) -> None:
    """v1 has no custom title, v2 keeps it in computedTitle, v3 in customTitle."""
    session = {"sessionId": "s1", "requests": [request("r1", "first line\nsecond")], **fields}
    conversation = parse_file(write_doc(tmp_path / "chatSessions" / "s1.json", session))
    assert conversation.title == title


def test_an_untitled_session_is_titled_by_the_unified_rule(tmp_path: Path) -> None:
    """The first line with text of the first prompt, spaces folded, cut to 100 with "…"."""
    prompt = "\n  " + "word\t " * 40 + "\nsecond line"
    conversation = parse_state(tmp_path, state(request("r1", " "), request("r2", prompt)))
    assert conversation.title == " ".join(["word"] * 20) + "…"
    assert len(conversation.title) == 100


def test_a_damaged_document_keeps_what_was_read(tmp_path: Path) -> None:
    """A .json cut short still yields the fields before the damage and counts it malformed."""
    text = json.dumps(state(request("r1", "q")))
    path = tmp_path / "chatSessions" / "s1.json"
    path.parent.mkdir(parents=True)
    path.write_text(text[: text.index('"requests"')] + '"requests": [{"req', encoding="utf-8")
    conversation = parse_file(path)
    assert conversation.messages == ()
    assert conversation.created_at is not None
    assert conversation.diagnostics.malformed == 1


def test_very_old_string_message_and_string_response(tmp_path: Path) -> None:
    """Very old sessions hold the message and the response as bare strings."""
    session = {"requests": [{"requestId": "r1", "message": "hello", "response": "hi there"}]}
    conversation = parse_file(write_doc(tmp_path / "chatSessions" / "s1.json", session))
    assert texts(conversation) == [("user", "hello"), ("assistant", "hi there")]


def test_message_parts_are_joined_when_text_is_missing(tmp_path: Path) -> None:
    """Without ``message.text`` the user message is the texts of its parts."""
    turn = request("r1", "")
    turn["message"] = {"parts": [{"kind": "agent", "text": "@workspace"}, {"text": " explain"}]}
    conversation = parse_state(tmp_path, state(turn))
    assert conversation.messages[0].text == "@workspace explain"


# --- response parts ---


def test_inline_references_are_written_as_names(tmp_path: Path) -> None:
    """File URIs, locations, symbols and explicit names appear inline in backticks."""
    file_uri = {"$mid": 1, "path": "/p/src/a.ts", "scheme": "file"}
    parts = [
        md("See "),
        {"kind": "inlineReference", "inlineReference": file_uri},
        md(", "),
        {"kind": "inlineReference", "inlineReference": {"uri": file_uri, "range": {}}},
        md(", "),
        {"kind": "inlineReference", "inlineReference": {"name": "run", "location": {}}},
        md(" and "),
        {"kind": "inlineReference", "inlineReference": file_uri, "name": "that file"},
    ]
    conversation = parse_state(tmp_path, state(request("r1", "q", parts)))
    assert answer(conversation).text == "See `a.ts`, `a.ts`, `run` and `that file`"


def test_thinking_as_string_and_list(tmp_path: Path) -> None:
    """Thinking parts give ``thinking``, a list of strings being one thought."""
    parts = [
        {"kind": "thinking", "value": "first"},
        {"kind": "thinking", "value": ["sec", "ond"]},
        {"kind": "thinking", "value": ""},
        md("answer"),
    ]
    reply = answer(parse_state(tmp_path, state(request("r1", "q", parts))))
    assert (reply.thinking, reply.text) == ("first\n\nsecond", "answer")


def test_text_after_a_tool_call_starts_a_new_paragraph(tmp_path: Path) -> None:
    """Markdown chunks run on, but a tool call between two of them separates them."""
    tool = {"kind": "toolInvocationSerialized", "toolId": "t", "toolCallId": "c1"}
    parts = [md("Let me look"), md("."), tool, md("Found it.")]
    reply = answer(parse_state(tmp_path, state(request("r1", "q", parts))))
    assert reply.text == "Let me look.\n\nFound it."


def test_markdown_content_parts_continue_the_running_text(tmp_path: Path) -> None:
    """``markdownContent`` is text like a kindless markdown part, not a block."""
    parts = [md("One"), {"kind": "markdownContent", "content": md(" two")}, md(" three")]
    reply = answer(parse_state(tmp_path, state(request("r1", "q", parts))))
    assert reply.text == "One two three"


def test_prepare_and_invocation_are_one_tool_call(tmp_path: Path) -> None:
    """``prepareToolInvocation`` then ``toolInvocationSerialized`` of one tool is one call."""
    parts = [
        {"kind": "prepareToolInvocation", "toolName": "copilot_readFile"},
        {
            "kind": "toolInvocationSerialized",
            "toolId": "copilot_readFile",
            "toolCallId": "c1",
            "resultDetails": {
                "input": '{"path": "a"}',
                "output": [{"value": "x"}],
                "isError": True,
            },
        },
        {"kind": "prepareToolInvocation", "toolName": "never_ran"},
    ]
    conversation = parse_state(tmp_path, state(request("r1", "q", parts)))
    calls = answer(conversation).tool_calls
    assert [(c.id, c.name, c.input, c.output, c.is_error) for c in calls] == [
        ("c1", "copilot_readFile", {"path": "a"}, "x", True),
        (None, "never_ran", None, None, None),
    ]
    assert conversation.diagnostics.records_used == 1 + 1 + 3  # line, request, parts


@pytest.mark.parametrize(("exit_code", "is_error"), [(0, False), (2, True)])
def test_terminal_tool_data_gives_command_output_and_error(
    tmp_path: Path, exit_code: int, *, is_error: bool
) -> None:
    """A terminal call's command, output and exit code come from ``toolSpecificData``."""
    data = {
        "kind": "terminal",
        "commandLine": {"original": "make", "userEdited": "make -j4"},
        "terminalCommandState": {"exitCode": exit_code},
        "terminalCommandOutput": {"text": "done", "lineCount": 1},
    }
    part = {"kind": "toolInvocationSerialized", "toolId": "run", "toolSpecificData": data}
    (call,) = answer(parse_state(tmp_path, state(request("r1", "q", [part])))).tool_calls
    assert (call.input, call.output, call.is_error) == ({"command": "make -j4"}, "done", is_error)


def rounds(*calls: tuple[str, str, str]) -> dict[str, Any]:
    tool_calls = [{"name": n, "arguments": a, "id": i} for n, a, i in calls]
    return {"metadata": {"toolCallRounds": [{"response": "", "toolCalls": tool_calls}]}}


def invocation(tool: str, call_id: str) -> dict[str, Any]:
    return {"kind": "toolInvocationSerialized", "toolId": tool, "toolCallId": call_id}


def test_round_calls_fill_inputs_in_order_leaving_out_internal_tools(tmp_path: Path) -> None:
    """Without matching ids, parts and round calls pair in order; ``*_internal`` tools have none."""
    parts = [invocation("copilot_readFile", "u1"), invocation("vscode_edit_internal", "u2")]
    parts.append(invocation("copilot_insertEdit", "u3"))
    result = rounds(("read_file", '{"a": 1}', "call_1"), ("insert_edit", '{"b": 2}', "call_2"))
    turn = request("r1", "q", parts, result=result)
    calls = answer(parse_state(tmp_path, state(turn))).tool_calls
    assert [(c.name, c.input) for c in calls] == [
        ("copilot_readFile", {"a": 1}),
        ("vscode_edit_internal", None),
        ("copilot_insertEdit", {"b": 2}),
    ]


def test_round_calls_pair_by_id_first(tmp_path: Path) -> None:
    """A round id that is the part's call id (plus ``__vscode-n``) pairs whatever the order."""
    parts = [invocation("x", "call_b"), invocation("y", "call_a")]
    result = rounds(("X", '{"n": "a"}', "call_a__vscode-1"), ("Y", '{"n": "b"}', "call_b"))
    calls = answer(parse_state(tmp_path, state(request("r1", "q", parts, result=result))))
    assert [c.input for c in calls.tool_calls] == [{"n": "b"}, {"n": "a"}]


def test_unpairable_round_calls_leave_inputs_empty_with_a_warning(tmp_path: Path) -> None:
    """When counts differ and ids do not match, nothing is guessed."""
    parts = [invocation("x", "u1")]
    result = rounds(("X", "{}", "call_1"), ("Y", "{}", "call_2"))
    conversation = parse_state(tmp_path, state(request("r1", "q", parts, result=result)))
    assert answer(conversation).tool_calls[0].input is None
    assert "could not be paired" in conversation.diagnostics.warnings[0]


def test_rounds_alone_give_the_tool_calls(tmp_path: Path) -> None:
    """A response whose parts name no tool takes its calls from toolCallRounds."""
    result = rounds(("grep", '{"q": "x"}', "call_1"))
    result["metadata"]["toolCallResults"] = {"call_1": {"content": [{"value": "3 hits"}]}}
    turn = request("r1", "q", [md("done")], result=result)
    (call,) = answer(parse_state(tmp_path, state(turn))).tool_calls
    assert (call.id, call.name, call.input, call.output) == ("call_1", "grep", {"q": "x"}, "3 hits")


def test_notices_skipped_and_unknown_parts_are_accounted(tmp_path: Path) -> None:
    """Notices are paragraphs, edits are skipped, unknown kinds are kept raw."""
    parts = [
        {"kind": "progressMessage", "content": md("Working")},
        {"kind": "undoStop", "id": "u"},
        {"kind": "newFancyKind", "x": 1},
        {"kind": "warning", "content": md("careful")},
        None,
        7,
        {"kind": ["toolInvocationSerialized"]},  # damage: a kind that is no name
    ]
    conversation = parse_state(tmp_path, state(request("r1", "q", parts)))
    assert answer(conversation).text == "Working\n\nWarning: careful"
    diagnostics = conversation.diagnostics
    assert diagnostics.skipped == {"response part: undoStop": 1, "response part: empty slot": 1}
    assert [(u.type, u.raw) for u in diagnostics.unknown] == [
        ("newFancyKind", '{"kind":"newFancyKind","x":1}'),
        (None, "7"),
        ("['toolInvocationSerialized']", '{"kind":["toolInvocationSerialized"]}'),
    ]


# --- timestamps, usage, outcome ---


@pytest.mark.parametrize(
    ("fields", "offset_ms", "synthesized"),
    [
        ({"modelState": {"value": 1, "completedAt": T0 + 5000}}, 5000, False),
        ({"responseTimestamp": T0 + 4000}, 4000, False),
        ({"result": {"timings": {"totalElapsed": 2500}}}, 3500, True),
        ({}, None, False),
    ],
)
def test_answer_timestamp_sources(
    tmp_path: Path, fields: dict[str, Any], offset_ms: int | None, *, synthesized: bool
) -> None:
    """completedAt, then responseTimestamp, then request time plus totalElapsed (flagged)."""
    reply = answer(parse_state(tmp_path, state(request("r1", "q", [md("a")], **fields))))
    expected = None if offset_ms is None else (T0 + offset_ms) / 1000
    assert (reply.timestamp.timestamp() if reply.timestamp else None) == expected
    assert reply.timestamp_synthesized is synthesized


def test_usage_from_request_fields_or_result_usage(tmp_path: Path) -> None:
    """Token counts come from the request's own fields, else from ``result.usage``."""
    own = request("r1", "q", [md("a")], promptTokens=10, completionTokens=2)
    nested = request("r2", "q", [md("b")], result={"usage": {"promptTokens": 7}})
    conversation = parse_state(tmp_path, state(own, nested))
    usages = [answer(conversation, n).usage for n in (0, 1)]
    assert [(u.input_tokens, u.output_tokens) for u in usages if u] == [(10, 2), (7, None)]
    assert conversation.usage_total().input_tokens == 17


@pytest.mark.parametrize(
    ("fields", "notice"),
    [
        ({"modelState": {"value": 2}}, "Response cancelled"),
        ({"isCanceled": True}, "Response cancelled"),
        ({"modelState": {"value": 3}}, "Response failed"),
        ({"result": {"errorDetails": {"message": "quota"}}}, "Response failed: quota"),
    ],
)
def test_cancelled_and_failed_responses_get_a_notice(
    tmp_path: Path, fields: dict[str, Any], notice: str
) -> None:
    """A cancelled or failed response is followed by a notice saying so."""
    conversation = parse_state(tmp_path, state(request("r1", "q", **fields)))
    last = conversation.messages[-1]
    assert (last.role, last.kind, last.text) == ("system", "notice", notice)


def test_duplicate_request_ids_still_give_unique_message_ids(tmp_path: Path) -> None:
    """Message ids stay unique even when the file repeats a request id."""
    conversation = parse_state(
        tmp_path, state(request("r1", "a", [md("x")]), request("r1", "b", [md("y")]))
    )
    ids = [m.id for m in conversation.messages]
    assert len(set(ids)) == len(ids) == 4


# --- finding files: scan, sniff, parse_path ---


def test_scan_prefers_jsonl_and_lists_each_id_once(tmp_path: Path) -> None:
    """With <id>.json and <id>.jsonl, the log is the conversation and the .json is noted only."""
    user = tmp_path / ".config" / "Code" / "User"
    folder = user / "workspaceStorage" / "w1" / "chatSessions"
    write_doc(folder / "s1.json", state(request("r1", "old")))
    write_log(folder / "s1.jsonl", [{"kind": 0, "v": state(request("r1", "new"))}])
    adapter = CopilotAdapter()
    found = adapter.detect(chatparse.Host(home=tmp_path, env={}, platform="linux"))
    assert found is not None
    (meta,) = adapter.scan(found)
    assert meta.path.endswith("s1.jsonl")
    assert meta.locator["superseded_json"].endswith("s1.json")
    assert adapter.parse(meta).messages[0].text == "new"


def test_detect_needs_a_session_folder(tmp_path: Path) -> None:
    """A VS Code user dir without any chat session folder is not a Copilot source."""
    (tmp_path / ".config" / "Code" / "User" / "workspaceStorage" / "w1").mkdir(parents=True)
    assert CopilotAdapter().detect(chatparse.Host(home=tmp_path, env={}, platform="linux")) is None


@pytest.mark.parametrize(
    ("name", "content", "score"),
    [
        ("chatSessions/a.jsonl", '{"kind":0,"v":{}}\n', 0.95),
        ("elsewhere/a.jsonl", '{"kind":0,"v":{}}\n', 0.8),
        ("x/transcripts/a.jsonl", '{"type":"session.start","data":{}}\n', 0.95),
        ("chatSessions/a.json", '{"version":3,"requests":[]}', 0.9),
        ("elsewhere/events.jsonl", '{"type":"session.start","data":{}}\n', 0.5),
        ("elsewhere/a.jsonl", '{"type":"session_meta"}\n', 0.0),
        ("elsewhere/a.txt", "hello", 0.0),
    ],
)
def test_sniff(tmp_path: Path, name: str, content: str, score: float) -> None:
    """Sniffing reads only the head of a file and its folder's name."""
    path = tmp_path / name
    path.parent.mkdir(parents=True)
    path.write_text(content, encoding="utf-8")
    assert CopilotAdapter().sniff(path) == score


def test_parse_path_reads_a_session_and_its_project(tmp_path: Path) -> None:
    """``chatparse.parse_path`` on a session file finds the project in workspace.json."""
    workspace = tmp_path / "w1"
    write_doc(workspace / "workspace.json", {"folder": "file:///home/ada/p%20q"})
    path = write_log(workspace / "chatSessions" / "s1.jsonl", [{"kind": 0, "v": state()}])
    (conversation,) = chatparse.parse_path(path, source="copilot")
    assert (conversation.source, conversation.project_path) == ("copilot", "/home/ada/p q")


def test_parse_path_reads_a_transcript_on_its_own(tmp_path: Path) -> None:
    """A transcript file handed to ``parse_path`` is read as an event stream."""
    events = [
        {"type": "session.start", "data": {"sessionId": "t", "copilotVersion": "0.47.0"}},
        {"type": "user.message", "data": {"content": "hi"}, "id": "e2"},
        {"type": "assistant.message", "data": {"content": "hello"}, "id": "e3"},
    ]
    path = write_log(tmp_path / "GitHub.copilot-chat" / "transcripts" / "t.jsonl", events)
    (conversation,) = chatparse.parse_path(path, source="copilot")
    assert texts(conversation) == [("user", "hi"), ("assistant", "hello")]
    assert conversation.producer_version == "0.47.0"


def test_a_merged_transcript_counts_only_the_events_that_filled_something(
    tmp_path: Path,
) -> None:
    """Events that filled a call are used, other known ones told by the session; all accounted."""
    tool = {"kind": "toolInvocationSerialized", "toolId": "copilot_readFile", "toolCallId": "c1"}
    session = write_log(
        tmp_path / "w1" / "chatSessions" / "s1.jsonl",
        [{"kind": 0, "v": state(request("r1", "read a", [tool]))}],
    )
    call = {"toolCallId": "c1", "name": "read_file", "arguments": '{"path": "a"}'}
    complete = {"toolCallId": "c1", "success": True, "result": "text of a"}
    write_log(
        tmp_path / "w1" / "GitHub.copilot-chat" / "transcripts" / "s1.jsonl",
        [
            {"type": "session.start", "data": {"copilotVersion": "0.47.0"}},
            {"type": "user.message", "data": {"content": "read a"}, "id": "e2"},
            {"type": "assistant.message", "data": {"toolRequests": [call]}, "id": "e3"},
            {"type": "tool.execution_complete", "data": complete, "id": "e4"},
            {"type": "mystery", "data": {}},
        ],
        tail='not json\n{"type": "assistant.turn_end", "data": {}}\n',
    )
    conversation = parse_file(session)
    (merged,) = answer(conversation).tool_calls
    assert (merged.name, merged.input, merged.output, merged.is_error) == (
        "copilot_readFile",
        {"path": "a"},
        "text of a",
        False,
    )
    assert conversation.producer_version == "0.47.0"
    diagnostics = conversation.diagnostics
    assert diagnostics.records_used == 3 + 2  # log line, request, part; lines 3 and 4
    assert diagnostics.skipped == {
        "transcript event told by the chat session": 2,  # lines 1 and 2
        "transcript event: assistant.turn_end": 1,
    }
    assert diagnostics.malformed == 1
    assert [(u.where, u.type) for u in diagnostics.unknown] == [("transcript: line 5", "mystery")]


def test_transcript_message_ids_stay_unique(tmp_path: Path) -> None:
    """Events that repeat an id still give messages with unique ids."""
    events = [
        {"type": "user.message", "data": {"content": "a"}, "id": "same"},
        {"type": "assistant.message", "data": {"content": "b"}, "id": "same"},
    ]
    path = write_log(tmp_path / "GitHub.copilot-chat" / "transcripts" / "t.jsonl", events)
    conversation = parse_file(path)
    assert [m.id for m in conversation.messages] == ["same", "same#2"]


def test_a_session_folder_that_cannot_be_listed_is_passed_over(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A chat session folder that refuses to be listed is named in a warning; the scan goes on."""
    storage = tmp_path / ".config" / "Code" / "User" / "workspaceStorage"
    for workspace, session_id in (("w1", "s1"), ("w2", "s2")):
        write_log(storage / workspace / "chatSessions" / f"{session_id}.jsonl", [{"kind": 0}])
    locked = storage / "w1" / "chatSessions"
    listing = Path.iterdir

    def iterdir(self: Path) -> Any:
        if self == locked:
            raise PermissionError(13, "Permission denied", str(self))
        return listing(self)

    monkeypatch.setattr(Path, "iterdir", iterdir)
    adapter = CopilotAdapter()
    found = adapter.detect(chatparse.Host(home=tmp_path, env={}, platform="linux"))
    assert found is not None
    with pytest.warns(SkippedSourceWarning, match=f"passed over {locked}: cannot be listed"):
        assert [meta.id for meta in adapter.scan(found)] == ["s2"]


def test_parse_of_a_vanished_file_raises(tmp_path: Path) -> None:
    """A session deleted after the scan is an unavailable container."""
    meta = ConversationMeta(
        source="copilot", id="s", path=str(tmp_path / "gone.jsonl"), fingerprint="0:0"
    )
    with pytest.raises(SourceUnavailableError):
        CopilotAdapter().parse(meta)


# --- sessions saved before file storage (ItemTable interactive.sessions) ---


def write_legacy_db(path: Path, sessions: list[dict[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    connection = sqlite3.connect(path)
    try:
        with connection:
            connection.execute("CREATE TABLE ItemTable (key TEXT UNIQUE, value BLOB)")
            connection.execute(
                "INSERT INTO ItemTable VALUES (?, ?)",
                ("interactive.sessions", json.dumps(sessions).encode()),
            )
    finally:
        connection.close()


def test_legacy_only_home_is_detected_and_each_session_fingerprinted_alone(
    tmp_path: Path,
) -> None:
    """A home with only interactive.sessions is found; one session's change leaves others' keys."""
    db = tmp_path / ".config" / "Code" / "User" / "globalStorage" / "state.vscdb"
    first, second = state(request("r1", "one")), state(request("r2", "two"))
    first["sessionId"], second["sessionId"] = "a", "b"
    write_legacy_db(db, [first, second])
    adapter = CopilotAdapter()
    host = chatparse.Host(home=tmp_path, env={}, platform="linux")
    found = adapter.detect(host)
    assert found is not None
    before = {m.id: m.fingerprint for m in adapter.scan(found)}
    second["requests"].append(request("r3", "three"))
    db.unlink()
    write_legacy_db(db, [first, second])
    after = {m.id: m for m in adapter.scan(found)}
    assert after["a"].fingerprint == before["a"]
    assert after["b"].fingerprint != before["b"]
    assert [m.text for m in adapter.parse(after["b"]).messages] == ["two", "three"]


def test_legacy_session_gone_since_the_scan_raises(tmp_path: Path) -> None:
    """A legacy session migrated away after the scan is reported as unavailable."""
    db = tmp_path / ".config" / "Code" / "User" / "globalStorage" / "state.vscdb"
    write_legacy_db(db, [state(request("r1", "one"))])
    adapter = CopilotAdapter()
    found = adapter.detect(chatparse.Host(home=tmp_path, env={}, platform="linux"))
    assert found is not None
    (meta,) = adapter.scan(found)
    db.unlink()
    write_legacy_db(db, [])
    with pytest.raises(SourceUnavailableError):
        adapter.parse(meta)


def test_a_legacy_database_damaged_since_the_scan_says_so_when_parsed(tmp_path: Path) -> None:
    """Parsing names the real cause; only scanning warns about a store it passes over."""
    db = tmp_path / ".config" / "Code" / "User" / "globalStorage" / "state.vscdb"
    write_legacy_db(db, [state(request("r1", "one"))])
    adapter = CopilotAdapter()
    host = chatparse.Host(home=tmp_path, env={}, platform="linux")
    found = adapter.detect(host)
    assert found is not None
    (meta,) = adapter.scan(found)
    db.write_bytes(b"not a database, and long enough to have a header" * 4)
    with pytest.raises(SourceUnavailableError, match="not a SQLite database"):
        adapter.parse(meta)  # warnings are errors here: parse must not warn
    assert adapter.detect(host) is None  # nothing readable left; detect stays quiet
    with pytest.warns(SkippedSourceWarning, match=r"passed over .*state\.vscdb: not a SQLite"):
        assert list(adapter.scan(found)) == []
