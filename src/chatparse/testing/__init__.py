"""The conformance kit: prove an adapter right on real-shaped data.

A *case* is a folder ``<adapter>/<case>/`` with ``case.toml``, a fake home directory ``home/``
and a golden ``expected.json``. The kit copies the home to a temporary directory, materializes
the SQLite databases described there in text form, runs the adapter's detect → scan → parse,
checks the invariants every adapter must keep, and compares the output with the golden. See
``docs/conformance.md`` for the formats and ``docs/writing-adapters.md`` for a walk-through.

Three ways to run it, all on the same engine:

* ``chatparse conformance DIR [--adapter NAME] [--update]`` (or :func:`run_conformance`);
* ``pytest --chatparse-fixtures DIR [--chatparse-update-goldens]``, from the pytest plugin
  :mod:`chatparse.testing.plugin`;
* subclassing :class:`AdapterConformance` in a test module.

Names are imported on first use, so that the pytest plugin, which lives in this package and is
loaded by every pytest run, imports neither cattrs nor any adapter.
"""

from __future__ import annotations

from chatparse._lazy import lazy_names

# Not typing.TYPE_CHECKING, to keep this import cheap; mypy treats the constant alike.
TYPE_CHECKING = False

if TYPE_CHECKING:
    from chatparse.testing._case import Case, load_cases
    from chatparse.testing._cli import main, run_conformance
    from chatparse.testing._conformance import AdapterConformance
    from chatparse.testing._golden import GOLDEN_FORMAT, golden_diff, render_golden
    from chatparse.testing._invariants import BASE64_LIMIT, check_conversation, looks_like_base64
    from chatparse.testing._locks import read_lock_holds
    from chatparse.testing._runner import SCAN_READS_CONTENT, CaseResult, run_case
    from chatparse.testing._sqlite_text import (
        SQLITE_TEXT_SUFFIX,
        FixtureFormatError,
        materialize,
        materialize_sqlite,
    )

__all__ = [
    "BASE64_LIMIT",
    "GOLDEN_FORMAT",
    "SCAN_READS_CONTENT",
    "SQLITE_TEXT_SUFFIX",
    "AdapterConformance",
    "Case",
    "CaseResult",
    "FixtureFormatError",
    "check_conversation",
    "golden_diff",
    "load_cases",
    "looks_like_base64",
    "main",
    "materialize",
    "materialize_sqlite",
    "read_lock_holds",
    "render_golden",
    "run_case",
    "run_conformance",
]

_HOMES = {
    "chatparse.testing._case": ("Case", "load_cases"),
    "chatparse.testing._cli": ("main", "run_conformance"),
    "chatparse.testing._conformance": ("AdapterConformance",),
    "chatparse.testing._golden": ("GOLDEN_FORMAT", "golden_diff", "render_golden"),
    "chatparse.testing._invariants": ("BASE64_LIMIT", "check_conversation", "looks_like_base64"),
    "chatparse.testing._locks": ("read_lock_holds",),
    "chatparse.testing._runner": ("SCAN_READS_CONTENT", "CaseResult", "run_case"),
    "chatparse.testing._sqlite_text": (
        "SQLITE_TEXT_SUFFIX",
        "FixtureFormatError",
        "materialize",
        "materialize_sqlite",
    ),
}
__getattr__, __dir__ = lazy_names(__name__, _HOMES, __all__)
