"""The Copilot CLI adapter: what the conformance cases do not show."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import chatparse
from chatparse.adapter import Ledger
from chatparse.adapters.copilot_cli import CopilotCliAdapter
from chatparse.adapters.copilot_cli.drafts import Draft
from chatparse.adapters.copilot_cli.locate import read_workspace
from chatparse.adapters.copilot_cli.usage import give_usage, shutdown_totals
from chatparse.errors import SourceUnavailableError
from chatparse.host import Host
from chatparse.model import ConversationMeta
from chatparse.testing import AdapterConformance, check_conversation

REPO = Path(__file__).resolve().parents[2]
SESSION = "11111111-2222-4333-8444-555555555555"


class TestCopilotCliConformance(AdapterConformance):
    adapter = "copilot-cli"
    fixtures = REPO / "fixtures" / "copilot-cli"

    def make_adapter(self) -> chatparse.SourceAdapter:
        return CopilotCliAdapter()


# --- helpers ---


def event(kind: str, n: int, **data: Any) -> dict[str, Any]:
    stamp = f"2026-08-01T10:00:{n:02d}.000Z"
    return {"type": kind, "data": data, "id": f"e{n}", "timestamp": stamp, "parentId": None}


def write_log(home: Path, events: list[dict[str, Any]], session: str = SESSION) -> Path:
    folder = home / ".copilot" / "session-state" / session
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "events.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in events))
    return path


def scan(home: Path, **env: str) -> list[ConversationMeta]:
    adapter = CopilotCliAdapter()
    found = adapter.detect(Host(home=home, env=env, platform="linux"))
    assert found is not None
    return list(adapter.scan(found))


def answer(n: int, segment: int, output: int | None, *, agent: str | None = None) -> Draft:
    draft = Draft(id=f"a{n}", role="assistant", kind="message", segment=segment, agent=agent)
    draft.output, draft.response = output, f"m{n}"
    return draft


# --- where it looks ---


def test_copilot_home_moves_the_store_and_a_home_without_sessions_is_no_source(
    tmp_path: Path,
) -> None:
    """COPILOT_HOME replaces ~/.copilot; a home with only its config is not detected."""
    (tmp_path / ".copilot").mkdir()
    (tmp_path / ".copilot" / "config.json").write_text("{}")
    assert CopilotCliAdapter().detect(Host(home=tmp_path, env={}, platform="linux")) is None
    write_log(tmp_path / "moved", [event("session.start", 1, sessionId=SESSION)])
    moved = {"COPILOT_HOME": str(tmp_path / "moved" / ".copilot")}
    assert [m.id for m in scan(tmp_path, **moved)] == [SESSION]


def test_workspace_yaml_scalars_are_read_and_the_rest_passed_over(tmp_path: Path) -> None:
    """Plain and quoted one-line scalars are read; nested and block values are not."""
    (tmp_path / "workspace.yaml").write_text(
        "id: abc\nname: 'Fix: the build'\nsummary: |\n  a block\ncwd: \"/home/dev/x y\"\n"
        "tags:\n  - one\n# comment\nempty:\n"
    )
    assert read_workspace(tmp_path) == {
        "id": "abc",
        "name": "Fix: the build",
        "cwd": "/home/dev/x y",
    }


def test_the_session_folder_wins_over_the_flat_log_and_the_legacy_document(
    tmp_path: Path,
) -> None:
    """Three copies of one session (migrated twice): the newest layout is read."""
    log = write_log(tmp_path, [event("session.start", 1, sessionId=SESSION)])
    state = log.parent.parent
    (state / f"{SESSION}.jsonl").write_text(log.read_text())
    legacy = tmp_path / ".copilot" / "history-session-state"
    legacy.mkdir()
    (legacy / f"{SESSION}.json").write_text(json.dumps({"sessionId": SESSION, "chatMessages": []}))
    (meta,) = scan(tmp_path)
    assert (meta.path, meta.locator) == (str(log), {"layout": "events"})


def test_a_log_deleted_since_the_scan_cannot_be_parsed(tmp_path: Path) -> None:
    """A session removed after the scan is an unavailable source."""
    log = write_log(tmp_path, [event("session.start", 1, sessionId=SESSION)])
    (meta,) = scan(tmp_path)
    log.unlink()
    with pytest.raises(SourceUnavailableError):
        CopilotCliAdapter().parse(meta)


# --- usage ---


def test_shutdown_totals_add_up_models_and_fall_back_to_token_details() -> None:
    """Usage in modelMetrics is summed over models; tokenDetails is read when it has none."""
    metrics = {
        "a": {"usage": {"inputTokens": 10, "outputTokens": 2, "cacheReadTokens": 4}},
        "b": {"usage": {"inputTokens": 5, "outputTokens": 1}},
    }
    totals = shutdown_totals({"modelMetrics": metrics})
    assert (totals["input_tokens"], totals["cache_read_tokens"], totals["reasoning_tokens"]) == (
        15,
        4,
        None,
    )
    details = {"input": {"tokenCount": 100}, "output": {"tokenCount": 15}}
    fallback = shutdown_totals({"modelMetrics": {"a": {"requests": 2}}, "tokenDetails": details})
    assert (fallback["input_tokens"], fallback["output_tokens"]) == (100, 15)
    assert set(shutdown_totals({}).values()) == {None}


def test_separate_runs_are_not_taken_for_cumulative_totals() -> None:
    """A second shutdown counting only its own run is taken whole, not as a difference."""
    first = {"input_tokens": 100, "output_tokens": 10, "cache_read_tokens": None}
    second = {"input_tokens": 50, "output_tokens": 7, "cache_read_tokens": None}
    first |= {"cache_write_tokens": None, "reasoning_tokens": None}
    second |= {"cache_write_tokens": None, "reasoning_tokens": None}
    drafts = [answer(1, 0, 10), answer(2, 1, 7), answer(3, 2, 3)]
    give_usage(SESSION, drafts, [("s1", first), ("s2", second)], Ledger())
    usages = [d.usage for d in drafts]
    assert all(u is not None for u in usages)
    assert [(u.input_tokens, u.output_tokens, u.counted) for u in usages if u] == [
        (100, 10, True),
        (50, 7, True),
        (None, 3, True),  # after the last shutdown: only its own output is known
    ]


def test_totals_without_an_answer_are_said_not_dropped_silently() -> None:
    """A shutdown whose run has no answer (all cut away) leaves a warning."""
    ledger = Ledger()
    totals = {"input_tokens": 1, "output_tokens": 1, "cache_read_tokens": None}
    totals |= {"cache_write_tokens": None, "reasoning_tokens": None}
    give_usage(SESSION, [], [("s1", totals)], ledger)
    assert ledger.warnings == ["shutdown s1: session totals, but no answer to carry them"]


def test_the_totals_go_to_the_sessions_own_last_answer_not_a_subagents() -> None:
    """A sub-agent's answer after the parent's last one does not carry the session totals."""
    totals = {"input_tokens": 9, "output_tokens": 3, "cache_read_tokens": None}
    totals |= {"cache_write_tokens": None, "reasoning_tokens": None}
    main, sub = answer(1, 0, 2), answer(2, 0, 1, agent="call_task")
    give_usage(SESSION, [main, sub], [("s1", totals)], Ledger())
    assert main.usage is not None
    assert main.usage.input_tokens == 9
    assert sub.usage is not None
    assert sub.usage.counted is False


# --- reading ---


def test_reasoning_no_answer_followed_is_an_answer_of_its_own(tmp_path: Path) -> None:
    """An assistant.reasoning at the end of a log (the session killed) is kept as thinking."""
    write_log(
        tmp_path,
        [
            event("session.start", 1, sessionId=SESSION),
            event("user.message", 2, content="hi"),
            event("assistant.reasoning", 3, reasoningId="r", content="Thinking it over."),
        ],
    )
    (meta,) = scan(tmp_path)
    conversation = CopilotCliAdapter().parse(meta)
    assert check_conversation(conversation) == []
    last = conversation.messages[-1]
    assert (last.id, last.role, last.thinking) == ("e3", "assistant", "Thinking it over.")


# --- parse_path and doctor ---


def test_sniff_and_scan_path(tmp_path: Path) -> None:
    """An event log and a legacy document are recognised; the VS Code transcript shape less so."""
    log = write_log(
        tmp_path, [event("session.start", 1, sessionId=SESSION, producer="copilot-agent")]
    )
    adapter = CopilotCliAdapter()
    assert adapter.sniff(log) == pytest.approx(0.95)
    (meta,) = adapter.scan_path(log)
    assert (meta.id, meta.locator) == (SESSION, {"layout": "events"})
    elsewhere = tmp_path / "transcripts" / "abc.jsonl"
    elsewhere.parent.mkdir()
    elsewhere.write_text(json.dumps(event("session.start", 1, producer="vscode")) + "\n")
    assert adapter.sniff(elsewhere) == pytest.approx(0.6)
    legacy = tmp_path / "history-session-state" / "x.json"
    legacy.parent.mkdir()
    legacy.write_text(json.dumps({"sessionId": "x", "chatMessages": []}))
    assert adapter.sniff(legacy) == pytest.approx(0.9)
    assert [m.locator for m in adapter.scan_path(legacy)] == [{"layout": "legacy"}]
    (other := tmp_path / "notes.json").write_text("{}")
    assert adapter.sniff(other) == 0.0


def test_explain_counts_each_layout(tmp_path: Path) -> None:
    """Doctor names the variable and how many sessions of each layout it found."""
    adapter = CopilotCliAdapter()
    assert list(adapter.explain(Host(home=tmp_path, env={}, platform="linux")))[1].endswith(
        "missing"
    )
    write_log(tmp_path, [event("session.start", 1, sessionId=SESSION)])
    lines = list(adapter.explain(Host(home=tmp_path, env={}, platform="linux")))
    assert lines[0] == "COPILOT_HOME is not set: using ~/.copilot"
    assert "1 session folder(s), 0 flat event log(s), 0 legacy session document(s)" in lines[1]
