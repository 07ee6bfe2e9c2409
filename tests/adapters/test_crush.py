"""What the Crush fixtures do not show: Crush's project list, the variable, sniffing."""

from __future__ import annotations

import json
import os
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
        "CHATPARSE_PROJECTS": f"{tmp_path / 'named'}:{direct}:{listed}",
    }
    host = Host(home=tmp_path / "home", env=env, platform="linux")
    assert databases(host) == [custom, go, named, direct, at_home]


def test_a_named_folder_of_projects_names_each_project_in_it(tmp_path: Path) -> None:
    """CHATPARSE_PROJECTS=~/code finds ~/code/<project>/.crush/crush.db, not deeper ones."""
    home = tmp_path / "home"
    shop = _db(home / "code" / "shop" / ".crush", "crush.db")
    legacy = _db(home / "code" / "legacy" / ".opencode", "opencode.db")
    _db(home / "code" / "group" / "deep" / ".crush", "crush.db")
    host = Host(home=home, env={"CHATPARSE_PROJECTS": "~/code"}, platform="linux")
    assert databases(host) == [legacy, shop]


def test_explain_names_the_folders_and_says_when_none_is_known(tmp_path: Path) -> None:
    """Doctor shows each named path's state, and points to CHATPARSE_PROJECTS when none is."""
    hint = "no project folders are known"
    unset = list(CrushAdapter().explain(Host(home=tmp_path, env={}, platform="linux")))
    assert "CHATPARSE_PROJECTS is not set" in unset
    assert any(line.startswith(hint) for line in unset)
    db = _db(tmp_path / "loose", "crush.db")
    # This machine's platform, so that os.pathsep is the host's separator.
    value = os.pathsep.join([str(tmp_path), str(db), str(tmp_path / "gone"), "relative"])
    named = list(CrushAdapter().explain(Host(home=tmp_path, env={"CHATPARSE_PROJECTS": value})))
    assert f"CHATPARSE_PROJECTS is set: {value}" in named
    assert f"{tmp_path}: looked in, and the folders directly inside it" in named
    assert f"{db}: a database file" in named
    assert f"{tmp_path / 'gone'}: missing" in named
    assert not any(line.startswith((hint, "relative")) for line in named)


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
