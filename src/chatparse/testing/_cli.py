"""``chatparse conformance DIR``: the kit without pytest."""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Final, TextIO

from chatparse.testing._case import Case, load_cases
from chatparse.testing._runner import CaseResult, run_case

__all__ = ["main", "run_conformance"]

EXIT_OK: Final = 0
EXIT_FAILED: Final = 1
EXIT_USAGE: Final = 2


def _indent(text: str) -> str:
    return "".join(
        f"    {line}" if line.strip() else line for line in text.splitlines(keepends=True)
    )


def run_conformance(  # noqa: PLR0913 -- keyword-only options, one per flag of the command
    directory: str | os.PathLike[str],
    *,
    adapter: str | None = None,
    update: bool = False,
    out: TextIO | None = None,
    err: TextIO | None = None,
    json_lines: bool = False,
) -> int:
    """Run every case under ``directory`` and report as ``chatparse conformance`` does.

    Writes ``PASS <case>`` or ``FAIL <case>: <reason>`` per case and a closing
    ``N passed, M failed`` to ``out``; the details of each failure (every problem, the golden
    diff, the command that regenerates the golden) go to ``err``. With ``json_lines``, ``out``
    gets one JSON object per case instead (``case``, ``adapter``, ``passed``, ``problems``,
    ``golden_updated``), and the closing count goes to ``err`` with the details.

    Args:
        directory: A fixtures root, one adapter's folder, or one case (see :func:`load_cases`).
        adapter: Run only the cases of this adapter.
        update: Rewrite goldens that are missing or differ, where the invariants hold.
        out: Default: ``sys.stdout``.
        err: Default: ``sys.stderr``.
        json_lines: Report each case as one line of JSON (what ``--json`` asks for).

    Returns:
        0 when every case passed; 1 when any failed or there were none; 2 when ``directory``
        is not a directory.

    .. versionadded:: 0.1
    """
    out = sys.stdout if out is None else out
    err = sys.stderr if err is None else err
    try:
        cases = load_cases(directory, adapter=adapter)
    except OSError as exc:
        err.write(f"chatparse conformance: {exc}\n")
        return EXIT_USAGE
    command = ["chatparse", "conformance", os.fspath(directory)]
    if adapter is not None:
        command += ["--adapter", adapter]
    regenerate = shlex.join([*command, "--update"])
    passed = failed = 0
    written: list[Path] = []
    if not cases:
        which = f" for adapter {adapter!r}" if adapter else ""
        (err if json_lines else out).write(
            f"no conformance cases{which} in {os.fspath(directory)}\n"
        )
    for case in cases:
        result = run_case(case, update=update)
        if result.passed:
            passed += 1
            if result.golden_written:
                written.append(case.golden_path)
        else:
            failed += 1
        out.write(_json_line(case, result) if json_lines else _text_line(case, result))
        out.flush()
        if not result.passed:
            err.write(_indent(result.report(regenerate=None if update else regenerate)))
            err.flush()
    if written:
        err.write(f"rewrote {len(written)} golden file(s):\n")
        err.writelines(f"    {path}\n" for path in written)
    # With --json, the count is for the person watching, not for the program reading stdout.
    (err if json_lines else out).write(f"{passed} passed, {failed} failed\n")
    return EXIT_OK if failed == 0 and cases else EXIT_FAILED


def _text_line(case: Case, result: CaseResult) -> str:
    if not result.passed:
        return f"FAIL {case.name}: {result.summary()}\n"
    note = " (golden updated)" if result.golden_written else ""
    return f"PASS {case.name}{note}\n"


def _json_line(case: Case, result: CaseResult) -> str:
    row = {
        "case": case.name,
        "adapter": case.adapter,
        "passed": result.passed,
        "problems": list(result.problems),
        "golden_updated": result.golden_written,
    }
    return json.dumps(row, ensure_ascii=False) + "\n"


def _parser(prog: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=prog,
        description="Run an adapter's conformance cases: goldens and invariants.",
    )
    add_arguments(parser)
    return parser


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``DIR``, ``--adapter`` and ``--update`` to a parser (the CLI's subcommand uses it)."""
    parser.add_argument(
        "directory",
        metavar="DIR",
        type=Path,
        help="a fixtures root (<adapter>/<case>/), one adapter's folder, or one case",
    )
    parser.add_argument("--adapter", metavar="NAME", help="run only this adapter's cases")
    parser.add_argument(
        "--update",
        action="store_true",
        help="rewrite missing or differing goldens (only where every invariant holds)",
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Parse ``argv`` (default: ``sys.argv[1:]``) as ``DIR [--adapter NAME] [--update]`` and run.

    .. versionadded:: 0.1
    """
    args = _parser("chatparse conformance").parse_args(argv)
    return run_conformance(args.directory, adapter=args.adapter, update=args.update)
