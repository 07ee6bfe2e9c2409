"""The Amp adapter: what the conformance cases do not show."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import chatparse
from chatparse import registry
from chatparse.adapters.amp import AmpAdapter
from chatparse.adapters.amp.messages import run_outcome
from chatparse.errors import SourceUnavailableError
from chatparse.host import Host
from chatparse.model import ParsedConversation
from chatparse.testing import AdapterConformance, check_conversation

REPO = Path(__file__).resolve().parents[2]
THREAD = "T-0199aaaa-bbbb-7ccc-8ddd-eeeeffff0001"


class TestAmpConformance(AdapterConformance):
    adapter = "amp"
    fixtures = REPO / "fixtures" / "amp"

    def make_adapter(self) -> chatparse.SourceAdapter:
        return AmpAdapter()


# --- helpers ---


def prompt(number: int, text: str) -> dict[str, Any]:
    return {"role": "user", "messageId": number, "content": [{"type": "text", "text": text}]}


def answer(number: int, text: str, **fields: Any) -> dict[str, Any]:
    return {
        "role": "assistant",
        "messageId": number,
        "content": [{"type": "text", "text": text}],
    } | fields


def thread(folder: Path, messages: list[Any], ident: str = THREAD, **fields: Any) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{ident}.json"
    document = {"v": 1, "id": ident, "created": 1768178184664, "messages": messages} | fields
    path.write_text(json.dumps(document, indent=2), encoding="utf-8")
    return path


def default_threads(home: Path) -> Path:
    return home / ".local" / "share" / "amp" / "threads"


def parse_one(path: Path) -> ParsedConversation:
    adapter = AmpAdapter()
    (meta,) = adapter.scan_path(path)
    conversation = adapter.parse(meta)
    assert check_conversation(conversation) == []
    assert conversation.diagnostics.balanced
    return conversation


# --- where it looks ---


def test_nothing_to_detect_without_a_threads_folder(tmp_path: Path) -> None:
    assert AmpAdapter().detect(Host(home=tmp_path, env={}, platform="linux")) is None


def test_a_relative_xdg_data_home_is_ignored(tmp_path: Path) -> None:
    """The XDG spec: a relative value is invalid; the default folder is read instead."""
    thread(default_threads(tmp_path), [prompt(0, "hi")])
    host = Host(home=tmp_path, env={"XDG_DATA_HOME": "relative/data"}, platform="linux")
    found = AmpAdapter().detect(host)
    assert found is not None
    assert found.roots == (str(default_threads(tmp_path)),)


def test_both_data_folders_are_read(tmp_path: Path) -> None:
    thread(tmp_path / "xdg" / "amp" / "threads", [prompt(0, "in xdg")], ident="T-x")
    thread(default_threads(tmp_path), [prompt(0, "in default")], ident="T-d")
    host = Host(home=tmp_path, env={"XDG_DATA_HOME": str(tmp_path / "xdg")}, platform="darwin")
    adapter = AmpAdapter()
    found = adapter.detect(host)
    assert found is not None
    assert [meta.id for meta in adapter.scan(found)] == ["T-d", "T-x"]
    lines = list(adapter.explain(host))
    assert lines[0] == f"XDG_DATA_HOME is set: {tmp_path / 'xdg'} (~/.local/share/amp is read too)"
    assert f"{default_threads(tmp_path)}: 1 thread document(s)" in lines


def test_only_thread_documents_are_listed(tmp_path: Path) -> None:
    folder = default_threads(tmp_path)
    thread(folder, [prompt(0, "hi")])
    (folder / "settings.json").write_text("{}")
    (folder / "T-folder.json").mkdir()
    found = AmpAdapter().detect(Host(home=tmp_path, env={}, platform="linux"))
    assert found is not None
    assert [meta.id for meta in AmpAdapter().scan(found)] == [THREAD]


def test_a_thread_deleted_since_the_scan(tmp_path: Path) -> None:
    path = thread(default_threads(tmp_path), [prompt(0, "hi")])
    (meta,) = AmpAdapter().scan_path(path)
    path.unlink()
    with pytest.raises(SourceUnavailableError):
        AmpAdapter().parse(meta)


# --- sniffing and parse_path ---


def test_sniff(tmp_path: Path) -> None:
    adapter = AmpAdapter()
    in_threads = thread(default_threads(tmp_path), [prompt(0, "hi")])
    elsewhere = tmp_path / "copy.json"
    elsewhere.write_bytes(in_threads.read_bytes())
    other = tmp_path / "other.json"
    other.write_text('{"v": 1, "messages": []}')
    assert adapter.sniff(in_threads) == 0.9
    assert adapter.sniff(elsewhere) == 0.6  # its id is still a T- id
    assert adapter.sniff(other) == 0.0
    assert adapter.sniff(tmp_path / "missing.json") == 0.0


def test_parse_path_finds_the_adapter(tmp_path: Path, fresh_registry: registry.Registry) -> None:
    fresh_registry.register(AmpAdapter, replace=True)
    path = thread(default_threads(tmp_path), [prompt(0, "Rename foo"), answer(1, "Done.")])
    (conversation,) = chatparse.parse_path(path)
    assert conversation.source == "amp"
    assert [m.text for m in conversation.messages] == ["Rename foo", "Done."]


# --- what it reads ---


@pytest.mark.parametrize(
    ("run", "expected"),
    [
        ({"status": "done", "result": "ok"}, ("ok", False, None)),
        ({"status": "in-progress", "progress": {}}, (None, None, None)),
        ({"status": "cancelled"}, (None, True, None)),
        ({"status": "error", "error": "boom"}, ("boom", True, None)),
        ({"status": "error", "result": {"exitCode": 1}}, ('{"exitCode":1}', True, {"exitCode": 1})),
        ("not a run", (None, None, None)),
    ],
)
def test_run_outcome(run: object, expected: tuple[object, object, object]) -> None:
    assert run_outcome(run) == expected


def test_a_result_image_payload_is_dropped(tmp_path: Path) -> None:
    payload = "iVBORw0KGgo" + "A" * 400
    call = {"type": "tool_use", "id": "t1", "name": "painter", "input": {"prompt": "a cat"}}
    result = {
        "type": "tool_result",
        "toolUseID": "t1",
        "run": {"status": "done", "result": {"image": f"data:image/png;base64,{payload}"}},
    }
    path = thread(
        default_threads(tmp_path),
        [
            prompt(0, "Draw"),
            {"role": "assistant", "messageId": 1, "content": [call]},
            {"role": "user", "messageId": 2, "content": [result]},
        ],
    )
    (tool_call,) = parse_one(path).messages[1].tool_calls
    assert payload not in (tool_call.output or "")
    assert payload not in json.dumps(tool_call.result)


def test_ledger_events_of_one_answer_are_summed(tmp_path: Path) -> None:
    events = [
        {
            "timestamp": "2025-09-04T15:33:27Z",
            "model": "m",
            "tokens": {"input": 10, "output": 1},
            "toMessageId": 1,
        },
        {
            "timestamp": "2025-09-04T15:33:29Z",
            "model": "m",
            "tokens": {"input": 20, "output": 2},
            "toMessageId": 1,
        },
    ]
    path = thread(
        default_threads(tmp_path),
        [prompt(0, "hi"), answer(1, "hello")],
        usageLedger={"events": [*events, "not an event"]},
    )
    conversation = parse_one(path)
    usage = conversation.messages[1].usage
    assert usage is not None
    assert (usage.input_tokens, usage.output_tokens) == (30, 3)
    assert usage.cache_read_tokens is None  # the ledger has no breakdown
    assert conversation.messages[1].timestamp is not None
    assert conversation.diagnostics.malformed == 1
    assert conversation.diagnostics.records_seen == 6  # fields, 2 messages, 3 events


def test_total_input_stands_in_for_a_missing_uncached_count(tmp_path: Path) -> None:
    usage = {"model": "m", "totalInputTokens": 500, "cacheReadInputTokens": 300, "outputTokens": 7}
    path = thread(default_threads(tmp_path), [prompt(0, "hi"), answer(1, "yo", usage=usage)])
    found = parse_one(path).messages[1].usage
    assert found is not None
    assert (found.input_tokens, found.cache_read_tokens, found.output_tokens) == (500, 300, 7)


def test_an_answer_without_counts_has_no_usage(tmp_path: Path) -> None:
    path = thread(
        default_threads(tmp_path),
        [
            prompt(0, "hi"),
            answer(1, "yo", usage={"model": "m", "timestamp": "2026-01-01T00:00:00Z"}),
        ],
    )
    message = parse_one(path).messages[1]
    assert message.usage is None
    assert message.model == "m"


def test_a_document_that_is_not_an_object(tmp_path: Path) -> None:
    folder = default_threads(tmp_path)
    folder.mkdir(parents=True)
    path = folder / "T-list.json"
    path.write_text("[1, 2]")
    conversation = parse_one(path)
    assert conversation.messages == ()
    assert conversation.diagnostics.malformed == 1
