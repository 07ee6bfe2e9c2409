"""What the Crush fixtures do not show: Crush's project list, the variable, sniffing."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from chatparse.adapters.crush import CrushAdapter
from chatparse.adapters.crush.locate import databases, global_dir
from chatparse.adapters.crush.store import epoch
from chatparse.host import Host


def _db(folder: Path, name: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_bytes(b"SQLite format 3\x00" + bytes(84))
    return path


@pytest.mark.parametrize(
    ("platform", "env", "expected"),
    [
        ("linux", {}, "home/.local/share/crush"),
        ("darwin", {"XDG_DATA_HOME": "/xdg"}, "/xdg/crush"),
        ("win32", {}, "home/AppData/Local/crush"),
        ("win32", {"LOCALAPPDATA": "/local"}, "/local/crush"),
        ("linux", {"CRUSH_GLOBAL_DATA": "/global"}, "/global"),
    ],
)
def test_the_global_folder_follows_the_platform_and_the_variables(
    platform: str, env: dict[str, str], expected: str
) -> None:
    assert global_dir(Host(home="home", env=env, platform=platform)) == Path(expected)


def test_projects_come_from_the_list_the_variable_and_the_home(tmp_path: Path) -> None:
    listed = tmp_path / "listed"
    custom = _db(tmp_path / "listed" / "state", "crush.db")
    go = _db(listed / ".opencode", "opencode.db")
    named = _db(tmp_path / "named" / ".crush", "crush.db")
    direct = _db(tmp_path / "loose", "opencode.db")
    at_home = _db(tmp_path / "home" / ".crush", "crush.db")
    listing = tmp_path / "global" / "projects.json"
    listing.parent.mkdir()
    entries = [
        {"path": str(listed), "data_dir": "state", "last_accessed": "2025-08-09T03:10:52Z"},
        {"path": str(tmp_path / "gone"), "data_dir": ".crush"},
        {"data_dir": "no path"},
    ]
    listing.write_text(json.dumps({"projects": entries}), encoding="utf-8")
    env = {
        "CRUSH_GLOBAL_DATA": str(listing.parent),
        "CHATPARSE_CRUSH_PROJECTS": f"{tmp_path / 'named'}:{direct}:{listed}",
    }
    host = Host(home=tmp_path / "home", env=env, platform="linux")
    assert databases(host) == [custom, go, named, direct, at_home]


def test_a_list_that_is_not_json_finds_nothing(tmp_path: Path) -> None:
    (tmp_path / ".local" / "share" / "crush").mkdir(parents=True)
    (tmp_path / ".local" / "share" / "crush" / "projects.json").write_text("{", encoding="utf-8")
    assert CrushAdapter().detect(Host(home=tmp_path, env={}, platform="linux")) is None


def test_sniff_wants_crush_tables(tmp_path: Path) -> None:
    adapter = CrushAdapter()
    plain = _db(tmp_path / ".crush", "crush.db")
    assert adapter.sniff(plain) == 0.0  # a SQLite file without Crush's schema
    assert adapter.sniff(tmp_path / "missing.db") == 0.0
    corpus = Path(__file__).resolve().parents[3] / "shared" / "corpus-next" / "crush"
    sample = corpus / "dbos-inc__dbos-transact-golang/.crush/crush.db"
    if not sample.is_file():
        pytest.skip("no Crush sample")
    copy = tmp_path / "p" / ".crush" / "crush.db"
    copy.parent.mkdir(parents=True)
    shutil.copy(sample, copy)
    assert adapter.sniff(copy) == 0.95
    assert len(list(adapter.scan_path(copy))) == 2


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (1754709060, "2025-08-09T03:11:00+00:00"),
        (1754709060000, "2025-08-09T03:11:00+00:00"),
        (0, None),
        ("soon", None),
    ],
)
def test_times_are_seconds_unless_too_large(value: object, expected: str | None) -> None:
    found = epoch(value)
    assert (found.isoformat() if found else None) == expected
