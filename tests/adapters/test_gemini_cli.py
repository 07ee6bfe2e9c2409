"""The Gemini CLI adapter: conformance cases, and the rules the cases do not show one by one."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

import chatparse
from chatparse.adapters._gemini.usage import GEMINI_API, OPENAI_COMPATIBLE, read_usage
from chatparse.adapters.gemini_cli import GeminiCliAdapter
from chatparse.errors import SourceUnavailableError, UnavailableCause
from chatparse.host import Host
from chatparse.model import ParsedConversation
from chatparse.testing import AdapterConformance, check_conversation

REPO = Path(__file__).resolve().parents[2]
SESSION = "ab12cd34-0000-4000-8000-000000000001"
PROJECT_HASH = "9" * 64


class TestGeminiCliConformance(AdapterConformance):
    adapter = "gemini-cli"
    fixtures = REPO / "fixtures"

    def make_adapter(self) -> chatparse.SourceAdapter:
        return GeminiCliAdapter()


# --- helpers ---


def header(**extra: Any) -> dict[str, Any]:
    fields = {
        "sessionId": SESSION,
        "projectHash": PROJECT_HASH,
        "startTime": "2026-05-01T10:00:00Z",
    }
    return fields | {"lastUpdated": "2026-05-01T10:00:00Z"} | extra


def user(ident: str, text: str, second: int = 1) -> dict[str, Any]:
    stamp = f"2026-05-01T10:00:{second:02d}Z"
    return {"id": ident, "timestamp": stamp, "type": "user", "content": [{"text": text}]}


def answer(ident: str, text: str, second: int = 2, **extra: Any) -> dict[str, Any]:
    stamp = f"2026-05-01T10:00:{second:02d}Z"
    return {"id": ident, "timestamp": stamp, "type": "gemini", "content": text} | extra


def write_log(path: Path, records: Iterable[dict[str, Any] | str]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = (r if isinstance(r, str) else json.dumps(r) + "\n" for r in records)
    path.write_text("".join(lines), encoding="utf-8")
    return path


def session_file(home: Path, name: str = "session-2026-05-01T10-00-ab12cd34.jsonl") -> Path:
    return home / ".gemini" / "tmp" / "proj" / "chats" / name


def parse_file(path: Path) -> ParsedConversation:
    adapter = GeminiCliAdapter()
    (meta,) = adapter.scan_path(path)
    conversation = adapter.parse(meta)
    assert check_conversation(conversation) == []
    return conversation


def parse_log(tmp_path: Path, records: Iterable[dict[str, Any] | str]) -> ParsedConversation:
    return parse_file(write_log(session_file(tmp_path), records))


# --- the replay log ---


def test_a_later_copy_of_a_message_replaces_it_in_its_first_place(tmp_path: Path) -> None:
    """An upsert keeps the message where it was first written, with the last copy's content."""
    conversation = parse_log(
        tmp_path,
        [
            header(),
            user("u1", "hi"),
            answer("a1", "draft"),
            user("u2", "more", 3),
            answer("a1", "final"),
        ],
    )
    assert [(m.id, m.text) for m in conversation.messages] == [
        ("u1", "hi"),
        ("a1", "final"),
        ("u2", "more"),
    ]
    assert conversation.diagnostics.records_used == 5


def test_a_rewind_leaves_the_rewound_turn_as_a_branch(tmp_path: Path) -> None:
    """$rewindTo: the next prompt hangs where the rewound one did; the old turn is a side chain."""
    conversation = parse_log(
        tmp_path,
        [
            header(),
            user("u1", "one"),
            answer("a1", "first"),
            user("u2", "two", 3),
            answer("a2", "second", 4),
            {"$rewindTo": "u2"},
            user("u3", "two again", 5),
        ],
    )
    parents = {m.id: m.parent_id for m in conversation.messages}
    assert parents["u3"] == parents["u2"] == "a1"
    assert [m.id for m in conversation.messages if m.is_sidechain] == ["u2", "a2"]
    assert [m.id for m in conversation.main_thread()] == ["u1", "a1", "u3"]


def test_a_checkpoint_that_reorders_the_line_makes_no_loop(tmp_path: Path) -> None:
    """A checkpoint naming known messages in another order gives each a new parent, no cycle."""
    conversation = parse_log(
        tmp_path,
        [
            header(),
            user("u1", "one"),
            answer("a1", "first"),
            {"$set": {"messages": [answer("a1", "first"), user("u1", "one")]}},
        ],
    )
    parents = {m.id: m.parent_id for m in conversation.messages}
    assert parents == {"u1": "a1", "a1": None}
    assert conversation.diagnostics.warnings == ()


def test_a_header_line_carrying_messages_is_a_checkpoint(tmp_path: Path) -> None:
    """A whole legacy record written on one line loads its messages."""
    conversation = parse_log(tmp_path, [header(messages=[user("u1", "one"), answer("a1", "two")])])
    assert [m.text for m in conversation.messages] == ["one", "two"]


def test_a_call_without_an_id_in_the_content_is_matched_by_name_and_arguments(
    tmp_path: Path,
) -> None:
    """A content functionCall that repeats a toolCalls entry (no id) is one call, not two."""
    call = {"name": "ls", "args": {"dir": "."}}
    entry = call | {"id": "ls-1", "status": "success", "result": "a.txt"}
    record = answer("a1", "", content=[{"functionCall": call}], toolCalls=[entry])
    conversation = parse_log(tmp_path, [header(), user("u1", "list"), record])
    (message,) = [m for m in conversation.messages if m.role == "assistant"]
    assert [(c.id, c.output) for c in message.tool_calls] == [("ls-1", "a.txt")]


def test_thoughts_are_read_from_thought_parts_before_the_summaries(tmp_path: Path) -> None:
    """Content with thought parts is authoritative; ``thoughts`` are used only without them."""
    parts = [{"text": "**Plan**\n\nRead it.", "thought": True}, {"text": "Done."}]
    summaries = [{"subject": "Other", "description": "not used"}]
    conversation = parse_log(
        tmp_path, [header(), answer("a1", "", content=parts, thoughts=summaries)]
    )
    (message,) = conversation.messages
    assert (message.text, message.thinking) == ("Done.", "**Plan**\n\nRead it.")


def test_image_payloads_in_tool_arguments_are_dropped(tmp_path: Path) -> None:
    """An inlineData blob in a call's arguments becomes a placeholder and an image reference."""
    blob = {"mimeType": "image/png", "data": "iVBORw0KGgo" * 40}
    entry = {
        "id": "c1",
        "name": "upload",
        "args": {"file": {"inlineData": blob}},
        "status": "success",
    }
    conversation = parse_log(tmp_path, [header(), answer("a1", "", toolCalls=[entry])])
    (message,) = conversation.messages
    assert (
        message.tool_calls[0].input["file"]["inlineData"]["data"] == "[image: image/png, 330 bytes]"
    )
    assert [(i.media_type, i.byte_size) for i in message.images] == [("image/png", 330)]


# --- the legacy document ---


def test_a_legacy_document_with_a_byte_order_mark_is_read(tmp_path: Path) -> None:
    """A UTF-8 BOM before the document (a Windows editor saved it) does not hide the session."""
    path = session_file(tmp_path, "session-2025-01-01T00-00-ab12cd34.json")
    path.parent.mkdir(parents=True)
    document = header(messages=[user("u1", "hello")])
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(document, indent=2).encode())
    conversation = parse_file(path)
    assert (conversation.id, [m.text for m in conversation.messages]) == (SESSION, ["hello"])


def test_a_document_that_is_not_a_session_object_is_malformed(tmp_path: Path) -> None:
    """A bare array (an old /chat save checkpoint's shape) is no session: one malformed record."""
    path = session_file(tmp_path, "session-2025-01-01T00-00-ab12cd34.json")
    path.parent.mkdir(parents=True)
    path.write_text('[{"role": "user", "parts": [{"text": "hi"}]}]')
    conversation = parse_file(path)
    assert (conversation.messages, conversation.diagnostics.malformed) == ((), 1)


def test_a_log_holding_a_pretty_printed_document_is_read_as_one(tmp_path: Path) -> None:
    """A .jsonl none of whose lines is an object is read as a legacy document, as the CLI does."""
    path = session_file(tmp_path)
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(header(messages=[user("u1", "hello")]), indent=2))
    conversation = parse_file(path)
    assert [m.text for m in conversation.messages] == ["hello"]
    assert conversation.diagnostics.malformed == 0


def test_the_head_of_a_legacy_document_gives_an_escaped_id(tmp_path: Path) -> None:
    """The scan reads the id from the document's first bytes, JSON escapes undone."""
    path = session_file(tmp_path, "session-2025-01-01T00-00-odd.json")
    path.parent.mkdir(parents=True)
    path.write_text(
        json.dumps({"sessionId": 'a"b\\c', "projectHash": "x", "messages": []}, indent=2)
    )
    (meta,) = GeminiCliAdapter().scan_path(path)
    assert meta.id == 'a"b\\c'


# --- usage ---


PROVIDERS = {"gemini": GEMINI_API, "openai": OPENAI_COMPATIBLE}


def usage_of(raw: dict[str, int], provider: str) -> tuple[int | None, ...]:
    problems: list[str] = []
    usage = read_usage(
        raw, "gemini-cli", thoughts_in_output=PROVIDERS[provider], dedup_key="k", problems=problems
    )
    assert usage is not None
    assert bool(problems) == (raw.get("cached", 0) > raw["input"] + raw.get("tool", 0))
    fields = ("input_tokens", "output_tokens", "cache_read_tokens", "reasoning_tokens")
    return tuple(getattr(usage, name) for name in fields)


@pytest.mark.parametrize(
    ("raw", "provider", "expected"),
    [
        # Gemini: total = input + output + thoughts; thoughts are added to the output.
        (
            {"input": 100, "output": 10, "cached": 40, "thoughts": 5, "total": 115},
            "gemini",
            (100, 15, 40, 5),
        ),
        # OpenAI-compatible: total = input + output; the output already holds the thoughts.
        ({"input": 100, "output": 10, "thoughts": 5, "total": 110}, "openai", (100, 10, None, 5)),
        # The total overrides the source's usual provider either way.
        ({"input": 100, "output": 10, "thoughts": 5, "total": 110}, "gemini", (100, 10, None, 5)),
        ({"input": 100, "output": 10, "thoughts": 5, "total": 115}, "openai", (100, 15, None, 5)),
        # No total: the provider decides; thoughts above the output cannot be a part of it.
        ({"input": 100, "output": 10, "thoughts": 5}, "gemini", (100, 15, None, 5)),
        ({"input": 100, "output": 10, "thoughts": 5}, "openai", (100, 10, None, 5)),
        ({"input": 100, "output": 10, "thoughts": 50}, "openai", (100, 60, None, 50)),
        # A built-in tool's prompt is read too; a cached part above the input is no part of it.
        ({"input": 100, "output": 1, "tool": 20, "total": 121}, "gemini", (120, 1, None, None)),
        ({"input": 10, "output": 1, "cached": 50}, "gemini", (10, 1, None, None)),
    ],
)
def test_counters_take_the_shared_meaning(
    raw: dict[str, int], provider: str, expected: tuple[int | None, ...]
) -> None:
    """Input includes the cached part; output includes the thoughts, whichever way they came."""
    assert usage_of(raw, provider) == expected


def test_a_response_without_counters_has_no_usage() -> None:
    """No counter at all is no usage, never zeros."""
    for raw in ({"total": 3}, None):
        problems: list[str] = []
        usage = read_usage(
            raw, "gemini-cli", thoughts_in_output=GEMINI_API, dedup_key=None, problems=problems
        )
        assert usage is None
        assert problems == []


def test_a_cached_part_larger_than_the_prompt_is_left_out_with_a_warning(tmp_path: Path) -> None:
    """Damaged counters keep the one meaning, and the conversation says what was left out."""
    tokens = {"input": 10, "output": 1, "cached": 50, "total": 11}
    conversation = parse_log(
        tmp_path, [header(), user("u1", "hi"), answer("a1", "hello", tokens=tokens)]
    )
    (usage,) = [m.usage for m in conversation.messages if m.usage is not None]
    assert (usage.input_tokens, usage.cache_read_tokens) == (10, None)
    assert conversation.diagnostics.warnings == (
        "message a1: cache reads and writes (50) exceed input_tokens (10); left out",
    )


# --- where it looks ---


def test_gemini_cli_home_moves_the_base_folder(tmp_path: Path) -> None:
    """GEMINI_CLI_HOME replaces the home folder; .gemini is looked for inside it."""
    write_log(tmp_path / "alt" / ".gemini" / "tmp" / "p" / "chats" / "session-x.jsonl", [header()])
    host = Host(home=tmp_path, env={"GEMINI_CLI_HOME": str(tmp_path / "alt")}, platform="linux")
    found = GeminiCliAdapter().detect(host)
    assert found is not None
    assert found.roots == (str(tmp_path / "alt" / ".gemini" / "tmp"),)
    assert GeminiCliAdapter().detect(Host(home=tmp_path, env={}, platform="linux")) is None


def test_explain_names_the_folders_and_what_is_left_alone(tmp_path: Path) -> None:
    """Doctor says where it looked, what it found, and that Antigravity's files are not read."""
    write_log(session_file(tmp_path), [header()])
    (tmp_path / ".gemini" / "tmp" / "proj" / "checkpoint-v1.json").write_text("{}")
    (tmp_path / ".gemini" / "antigravity").mkdir()
    lines = list(GeminiCliAdapter().explain(Host(home=tmp_path, env={}, platform="darwin")))
    assert lines[0] == "GEMINI_CLI_HOME is not set: using ~/.gemini"
    assert f"{tmp_path / '.gemini' / 'tmp'}: 1 session file(s) in 1 project folder(s)" in lines
    assert "1 '/chat save' checkpoint file(s) are snapshots, not read" in lines
    assert any("antigravity" in line and "left alone" in line for line in lines)


def test_sniff_tells_gemini_sessions_from_their_neighbours(tmp_path: Path) -> None:
    """Both containers are recognised; a Qwen Code or Claude Code line, or any JSON, is not."""
    adapter = GeminiCliAdapter()
    log = write_log(tmp_path / "session-a.jsonl", [header()])
    document = tmp_path / "session-b.json"
    document.write_text(json.dumps(header(messages=[]), indent=2))
    qwen = write_log(
        tmp_path / "q.jsonl", [{"uuid": "1", "parentUuid": None, "sessionId": "s", "type": "user"}]
    )
    other = tmp_path / "settings.json"
    other.write_text('{"general": {}}')
    assert adapter.sniff(log) > 0.9
    assert adapter.sniff(document) > 0.9
    assert adapter.sniff(qwen) == adapter.sniff(other) == 0.0


def test_a_sub_agent_folder_named_like_its_session_is_not_read_twice(tmp_path: Path) -> None:
    """A sub-agent whose id is its parent's (a loop of folders) is not nested into itself."""
    main = write_log(session_file(tmp_path), [header(), user("u1", "go")])
    write_log(
        main.parent / SESSION / f"{SESSION}.jsonl", [header(kind="subagent"), user("s1", "x")]
    )
    write_log(main.parent / SESSION / "child.jsonl", [header(sessionId="child"), user("c1", "y")])
    conversation = parse_file(main)
    assert [s.id for s in conversation.subagents] == ["child"]


# --- unreadable files ---


def test_a_session_gone_since_the_scan_is_missing(tmp_path: Path) -> None:
    """Parse of a meta whose file was deleted raises SourceUnavailableError (MISSING)."""
    path = write_log(session_file(tmp_path), [header()])
    (meta,) = GeminiCliAdapter().scan_path(path)
    path.unlink()
    with pytest.raises(SourceUnavailableError) as caught:
        GeminiCliAdapter().parse(meta)
    assert caught.value.cause is UnavailableCause.MISSING


@pytest.mark.skipif(sys.platform == "win32", reason="Windows has no POSIX file modes")
@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root reads any file")
def test_a_session_that_cannot_be_read_says_so(tmp_path: Path) -> None:
    """An unreadable session file raises SourceUnavailableError; its sub-agents are not needed."""
    path = write_log(session_file(tmp_path), [header()])
    (meta,) = GeminiCliAdapter().scan_path(path)
    path.chmod(0)
    try:
        with pytest.raises(SourceUnavailableError):
            GeminiCliAdapter().parse(meta)
    finally:
        path.chmod(0o600)
