"""The Kimi adapter: what the conformance cases do not show."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

import chatparse
from chatparse.adapters.kimi import KimiAdapter
from chatparse.host import Host
from chatparse.model import ParsedConversation
from chatparse.testing import AdapterConformance, check_conversation

REPO = Path(__file__).resolve().parents[2]


class TestKimiConformance(AdapterConformance):
    adapter = "kimi"
    fixtures = REPO / "fixtures" / "kimi"

    def make_adapter(self) -> chatparse.SourceAdapter:
        return KimiAdapter()


def _code_session(home: Path, ident: str, prompt: str) -> Path:
    folder = home / ".kimi-code" / "sessions" / "wd_p_000000000000" / ident
    (folder / "agents" / "main").mkdir(parents=True)
    line = {
        "type": "context.append_message",
        "message": {"role": "user", "content": [{"type": "text", "text": prompt}]},
        "time": 1785751201000,
    }
    (folder / "agents" / "main" / "wire.jsonl").write_text(json.dumps(line) + "\n")
    return folder


def _parsed_with(folder: Path, record: Mapping[str, object]) -> ParsedConversation:
    """The session in ``folder`` parsed by path, once ``record`` is appended to its main log."""
    with (folder / "agents" / "main" / "wire.jsonl").open("a") as stream:
        stream.write(json.dumps(record) + "\n")
    adapter = KimiAdapter()
    (meta,) = adapter.scan_path(folder)
    return adapter.parse(meta)


def test_nothing_to_detect_without_a_sessions_folder(tmp_path: Path) -> None:
    """A ~/.kimi holding only its config is not a source."""
    (tmp_path / ".kimi").mkdir()
    (tmp_path / ".kimi" / "config.toml").write_text("")
    assert KimiAdapter().detect(Host(home=tmp_path, env={}, platform="linux")) is None


def test_kimi_code_home_variable_replaces_the_default(tmp_path: Path) -> None:
    """KIMI_CODE_HOME moves Kimi Code's home: ~/.kimi-code is not read then."""
    _code_session(tmp_path, "session_default", "in the default home")
    moved = tmp_path / "elsewhere"
    _code_session(moved, "session_moved", "in the moved home")
    (moved / ".kimi-code").rename(moved / "home")
    host = Host(home=tmp_path, env={"KIMI_CODE_HOME": str(moved / "home")}, platform="linux")
    adapter = KimiAdapter()
    found = adapter.detect(host)
    assert found is not None
    assert [meta.id for meta in adapter.scan(found)] == ["session_moved"]


def test_a_session_folder_is_parsed_by_path(tmp_path: Path) -> None:
    """parse_path's route: sniff then scan_path, from the folder or its main log."""
    folder = _code_session(tmp_path, "session_one", "by path")
    adapter = KimiAdapter()
    assert adapter.sniff(folder) > 0.5
    assert adapter.sniff(tmp_path / "unrelated.txt") == 0.0
    (meta,) = adapter.scan_path(folder / "agents" / "main" / "wire.jsonl")
    conversation = adapter.parse(meta)
    assert check_conversation(conversation) == []
    assert [m.text for m in conversation.messages] == ["by path"]


def test_explain_names_the_variables_and_homes(tmp_path: Path) -> None:
    """Doctor's lines: both variables, then each home with its session count."""
    _code_session(tmp_path, "session_one", "x")
    lines = list(KimiAdapter().explain(Host(home=tmp_path, env={}, platform="linux")))
    assert lines[:2] == ["KIMI_SHARE_DIR is not set", "KIMI_CODE_HOME is not set"]
    assert any(line.startswith("Kimi Code: ") and line.endswith(": 1 session(s)") for line in lines)


def test_usage_outside_any_step_or_compaction_is_said_and_not_kept(tmp_path: Path) -> None:
    """A usage.record no step or compaction takes is counted as skipped, with a warning."""
    folder = _code_session(tmp_path, "session_one", "hi")
    record = {"type": "usage.record", "model": "m", "usage": {"inputOther": 5, "output": 1}}
    conversation = _parsed_with(folder, record)
    assert check_conversation(conversation) == []
    assert conversation.diagnostics.skipped == {"usage records outside any step or compaction": 1}
    assert all(message.usage is None for message in conversation.messages)
    assert any("outside any step" in warning for warning in conversation.diagnostics.warnings)


def test_part_and_origin_kinds_that_are_not_strings_are_unknown(tmp_path: Path) -> None:
    """A list where a part's or origin's kind belongs (damage) is an unknown kind, not a crash."""
    folder = _code_session(tmp_path, "session_one", "hi")
    damaged = {
        "type": "context.append_message",
        "message": {
            "role": "user",
            "content": [{"type": ["text"], "text": "lost"}, {"type": "text", "text": "kept"}],
            "origin": {"kind": ["system_trigger"], "name": ["subagent"]},
        },
        "time": 1785751202000,
    }
    conversation = _parsed_with(folder, damaged)
    assert check_conversation(conversation) == []
    assert conversation.diagnostics.balanced
    assert [m.text for m in conversation.messages] == ["hi", "kept"]
