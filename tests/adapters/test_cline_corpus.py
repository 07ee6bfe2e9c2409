"""Every Cline sample of ../shared/corpus-next/cline parses in full.

The samples are copied into a temporary home laid out as Cline leaves them (never into the
repo); the facts checked were read off the raw files.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from corpus_home import parse_home

from chatparse.adapters.cline import ClineAdapter

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus-next" / "cline"
SDK = CORPUS / "cline__cline" / "sdk" / "packages" / "core" / "fixtures"
LEGACY = CORPUS / "vshulcz__deja-vu" / "fixtures" / "registry" / "cline" / "legacy"
UI_ONLY = CORPUS / "yigitkonur__cli-continues" / "test-fixtures" / "cline" / "tasks" / "test-task-1"
EXTENSION = Path(".config/Code/User/globalStorage/saoudrizwan.claude-dev")
SESSION = "1784094124598_rruoq"

pytestmark = pytest.mark.skipif(not CORPUS.is_dir(), reason=f"no corpus at {CORPUS}")


def sdk_home(home: Path, compaction: str | None = None) -> Path:
    folder = home / ".cline" / "data" / "sessions" / SESSION
    folder.mkdir(parents=True)
    shutil.copy(SDK / "session" / "session.json", folder / f"{SESSION}.json")
    shutil.copy(SDK / "session" / "session.messages.json", folder / f"{SESSION}.messages.json")
    if compaction is not None:
        shutil.copy(SDK / "session" / compaction, folder / f"{SESSION}.compaction.json")
    return home


def test_the_real_sdk_session(tmp_path: Path) -> None:
    """32 transcript messages: 11 tool round trips folded into their calls, metrics per turn."""
    conversation = parse_home(ClineAdapter(), sdk_home(tmp_path))[SESSION]
    assert conversation.title is not None
    assert conversation.title.startswith("can you update @apps/examples/desktop-app")
    assert conversation.project_path == "/Users/example/dev/cline"
    assert conversation.created_at is not None
    assert conversation.created_at.isoformat() == "2026-07-15T05:42:04.609000+00:00"
    assert conversation.meta.locator["forked_from"] == "1784094053271_p8pzo"
    assert conversation.diagnostics.records_seen == 32
    calls = [call for m in conversation.messages for call in m.tool_calls]
    assert len(calls) == 11
    assert all(call.output is not None for call in calls)
    assert {call.name for call in calls} == {"editor", "read_files", "run_commands"}
    prompts = [m.text for m in conversation.messages if m.role == "user"]
    assert len(prompts) == 5  # the 11 tool results made no turn
    assert prompts[1] == "can you make the filter icon smaller?"
    assert prompts[3].startswith("can you also rmove that spacing")
    assert prompts[4] == "hello"
    first = next(m for m in conversation.messages if m.usage is not None)
    assert first.usage is not None
    assert (first.usage.input_tokens, first.usage.output_tokens) == (34334, 741)
    assert conversation.messages[-1].model == "mistralai/voxtral-small-24b-2507"
    raw = json.loads((SDK / "session" / "session.messages.json").read_text(encoding="utf-8"))
    outputs = sum(m["metrics"]["outputTokens"] for m in raw["messages"] if "metrics" in m)
    assert conversation.usage_total().output_tokens == outputs


def test_manual_compaction_only_repeats_the_transcript(tmp_path: Path) -> None:
    """basic.compaction.json: every message is a copy of one in the transcript."""
    conversation = parse_home(ClineAdapter(), sdk_home(tmp_path, "basic.compaction.json"))[SESSION]
    assert conversation.diagnostics.skipped == {"copy kept by the compaction": 10}
    assert not any(m.kind == "compaction_summary" for m in conversation.messages)


def test_agentic_compaction_adds_its_summary(tmp_path: Path) -> None:
    """agentic.compaction.json: the model-written summary (metadata.kind) is added, timed."""
    conversation = parse_home(ClineAdapter(), sdk_home(tmp_path, "agentic.compaction.json"))[
        SESSION
    ]
    summary = conversation.messages[-1]
    assert summary.kind == "compaction_summary"
    assert summary.text.startswith("Context summary:")
    assert summary.timestamp is not None
    assert conversation.diagnostics.skipped == {"copy kept by the compaction": 2}


def test_the_golden_messages_file(tmp_path: Path) -> None:
    """success.messages.json: thinking before a read, its result paired, metrics at the end."""
    folder = tmp_path / ".cline" / "data" / "sessions" / "fixture-success-01"
    folder.mkdir(parents=True)
    shutil.copy(
        SDK / "messages" / "success.messages.json", folder / "fixture-success-01.messages.json"
    )
    conversation = parse_home(ClineAdapter(), tmp_path)["fixture-success-01"]
    prompt, call, answer = conversation.messages
    assert prompt.text == "Inspect the README and summarize it."
    assert prompt.timestamp is None  # only assistant messages carry ts
    assert call.thinking == "I should read the README first before summarizing."
    (read,) = call.tool_calls
    assert (read.name, read.input, read.output, read.is_error) == (
        "read_files",
        {"path": "/tmp/project/README.md"},  # noqa: S108 -- the sample's own path, not ours
        "# Project\n\nA small test fixture.",
        False,
    )
    assert answer.usage is not None
    assert (answer.usage.input_tokens, answer.usage.output_tokens) == (21, 8)
    assert (answer.usage.cache_read_tokens, answer.usage.cache_write_tokens) == (3, 1)


def test_the_legacy_task_and_its_index(tmp_path: Path) -> None:
    """taskHistory.json gives the title and project; the <task> wrapper is taken off."""
    shutil.copytree(LEGACY, tmp_path / EXTENSION)
    conversation = parse_home(ClineAdapter(), tmp_path)["1767225600000"]
    assert (conversation.title, conversation.project_path) == (
        "Say hello",
        "/home/example/work/demo",
    )
    assert [(m.role, m.text) for m in conversation.messages] == [
        ("user", "Say hello"),
        ("assistant", "Hello!"),
    ]
    assert all(m.timestamp is None for m in conversation.messages)  # no UI log: no times
    assert conversation.created_at is not None  # but the task id is its creation time
    assert conversation.created_at.isoformat() == "2026-01-01T00:00:00+00:00"


def test_a_ui_log_alone(tmp_path: Path) -> None:
    """The third-party ui_messages.json: prompt, answers, usage per request, feedback."""
    shutil.copytree(UI_ONLY, tmp_path / EXTENSION / "tasks" / "test-task-1")
    conversation = parse_home(ClineAdapter(), tmp_path)["test-task-1"]
    assert (
        conversation.title == "Create a React component for a dashboard with charts and KPI cards"
    )
    assert conversation.diagnostics.records_seen == 10
    assert conversation.diagnostics.skipped == {"streaming fragment": 1}
    usages = [m.usage for m in conversation.messages if m.usage is not None]
    assert [(u.input_tokens, u.output_tokens) for u in usages] == [
        (100 + 50 + 30, 0),
        (250 + 20 + 80, 300),
        (400, 500),
    ]
    user = [m.text for m in conversation.messages if m.role == "user"]
    assert user[1] == "Also add a date range picker for filtering the data"
    assert conversation.messages[-1].text.startswith(
        "Dashboard component created at src/Dashboard.tsx"
    )
