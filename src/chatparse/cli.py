"""The ``chatparse`` command: the library's main jobs for people who don't write Python.

Exit codes: 0 when everything worked, 1 when some conversations (or adapters, with
``adapters --check``, or conformance cases) failed, 2 for a usage or environment error, 128 plus
the signal's number when stopped by one (130 for Ctrl-C, 141 when the reader of the output went
away, as ``cat`` has, 143 for SIGTERM). Errors are one line on stderr; ``--debug`` adds the
traceback. ``docs/cli.md`` is the reference.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import signal
import sys
import threading
import time
import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TextIO, TypeVar

from attrs import define, field

from chatparse import _api, _cli_usage, _markdown
from chatparse.adapter import Explainer
from chatparse.errors import ChatparseError, ChatparseWarning
from chatparse.host import PLATFORMS, Host
from chatparse.model import ConversationMeta, ParsedConversation
from chatparse.registry import AdapterSpec, adapter_names, adapter_specs, get_adapter
from chatparse.serialize import json_text, to_dict, to_json

__all__ = ["main"]

_T = TypeVar("_T")

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_SIGNAL_BASE = 128
"""Stopped by a signal: this plus its number, as shells report it."""

# How the command line tells someone to choose an adapter for a path.
_PATH_ADVICE = _api.PathAdvice(
    choose="pass --source NAME to choose one (`chatparse adapters` lists the names)",
    scan_instead="run `chatparse --source NAME scan` and parse the conversation by its id",
)

_EXAMPLES = """\
examples:
  chatparse --demo scan                     conversations in the bundled sample home
  chatparse detect                          which tools have history on this machine
  chatparse --source codex scan --json      Codex sessions, one JSON object per line
  chatparse parse ~/.codex/sessions/2025/05/01/rollout-x.jsonl --format markdown
  chatparse export --out backup --format markdown --state backup/state.json
  chatparse doctor                          why a source yields nothing
"""


class _Usage(Exception):  # noqa: N818 -- an internal signal, never seen by users as a type
    """A usage or environment problem: print one line and exit 2."""


class _Interrupted(KeyboardInterrupt):
    """A signal that stops the command, raised where Ctrl-C's KeyboardInterrupt would be."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _raise_interrupted(signum: int, _frame: object) -> None:
    raise _Interrupted(signum)


@contextmanager
def _terminate_like_interrupt() -> Iterator[None]:
    """Make SIGTERM stop the command as Ctrl-C does, so an export keeps what it finished.

    Python's default for SIGTERM ends the process on the spot, without ``finally`` blocks.
    Signal handlers can only be set from the main thread; elsewhere nothing changes.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _raise_interrupted)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _version() -> str:
    from importlib.metadata import version  # noqa: PLC0415 -- only `--version` pays for it

    return version("chatparse")


def _common_options(*, suppress: bool) -> argparse.ArgumentParser:
    # The same options are accepted before and after the command. Sub-parsers use SUPPRESS
    # defaults so that an option given before the command is not reset by the sub-parser.
    default: Any = argparse.SUPPRESS if suppress else None
    common = argparse.ArgumentParser(add_help=False)
    where = common.add_mutually_exclusive_group()
    where.add_argument("--home", metavar="DIR", default=default, help="read this home directory")
    where.add_argument(
        "--demo",
        action="store_true",
        default=default if suppress else False,
        help="read the small sample home shipped with chatparse",
    )
    common.add_argument(
        "--platform",
        choices=PLATFORMS,
        default=default,
        help="with --home: the platform whose layout the home has (default: this one)",
    )
    common.add_argument(
        "--source",
        metavar="NAME",
        action="append",
        default=default,
        help="only this adapter (repeatable); default: every adapter",
    )
    common.add_argument(
        "--json",
        action="store_true",
        default=default if suppress else False,
        help="machine-readable output: one JSON object per line",
    )
    common.add_argument(
        "--debug",
        action="store_true",
        default=default if suppress else False,
        help="show tracebacks",
    )
    return common


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="chatparse",
        description="Read the chat histories AI coding assistants leave on disk.",
        epilog=_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        parents=[_common_options(suppress=False)],
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    common = _common_options(suppress=True)

    def command(name: str, summary: str, examples: str) -> argparse.ArgumentParser:
        return commands.add_parser(
            name,
            help=summary,
            description=summary,
            epilog=f"examples:\n{examples}",
            formatter_class=argparse.RawDescriptionHelpFormatter,
            parents=[common],
        )

    adapters = command(
        "adapters",
        "List every registered adapter: built-ins, plugins, and why any cannot be loaded.",
        "  chatparse adapters\n  chatparse adapters --json --check",
    )
    adapters.add_argument(
        "--check", action="store_true", help="exit 1 when any adapter cannot be loaded"
    )
    command(
        "detect",
        "Show which sources this home has, where, and how many conversations.",
        "  chatparse detect\n  chatparse --home /mnt/backup/ada --platform darwin detect",
    )
    command(
        "scan",
        "List conversations without parsing them.",
        "  chatparse scan\n  chatparse --demo --source claude-code scan --json",
    )
    parse = command(
        "parse",
        "Parse one conversation (by id) or every conversation in one file.",
        "  chatparse parse rollout-2025-05-01.jsonl\n"
        "  chatparse --demo parse <id from scan> --format markdown",
    )
    parse.add_argument("target", metavar="PATH|ID", help="a session file or database, or an id")
    _redaction_options(parse)
    parse.add_argument(
        "--format",
        choices=("json", "markdown"),
        default="json",
        help="json (indented; with --json, one conversation per line) or markdown",
    )
    export = command(
        "export",
        "Write every conversation found to a folder.",
        "  chatparse export --out backup --format jsonl\n"
        "  chatparse export --out notes --format markdown --state notes/.state.json",
    )
    export.add_argument(
        "--out", metavar="DIR", type=Path, help="the folder to write to (every format but otel)"
    )
    export.add_argument(
        "--format",
        choices=(*_STATEFUL_FORMATS, *_STREAM_FORMATS),
        default="jsonl",
        help="jsonl: one line per conversation in DIR/conversations.jsonl; json, markdown, atif, "
        "openai: one file per conversation in DIR/SOURCE/; parquet: one file per table in DIR; "
        "otel: spans sent to --endpoint (default: jsonl)",
    )
    export.add_argument(
        "--workers",
        metavar="N",
        type=_cli_usage.processes,
        help="parse in N processes (0: one per core)",
    )
    export.add_argument(
        "--compression",
        metavar="CODEC",
        default="snappy",
        help="with --format parquet: snappy (default), zstd, lz4, gzip or none",
    )
    export.add_argument(
        "--endpoint",
        metavar="URL",
        help="with --format otel: the OTLP/HTTP endpoint to send spans to",
    )
    export.add_argument(
        "--content",
        action="store_true",
        help="with --format otel: put message text in the spans (redacted unless --no-redact)",
    )
    _redaction_options(export)
    export.add_argument(
        "--state",
        metavar="FILE",
        type=Path,
        help="remember what was exported; later runs do not parse unchanged conversations again",
    )
    conformance = command(
        "conformance",
        "Run an adapter's conformance cases (goldens and invariants).",
        "  chatparse conformance fixtures/\n"
        "  chatparse conformance fixtures/ --adapter toy --update",
    )
    conformance.add_argument(
        "directory", metavar="DIR", help="a fixtures root, one adapter's folder, or one case"
    )
    conformance.add_argument("--adapter", metavar="NAME", help="run only this adapter's cases")
    conformance.add_argument(
        "--update", action="store_true", help="rewrite missing or differing goldens"
    )
    command(
        "doctor",
        "Explain, per adapter, where it looked and why a source yields nothing or little.",
        "  chatparse doctor\n  chatparse --source cursor doctor",
    )
    _cli_usage.add_arguments(
        command(
            "usage",
            "Token usage across every conversation, each response counted once.",
            "  chatparse usage --by month\n"
            "  chatparse usage --by model --since 2025-06-01 --prices prices.json\n"
            "  chatparse --source codex usage --json",
        )
    )
    return parser


def _redaction_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--redact",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="replace secrets (keys, tokens, passwords) by [REDACTED:kind] before writing; the "
        "default for --format otel --content, which sends text to a server",
    )
    parser.add_argument(
        "--redactor",
        metavar="NAME",
        default="default",
        help="the redactor --redact uses: default, detect-secrets, or an installed plugin's",
    )


def _redaction_wanted(args: argparse.Namespace) -> bool:
    """Whether to redact each conversation before it is written."""
    if args.redact is None:  # on by default only where text leaves the machine
        return getattr(args, "format", None) == "otel" and bool(getattr(args, "content", False))
    return bool(args.redact)


def _redactor_name(args: argparse.Namespace) -> str | None:
    """The name of the redactor an export passes each conversation through, if any.

    Loaded here (and kept for this process's renders), so that a name no redactor has is a
    usage error before any work; each worker of ``--workers`` loads its own.
    """
    if not _redaction_wanted(args):
        return None
    from chatparse._export import loaded_redactor  # noqa: PLC0415 -- only --redact pays

    loaded_redactor(args.redactor)
    return str(args.redactor)


def _redaction(args: argparse.Namespace) -> Callable[[ParsedConversation], ParsedConversation]:
    """What to do to each conversation before it is written: redact it, or nothing."""
    if not _redaction_wanted(args):
        return lambda conversation: conversation
    from chatparse.redaction import get_redactor, redact  # noqa: PLC0415 -- only --redact pays

    redactor = get_redactor(args.redactor)
    return lambda conversation: redact(conversation, redactor)


def _demo_home() -> Path:
    from importlib.resources import files  # noqa: PLC0415 -- only --demo pays for it

    home = Path(str(files("chatparse").joinpath("_demo", "home")))
    if not home.is_dir():
        msg = "this installation of chatparse has no demo data; reinstall it from a wheel"
        raise _Usage(msg)
    return home


def _host(args: argparse.Namespace) -> Host:
    if args.demo:
        return Host(home=_demo_home(), env={}, platform="linux")
    if args.home is not None:
        home = Path(args.home).expanduser()
        if not home.is_dir():
            msg = f"--home {args.home}: not a directory"
            raise _Usage(msg)
        # Another machine's home: this machine's variables (CODEX_HOME, XDG_CONFIG_HOME…) would
        # point back here, so none are used.
        return Host(home=home, env={}, platform=args.platform)
    if args.platform is not None:
        msg = "--platform needs --home: this machine's layout is its own platform's"
        raise _Usage(msg)
    return Host()


def _table(rows: list[list[str]], out: TextIO) -> None:
    if not rows:
        return
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        cells = [cell.ljust(width) for cell, width in zip(row, widths, strict=True)]
        out.write("  ".join(cells).rstrip() + "\n")


def _json_line(data: object, out: TextIO) -> None:
    out.write(json.dumps(data, ensure_ascii=False) + "\n")


def _adapter_row(spec: AdapterSpec) -> dict[str, object]:
    row: dict[str, object] = {
        "name": spec.name,
        "origin": spec.origin,
        "distribution": spec.distribution,
    }
    try:
        adapter = get_adapter(spec.name)
    except ChatparseError as exc:
        row.update(display_name=None, parser_version=None, status="error", error=str(exc))
    else:
        row.update(
            display_name=adapter.display_name,
            parser_version=adapter.parser_version,
            status="ok",
            error=None,
        )
    return row


def _adapters(args: argparse.Namespace, out: TextIO) -> int:
    rows = [_adapter_row(spec) for spec in adapter_specs()]
    if args.json:
        for row in rows:
            _json_line(row, out)
    else:
        table = [["NAME", "ORIGIN", "STATUS"]]
        for row in rows:
            origin = f"{row['origin']} ({row['distribution']})"
            if row["status"] == "ok":
                detail = f"{row['display_name']}, parser {row['parser_version']}"
            else:
                detail = f"NOT LOADABLE: {row['error']}"
            table.append([str(row["name"]), origin, detail])
        _table(table, out)
    failed = any(row["status"] != "ok" for row in rows)
    return EXIT_FAILED if args.check and failed else EXIT_OK


def _detect(args: argparse.Namespace, out: TextIO) -> int:
    found = _api.detect(_host(args), sources=args.source)
    if args.json:
        for info in found:
            _json_line(to_dict(info), out)
        return EXIT_OK
    if not found:
        out.write("no sources found; `chatparse doctor` explains where each adapter looked\n")
        return EXIT_OK
    # No conversation count: detect only looks (most adapters cannot count without listing),
    # and a count that disagreed with scan's would mislead.
    table = [["SOURCE", "NAME", "ROOTS"]]
    table += [[info.source, info.display_name, ", ".join(info.roots)] for info in found]
    _table(table, out)
    out.write("`chatparse scan` lists and counts the conversations\n")
    return EXIT_OK


def _short(value: str | None, width: int) -> str:
    text = " ".join((value or "").split())
    return text if len(text) <= width else text[: width - 1] + "…"


def _scan(args: argparse.Namespace, out: TextIO) -> int:
    metas = _api.scan(_host(args), sources=args.source, peek=True)
    if args.json:
        for meta in metas:
            _json_line(to_dict(meta), out)
        return EXIT_OK
    table = [["SOURCE", "ID", "TITLE", "PROJECT", "UPDATED", "SIZE"]]
    for meta in metas:
        updated = meta.updated_at or meta.mtime
        table.append(
            [
                meta.source,
                meta.id,
                _short(meta.title, 40),
                _short(meta.project_path, 40),
                updated.strftime("%Y-%m-%d %H:%M") if updated else "",
                "" if meta.size is None else str(meta.size),
            ]
        )
    _table(table, out)
    out.write(f"{len(table) - 1} conversation(s)\n")
    return EXIT_OK


def _find(args: argparse.Namespace, target: str) -> list[ParsedConversation]:
    path = Path(target).expanduser()
    if path.is_dir():
        msg = (
            f"{target} is a directory: pass one session file or database "
            "(`chatparse scan --json` shows each conversation's path) or a conversation id; "
            "to read a whole home directory, use --home DIR"
        )
        raise _Usage(msg)
    if path.exists():
        sources = args.source or [None]
        if len(sources) > 1:
            msg = "parse PATH takes at most one --source"
            raise _Usage(msg)
        return _api.parse_path_advising(path, source=sources[0], advice=_PATH_ADVICE)
    matches = [meta for meta in _api.scan(_host(args), sources=args.source) if meta.id == target]
    if not matches:
        msg = f"{target}: no such file, and no conversation has that id (see `chatparse scan`)"
        raise _Usage(msg)
    return [_api.parse(meta) for meta in matches]


def _unreadable(conversation: ParsedConversation) -> str | None:
    """Why nothing could be read from a conversation whose every record is malformed."""
    diagnostics = conversation.diagnostics
    if not diagnostics.records_seen or diagnostics.malformed < diagnostics.records_seen:
        return None
    return (
        f"{conversation.meta.path}: all {diagnostics.records_seen} record(s) are malformed, "
        f"nothing could be read; is it a {conversation.source} file?"
    )


def _parse(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    if args.json and args.format == "markdown":
        msg = "--json prints JSON; leave it out to get --format markdown"
        raise _Usage(msg)
    conversations = list(map(_redaction(args), _find(args, args.target)))
    if not conversations:
        # Not an error (an empty session file is a valid one), but an empty Markdown page alone
        # would look like a failure.
        err.write(f"chatparse: no conversation in {args.target}\n")
    if args.json:
        out.writelines(to_json(c) + "\n" for c in conversations)
    elif args.format == "markdown":
        out.write("\n".join(_markdown.render(c) for c in conversations))
    elif len(conversations) == 1:
        out.write(to_json(conversations[0], indent=2) + "\n")
    else:
        out.write(json_text([to_dict(c) for c in conversations], indent=2))
        out.write("\n")
    problems = [problem for c in conversations if (problem := _unreadable(c))]
    err.writelines(f"chatparse: {problem}\n" for problem in problems)
    return EXIT_FAILED if problems else EXIT_OK


class _Progress:
    """``done/total, rate, ETA`` on one self-rewriting stderr line, only on a terminal."""

    def __init__(self, err: TextIO, total: int = 0) -> None:
        self.total = total
        self.err = err
        self.enabled = err.isatty()
        self.started = time.monotonic()
        self.done = 0

    def step(self) -> None:
        self.done += 1
        if not self.enabled:
            return
        elapsed = max(time.monotonic() - self.started, 1e-6)
        rate = self.done / elapsed
        eta = (self.total - self.done) / rate if rate else 0.0
        self.err.write(f"\r{self.done}/{self.total} conversations, {rate:.1f}/s, ETA {eta:.0f}s   ")
        if self.done == self.total:
            self.err.write("\n")
        self.err.flush()

    def stop(self) -> None:
        """End the progress line early, so that what follows starts on a line of its own."""
        if self.enabled and 0 < self.done < self.total:
            self.err.write("\n")


_STATEFUL_FORMATS = ("jsonl", "json", "markdown", "atif", "openai")
"""Formats written incrementally: a conversation unchanged since the last run is not parsed."""
_STREAM_FORMATS = ("parquet", "otel")
"""Formats written whole from every conversation, in one pass."""


def _export(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    if args.format in _STREAM_FORMATS:
        return _export_stream(args, out, err)
    if args.out is None:
        raise _Usage(f"--format {args.format} needs --out DIR")
    from chatparse import _export as exports  # noqa: PLC0415 -- only this command pays for it

    metas = list(_api.scan(_host(args), sources=args.source))
    # Rendered (and redacted) where the conversation is parsed: with --workers, in the worker,
    # which then sends back only the bytes to write.
    render = functools.partial(exports.render, args.format, _redactor_name(args))
    # A conversation exported redacted is not "unchanged" for an export that is not (and back).
    mark = f"+redacted:{args.redactor}" if args.redact else ""
    versions = {name: get_adapter(name).parser_version + mark for name in {m.source for m in metas}}
    summary = {"found": len(metas), "exported": 0, "unchanged": 0, "failed": 0}
    progress = _Progress(err)
    try:
        with exports.exporting(args.out, args.format, args.state) as export:
            todo = [meta for meta in metas if not export.unchanged(meta, versions[meta.source])]
            summary["unchanged"] = len(metas) - len(todo)
            progress.total = len(todo)
            for meta, result in _parsed(todo, args.workers, render):
                if isinstance(result, exports.RedactionFailedError):
                    # Stop rather than go on without redaction, or leave this conversation's
                    # earlier copy (perhaps not redacted) as if it were this run's.
                    raise _Usage(f"{result}; the export stopped")
                if isinstance(result, Exception):
                    summary["failed"] += 1
                    err.write(f"failed: {meta.source} {meta.id} ({meta.path}): {result}\n")
                else:
                    export.add(meta, result, versions[meta.source])
                    summary["exported"] += 1
                progress.step()
    except exports.StateFileError as exc:
        raise _Usage(str(exc)) from exc
    except KeyboardInterrupt:
        progress.stop()
        err.write(
            f"chatparse: interrupted after exporting {summary['exported']} conversation(s); "
            "run the same command again to finish\n"
        )
        raise
    if args.json:
        _json_line(summary, out)
    else:
        out.write(
            f"{summary['exported']} exported, {summary['unchanged']} unchanged, "
            f"{summary['failed']} failed, to {args.out}\n"
        )
    return EXIT_FAILED if summary["failed"] else EXIT_OK


def _parsed(
    metas: list[ConversationMeta], workers: int | None, then: Callable[[ParsedConversation], _T]
) -> Iterator[tuple[ConversationMeta, _T | Exception]]:
    """Each meta with ``then`` of its conversation, or what stopped it; here or in ``workers``.

    ``then`` runs where the parse ran, so that a worker sends back only its result.
    """
    from chatparse._batch import Failure, iter_results_then  # noqa: PLC0415 -- export only
    from chatparse._export import RedactionFailedError  # noqa: PLC0415 -- as above

    pairs: Iterable[tuple[ConversationMeta, _T | Failure]]
    if workers is None or workers == 1:
        pairs = iter_results_then(metas, then)
    else:
        from chatparse._workers import results_in_workers  # noqa: PLC0415 -- --workers only

        results = results_in_workers(metas, _api.worker_count(workers), then)
        pairs = zip(metas, results, strict=True)
    for meta, result in pairs:
        if not isinstance(result, Failure):
            yield meta, result
        elif isinstance(result.exception, RedactionFailedError):
            yield meta, result.exception  # the caller stops the run
        else:
            yield meta, RuntimeError(result.error)


def _export_stream(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """``parquet`` and ``otel``: every conversation, in one pass, no state."""
    if args.state is not None:
        raise _Usage(f"--format {args.format} writes everything each run; it takes no --state")
    conversations = _api.iter_conversations(_host(args), sources=args.source, workers=args.workers)
    if args.format == "parquet":
        if args.out is None:
            raise _Usage("--format parquet needs --out DIR")
        from chatparse.interop import write_parquet  # noqa: PLC0415 -- needs the arrow extra

        try:
            written = write_parquet(conversations, args.out, compression=args.compression)
        except ValueError as exc:  # the codec: checked before any file is written
            raise _Usage(str(exc)) from exc
        summary: dict[str, object] = {
            "format": "parquet",
            "files": sorted(map(str, written.values())),
        }
        text = f"wrote {len(written)} Parquet files to {args.out}"
    else:
        if not args.endpoint:
            raise _Usage("--format otel needs --endpoint URL (an OTLP/HTTP traces endpoint)")
        from chatparse.interop.otel import send_otlp  # noqa: PLC0415 -- needs the otel extra

        try:
            spans = send_otlp(conversations, args.endpoint, content=args.content)
        except ValueError as exc:
            raise _Usage(str(exc)) from exc
        except ConnectionError as exc:
            err.write(f"chatparse: error: {exc}\n")
            return EXIT_FAILED
        summary = {"format": "otel", "spans": spans, "endpoint": args.endpoint}
        text = f"sent {spans} spans to {args.endpoint}"
    if args.json:
        _json_line(summary, out)
    else:
        out.write(text + "\n")
    return EXIT_OK


@define
class _Checkup:
    """What ``doctor`` found out about one adapter on one home."""

    source: str
    explained: list[str] = field(factory=list)
    """The adapter's own account of where it looked (:class:`Explainer`)."""
    problem: str | None = None
    """Why the adapter could not be loaded, or its detect or scan failed."""
    roots: list[str] | None = None
    """Where the source was found; ``None`` when it was not."""
    conversations: int = 0
    failures: list[str] = field(factory=list)
    empty: int = 0
    malformed: int = 0
    unknown: dict[str, int] = field(factory=dict)
    warnings: list[str] = field(factory=list)

    def examine(self, host: Host) -> None:
        """Ask the adapter everything, keeping each warning it gives (once) for the report."""
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", ChatparseWarning)
            self._examine(host)
        for warning in caught:
            message = str(warning.message)
            if message not in self.warnings:
                self.warnings.append(message)

    def _examine(self, host: Host) -> None:
        try:
            adapter = get_adapter(self.source)
        except ChatparseError as exc:
            self.problem = f"cannot be loaded: {exc}"
            return
        if isinstance(adapter, Explainer):
            self.explained = list(adapter.explain(host))
        try:
            found = adapter.detect(host)
        except Exception as exc:  # noqa: BLE001 -- doctor reports every failure, whatever it is
            self.problem = f"detect failed: {type(exc).__name__}: {exc}"
            return
        if found is None:
            return
        self.roots = list(found.roots)
        try:
            metas = list(adapter.scan(found))
        except ChatparseError as exc:
            self.problem = f"scan failed: {exc}"
            return
        self._parse_all(metas)

    def _parse_all(self, metas: Iterable[ConversationMeta]) -> None:
        for meta in metas:
            self.conversations += 1
            try:
                parsed = _api.parse(meta)
            except Exception as exc:  # noqa: BLE001 -- doctor reports every failure, whatever it is
                self.failures.append(f"{meta.id} ({meta.path}): {type(exc).__name__}: {exc}")
                continue
            self.empty += not parsed.messages
            self.malformed += parsed.diagnostics.malformed
            for record in parsed.diagnostics.unknown:
                key = f"{record.type or 'untyped'} (writer {record.producer_version or '?'})"
                self.unknown[key] = self.unknown.get(key, 0) + 1

    def unexplained_warnings(self) -> list[str]:
        """The warnings that say what no line of the adapter's explanation already says.

        A passed-over store is explained by the adapter (``path: cannot be read …``) and also
        warned about by its scan (``passed over path: …``): one fact, said once.
        """
        subjects = [
            f"{subject}:"
            for line in self.explained
            if (subject := line.partition(": ")[0]) and os.sep in subject
        ]
        return [
            message
            for message in self.warnings
            if not any(subject in message for subject in subjects)
        ]

    def lines(self) -> Iterator[str]:
        """The report for people, one fact a line."""
        yield from self.explained
        if self.problem is not None:
            yield self.problem
        elif self.roots is None:
            yield "not found on this home"
        else:
            yield f"found: {', '.join(self.roots)}"
            yield from self._counts()
        yield from (f"warning: {message}" for message in self.unexplained_warnings())

    def _counts(self) -> Iterator[str]:
        yield from (f"cannot parse {failure}" for failure in self.failures)
        yield f"{self.conversations} conversation(s) listed, {len(self.failures)} failed to parse"
        if self.empty:
            yield f"{self.empty} conversation(s) have no messages (empty or summary-only files)"
        if self.malformed:
            yield f"{self.malformed} malformed record(s) were skipped and counted"
        for key, count in sorted(self.unknown.items()):
            yield f"{count} record(s) of unknown type {key} were kept raw"

    def as_json(self, host: Host) -> dict[str, object]:
        """The report for programs (its shape is documented in docs/cli.md)."""
        return {
            "source": self.source,
            "home": str(host.home),
            "platform": host.platform,
            "explained": self.explained,
            "problem": self.problem,
            "found": self.roots is not None,
            "roots": self.roots or [],
            "conversations": self.conversations,
            "failed": self.failures,
            "empty": self.empty,
            "malformed": self.malformed,
            "unknown": dict(sorted(self.unknown.items())),
            "warnings": self.warnings,
        }


def _doctor(args: argparse.Namespace, out: TextIO) -> int:
    host = _host(args)
    names = args.source or list(adapter_names())
    if not args.json:
        out.write(f"home {host.home} (platform {host.platform})\n")
    for name in names:
        checkup = _Checkup(name)
        checkup.examine(host)
        if args.json:
            _json_line(checkup.as_json(host), out)
        else:
            out.write(f"\n{name}\n")
            out.writelines(f"  {line}\n" for line in checkup.lines())
    return EXIT_OK


def _conformance(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from chatparse.testing import run_conformance  # noqa: PLC0415 -- only this command pays

    return run_conformance(
        args.directory,
        adapter=args.adapter,
        update=args.update,
        out=out,
        err=err,
        json_lines=args.json,
    )


def _dispatch(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    handlers: dict[str, Callable[[], int]] = {
        "adapters": lambda: _adapters(args, out),
        "detect": lambda: _detect(args, out),
        "scan": lambda: _scan(args, out),
        "parse": lambda: _parse(args, out, err),
        "export": lambda: _export(args, out, err),
        "conformance": lambda: _conformance(args, out, err),
        "doctor": lambda: _doctor(args, out),
        "usage": lambda: _cli_usage.run(args, _host(args), out, err),
    }
    return handlers[args.command]()


def _show_warning(  # noqa: PLR0913, PLR0917 -- the signature warnings.showwarning requires
    message: Warning | str,
    category: type[Warning],  # noqa: ARG001 -- the signature warnings.showwarning requires
    filename: str,  # noqa: ARG001 -- ditto
    lineno: int,  # noqa: ARG001 -- ditto
    file: TextIO | None = None,
    line: str | None = None,  # noqa: ARG001 -- ditto
) -> None:
    # People at a terminal need the message, not the library's file and line number.
    (file or sys.stderr).write(f"chatparse: warning: {message}\n")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line with ``argv`` (default: ``sys.argv[1:]``); return the exit code."""
    args = _build_parser().parse_args(argv)
    try:
        with warnings.catch_warnings(), _terminate_like_interrupt():
            # Our warnings are for the person at the terminal, whatever filters are in force.
            warnings.filterwarnings("always", category=ChatparseWarning)
            if not args.debug:
                warnings.showwarning = _show_warning
            code = _dispatch(args, sys.stdout, sys.stderr)
            # Written out here, inside the try: a pipe closed early must be noticed now, not
            # when the interpreter flushes stdout on its way out.
            sys.stdout.flush()
            return code
    except BrokenPipeError:
        # The reader went away (`chatparse scan | head`). Not an error: stop quietly, as cat does.
        _discard_stdout()
        return EXIT_SIGNAL_BASE + _SIGPIPE
    except (_Usage, ChatparseError, OSError) as exc:
        if args.debug:
            raise
        sys.stderr.write(f"chatparse: error: {exc}\n")
        return EXIT_USAGE
    except KeyboardInterrupt as exc:
        sys.stderr.write("chatparse: interrupted\n")
        return EXIT_SIGNAL_BASE + getattr(exc, "signum", signal.SIGINT)


# SIGPIPE's number, which Windows lacks (there a closed pipe raises the same BrokenPipeError).
_SIGPIPE = int(getattr(signal, "SIGPIPE", 13))


def _discard_stdout() -> None:
    """Point stdout at the null device, so that the interpreter's last flush cannot fail."""
    try:
        descriptor = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):
        return  # not a real file (a test's capture): nothing will flush it
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, descriptor)
    finally:
        os.close(null)
