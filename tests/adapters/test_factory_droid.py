"""The Factory Droid adapter: what the conformance cases do not show."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import chatparse
from chatparse import registry
from chatparse.adapters.factory_droid import FactoryDroidAdapter
from chatparse.errors import SourceUnavailableError
from chatparse.host import Host
from chatparse.model import ParsedConversation
from chatparse.testing import AdapterConformance, check_conversation

REPO = Path(__file__).resolve().parents[2]
SESSION = "0b1c2d3e-4f50-4a61-8b72-93a4b5c6d7e8"
STAMP = "2026-01-12T10:00:05.000Z"


class TestFactoryDroidConformance(AdapterConformance):
    adapter = "factory-droid"
    fixtures = REPO / "fixtures" / "factory-droid"

    def make_adapter(self) -> chatparse.SourceAdapter:
        return FactoryDroidAdapter()


# --- helpers ---


def said(ident: str, role: str, content: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "type": "message",
        "id": ident,
        "timestamp": STAMP,
        "message": {"role": role, "content": content},
    }


def text(value: str) -> list[dict[str, Any]]:
    return [{"type": "text", "text": value}]


def session_file(home: Path, lines: list[Any], *, folder: str = "-w", settings: Any = None) -> Path:
    where = home / ".factory" / "sessions" / folder
    where.mkdir(parents=True, exist_ok=True)
    path = where / f"{SESSION}.jsonl"
    start = {
        "type": "session_start",
        "id": SESSION,
        "title": "T",
        "cwd": "/w",
        "version": "0.130.0",
    }
    path.write_text("".join(json.dumps(line) + "\n" for line in [start, *lines]), encoding="utf-8")
    if settings is not None:
        (where / f"{SESSION}.settings.json").write_text(json.dumps(settings), encoding="utf-8")
    return path


def parse_one(path: Path) -> ParsedConversation:
    adapter = FactoryDroidAdapter()
    (meta,) = adapter.scan_path(path)
    conversation = adapter.parse(meta)
    assert check_conversation(conversation) == []
    assert conversation.diagnostics.balanced
    return conversation


# --- where it looks ---


def test_nothing_to_detect_without_a_sessions_folder(tmp_path: Path) -> None:
    host = Host(home=tmp_path, env={}, platform="linux")
    assert FactoryDroidAdapter().detect(host) is None
    (line,) = FactoryDroidAdapter().explain(host)
    assert line.endswith("missing (Droid reads no variable that moves it)")


def test_explain_counts_sessions_and_sidecars(tmp_path: Path) -> None:
    session_file(tmp_path, [], settings={"model": "m"})
    host = Host(home=tmp_path, env={}, platform="linux")
    (line,) = FactoryDroidAdapter().explain(host)
    assert "1 session file(s), 1 with a .settings.json sidecar" in line


def test_the_fingerprint_follows_the_sidecar(tmp_path: Path) -> None:
    path = session_file(tmp_path, [said("u1", "user", text("hi"))], settings={"model": "m"})
    (before,) = FactoryDroidAdapter().scan_path(path)
    sidecar = path.with_name(f"{SESSION}.settings.json")
    sidecar.write_text(json.dumps({"model": "m", "tokenUsage": {"inputTokens": 1}}))
    (after,) = FactoryDroidAdapter().scan_path(path)
    assert before.fingerprint != after.fingerprint


def test_a_session_deleted_since_the_scan(tmp_path: Path) -> None:
    path = session_file(tmp_path, [])
    (meta,) = FactoryDroidAdapter().scan_path(path)
    path.unlink()
    with pytest.raises(SourceUnavailableError):
        FactoryDroidAdapter().parse(meta)


# --- sniffing and parse_path ---


def test_sniff(tmp_path: Path) -> None:
    adapter = FactoryDroidAdapter()
    store = session_file(tmp_path, [])
    stream = tmp_path / "run.jsonl"
    stream.write_text(
        '{"type":"tool_call","session_id":"s","toolCallId":"c"}\n'
        '{"type":"completion","session_id":"s","finalText":"x"}\n'
    )
    other = tmp_path / "other.jsonl"
    other.write_text('{"type":"session","version":3}\n')
    assert adapter.sniff(store) == 0.95
    assert adapter.sniff(stream) == 0.5
    assert adapter.sniff(other) == 0.0
    assert adapter.sniff(tmp_path / "missing.jsonl") == 0.0


def test_parse_path_finds_the_adapter(tmp_path: Path, fresh_registry: registry.Registry) -> None:
    fresh_registry.register(FactoryDroidAdapter, replace=True)
    path = session_file(
        tmp_path, [said("u1", "user", text("hi")), said("a1", "assistant", text("yo"))]
    )
    (conversation,) = chatparse.parse_path(path)
    assert conversation.source == "factory-droid"
    assert [m.text for m in conversation.messages] == ["hi", "yo"]


# --- what it reads ---


def test_a_reminder_around_a_prompt_is_removed(tmp_path: Path) -> None:
    prompt = "<system-reminder>Todo list is empty.</system-reminder>\nPlease fix the <b> tag"
    path = session_file(tmp_path, [said("u1", "user", text(prompt))])
    (message,) = parse_one(path).messages
    assert message.text == "Please fix the <b> tag"


def test_totals_without_an_answer_warn(tmp_path: Path) -> None:
    usage = {"inputTokens": 5, "outputTokens": 1}
    path = session_file(tmp_path, [said("u1", "user", text("hi"))], settings={"tokenUsage": usage})
    conversation = parse_one(path)
    assert conversation.diagnostics.warnings == (
        f"session {SESSION}: token totals recorded, but no answer to carry them",
    )


@pytest.mark.parametrize("settings", [{"model": "m"}, {"model": "m", "tokenUsage": {}}])
def test_a_sidecar_without_totals_gives_no_usage(tmp_path: Path, settings: Any) -> None:
    lines = [said("u1", "user", text("hi")), said("a1", "assistant", text("yo"))]
    conversation = parse_one(session_file(tmp_path, lines, settings=settings))
    assert conversation.messages[1].usage is None
    assert conversation.diagnostics.records_seen == 4  # start, two messages, the sidecar


def test_totals_in_the_shared_meaning(tmp_path: Path) -> None:
    usage = {
        "inputTokens": 100,
        "outputTokens": 40,
        "cacheCreationTokens": 10,
        "cacheReadTokens": 1000,
        "thinkingTokens": 5,
    }
    lines = [said("u1", "user", text("hi")), said("a1", "assistant", text("yo"))]
    conversation = parse_one(session_file(tmp_path, lines, settings={"tokenUsage": usage}))
    found = conversation.messages[1].usage
    assert found is not None
    assert (found.input_tokens, found.cache_read_tokens, found.cache_write_tokens) == (
        1110,
        1000,
        10,
    )
    assert (found.output_tokens, found.reasoning_tokens) == (45, 5)
    assert found.dedup_key == f"factory-droid:{SESSION}"


def test_a_stream_result_without_a_call_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    lines = [
        {"type": "message", "session_id": "s", "role": "user", "text": "go"},
        {"type": "tool_result", "session_id": "s", "toolCallId": "gone", "value": "out"},
        {"type": "completion", "session_id": "s"},
        {"type": "message", "session_id": "s", "role": "tool", "text": "?"},
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    conversation = parse_one(path)
    assert [(m.role, m.kind, m.text) for m in conversation.messages] == [
        ("user", "message", "go"),
        ("user", "tool_result", "out"),
    ]
    assert conversation.diagnostics.skipped == {"completion without final text": 1}
    assert [record.type for record in conversation.diagnostics.unknown] == ["message"]
