"""The Roo Code adapter: its custom storage path, sub-tasks and what the fixtures do not show."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import chatparse
from chatparse.adapters.roo_code import RooCodeAdapter
from chatparse.adapters.roo_code.adapter import custom_storage_paths
from chatparse.host import Host
from chatparse.testing import AdapterConformance, check_conversation

REPO = Path(__file__).resolve().parents[2]
USER = Path(".config/Code/User")


class TestRooCodeConformance(AdapterConformance):
    adapter = "roo-code"
    fixtures = REPO / "fixtures" / "roo-code"

    def make_adapter(self) -> chatparse.SourceAdapter:
        return RooCodeAdapter()


def task_file(tasks: Path, task: str, name: str, value: Any) -> Path:
    """``tasks/<task>/<name>`` holding ``value`` as JSON."""
    path = tasks / task / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value), encoding="utf-8")
    return path


def settings(user: Path, text: str) -> None:
    user.mkdir(parents=True, exist_ok=True)
    (user / "settings.json").write_text(text, encoding="utf-8")


def prompt_log(text: str) -> list[dict[str, Any]]:
    return [{"ts": 1772000000000, "type": "say", "say": "text", "text": text}]


def test_custom_storage_path_from_settings_with_comments(tmp_path: Path) -> None:
    """settings.json is JSONC: the setting is found by its key; relative values are ignored."""
    storage = tmp_path / "roo data"
    settings(
        tmp_path / USER,
        '{\n  // where Roo keeps tasks\n  "editor.fontSize": 13,\n'
        f'  "roo-cline.customStoragePath": {json.dumps(str(storage))},\n}}\n',
    )
    settings(tmp_path / ".config/VSCodium/User", '{"roo-cline.customStoragePath": "rel/x"}')
    host = Host(home=tmp_path, env={}, platform="linux")
    assert custom_storage_paths(host) == [storage]
    task_file(storage / "tasks", "1", "ui_messages.json", prompt_log("from the custom folder"))
    adapter = RooCodeAdapter()
    found = adapter.detect(host)
    assert found is not None
    assert found.roots == (str(storage),)
    (meta,) = adapter.scan(found)
    conversation = adapter.parse(meta)
    assert conversation.title == "from the custom folder"
    assert check_conversation(conversation) == []
    assert any("customStoragePath is set" in line for line in adapter.explain(host))


def test_a_subtask_whose_parent_is_gone_is_listed_on_its_own(tmp_path: Path) -> None:
    tasks = tmp_path / USER / "globalStorage" / "rooveterinaryinc.roo-cline" / "tasks"
    task_file(tasks, "2", "ui_messages.json", prompt_log("child"))
    task_file(tasks, "2", "history_item.json", {"id": "2", "task": "child", "parentTaskId": "1"})
    adapter = RooCodeAdapter()
    found = adapter.detect(Host(home=tmp_path, env={}, platform="linux"))
    assert found is not None
    (meta,) = adapter.scan(found)
    assert meta.id == "2"
    assert adapter.parse(meta).subagents == ()


def test_sniff_prefers_its_own_extension_folder(tmp_path: Path) -> None:
    own = task_file(tmp_path / "rooveterinaryinc.roo-cline" / "tasks", "1", "ui_messages.json", [])
    other = task_file(tmp_path / "saoudrizwan.claude-dev" / "tasks", "1", "ui_messages.json", [])
    adapter = RooCodeAdapter()
    assert adapter.sniff(own) > adapter.sniff(other) > 0
