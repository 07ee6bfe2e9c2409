"""Run one conformance case: copy, materialize, detect → scan → parse, check, compare the golden."""

from __future__ import annotations

import os
import shutil
import tempfile
import traceback
import warnings
from collections.abc import Collection, Iterable
from datetime import timedelta
from pathlib import Path
from typing import Final

from attrs import evolve, field, frozen

import chatparse
from chatparse.adapter import ContentScanner
from chatparse.errors import ChatparseError, SkippedSourceWarning
from chatparse.host import Host
from chatparse.model import ConversationMeta, ParsedConversation, SourceInfo
from chatparse.serialize import to_json
from chatparse.testing._case import GOLDEN_FILE, Case
from chatparse.testing._golden import golden_diff, render_golden
from chatparse.testing._home import (
    compare_snapshots,
    find_locked_databases,
    moved_clock,
    scan_reads,
    set_mtimes,
    snapshot,
    watch_opens,
)
from chatparse.testing._invariants import check_conversation
from chatparse.testing._sqlite_text import FixtureFormatError, materialize

__all__ = ["SCAN_READS_CONTENT", "CaseResult", "run_case"]

SCAN_READS_CONTENT: Final = "scan_reads_content"
"""The optional adapter attribute that declares which files ``scan()`` may open (see
:func:`run_case`)."""

_TRACEBACK_FRAMES: Final = 8


def _strings(values: Iterable[str]) -> tuple[str, ...]:
    return tuple(values)


@frozen(kw_only=True)
class CaseResult:
    """The outcome of one case.

    .. versionadded:: 0.1
    """

    case: Case
    problems: tuple[str, ...] = field(default=(), converter=_strings)
    """Every reason the case failed, each naming the case (and conversation, where there is
    one); empty when it passed."""
    diff: str | None = None
    """The unified diff from the golden to the actual output, when they differ or the golden is
    missing."""
    actual: str | None = None
    """The actual output in golden form, when the adapter got that far."""
    golden_written: bool = False
    """Whether the golden was (re)written by this run."""

    @property
    def passed(self) -> bool:
        """Whether the case passed."""
        return not self.problems

    def summary(self) -> str:
        """One line: the first problem, and how many more there are."""
        if not self.problems:
            return "passed"
        first = self.problems[0].splitlines()[0].removeprefix(f"[{self.case.name}] ")
        more = len(self.problems) - 1
        return _printable(f"{first} (and {more} more)" if more else first)

    def report(self, regenerate: str | None = None) -> str:
        """Everything about a failure: each problem, the diff, and how to accept the output.

        Args:
            regenerate: The command that rewrites this golden, shown when the golden differs.
        """
        parts = [f"chatparse conformance case {self.case.name} ({self.case.path}) failed:"]
        parts += [f"- {problem}" for problem in self.problems]
        if self.diff:
            parts.append(self.diff.rstrip("\n"))
            if regenerate:
                parts.append(
                    "If the new output is right, regenerate the golden, then review its diff:\n"
                    f"    {regenerate}"
                )
        return _printable("\n".join(parts) + "\n")


def _printable(text: str) -> str:
    # Output that breaks the invariants may hold lone surrogates; a report must still print.
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _error(step: str, exc: BaseException) -> str:
    lines = traceback.format_exception(exc, limit=-_TRACEBACK_FRAMES)
    return f"{step} raised {type(exc).__name__}: {exc}\n" + "".join(lines).rstrip("\n")


def _wrong_type(step: str, expected: str, value: object) -> str:
    return f"{step} must return {expected}, got {type(value).__name__}: {value!r:.200}"


def _allowed_reads(adapter: chatparse.SourceAdapter) -> bool | Collection[str] | str:
    if not isinstance(adapter, ContentScanner):
        return False
    declared: object = adapter.scan_reads_content
    if isinstance(declared, bool):
        return declared
    if isinstance(declared, list | tuple | frozenset | set) and all(
        isinstance(p, str) for p in declared
    ):
        return tuple(declared)
    return (
        f"{type(adapter).__name__}.{SCAN_READS_CONTENT} must be a bool or a collection of glob "
        f"patterns, got {declared!r}"
    )


class _Exercise:
    """detect → scan → parse twice, collecting problems instead of stopping at the first.

    ``again`` says why this is a second run (an invariant comparing its output to the first
    run's): then each conversation is parsed once and checked only by that comparison, scan
    reads are not watched, and warnings are not issued a second time.
    """

    def __init__(
        self, case: Case, adapter: chatparse.SourceAdapter, home: Path, again: str = ""
    ) -> None:
        self.case = case
        self.adapter = adapter
        self.home = home
        self.again = again
        self.problems: list[str] = []
        self.detected: SourceInfo | None = None
        self.conversations: list[ParsedConversation] = []
        self.skipped_sources: list[str] = []
        self.complete = False

    def say(self, message: str) -> None:
        self.problems.append(f"[{self.case.name}] {self.again}{message}")

    def run(self) -> None:
        """Exercise the adapter; what it said it passed over goes to ``skipped_sources``.

        Any other warning is issued again once the run is over, so that a test run that turns
        warnings into errors still fails on it.
        """
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            self._run()
        for warning in caught:
            if issubclass(warning.category, SkippedSourceWarning):
                message = str(warning.message)
                if message not in self.skipped_sources:
                    self.skipped_sources.append(message)
            elif not self.again:
                warnings.warn_explicit(
                    warning.message, warning.category, warning.filename, warning.lineno
                )

    def _run(self) -> None:
        host = Host(home=self.home, env=self.case.host_env(self.home), platform=self.case.platform)
        try:
            detected: object = self.adapter.detect(host)
        except Exception as exc:  # noqa: BLE001 -- any failure of the adapter is the finding
            self.say(_error("detect()", exc))
            return
        if detected is None:
            self.complete = True
            return
        if not isinstance(detected, SourceInfo):
            self.say(_wrong_type("detect()", "SourceInfo or None", detected))
            return
        self.detected = detected
        metas = self._scan(detected)
        if metas is None:
            return
        failed = False
        for meta in metas:
            failed |= not self._parse(meta)
        self.complete = not failed

    def _scan(self, detected: SourceInfo) -> list[ConversationMeta] | None:
        allowed = _allowed_reads(self.adapter)
        if isinstance(allowed, str):
            self.say(allowed)
            allowed = True
        try:
            with watch_opens() as opened:
                listed: list[object] = list(self.adapter.scan(detected))
        except Exception as exc:  # noqa: BLE001 -- any failure of the adapter is the finding
            self.say(_error("scan()", exc))
            return None
        metas = [meta for meta in listed if isinstance(meta, ConversationMeta)]
        if len(metas) != len(listed):
            wrong = next(m for m in listed if not isinstance(m, ConversationMeta))
            self.say(_wrong_type("scan()", "ConversationMeta items", wrong))
            return None
        for path in () if self.again else scan_reads(opened, self.home, allowed=allowed):
            self.say(
                f"scan() opened {path}: scan must list conversations by stat, without reading "
                f"them. If this source's container must be read to list it, declare "
                f"`{SCAN_READS_CONTENT} = True` (or glob patterns of the files scan may open) on "
                f"{type(self.adapter).__name__}"
            )
        return metas

    def _parse(self, meta: ConversationMeta) -> bool:
        who = f"conversation {meta.id!r}"
        try:
            first: object = self.adapter.parse(meta)
            second: object = first if self.again else self.adapter.parse(meta)
        except Exception as exc:  # noqa: BLE001 -- any failure of the adapter is the finding
            self.say(_error(f"parse() of {who} ({meta.path})", exc))
            return False
        if not isinstance(first, ParsedConversation) or not isinstance(second, ParsedConversation):
            self.say(_wrong_type(f"parse() of {who}", "a ParsedConversation", first))
            return False
        self.conversations.append(first)
        if self.again:
            return True
        if first.source != self.adapter.name:
            self.say(f"{who}: source is {first.source!r}, not the adapter's {self.adapter.name!r}")
        if first != second:
            try:
                diff = golden_diff(to_json(first, indent=2), to_json(second, indent=2), name="1st")
            except (TypeError, ValueError):  # not JSON at all: reported by check_conversation
                diff = ""
            self.say(f"{who}: parsing twice gave different results\n{diff}".rstrip())
        self.problems += check_conversation(first, label=f"[{self.case.name}] ")
        return True


def _run_in(case: Case, adapter: chatparse.SourceAdapter, workdir: Path) -> _Exercise:
    home = workdir / "home"
    shutil.copytree(case.home_dir, home, symlinks=True)
    exercise = _Exercise(case, adapter, home)
    with materialize(home):
        set_mtimes(home, case.mtime, case.mtimes)
        before = snapshot(home)
        exercise.run()
        after = snapshot(home)
        for change in compare_snapshots(before, after):
            exercise.say(f"the adapter changed the home: {change}")
        if exercise.complete:
            exercise.problems += _invented_times(exercise)
        for locked in find_locked_databases(home):
            exercise.say(f"the adapter left a database locked: {locked}")
    return exercise


# --- times taken from the files or the clock --------------------------------------------------

MTIME_MOVE: Final = -timedelta(days=400, hours=5, minutes=17, seconds=23, microseconds=250_000)
"""How far every file's modification time is moved for the second parse of a case."""
CLOCK_MOVE: Final = timedelta(days=3653, hours=7, minutes=13, seconds=17, microseconds=500_000)
"""How far the clock is moved for the third parse of a case."""

_FROM_MTIME: Final = (
    "a time (or anything else) taken from a file's modification time is invented: only "
    "ConversationMeta.mtime and fingerprint may follow it"
)
_FROM_CLOCK: Final = "a time taken from the clock is invented: 'now' is no time of a conversation"


def _invented_times(first: _Exercise) -> list[str]:
    """Parse the case again with every file's mtime moved, then with the clock moved.

    Both must give what the first run gave (file times aside, for the first): an adapter that
    takes a conversation's time from either invents it, however deterministic it looks.
    """
    case, home = first.case, first.home
    set_mtimes(home, case.mtime, case.mtimes, moved=MTIME_MOVE)
    try:
        problems = _again(
            first, "with every file's modification time moved", _FROM_MTIME, file_times=False
        )
    finally:
        set_mtimes(home, case.mtime, case.mtimes)
    with moved_clock(CLOCK_MOVE, [_package_of(first.adapter)]):
        problems += _again(first, "with the clock moved", _FROM_CLOCK, file_times=True)
    return problems


def _again(first: _Exercise, how: str, invented: str, *, file_times: bool) -> list[str]:
    """Run the adapter once more; what differs from ``first`` is reported, saying ``how``.

    ``file_times``: whether the files' own times (``ConversationMeta.mtime`` and the
    fingerprint, which may follow them) are compared too.
    """
    again = _Exercise(first.case, first.adapter, first.home, again=f"{how}, ")
    again.run()
    if not again.complete:
        return again.problems
    expected = _comparable(first, file_times=file_times)
    actual = _comparable(again, file_times=file_times)
    if expected is None or actual is None or expected == actual:
        return []
    diff = golden_diff(expected, actual, name="first run")
    return [f"[{first.case.name}] {how}, the output changed; {invented}\n{diff}".rstrip()]


def _comparable(exercise: _Exercise, *, file_times: bool) -> str | None:
    """The run's output in golden form, without the files' own times unless ``file_times``."""
    conversations = exercise.conversations
    if not file_times:
        conversations = [_without_file_times(c) for c in conversations]
    try:
        return render_golden(
            exercise.detected,
            conversations,
            home=exercise.home,
            skipped_sources=exercise.skipped_sources,
        )
    except (TypeError, ValueError):  # not JSON: the first run said so
        return None


def _without_file_times(conversation: ParsedConversation) -> ParsedConversation:
    return evolve(
        conversation,
        meta=evolve(conversation.meta, mtime=None, fingerprint=""),
        subagents=[_without_file_times(subagent) for subagent in conversation.subagents],
    )


def _package_of(adapter: chatparse.SourceAdapter) -> str:
    """The package the adapter's class is defined in, whose modules see the moved clock."""
    module = type(adapter).__module__
    return module.rpartition(".")[0] or module


def run_case(
    case: Case, *, adapter: chatparse.SourceAdapter | None = None, update: bool = False
) -> CaseResult:
    """Run one case and check everything the kit checks.

    The case's ``home/`` is copied to a temporary directory, every ``*.sqlite.toml`` in it is
    materialized, and every file and folder gets the case's fixed modification time. Then the
    adapter runs ``detect`` → ``scan`` → ``parse`` (each conversation twice) against a
    :class:`~chatparse.Host` for that home, and the kit checks:

    * no step raises, and each conversation's ``source`` is the adapter's name;
    * parsing twice gives equal results, and :func:`check_conversation` holds for each;
    * nothing under the home was created, deleted, changed or left locked;
    * parsing the case again with every file's modification time moved (400 days back) gives
      the same output, ``ConversationMeta.mtime`` and ``fingerprint`` aside, and so does
      parsing it with the clock moved (ten years ahead): a time taken from either is invented;
    * ``scan`` opened no file under the home, unless the adapter declares
      ``scan_reads_content = True`` (or a collection of glob patterns, matched against the
      path relative to the home, naming the files it may open);
    * the output, in :func:`render_golden` form, equals ``expected.json``.

    Args:
        case: From :func:`load_cases`.
        adapter: The adapter to run; default: ``chatparse.get_adapter(case.adapter)``.
        update: Write ``expected.json`` when it is missing or differs, provided every
            invariant holds (a golden is never written from output that breaks one).

    .. versionadded:: 0.1
    """
    if case.problem is not None:
        return CaseResult(case=case, problems=[f"[{case.name}] {case.problem}"])
    if adapter is None:
        try:
            adapter = chatparse.get_adapter(case.adapter)
        except ChatparseError as exc:
            return CaseResult(case=case, problems=[f"[{case.name}] adapter unavailable: {exc}"])
    tmp = tempfile.mkdtemp(prefix="chatparse-case-")
    workdir = Path(os.path.realpath(tmp))
    try:
        exercise = _run_in(case, adapter, workdir)
        actual = None
        if exercise.complete:
            try:
                actual = render_golden(
                    exercise.detected,
                    exercise.conversations,
                    home=workdir / "home",
                    skipped_sources=exercise.skipped_sources,
                )
            except (TypeError, ValueError) as exc:
                exercise.say(f"the output cannot be written as JSON: {exc}")
    except (FixtureFormatError, OSError) as exc:
        return CaseResult(case=case, problems=[f"[{case.name}] cannot set up the case: {exc}"])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return _compare(case, exercise.problems, actual, update=update)


def _compare(case: Case, problems: list[str], actual: str | None, *, update: bool) -> CaseResult:
    if actual is None:
        return CaseResult(case=case, problems=problems)
    golden = case.golden_path
    try:
        expected = golden.read_bytes().decode("utf-8").replace("\r\n", "\n")
    except FileNotFoundError:
        expected = None
    except (OSError, UnicodeDecodeError) as exc:
        problems.append(f"[{case.name}] cannot read {GOLDEN_FILE}: {exc}")
        expected = ""
    if expected == actual:
        return CaseResult(case=case, problems=problems, actual=actual)
    diff = golden_diff(expected, actual, name=str(golden))
    if update and not problems:
        golden.write_bytes(actual.encode("utf-8"))
        return CaseResult(case=case, actual=actual, diff=diff, golden_written=True)
    if expected is None:
        problems.append(
            f"[{case.name}] no golden: {GOLDEN_FILE} is missing (a missing golden fails)"
        )
    else:
        problems.append(f"[{case.name}] the output differs from {GOLDEN_FILE}")
    if update:
        problems.append(
            f"[{case.name}] {GOLDEN_FILE} was not rewritten because an invariant failed"
        )
    return CaseResult(case=case, problems=problems, actual=actual, diff=diff)
