"""What the Goose fixtures do not show: where it looks, sniffing, explaining, a first line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chatparse.adapters.goose import GooseAdapter
from chatparse.adapters.goose.locate import data_dir
from chatparse.adapters.goose.session import session_time
from chatparse.host import Host


@pytest.mark.parametrize(
    ("platform", "env", "expected"),
    [
        ("linux", {}, "/h/.local/share/goose"),
        ("darwin", {}, "/h/.local/share/goose"),
        ("linux", {"XDG_DATA_HOME": "relative"}, "/h/.local/share/goose"),
        ("linux", {"XDG_DATA_HOME": "/xdg"}, "/xdg/goose"),
        ("win32", {}, "/h/AppData/Roaming/Block/goose/data"),
        ("win32", {"APPDATA": "/roaming"}, "/roaming/Block/goose/data"),
        ("win32", {"GOOSE_PATH_ROOT": "/root"}, "/root/data"),
        ("linux", {"GOOSE_PATH_ROOT": "~/g"}, "/h/g/data"),
        ("linux", {"GOOSE_PATH_ROOT": "relative"}, "/h/.local/share/goose"),
    ],
)
def test_the_data_folder_follows_the_platform_and_the_variables(
    platform: str, env: dict[str, str], expected: str
) -> None:
    host = Host(home="/h", env=env, platform=platform)
    assert data_dir(host) == Path(expected)


def _legacy(tmp_path: Path, lines: list[object]) -> Path:
    folder = tmp_path / ".local" / "share" / "goose" / "sessions"
    folder.mkdir(parents=True)
    path = folder / "20250101_1.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def test_a_first_line_that_is_not_metadata_is_a_message(tmp_path: Path) -> None:
    message = {
        "id": "u",
        "role": "user",
        "created": 1735689600,
        "content": [{"type": "text", "text": "hi"}],
    }
    _legacy(tmp_path, [message])
    adapter = GooseAdapter()
    found = adapter.detect(Host(home=tmp_path, env={}, platform="linux"))
    assert found is not None
    (meta,) = adapter.scan(found)
    conversation = adapter.parse(meta)
    assert [m.text for m in conversation.messages] == ["hi"]
    assert conversation.title == "hi"  # no metadata line: the prompt names it


def test_sniff_knows_a_session_file_and_refuses_other_files(tmp_path: Path) -> None:
    path = _legacy(tmp_path, [{"working_dir": "/w", "description": "d"}])
    other = tmp_path / "notes.jsonl"
    other.write_text('{"role": "user"}\n', encoding="utf-8")
    adapter = GooseAdapter()
    assert adapter.sniff(path) == 0.8
    assert adapter.sniff(other) == 0.0
    assert adapter.sniff(tmp_path / "missing.db") == 0.0
    (meta,) = adapter.scan_path(path)
    assert meta.id == "20250101_1"


def test_explain_names_the_variable_and_the_stores(tmp_path: Path) -> None:
    _legacy(tmp_path, [{"working_dir": "/w"}])
    lines = list(GooseAdapter().explain(Host(home=tmp_path, env={}, platform="linux")))
    assert lines[0].startswith("GOOSE_PATH_ROOT is not set")
    assert lines[1].endswith("sessions.db: missing")
    assert lines[2].endswith("1 legacy session file(s) (.jsonl)")
    rooted = Host(home=tmp_path, env={"GOOSE_PATH_ROOT": "/elsewhere"}, platform="linux")
    assert next(iter(GooseAdapter().explain(rooted))).startswith("GOOSE_PATH_ROOT is set")


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2026-08-05 21:19:21", "2026-08-05T21:19:21+00:00"),
        ("2026-08-05T21:19:21+02:00", "2026-08-05T19:19:21+00:00"),
        ("2026-08-05T21:19", None),
        (None, None),
    ],
)
def test_session_times_are_sqlite_utc_text_or_zoned_text(
    value: object, expected: str | None
) -> None:
    found = session_time(value)
    assert (found.isoformat() if found else None) == expected
