"""The Kilo Code adapter: where it looks and what the fixtures do not show."""

from __future__ import annotations

import json
from pathlib import Path

import chatparse
from chatparse.adapters.kilo_code import KiloCodeAdapter
from chatparse.host import Host
from chatparse.testing import AdapterConformance

REPO = Path(__file__).resolve().parents[2]


class TestKiloCodeConformance(AdapterConformance):
    adapter = "kilo-code"
    fixtures = REPO / "fixtures" / "kilo-code"

    def make_adapter(self) -> chatparse.SourceAdapter:
        return KiloCodeAdapter()


def test_nothing_to_detect_without_a_tasks_folder(tmp_path: Path) -> None:
    (tmp_path / ".config/Code/User/globalStorage/kilocode.kilo-code").mkdir(parents=True)
    assert KiloCodeAdapter().detect(Host(home=tmp_path, env={}, platform="linux")) is None


def test_explain_says_kilo_7_stores_are_not_read(tmp_path: Path) -> None:
    """A Kilo 7.x database (an OpenCode fork) is named in doctor, not guessed at."""
    data = tmp_path / "xdg"
    (data / "kilo").mkdir(parents=True)
    (data / "kilo" / "kilo.db").write_bytes(b"SQLite format 3\x00")
    tasks = tmp_path / ".config/Code/User/globalStorage/kilocode.kilo-code/tasks/1"
    tasks.mkdir(parents=True)
    (tasks / "ui_messages.json").write_text(json.dumps([]), encoding="utf-8")
    host = Host(home=tmp_path, env={"XDG_DATA_HOME": str(data)}, platform="linux")
    lines = list(KiloCodeAdapter().explain(host))
    assert any(line.endswith("1 task folder(s)") for line in lines)
    assert any("kilo.db" in line and "not read" in line for line in lines)
