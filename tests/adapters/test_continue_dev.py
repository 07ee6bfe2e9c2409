"""The Continue adapter: what the conformance cases do not show."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

import chatparse
from chatparse.adapters.continue_dev import ContinueAdapter
from chatparse.adapters.continue_dev.locate import home_of, project_of
from chatparse.adapters.continue_dev.usage import message_usage
from chatparse.errors import SourceUnavailableError, UnavailableCause
from chatparse.host import Host
from chatparse.model import ParsedConversation
from chatparse.testing import AdapterConformance, Case, check_conversation, load_cases

REPO = Path(__file__).resolve().parents[2]
SESSION_ID = "6a1d2c3b-0000-4000-8000-000000000001"


class TestContinueConformance(AdapterConformance):
    adapter = "continue"
    fixtures = REPO / "fixtures" / "continue"

    def make_adapter(self) -> chatparse.SourceAdapter:
        return ContinueAdapter()


def write_session(home: Path, history: list[Any], **fields: Any) -> Path:
    """A session file ``<home>/.continue/sessions/<SESSION_ID>.json``."""
    folder = home / ".continue" / "sessions"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{SESSION_ID}.json"
    document = {"sessionId": SESSION_ID, "title": "t", "history": history, **fields}
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def parse_only(home: Path) -> ParsedConversation:
    adapter = ContinueAdapter()
    found = adapter.detect(Host(home=home, env={}, platform="linux"))
    assert found is not None
    (meta,) = adapter.scan(found)
    conversation = adapter.parse(meta)
    assert check_conversation(conversation) == []
    return conversation


def test_a_relative_global_dir_is_not_guessed(tmp_path: Path) -> None:
    """Continue resolves a relative CONTINUE_GLOBAL_DIR against its own cwd: the default is read."""
    host = Host(home=tmp_path, env={"CONTINUE_GLOBAL_DIR": "conf/continue"}, platform="linux")
    located = home_of(host)
    assert located.ignored
    assert located.home == tmp_path / ".continue"
    lines = list(ContinueAdapter().explain(host))
    assert "relative path (conf/continue)" in lines[0]


def test_a_global_dir_with_a_tilde_is_the_hosts(tmp_path: Path) -> None:
    """``~/x`` is expanded against the host's home, not this machine's."""
    host = Host(home=tmp_path, env={"CONTINUE_GLOBAL_DIR": "~/cont"}, platform="darwin")
    assert home_of(host).home == tmp_path / "cont"


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("file:///home/ada/app", "/home/ada/app"),
        ("file:///c%3A/Users/ada/app", "c:\\Users\\ada\\app"),
        ("vscode-remote://ssh-remote%2Bbox/srv/app", "vscode-remote://ssh-remote%2Bbox/srv/app"),
        ("/Users/ada/app", "/Users/ada/app"),
        ("", None),
        (7, None),
    ],
)
def test_workspace_directory_forms(value: object, expected: str | None) -> None:
    """URIs of the IDEs and plain paths of the CLI both become a project path."""
    assert project_of(value) == expected


def test_usage_of_an_openai_style_provider_is_taken_as_written() -> None:
    """No cache writes and cached tokens within promptTokens: promptTokens already holds them."""
    usage = message_usage(
        {"promptTokens": 900, "completionTokens": 40, "promptTokensDetails": {"cachedTokens": 512}},
        "k",
        [],
    )
    assert usage is not None
    assert (usage.input_tokens, usage.cache_read_tokens, usage.output_tokens) == (900, 512, 40)


def test_usage_of_an_anthropic_style_provider_adds_the_cache() -> None:
    """A cache write shows that promptTokens left the cache out: both parts are added."""
    value = {
        "promptTokens": 10,
        "completionTokens": 5,
        "promptTokensDetails": {"cachedTokens": 100, "cacheWriteTokens": 20},
    }
    usage = message_usage(value, "k", [])
    assert usage is not None
    assert (usage.input_tokens, usage.cache_read_tokens, usage.cache_write_tokens) == (130, 100, 20)


def test_usage_without_a_prompt_count_keeps_no_parts() -> None:
    """Cache parts of an unknown input are not kept (they would exceed it)."""
    problems: list[str] = []
    value = {"promptTokens": "x", "completionTokens": 3, "promptTokensDetails": {"cachedTokens": 9}}
    usage = message_usage(value, "k", problems)
    assert usage is not None
    assert (usage.input_tokens, usage.cache_read_tokens, usage.output_tokens) == (None, None, 3)
    assert problems == ["promptTokens 'x' is not a token count; left out"]


def test_session_totals_are_not_added_to_answers_that_have_usage(tmp_path: Path) -> None:
    """The session's usage adds up its answers': given only when no answer has its own."""
    answer = {
        "role": "assistant",
        "content": "a",
        "usage": {"promptTokens": 5, "completionTokens": 1},
    }
    write_session(
        tmp_path,
        [{"message": {"role": "user", "content": "q"}}, {"message": answer}],
        usage={"promptTokens": 500, "completionTokens": 100},
    )
    conversation = parse_only(tmp_path)
    assert conversation.usage_total().input_tokens == 5


def test_session_totals_without_an_answer_are_warned(tmp_path: Path) -> None:
    """A session total with nothing to carry it is not lost silently."""
    write_session(
        tmp_path,
        [{"message": {"role": "user", "content": "q"}}],
        usage={"promptTokens": 500, "completionTokens": 100},
    )
    conversation = parse_only(tmp_path)
    assert conversation.diagnostics.warnings == (
        "session usage recorded, but no answer to carry it",
    )


def test_reasoning_before_a_prompt_stands_alone(tmp_path: Path) -> None:
    """Thinking followed by a prompt, not an answer, is a message of its own, in its place."""
    write_session(
        tmp_path,
        [
            {"message": {"id": "t", "role": "thinking", "content": "hmm"}},
            {"message": {"id": "u", "role": "user", "content": "q"}},
            {"message": {"id": "a", "role": "assistant", "content": "a"}},
        ],
    )
    conversation = parse_only(tmp_path)
    assert [(m.id, m.role, m.thinking, m.text) for m in conversation.messages] == [
        ("t", "assistant", "hmm", ""),
        ("u", "user", None, "q"),
        ("a", "assistant", None, "a"),
    ]


def test_a_call_only_its_state_names_is_kept(tmp_path: Path) -> None:
    """A toolCallState whose call is not in the message's toolCalls still makes the call."""
    state = {
        "toolCallId": "c1",
        "toolCall": {"id": "c1", "function": {"name": "ls", "arguments": '{"dir": "."}'}},
        "status": "done",
        "output": [{"content": "a.txt"}],
    }
    write_session(
        tmp_path,
        [
            {"message": {"role": "user", "content": "q"}},
            {"message": {"role": "assistant", "content": ""}, "toolCallState": state},
        ],
    )
    (call,) = parse_only(tmp_path).messages[1].tool_calls
    assert (call.id, call.name, call.input, call.output, call.is_error) == (
        "c1",
        "ls",
        {"dir": "."},
        "a.txt",
        False,
    )


def test_a_call_still_running_has_no_result(tmp_path: Path) -> None:
    """A state that is still calling (no output) leaves the call unanswered."""
    calls = [{"id": "c1", "function": {"name": "ls", "arguments": ""}}]
    state = {"toolCallId": "c1", "status": "calling"}
    write_session(
        tmp_path,
        [
            {
                "message": {"role": "assistant", "content": "", "toolCalls": calls},
                "toolCallStates": [state],
            }
        ],
    )
    (call,) = parse_only(tmp_path).messages[0].tool_calls
    assert (call.output, call.is_error) == (None, None)


def test_a_session_gone_since_the_scan_is_missing(tmp_path: Path) -> None:
    """The parse says the file is gone, with a cause programs can test."""
    path = write_session(tmp_path, [])
    adapter = ContinueAdapter()
    found = adapter.detect(Host(home=tmp_path, env={}, platform="linux"))
    assert found is not None
    (meta,) = adapter.scan(found)
    path.unlink()
    with pytest.raises(SourceUnavailableError) as caught:
        adapter.parse(meta)
    assert caught.value.cause is UnavailableCause.MISSING


def test_sniff_and_scan_path(tmp_path: Path) -> None:
    """A session file is recognised and read on its own; the index and other JSON are not."""
    path = write_session(tmp_path, [{"message": {"role": "user", "content": "hello"}}])
    index = path.parent / "sessions.json"
    index.write_text(json.dumps([{"sessionId": SESSION_ID, "dateCreated": "1767261600000"}]))
    other = tmp_path / "package.json"
    other.write_text('{"name": "x"}')
    adapter = ContinueAdapter()
    assert adapter.sniff(path) == 0.9
    assert adapter.sniff(index) == 0.0
    assert adapter.sniff(other) == 0.0
    (meta,) = adapter.scan_path(path)
    assert meta.created_at is not None
    assert meta.created_at.isoformat() == "2026-01-01T10:00:00+00:00"


def test_explain_counts_what_the_index_names_that_is_gone(tmp_path: Path) -> None:
    """The doctor says how many index entries have no file, and that settings are not read."""
    path = write_session(tmp_path, [])
    entries = [{"sessionId": SESSION_ID}, {"sessionId": "gone-1"}, {"sessionId": "gone-2"}]
    (path.parent / "sessions.json").write_text(json.dumps(entries))
    lines = list(ContinueAdapter().explain(Host(home=tmp_path, env={}, platform="linux")))
    assert any("3 entries, 2 naming a file that is gone" in line for line in lines)
    assert any("1 session file(s)" in line for line in lines)


def test_explain_without_sessions(tmp_path: Path) -> None:
    """A home without a sessions folder is said to be missing."""
    lines = list(ContinueAdapter().explain(Host(home=tmp_path, env={}, platform="linux")))
    assert lines[-1].endswith("missing (Continue has saved no session here)")


@pytest.mark.usefixtures("fresh_registry")
def test_the_built_in_parses_through_the_public_api(tmp_path: Path) -> None:
    """A built-in (registering it again would be a conflict), iter_conversations reads it."""
    write_session(tmp_path, [{"message": {"role": "user", "content": "hello"}}])
    host = Host(home=tmp_path, env={}, platform="linux")
    (conversation,) = chatparse.iter_conversations(host, sources=["continue"])
    assert conversation.messages[0].text == "hello"


@pytest.mark.parametrize(
    "case", load_cases(REPO / "fixtures" / "continue"), ids=lambda case: case.name
)
def test_peek_agrees_with_parse_on_every_fixture(case: Case, tmp_path: Path) -> None:
    """A peek finds the title, project and last time that parse finds, and changes nothing."""
    home = tmp_path / "home"
    shutil.copytree(case.home_dir, home)
    adapter = ContinueAdapter()
    found = adapter.detect(Host(home=home, env=case.host_env(home), platform=case.platform))
    assert found is not None
    for meta in adapter.scan(found):
        peeked, parsed = adapter.peek(meta), adapter.parse(meta)
        fields = ("title", "project_path", "updated_at")
        assert [getattr(peeked, f) for f in fields] == [getattr(parsed, f) for f in fields]


def test_peek_of_a_large_session_reads_its_head(tmp_path: Path) -> None:
    """Past the window, the title and workspace Continue writes first are still found."""
    path = write_session(tmp_path, [])
    history = [{"message": {"role": "user", "content": "x" * 1000}}] * 200
    document = {
        "sessionId": SESSION_ID,
        "title": "Big one",
        "workspaceDirectory": "file:///srv/app",
        "history": history,
    }
    path.write_text(json.dumps(document), encoding="utf-8")  # one line: no line to cut at
    adapter = ContinueAdapter()
    (meta,) = adapter.scan_path(path)
    peeked = adapter.peek(meta)
    assert (peeked.title, peeked.project_path, peeked.updated_at) == ("Big one", "/srv/app", None)
