"""Finding cases on disk and reading case.toml."""

from __future__ import annotations

import sys
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest

from chatparse.testing import load_cases

CaseMaker = Callable[..., Path]


def test_layouts_root_adapter_folder_and_single_case(make_case: CaseMaker, tmp_path: Path) -> None:
    """A fixtures root, one adapter's folder and one case folder all load."""
    make_case("a", adapter="alpha")
    make_case("b", adapter="alpha")
    make_case("c", adapter="beta")
    root = tmp_path / "fixtures"
    assert [c.name for c in load_cases(root)] == ["alpha/a", "alpha/b", "beta/c"]
    assert [c.name for c in load_cases(root / "alpha")] == ["alpha/a", "alpha/b"]
    [single] = load_cases(root / "beta" / "c")
    assert (single.name, single.adapter) == ("beta/c", "beta")


def test_adapter_filter(make_case: CaseMaker, tmp_path: Path) -> None:
    """adapter= keeps only that adapter's cases."""
    make_case("a", adapter="alpha")
    make_case("c", adapter="beta")
    assert [c.name for c in load_cases(tmp_path / "fixtures", adapter="beta")] == ["beta/c"]
    assert load_cases(tmp_path / "fixtures", adapter="gamma") == ()


def test_adapter_override_in_case_toml(make_case: CaseMaker) -> None:
    """case.toml's adapter key overrides the folder name."""
    folder = make_case(adapter="group", toml='description = "d"\nadapter = "real-name"\n')
    [case] = load_cases(folder)
    assert case.adapter == "real-name"
    assert case.name == "group/case"


def test_other_folders_are_ignored(make_case: CaseMaker, tmp_path: Path) -> None:
    """A demo home, hidden folders and loose files beside the cases are not cases."""
    make_case("a", adapter="alpha")
    root = tmp_path / "fixtures"
    (root / "demo-home" / ".claude" / "projects").mkdir(parents=True)
    (root / "demo-home" / "Library").mkdir()
    (root / ".hidden" / "x" / "home").mkdir(parents=True)
    (root / "README.md").write_text("layout", encoding="utf-8")
    assert [c.name for c in load_cases(root)] == ["alpha/a"]


@pytest.mark.skipif(
    sys.platform == "win32",
    reason="the expected {home} substitution is written with a POSIX separator: str(Path('/h'))"
    " is '\\h' on Windows",
)
def test_fields_from_case_toml(make_case: CaseMaker) -> None:
    """Description, host and files tables are read, with defaults for what is left out."""
    toml = """
        description = "  What it shows.  "
        [host]
        platform = "darwin"
        env = { XDG_CONFIG_HOME = "{home}/cfg" }
        [files]
        mtime = 2024-05-06T07:08:09+02:00
        [files.mtimes]
        "x/y.txt" = 2020-01-01T00:00:00Z
        "db.sqlite" = 2021-01-01T00:00:00Z
    """
    folder = make_case(toml=toml, files={"x/y.txt": "", "db.sqlite.sqlite.toml": ""})
    [case] = load_cases(folder)
    assert case.problem is None
    assert case.description == "What it shows."
    assert case.platform == "darwin"
    assert case.host_env(Path("/h")) == {"XDG_CONFIG_HOME": "/h/cfg"}
    assert case.mtime == datetime(2024, 5, 6, 5, 8, 9, tzinfo=UTC)
    assert case.mtimes == {
        "x/y.txt": datetime(2020, 1, 1, tzinfo=UTC),
        "db.sqlite": datetime(2021, 1, 1, tzinfo=UTC),
    }
    [default] = load_cases(make_case("plain"))
    assert (default.platform, dict(default.env)) == ("linux", {})
    assert default.mtime == datetime(2025, 1, 1, tzinfo=UTC)


@pytest.mark.parametrize(
    ("toml", "expected"),
    [
        ("", "'description' is required"),
        ('description = "d"\nplatform = "linux"\n', "unknown key(s) platform"),
        ('description = "d"\n[host]\nplatform = "beos"\n', "host.platform must be one of"),
        ('description = "d"\n[host]\nenv = { A = 1 }\n', "host.env.A must be a string"),
        ('description = "d"\nadapter = "Bad_Name"\n', "adapter name 'Bad_Name'"),
        ('description = "d"\n[files]\nmtime = 2024-01-01T00:00:00\n', "files.mtime must be"),
        ('description = "d"\n[files.mtimes]\n"nope.txt" = 2024-01-01T00:00:00Z\n', "not in home/"),
        ('description = "d"\n[files.mtimes]\n"../x" = 2024-01-01T00:00:00Z\n', "relative to home/"),
        ("description = ", "case.toml:"),
    ],
)
def test_bad_case_toml_becomes_a_problem(make_case: CaseMaker, toml: str, expected: str) -> None:
    """Every mistake in case.toml turns into a case problem naming it, never an exception."""
    [case] = load_cases(make_case(toml=toml))
    assert case.problem is not None
    assert expected in case.problem


def test_orphans_and_incomplete_cases(tmp_path: Path) -> None:
    """A golden without case.toml or home/ is an orphan; a lone case.toml is incomplete."""
    group = tmp_path / "toy"
    (group / "orphan").mkdir(parents=True)
    (group / "orphan" / "expected.json").write_text("{}", encoding="utf-8")
    (group / "nohome").mkdir()
    (group / "nohome" / "case.toml").write_text('description = "d"', encoding="utf-8")
    problems = {c.name: c.problem for c in load_cases(group)}
    assert problems["toy/orphan"] is not None
    assert "orphan golden" in problems["toy/orphan"]
    assert problems["toy/nohome"] == "not a complete case: home/ missing"


def test_case_folder_names_must_be_selectable(make_case: CaseMaker) -> None:
    """A case folder name with spaces is refused: runners select cases by name."""
    [case] = load_cases(make_case("has space"))
    assert case.problem is not None
    assert "case folder name" in case.problem


def test_not_a_directory(tmp_path: Path) -> None:
    """A path that is not a directory raises NotADirectoryError."""
    with pytest.raises(NotADirectoryError, match="not a directory of conformance cases"):
        load_cases(tmp_path / "missing")
