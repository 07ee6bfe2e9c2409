"""The Mistral Vibe adapter: what the conformance cases do not show."""

from __future__ import annotations

import json
from pathlib import Path

import chatparse
from chatparse.adapters.mistral_vibe import MistralVibeAdapter
from chatparse.host import Host
from chatparse.testing import AdapterConformance, check_conversation

REPO = Path(__file__).resolve().parents[2]


class TestMistralVibeConformance(AdapterConformance):
    adapter = "mistral-vibe"
    fixtures = REPO / "fixtures" / "mistral-vibe"

    def make_adapter(self) -> chatparse.SourceAdapter:
        return MistralVibeAdapter()


def _session(root: Path, name: str, prompt: str) -> Path:
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "messages.jsonl").write_text(json.dumps({"role": "user", "content": prompt}) + "\n")
    return folder


def test_the_save_dir_variable_wins_over_the_config_file(tmp_path: Path) -> None:
    """VIBE_SESSION_LOGGING__SAVE_DIR, Vibe's own setting, comes before config.toml."""
    (tmp_path / ".vibe").mkdir()
    (tmp_path / ".vibe" / "config.toml").write_text('[session_logging]\nsave_dir = "~/a"\n')
    _session(tmp_path / "a", "session_1_x", "from the config file")
    _session(tmp_path / "b", "session_2_y", "from the variable")
    adapter = MistralVibeAdapter()
    for env, expected in (
        ({}, "session_1_x"),
        ({"VIBE_SESSION_LOGGING__SAVE_DIR": "~/b"}, "session_2_y"),
    ):
        found = adapter.detect(Host(home=tmp_path, env=env, platform="linux"))
        assert found is not None
        assert [meta.id for meta in adapter.scan(found)] == [expected]


def test_all_zero_totals_are_no_usage(tmp_path: Path) -> None:
    """AgentStats defaults to 0: a session whose counts are all 0 recorded none."""
    folder = _session(tmp_path / ".vibe" / "logs" / "session", "session_1_x", "hi")
    with (folder / "messages.jsonl").open("a") as stream:
        stream.write(json.dumps({"role": "assistant", "content": "hello"}) + "\n")
    stats = {"session_prompt_tokens": 0, "session_completion_tokens": 0}
    (folder / "meta.json").write_text(json.dumps({"session_id": "x", "stats": stats}))
    adapter = MistralVibeAdapter()
    found = adapter.detect(Host(home=tmp_path, env={}, platform="linux"))
    assert found is not None
    (meta,) = adapter.scan(found)
    conversation = adapter.parse(meta)
    assert check_conversation(conversation) == []
    assert [m.usage for m in conversation.messages] == [None, None]


def test_a_session_is_parsed_by_path(tmp_path: Path) -> None:
    """parse_path's route: a session folder, or one of its files, is sure; elsewhere is not."""
    folder = _session(tmp_path, "session_1_x", "by path")
    adapter = MistralVibeAdapter()
    assert adapter.sniff(folder / "messages.jsonl") > 0.0
    assert adapter.sniff(tmp_path / "notes.txt") == 0.0
    (meta,) = adapter.scan_path(folder)
    assert [m.text for m in adapter.parse(meta).messages] == ["by path"]


def test_explain_says_which_setting_chose_the_folder(tmp_path: Path) -> None:
    """Doctor's lines: the variables, then the folder, why it was chosen and what it holds."""
    _session(tmp_path / ".vibe" / "logs" / "session", "session_1_x", "hi")
    lines = list(MistralVibeAdapter().explain(Host(home=tmp_path, env={}, platform="linux")))
    assert lines[0] == "VIBE_HOME is not set"
    assert lines[-1].endswith(
        "(the default): 1 session folder(s) (Vibe 2.x), 0 session file(s) (Vibe 1.x)"
    )
