"""The pytest plugin and AdapterConformance, run in nested pytest sessions."""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import chatparse

pytestmark = pytest.mark.skipif(
    "toy" not in chatparse.adapter_names(), reason="needs the chatparse-toy plugin installed"
)


@pytest.fixture
def fixtures(pytester: pytest.Pytester, toy_fixtures: Path) -> Path:
    """The toy fixtures copied into the nested session's directory."""
    copy = pytester.path / "cases"
    shutil.copytree(toy_fixtures, copy)
    return copy


def test_cases_become_items(
    pytester: pytest.Pytester, fixtures: Path, plugin_args: list[str]
) -> None:
    """Each case is one test item named <adapter>/<case>, and all pass."""
    result = pytester.runpytest(*plugin_args, "--chatparse-fixtures", "cases", "-v")
    result.assert_outcomes(passed=3)
    result.stdout.fnmatch_lines(
        ["cases::toy/basic PASSED*", "cases::toy/no-source PASSED*", "cases::toy/two-chats PASSED*"]
    )
    assert fixtures.is_dir()


def test_nothing_is_collected_without_the_option(
    pytester: pytest.Pytester, fixtures: Path, plugin_args: list[str]
) -> None:
    """The plugin never collects on its own, even when the cases are in the path."""
    result = pytester.runpytest(*plugin_args, str(fixtures))
    result.assert_outcomes()
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED


def test_option_is_repeatable_and_deduplicated(
    pytester: pytest.Pytester, fixtures: Path, plugin_args: list[str]
) -> None:
    """Two directories collect both; the same directory twice collects once."""
    shutil.copytree(fixtures / "toy" / "basic", pytester.path / "more" / "toy" / "extra")
    result = pytester.runpytest(
        *plugin_args,
        "--chatparse-fixtures", "cases",
        "--chatparse-fixtures", "more",
        "--chatparse-fixtures", str(fixtures),
    )  # fmt: skip
    result.assert_outcomes(passed=4)


def test_k_selects_cases(pytester: pytest.Pytester, fixtures: Path, plugin_args: list[str]) -> None:
    """-k filters cases by name, like any test."""
    result = pytester.runpytest(*plugin_args, "--chatparse-fixtures", "cases", "-k", "two-chats")
    result.assert_outcomes(passed=1, deselected=2)
    assert fixtures.is_dir()


def test_wrong_golden_fails_with_diff_and_command(
    pytester: pytest.Pytester, fixtures: Path, plugin_args: list[str]
) -> None:
    """A mismatch shows the diff and the exact command that regenerates the golden."""
    golden = fixtures / "toy" / "basic" / "expected.json"
    golden.write_text(golden.read_text(encoding="utf-8").replace("Greeting", "Farewell"))
    result = pytester.runpytest(*plugin_args, "--chatparse-fixtures", "cases")
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*[[]toy/basic[]] the output differs from expected.json*",
            '*-      "title": "Farewell",*',
            '*+      "title": "Greeting",*',
            "*pytest --chatparse-fixtures cases --chatparse-update-goldens -k toy/basic*",
        ]
    )
    result.stdout.no_fnmatch_line("*Traceback*")


def test_update_goldens_rewrites_and_lists(
    pytester: pytest.Pytester, fixtures: Path, plugin_args: list[str]
) -> None:
    """--chatparse-update-goldens rewrites the changed golden and lists it in the summary."""
    golden = fixtures / "toy" / "basic" / "expected.json"
    original = golden.read_text(encoding="utf-8")
    golden.write_text("{}\n", encoding="utf-8")
    (fixtures / "toy" / "no-source" / "expected.json").unlink()
    result = pytester.runpytest(
        *plugin_args, "--chatparse-fixtures", "cases", "--chatparse-update-goldens"
    )
    result.assert_outcomes(passed=3)
    result.stdout.fnmatch_lines(
        ["*chatparse goldens*", "*rewrote 2 golden file(s)*", "*toy/basic/expected.json"]
    )
    assert golden.read_text(encoding="utf-8") == original
    again = pytester.runpytest(
        *plugin_args, "--chatparse-fixtures", "cases", "--chatparse-update-goldens"
    )
    again.stdout.fnmatch_lines(["*no golden needed rewriting*"])


def test_orphan_and_missing_goldens_fail(
    pytester: pytest.Pytester, fixtures: Path, plugin_args: list[str]
) -> None:
    """An orphan golden and a missing golden are failing items."""
    (fixtures / "toy" / "basic" / "expected.json").unlink()
    orphan = fixtures / "toy" / "gone"
    orphan.mkdir()
    (orphan / "expected.json").write_text("{}\n", encoding="utf-8")
    result = pytester.runpytest(*plugin_args, "--chatparse-fixtures", "cases")
    result.assert_outcomes(passed=2, failed=2)
    result.stdout.fnmatch_lines(["*orphan golden*"])
    result.stdout.fnmatch_lines(["*no golden: expected.json is missing*"])


def test_bad_directory_is_a_usage_error(pytester: pytest.Pytester, plugin_args: list[str]) -> None:
    """A --chatparse-fixtures path that does not exist stops the run with a usage error."""
    result = pytester.runpytest(*plugin_args, "--chatparse-fixtures", "nope")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--chatparse-fixtures nope: not a directory*"])


def test_directory_without_cases_is_a_collection_error(
    pytester: pytest.Pytester, plugin_args: list[str]
) -> None:
    """An existing directory with no case in it is reported, not silently empty."""
    (pytester.path / "empty").mkdir()
    result = pytester.runpytest(*plugin_args, "--chatparse-fixtures", "empty")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*no chatparse conformance cases under empty*"])


def test_adapter_conformance_subclass(
    pytester: pytest.Pytester, fixtures: Path, plugin_args: list[str]
) -> None:
    """Subclassing AdapterConformance gives one test per case plus the contract checks."""
    pytester.makepyfile(
        test_toy=f"""
        from pathlib import Path

        from chatparse.testing import AdapterConformance


        class TestToy(AdapterConformance):
            adapter = "toy"
            fixtures = Path({str(fixtures)!r})
        """
    )
    result = pytester.runpytest(*plugin_args, "-v", "test_toy.py")
    result.assert_outcomes(passed=5)
    result.stdout.fnmatch_lines(["*test_case[[]toy/basic[]] PASSED*"])


def test_adapter_conformance_failure_and_update(
    pytester: pytest.Pytester, fixtures: Path, plugin_args: list[str]
) -> None:
    """A subclass fails on a wrong golden with its own regenerate command, and updates."""
    golden = fixtures / "toy" / "basic" / "expected.json"
    golden.write_text("{}\n", encoding="utf-8")
    pytester.makepyfile(
        test_toy=f"""
        from pathlib import Path

        from chatparse.testing import AdapterConformance


        class TestToy(AdapterConformance):
            adapter = "toy"
            fixtures = Path({str(fixtures / "toy")!r})
        """
    )
    result = pytester.runpytest(*plugin_args, "test_toy.py")
    result.assert_outcomes(passed=4, failed=1)
    result.stdout.fnmatch_lines(
        ["*pytest 'test_toy.py::TestToy::test_case[[]toy/basic[]]' --chatparse-update-goldens*"]
    )
    updated = pytester.runpytest(*plugin_args, "test_toy.py", "--chatparse-update-goldens")
    updated.assert_outcomes(passed=5)
    updated.stdout.fnmatch_lines(["*rewrote 1 golden file(s)*"])


def test_adapter_conformance_without_the_plugin(pytester: pytest.Pytester, fixtures: Path) -> None:
    """The base class works in a session where the plugin is not loaded."""
    pytester.makepyfile(
        test_toy=f"""
        from pathlib import Path

        from chatparse.testing import AdapterConformance


        class TestToy(AdapterConformance):
            adapter = "toy"
            fixtures = Path({str(fixtures)!r})
        """
    )
    result = pytester.runpytest("-p", "no:hypothesispytest", "-p", "no:chatparse", "test_toy.py")
    result.assert_outcomes(passed=5)


def test_adapter_conformance_without_cases_fails(pytester: pytest.Pytester, tmp_path: Path) -> None:
    """A subclass pointing at a folder without cases fails test_has_cases."""
    pytester.makepyfile(
        test_none=f"""
        from pathlib import Path

        from chatparse.testing import AdapterConformance


        class TestNone(AdapterConformance):
            adapter = "toy"
            fixtures = Path({str(tmp_path)!r})
        """
    )
    result = pytester.runpytest("-p", "no:hypothesispytest", "test_none.py")
    result.assert_outcomes(passed=1, failed=1, skipped=1)


def test_importing_the_plugin_is_light() -> None:
    """Importing the plugin imports no adapter, no cattrs and none of the kit's engine."""
    code = textwrap.dedent(
        """
        import sys
        import chatparse.testing.plugin
        heavy = sorted(
            name for name in sys.modules
            if name == "cattrs" or name.startswith(("cattrs.", "chatparse.adapters",
            "chatparse_toy", "chatparse.serialize", "chatparse.registry",
            "chatparse.testing._runner", "sqlite3"))
        )
        print(heavy)
        """
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
