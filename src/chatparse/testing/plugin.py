"""The chatparse pytest plugin: ``--chatparse-fixtures DIR`` and ``--chatparse-update-goldens``.

Declared under the ``pytest11`` entry point named ``chatparse``, so it loads in every pytest run
wherever chatparse is installed; ``-p no:chatparse`` turns it off. It is kept light for that
reason: importing it imports pytest and nothing else of chatparse beyond the (lazy) package
itself, so no adapter and not cattrs. The kit is imported only when an option asks for it.

Without ``--chatparse-fixtures`` the plugin collects nothing. With it, each case under each
given directory becomes one test item, named ``<adapter>/<case>``, so ``-k`` selects cases.
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Literal

import pytest

if TYPE_CHECKING:
    from collections.abc import Generator, Iterator

    from _pytest._code.code import TerminalRepr

    from chatparse.testing._case import Case
    from chatparse.testing._runner import CaseResult

__all__ = [
    "ConformanceCaseItem",
    "ConformanceFixtures",
    "pytest_addoption",
    "pytest_configure",
    "pytest_make_collect_report",
    "pytest_terminal_summary",
    "record_written_golden",
]

_WRITTEN: Final = pytest.StashKey[list[Path]]()
FIXTURES_OPTION: Final = "--chatparse-fixtures"
UPDATE_OPTION: Final = "--chatparse-update-goldens"


def pytest_addoption(parser: pytest.Parser) -> None:
    """Add the kit's options."""
    group = parser.getgroup("chatparse", "chatparse conformance kit")
    group.addoption(
        FIXTURES_OPTION,
        action="append",
        default=[],
        metavar="DIR",
        dest="chatparse_fixtures",
        help="run the chatparse conformance cases under DIR (a fixtures root, one adapter's "
        "folder or one case); repeatable",
    )
    group.addoption(
        UPDATE_OPTION,
        action="store_true",
        default=False,
        dest="chatparse_update_goldens",
        help="rewrite chatparse goldens (expected.json) that are missing or differ, where every "
        "invariant holds, and list them",
    )


def pytest_configure(config: pytest.Config) -> None:
    """Check the fixture directories early, so a typo is a usage error, not zero tests."""
    config.stash[_WRITTEN] = []
    for directory in config.getoption("chatparse_fixtures"):
        path = Path(config.invocation_params.dir, directory)
        if not path.is_dir():
            msg = f"{FIXTURES_OPTION} {directory}: not a directory"
            raise pytest.UsageError(msg)


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(
    collector: pytest.Collector,
) -> Generator[None, pytest.CollectReport, pytest.CollectReport]:
    """Add one collector per ``--chatparse-fixtures`` directory to the session's top level.

    Going through the session's own collect report (rather than appending items later) makes
    the cases ordinary nodes: ``-k``, ``--co``, ``--lf``, ``-x`` and collection errors all work.
    """
    report = yield
    if isinstance(collector, pytest.Session) and report.passed:
        seen: set[Path] = set()
        for directory in collector.config.getoption("chatparse_fixtures"):
            path = Path(os.path.realpath(Path(collector.config.invocation_params.dir, directory)))
            if path in seen:
                continue
            seen.add(path)
            report.result.append(
                ConformanceFixtures.from_parent(
                    collector, name=directory, path=path, nodeid=_nodeid(collector, path)
                )
            )
    return report


def _nodeid(session: pytest.Session, path: Path) -> str:
    try:
        return path.relative_to(session.config.rootpath).as_posix()
    except ValueError:
        return path.as_posix()


class ConformanceFixtures(pytest.Collector):
    """One ``--chatparse-fixtures`` directory; collects a :class:`ConformanceCaseItem` per case."""

    def collect(self) -> Iterator[ConformanceCaseItem]:
        """One item per case (orphans and broken cases included: they fail when run)."""
        from chatparse.testing._case import load_cases  # noqa: PLC0415 -- keep the plugin light

        cases = load_cases(self.path)
        if not cases:
            msg = f"no chatparse conformance cases under {self.name}"
            raise self.CollectError(msg)
        for case in cases:
            yield ConformanceCaseItem.from_parent(self, name=case.name, case=case)


class CaseFailedError(Exception):
    """A conformance case failed; the message is the full report."""


class ConformanceCaseItem(pytest.Item):
    """One conformance case, run through :func:`chatparse.testing.run_case`."""

    def __init__(self, *, case: Case, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.case = case

    def runtest(self) -> None:
        """Run the case; fail with the kit's report."""
        from chatparse.testing._runner import run_case  # noqa: PLC0415 -- keep the plugin light

        update = bool(self.config.getoption("chatparse_update_goldens"))
        result = run_case(self.case, update=update)
        record_written_golden(self.config, result)
        if not result.passed:
            raise CaseFailedError(result.report(regenerate=self._regenerate()))

    def _regenerate(self) -> str:
        assert isinstance(self.parent, ConformanceFixtures)  # noqa: S101 -- our own tree
        return shlex.join(
            ["pytest", FIXTURES_OPTION, self.parent.name, UPDATE_OPTION, "-k", self.case.name]
        )

    def repr_failure(
        self,
        excinfo: pytest.ExceptionInfo[BaseException],
        style: Literal["long", "short", "line", "no", "native", "value", "auto"] | None = None,
    ) -> str | TerminalRepr:
        """The kit's report, without a Python traceback of the kit itself."""
        if isinstance(excinfo.value, CaseFailedError):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        """Where the case lives, for pytest's reports."""
        return self.case.path, None, f"chatparse case {self.case.name}"


def record_written_golden(config: pytest.Config, result: CaseResult) -> None:
    """Remember a golden this run rewrote, for the terminal summary."""
    if result.golden_written:
        config.stash.setdefault(_WRITTEN, []).append(result.case.golden_path)


def pytest_terminal_summary(
    terminalreporter: pytest.TerminalReporter, config: pytest.Config
) -> None:
    """List the goldens ``--chatparse-update-goldens`` rewrote."""
    written = config.stash.get(_WRITTEN, [])
    if config.getoption("chatparse_update_goldens"):
        terminalreporter.section("chatparse goldens")
        if written:
            terminalreporter.write_line(f"rewrote {len(written)} golden file(s); review the diff:")
            for path in written:
                terminalreporter.write_line(f"    {path}")
        else:
            terminalreporter.write_line("no golden needed rewriting")
