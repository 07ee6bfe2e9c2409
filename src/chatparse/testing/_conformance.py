"""``AdapterConformance``: the kit as a test class, for adapter authors who prefer subclassing."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, Final

import chatparse
from chatparse.adapter import ADAPTER_NAME
from chatparse.testing._case import Case, load_cases
from chatparse.testing._runner import run_case

if TYPE_CHECKING:
    import pytest

__all__ = ["AdapterConformance"]

_CASE_ARG: Final = "chatparse_case"


class AdapterConformance:
    """Subclass in a test module to run an adapter's cases, one test per case.

    .. code-block:: python

        from pathlib import Path

        from chatparse.testing import AdapterConformance


        class TestMine(AdapterConformance):
            adapter = "mine"
            fixtures = Path(__file__).parent / "fixtures"

    ``fixtures`` may be a fixtures root (only ``adapter``'s cases run), the adapter's own folder,
    or one case. Override :meth:`make_adapter` to test an adapter object that is not
    installed. The class works with or without the chatparse pytest plugin;
    ``--chatparse-update-goldens`` needs the plugin (it defines the option).

    .. versionadded:: 0.1
    """

    adapter: ClassVar[str]
    """The adapter's registered name."""
    fixtures: ClassVar[Path]
    """Where its cases are."""

    def make_adapter(self) -> chatparse.SourceAdapter:
        """The adapter under test; default: ``chatparse.get_adapter(self.adapter)``."""
        return chatparse.get_adapter(self.adapter)

    def cases(self) -> tuple[Case, ...]:
        """The cases to run."""
        return load_cases(self.fixtures, adapter=self.adapter)

    def pytest_generate_tests(self, metafunc: pytest.Metafunc) -> None:
        """Parametrize ``test_case`` with one case per fixture folder (pytest calls this)."""
        if _CASE_ARG in metafunc.fixturenames:
            cases = self.cases()
            metafunc.parametrize(_CASE_ARG, cases, ids=[case.name for case in cases])

    def test_has_cases(self) -> None:
        """The adapter has at least one conformance case."""
        if not self.cases():
            msg = f"no conformance cases for adapter {self.adapter!r} under {self.fixtures}"
            raise AssertionError(msg)

    def test_adapter_contract(self) -> None:
        """The adapter satisfies the protocol and its metadata is well formed."""
        adapter: object = self.make_adapter()
        problems = []
        if not isinstance(adapter, chatparse.SourceAdapter):
            problems.append(f"{type(adapter).__name__} does not satisfy chatparse.SourceAdapter")
        name = getattr(adapter, "name", None)
        if name != self.adapter:
            problems.append(f"adapter.name is {name!r}, expected {self.adapter!r}")
        if not isinstance(name, str) or not ADAPTER_NAME.fullmatch(name):
            problems.append(f"adapter.name {name!r} is not lower-case words joined by '-'")
        for attribute in ("display_name", "parser_version"):
            value = getattr(adapter, attribute, None)
            if not isinstance(value, str) or not value.strip():
                problems.append(f"adapter.{attribute} must be a non-empty string, got {value!r}")
        if problems:
            raise AssertionError("; ".join(problems))

    def test_case(self, chatparse_case: Case, request: pytest.FixtureRequest) -> None:
        """One conformance case passes: invariants hold and the output matches its golden."""
        import pytest  # noqa: PLC0415 -- only pytest runs this, and the kit must not need it

        update = bool(request.config.getoption("chatparse_update_goldens", default=False))
        result = run_case(chatparse_case, adapter=self.make_adapter(), update=update)
        if result.golden_written:
            from chatparse.testing.plugin import record_written_golden  # noqa: PLC0415 -- as above

            record_written_golden(request.config, result)
        if not result.passed:
            regenerate = shlex.join(["pytest", request.node.nodeid, "--chatparse-update-goldens"])
            pytest.fail(result.report(regenerate=regenerate), pytrace=False)
