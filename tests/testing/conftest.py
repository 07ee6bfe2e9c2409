"""Shared helpers for the conformance kit's own tests: pytester and a case builder."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from importlib.metadata import entry_points
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

REPO = Path(__file__).resolve().parents[2]
TOY_FIXTURES = REPO / "tests" / "plugin_pkg" / "fixtures"


@pytest.fixture
def plugin_args() -> list[str]:
    """How to load the kit's pytest plugin in a nested run, before and after its entry point.

    Once the ``pytest11`` entry point exists, pytest loads the plugin under that name; asking
    for it again by module name would register it twice.
    """
    declared = any(ep.name == "chatparse" for ep in entry_points(group="pytest11"))
    # Hypothesis' plugin costs seconds per nested session and nothing here needs it.
    return [
        "-p",
        "no:hypothesispytest",
        "-p",
        "chatparse" if declared else "chatparse.testing.plugin",
    ]


CaseMaker = Callable[..., Path]


@pytest.fixture
def make_case(tmp_path: Path) -> CaseMaker:
    """Build a case folder ``<tmp>/fixtures/<adapter>/<name>/`` from a dict of home files."""

    def make(
        name: str = "case",
        *,
        adapter: str = "kit-test",
        files: dict[str, str] | None = None,
        toml: str = 'description = "A case built by a test."\n',
        golden: str | None = None,
    ) -> Path:
        folder = tmp_path / "fixtures" / adapter / name
        (folder / "home").mkdir(parents=True)
        (folder / "case.toml").write_text(textwrap.dedent(toml), encoding="utf-8")
        for relative, content in (files or {}).items():
            path = folder / "home" / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(textwrap.dedent(content), encoding="utf-8")
        if golden is not None:
            (folder / "expected.json").write_text(golden, encoding="utf-8")
        return folder

    return make


@pytest.fixture
def toy_fixtures() -> Path:
    """The toy plugin's own fixtures, shipped with tests/plugin_pkg."""
    return TOY_FIXTURES
