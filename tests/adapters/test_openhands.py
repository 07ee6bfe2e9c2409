"""The OpenHands adapter: what the conformance cases do not show."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import chatparse
from chatparse.adapters.openhands import OpenHandsAdapter
from chatparse.errors import SourceUnavailableError
from chatparse.host import Host
from chatparse.model import ConversationMeta, ParsedConversation
from chatparse.testing import AdapterConformance, check_conversation

REPO = Path(__file__).resolve().parents[2]
IDENT = "0123456789abcdef0123456789abcdef"


class TestOpenHandsConformance(AdapterConformance):
    adapter = "openhands"
    fixtures = REPO / "fixtures" / "openhands"

    def make_adapter(self) -> chatparse.SourceAdapter:
        return OpenHandsAdapter()


# --- helpers ---


def conversation(
    root: Path,
    events: list[dict[str, Any]],
    *,
    ident: str = IDENT,
    state: dict[str, Any] | None = None,
) -> Path:
    """A conversation folder with these events (named as the current SDK names them)."""
    folder = root / ident
    (folder / "events").mkdir(parents=True)
    if state is not None:
        (folder / "base_state.json").write_text(json.dumps(state))
    for index, event in enumerate(events):
        name = f"event-{index:05d}-{event.get('id', index)}.json"
        (folder / "events" / name).write_text(json.dumps(event, indent=2))
    return folder


def prompt(text: str) -> dict[str, Any]:
    return {
        "kind": "MessageEvent",
        "source": "user",
        "llm_message": {"role": "user", "content": [{"type": "text", "text": text}]},
    }


def answer(text: str, response: str | None = None) -> dict[str, Any]:
    event: dict[str, Any] = {
        "kind": "MessageEvent",
        "source": "agent",
        "llm_message": {"role": "assistant", "content": [{"type": "text", "text": text}]},
    }
    if response is not None:
        event["llm_response_id"] = response
    return event


def tokens(response: str, prompt_tokens: int, completion: int) -> dict[str, Any]:
    return {
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion,
        "response_id": response,
    }


def default_root(home: Path) -> Path:
    return home / ".openhands" / "conversations"


def scan(home: Path, **env: str) -> list[ConversationMeta]:
    adapter = OpenHandsAdapter()
    found = adapter.detect(Host(home=home, env=env, platform="linux"))
    assert found is not None
    return list(adapter.scan(found))


def parse_one(home: Path, **env: str) -> ParsedConversation:
    (meta,) = scan(home, **env)
    parsed = OpenHandsAdapter().parse(meta)
    assert check_conversation(parsed) == []
    return parsed


# --- where it looks ---


def test_nothing_to_detect_without_a_conversations_folder(tmp_path: Path) -> None:
    """A ~/.openhands holding only settings (a fresh install) is not a source."""
    (tmp_path / ".openhands").mkdir()
    (tmp_path / ".openhands" / "agent_settings.json").write_text("{}")
    assert OpenHandsAdapter().detect(Host(home=tmp_path, env={}, platform="darwin")) is None


def test_the_persistence_variable_moves_the_conversations(tmp_path: Path) -> None:
    """OPENHANDS_PERSISTENCE_DIR=<dir> is read as <dir>/conversations, beside the default."""
    conversation(tmp_path / "elsewhere" / "conversations", [prompt("moved")])
    metas = scan(tmp_path, OPENHANDS_PERSISTENCE_DIR=str(tmp_path / "elsewhere"))
    assert [m.id for m in metas] == [IDENT]
    assert Path(metas[0].path).parents[2] == tmp_path / "elsewhere" / "conversations"


def test_a_folder_without_state_or_events_is_not_a_conversation(tmp_path: Path) -> None:
    (default_root(tmp_path) / "not-a-conversation").mkdir(parents=True)
    (default_root(tmp_path) / "not-a-conversation" / "notes.md").write_text("x")
    conversation(default_root(tmp_path), [prompt("real")])
    assert [m.id for m in scan(tmp_path)] == [IDENT]


def test_explain_names_the_variables_and_the_folders(tmp_path: Path) -> None:
    conversation(default_root(tmp_path), [prompt("hello")])
    host = Host(home=tmp_path, env={"OPENHANDS_CONVERSATIONS_DIR": "/nowhere"}, platform="linux")
    lines = list(OpenHandsAdapter().explain(host))
    assert "OPENHANDS_CONVERSATIONS_DIR is set: /nowhere" in lines
    assert "OPENHANDS_PERSISTENCE_DIR is not set" in lines
    assert f"{default_root(tmp_path)}: 1 conversation folder(s)" in lines
    assert "/nowhere: missing" in lines


# --- what it reads ---


def test_events_are_read_in_the_order_of_their_index_not_of_their_name(tmp_path: Path) -> None:
    """event-100000 comes after event-99999, though it sorts before it as text."""
    folder = conversation(default_root(tmp_path), [])
    events = folder / "events"
    (events / "event-99999.json").write_text(json.dumps(prompt("first")))
    (events / "event-100000.json").write_text(json.dumps(answer("second")))
    parsed = parse_one(tmp_path)
    assert [m.text for m in parsed.messages] == ["first", "second"]


def test_a_response_id_gives_each_answer_its_own_usage(tmp_path: Path) -> None:
    state = {
        "stats": {
            "usage_to_metrics": {
                "agent": {"token_usages": [tokens("r1", 100, 10), tokens("r2", 300, 30)]}
            }
        }
    }
    conversation(
        default_root(tmp_path),
        [prompt("q"), answer("a1", "r1"), prompt("q2"), answer("a2", "r2")],
        state=state,
    )
    parsed = parse_one(tmp_path)
    usages = [m.usage for m in parsed.messages if m.role == "assistant"]
    assert [(u.input_tokens, u.output_tokens) for u in usages if u is not None] == [
        (100, 10),
        (300, 30),
    ]
    assert [u.dedup_key for u in usages if u is not None] == ["openhands:r1", "openhands:r2"]
    assert [u.cache_read_tokens for u in usages if u is not None] == [None, None]


def test_a_cache_part_larger_than_the_prompt_is_left_out_with_a_warning(tmp_path: Path) -> None:
    entry = {**tokens("r1", 100, 10), "cache_read_tokens": 500}
    state = {"stats": {"usage_to_metrics": {"agent": {"token_usages": [entry]}}}}
    conversation(default_root(tmp_path), [prompt("q"), answer("a", "r1")], state=state)
    parsed = parse_one(tmp_path)
    usage = parsed.messages[-1].usage
    assert usage is not None
    assert (usage.input_tokens, usage.cache_read_tokens) == (100, None)
    expected = "cache reads and writes (500) exceed input_tokens (100); left out"
    assert any(w.endswith(expected) for w in parsed.diagnostics.warnings)


def test_a_response_added_to_the_last_answer_keeps_parts_within_wholes(tmp_path: Path) -> None:
    """A loose response with cache reads but no readable prompt count (damage).

    Added to the last answer, the sum's cache part would exceed its prompt: it is left out, and
    the conversation says so.
    """
    named = {**tokens("r1", 3000, 10), "cache_read_tokens": 3000}
    loose = {**tokens("c1", 0, 5), "prompt_tokens": [[1]], "cache_read_tokens": 3000}
    state = {"stats": {"usage_to_metrics": {"agent": {"token_usages": [named, loose]}}}}
    conversation(default_root(tmp_path), [prompt("q"), answer("a", "r1")], state=state)
    parsed = parse_one(tmp_path)  # checks the kit's invariants, cache within input among them
    usage = parsed.messages[-1].usage
    assert usage is not None
    assert (usage.input_tokens, usage.output_tokens, usage.cache_read_tokens) == (3000, 15, None)
    assert "usage added to the last answer: cache reads and writes (6000) exceed input_tokens " in (
        " ".join(parsed.diagnostics.warnings)
    )


def test_usage_without_any_answer_is_said_not_lost_silently(tmp_path: Path) -> None:
    state = {"stats": {"usage_to_metrics": {"agent": {"token_usages": [tokens("r1", 5, 1)]}}}}
    conversation(default_root(tmp_path), [prompt("only a prompt")], state=state)
    parsed = parse_one(tmp_path)
    assert all(m.usage is None for m in parsed.messages)
    assert "usage of 1 response(s) recorded, but no answer to carry it" in (
        parsed.diagnostics.warnings
    )


def test_a_base64_image_in_tool_arguments_is_dropped(tmp_path: Path) -> None:
    payload = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk" * 4
    arguments = {"image": {"type": "base64", "media_type": "image/png", "data": payload}}
    action = {
        "kind": "ActionEvent",
        "tool_name": "upload",
        "tool_call_id": "c1",
        "tool_call": {"id": "c1", "name": "upload", "arguments": json.dumps(arguments)},
    }
    conversation(default_root(tmp_path), [prompt("send it"), action])
    parsed = parse_one(tmp_path)
    (call,) = parsed.messages[-1].tool_calls
    assert payload not in json.dumps(call.input)
    assert call.input["image"]["data"].startswith("[image: image/png,")


def test_a_time_without_a_zone_is_no_time(tmp_path: Path) -> None:
    event = {**prompt("when?"), "timestamp": "2026-04-02T15:25:40.706887"}
    conversation(default_root(tmp_path), [event])
    parsed = parse_one(tmp_path)
    assert parsed.messages[0].timestamp is None
    assert parsed.created_at is None


# --- single paths ---


def test_parse_path_reads_a_conversation_folder_or_one_of_its_files(tmp_path: Path) -> None:
    folder = conversation(tmp_path / "copy", [prompt("from a copy")], state={"id": "x"})
    adapter = OpenHandsAdapter()
    assert adapter.sniff(folder) == 0.6
    assert adapter.sniff(folder / "base_state.json") == 0.6
    (event,) = (folder / "events").iterdir()
    assert [m.id for m in adapter.scan_path(event)] == [IDENT]
    assert adapter.sniff(tmp_path / "copy") == 0.0


def test_a_folder_gone_since_the_scan_is_unavailable(tmp_path: Path) -> None:
    folder = conversation(default_root(tmp_path), [prompt("soon gone")])
    (meta,) = scan(tmp_path)
    for path in sorted(folder.rglob("*"), reverse=True):
        path.unlink() if path.is_file() else path.rmdir()
    folder.rmdir()
    with pytest.raises(SourceUnavailableError):
        OpenHandsAdapter().parse(meta)


def test_a_base64_payload_as_a_tool_result_is_dropped(tmp_path: Path) -> None:
    payload = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk" * 4
    action = {
        "kind": "ActionEvent",
        "id": "a1",
        "tool_name": "screenshot",
        "tool_call_id": "c1",
        "tool_call": {"id": "c1", "name": "screenshot", "arguments": "{}"},
    }
    observation = {
        "kind": "ObservationEvent",
        "tool_call_id": "c1",
        "observation": {"content": [{"type": "text", "text": payload}], "is_error": False},
    }
    conversation(default_root(tmp_path), [prompt("look"), action, observation])
    parsed = parse_one(tmp_path)
    (call,) = parsed.messages[-1].tool_calls
    assert call.output is not None
    assert payload not in call.output
    assert call.output.startswith("[base64:")
