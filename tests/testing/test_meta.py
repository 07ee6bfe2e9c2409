"""Every adapter that loads has fixtures, and every fixture in this repository passes the kit."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

import chatparse
from chatparse import registry
from chatparse.errors import AdapterLoadError
from chatparse.testing import Case, load_cases, run_case

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "fixtures"
EXTERNAL_FIXTURES = {
    # Plugins that live outside this package keep their fixtures beside their own code.
    "toy": REPO / "tests" / "plugin_pkg" / "fixtures",
}


def fixtures_of(name: str) -> Path:
    """Where the cases of adapter ``name`` live in this repository."""
    return EXTERNAL_FIXTURES.get(name, FIXTURES)


def repo_cases() -> list[Case]:
    """Every case in the repository: fixtures/ plus the external plugins' folders."""
    cases = list(load_cases(FIXTURES))
    for name, root in sorted(EXTERNAL_FIXTURES.items()):
        cases += load_cases(root, adapter=name)
    return cases


def fixture_gap(name: str) -> str | None:
    """Why adapter ``name`` fails the meta-test, or None; AdapterLoadError when it cannot load."""
    chatparse.get_adapter(name)
    if load_cases(fixtures_of(name), adapter=name):
        return None
    return (
        f"adapter {name!r} has no conformance cases: add fixtures/{name}/<case>/ with case.toml, "
        "home/ and expected.json (see docs/conformance.md)"
    )


@pytest.mark.parametrize("name", chatparse.adapter_names())
def test_every_adapter_that_loads_has_fixtures(name: str) -> None:
    """An adapter without conformance cases fails here (ones that do not load yet are skipped)."""
    try:
        gap = fixture_gap(name)
    except AdapterLoadError as exc:
        pytest.skip(f"adapter {name!r} does not load, so it needs no fixtures yet: {exc.reason}")
    assert gap is None, gap


def test_an_adapter_without_fixtures_is_caught(fresh_registry: registry.Registry) -> None:
    """The meta-test fails for a loadable adapter that has no cases."""

    class Lonely:
        name = "kit-lonely"
        display_name = "Lonely"
        parser_version = "1"

        def detect(self, host: chatparse.Host) -> None:  # noqa: ARG002 -- protocol signature
            return None

        def scan(
            self,
            source: chatparse.SourceInfo,  # noqa: ARG002 -- protocol signature
        ) -> Iterator[chatparse.ConversationMeta]:
            return iter(())

        def parse(self, meta: chatparse.ConversationMeta) -> chatparse.ParsedConversation:
            raise NotImplementedError

    chatparse.register_adapter(Lonely())
    assert "kit-lonely" in fresh_registry.names()
    gap = fixture_gap("kit-lonely")
    assert gap is not None
    assert "fixtures/kit-lonely/<case>/" in gap


def test_fixtures_tree_loads_cleanly() -> None:
    """The repository's fixtures/ tree exists and holds no broken case or orphan golden."""
    assert (FIXTURES / "README.md").is_file()
    broken = {case.name: case.problem for case in load_cases(FIXTURES) if case.problem}
    assert broken == {}


def test_external_fixture_roots_only_hold_their_adapter() -> None:
    """A plugin's own fixtures folder holds cases for that plugin only."""
    for name, root in EXTERNAL_FIXTURES.items():
        assert {case.adapter for case in load_cases(root)} == {name}


@pytest.mark.parametrize("case", repo_cases(), ids=lambda case: case.name)
def test_repository_case_passes(case: Case) -> None:
    """Each case in this repository passes the kit: invariants hold, golden matches."""
    if case.adapter not in chatparse.adapter_names():
        pytest.skip(f"adapter {case.adapter!r} is not installed")
    result = run_case(case)
    assert result.passed, result.report(
        regenerate=f"chatparse conformance {case.path.relative_to(REPO)} --update"
    )
