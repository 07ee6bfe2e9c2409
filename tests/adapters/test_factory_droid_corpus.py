"""The Factory Droid samples of ../shared/corpus-next/factory-droid parse, every record counted.

No real Droid file is published under a permissive licence: the samples are a peer reader's
hand-made session (interactive store and stream-json) and a hand-made settings sidecar. They
are copied into a temporary home laid out as Droid lays it out (never into the repo), the
sidecar beside the session it names; the facts checked were read off the raw lines.
"""

from __future__ import annotations

import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest
from corpus_home import parse_home

from chatparse.adapters.factory_droid import FactoryDroidAdapter
from chatparse.model import ParsedConversation

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus-next" / "factory-droid"
PEER = (
    CORPUS / "jazzyalex__agent-sessions" / "Resources" / "Fixtures" / "stage0" / "agents" / "droid"
)
STORE = PEER / "session_store_small.jsonl"
STREAM = PEER / "stream_json_small.jsonl"
SIDECAR = CORPUS / "hand-made" / "sessions" / "-tmp" / "droid_s1.settings.json"

pytestmark = pytest.mark.skipif(not CORPUS.is_dir(), reason=f"no corpus at {CORPUS}")


@pytest.fixture(scope="module")
def parsed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, ParsedConversation]:
    for path in (STORE, STREAM, SIDECAR):
        if not path.is_file():
            pytest.skip(f"{path} is not in the corpus")
    home = tmp_path_factory.mktemp("home")
    folder = home / ".factory" / "sessions" / "-tmp"
    folder.mkdir(parents=True)
    shutil.copy(STORE, folder / "droid_s1.jsonl")  # the session_start id the sidecar pairs with
    shutil.copy(SIDECAR, folder / SIDECAR.name)
    shutil.copy(STREAM, folder / STREAM.name)
    conversations = parse_home(FactoryDroidAdapter(), home, "darwin")
    for conversation in conversations.values():
        assert conversation.diagnostics.skipped == {}
    return conversations


def test_both_samples_are_listed(parsed: dict[str, ParsedConversation]) -> None:
    assert sorted(parsed) == ["droid_s1", "stream_json_small"]


def test_the_session_store_and_its_sidecar(parsed: dict[str, ParsedConversation]) -> None:
    conversation = parsed["droid_s1"]
    assert conversation.title == "Stage0 Droid Small"
    assert conversation.project_path == "/tmp"  # noqa: S108 -- the sample's own cwd
    assert conversation.producer_version == "0.81.0"
    assert conversation.diagnostics.records_seen == 5  # four lines and the sidecar
    prompt, answer = conversation.messages
    assert (prompt.id, prompt.text) == ("m1", "Run a command")
    assert prompt.timestamp == datetime(2025, 12, 26, 23, 50, tzinfo=UTC)
    assert answer.parent_id == "m1"
    (call,) = answer.tool_calls
    assert (call.name, call.input) == ("Execute", {"command": "ls /nope"})
    assert (
        call.output == "Error: Command failed (exit code: 1)\nls: /nope: No such file or directory"
    )
    assert call.is_error is None  # the result has no is_error flag; its text is not guessed at
    usage = answer.usage
    assert usage is not None
    assert usage.input_tokens == 18234 + 9120 + 141733
    assert (usage.cache_write_tokens, usage.cache_read_tokens) == (9120, 141733)
    assert (usage.output_tokens, usage.reasoning_tokens) == (2210, 0)
    assert answer.model == "claude-sonnet-4-5-20250929"


def test_the_stream_json_log(parsed: dict[str, ParsedConversation]) -> None:
    conversation = parsed["stream_json_small"]
    assert [(m.role, m.text) for m in conversation.messages] == [
        ("user", "Do thing"),
        ("assistant", ""),
        ("assistant", "Done"),
    ]
    (call,) = conversation.messages[1].tool_calls
    assert (call.name, call.input, call.is_error) == ("Shell", {"command": "echo hi"}, False)
    assert call.result == {"stdout": "hi\n", "exitCode": 0}
    assert conversation.updated_at == datetime(2025, 12, 26, 0, 0, 3, tzinfo=UTC)
