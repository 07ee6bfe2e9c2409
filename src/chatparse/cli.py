"""The ``chatparse`` command: the library's main jobs for people who don't write Python.

Exit codes: 0 when everything worked, 1 when some conversations (or adapters, with
``adapters --check``) failed, 2 for a usage or environment error. Errors are one line on stderr;
``--debug`` adds the traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, TextIO

from chatparse import _api, _markdown
from chatparse.adapter import Explainer
from chatparse.errors import ChatparseError, ChatparseWarning
from chatparse.host import PLATFORMS, Host
from chatparse.model import ConversationMeta, ParsedConversation
from chatparse.registry import AdapterSpec, adapter_names, adapter_specs, get_adapter
from chatparse.serialize import json_text, to_dict, to_json

__all__ = ["main"]

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2

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
    parse.add_argument("--format", choices=("json", "markdown"), default="json")
    export = command(
        "export",
        "Write every conversation found to a folder.",
        "  chatparse export --out backup --format jsonl\n"
        "  chatparse export --out notes --format markdown --state notes/.state.json",
    )
    export.add_argument("--out", metavar="DIR", required=True, type=Path)
    export.add_argument("--format", choices=("jsonl", "json", "markdown"), default="jsonl")
    export.add_argument(
        "--state",
        metavar="FILE",
        type=Path,
        help="remember what was exported; later runs skip unchanged conversations",
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
    return parser


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
    table = [["SOURCE", "NAME", "CONVERSATIONS", "ROOTS"]]
    for info in found:
        count = "?" if info.conversation_count is None else str(info.conversation_count)
        table.append([info.source, info.display_name, count, ", ".join(info.roots)])
    _table(table, out)
    return EXIT_OK


def _short(value: str | None, width: int) -> str:
    text = " ".join((value or "").split())
    return text if len(text) <= width else text[: width - 1] + "…"


def _scan(args: argparse.Namespace, out: TextIO) -> int:
    metas = _api.scan(_host(args), sources=args.source)
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
    if path.exists():
        sources = args.source or [None]
        if len(sources) > 1:
            msg = "parse PATH takes at most one --source"
            raise _Usage(msg)
        return _api.parse_path(path, source=sources[0])
    matches = [meta for meta in _api.scan(_host(args), sources=args.source) if meta.id == target]
    if not matches:
        msg = f"{target}: no such file, and no conversation has that id (see `chatparse scan`)"
        raise _Usage(msg)
    return [_api.parse(meta) for meta in matches]


def _parse(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    conversations = _find(args, args.target)
    if not conversations:
        # Not an error (an empty session file is a valid one), but an empty Markdown page alone
        # would look like a failure.
        err.write(f"chatparse: no conversation in {args.target}\n")
    if args.format == "markdown":
        out.write("\n".join(_markdown.render(c) for c in conversations))
    elif len(conversations) == 1:
        out.write(to_json(conversations[0], indent=2) + "\n")
    else:
        out.write(json_text([to_dict(c) for c in conversations], indent=2))
        out.write("\n")
    return EXIT_OK


class _Progress:
    """``done/total, rate, ETA`` on one self-rewriting stderr line, only on a terminal."""

    def __init__(self, total: int, err: TextIO) -> None:
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


def _export(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from chatparse import _export as export  # noqa: PLC0415 -- only this command pays for it

    try:
        state = export.ExportState.load(args.state)
    except (ValueError, OSError) as exc:
        raise _Usage(str(exc)) from exc
    metas = list(_api.scan(_host(args), sources=args.source))
    versions = {name: get_adapter(name).parser_version for name in {m.source for m in metas}}
    todo = list(export.pending(metas, state, versions))
    exporter = export.Exporter(args.out, args.format)
    progress = _Progress(len(todo), err)
    failed = 0
    for meta in todo:
        try:
            conversation = _api.parse(meta)
        except Exception as exc:  # noqa: BLE001 -- one bad conversation must not stop an export
            failed += 1
            err.write(f"failed: {meta.source} {meta.id} ({meta.path}): {exc}\n")
        else:
            exporter.write(conversation)
            state.record(meta, versions[meta.source])
        progress.step()
    if todo:
        state.save()
    summary = {
        "found": len(metas),
        "exported": len(exporter.written) if args.format != "jsonl" else len(todo) - failed,
        "unchanged": len(metas) - len(todo),
        "failed": failed,
    }
    if args.json:
        _json_line(summary, out)
    else:
        out.write(
            f"{summary['exported']} exported, {summary['unchanged']} unchanged, "
            f"{failed} failed, to {args.out}\n"
        )
    return EXIT_FAILED if failed else EXIT_OK


def _summarise(conversations: Iterable[ConversationMeta]) -> Iterator[str]:
    empty = malformed = unknown = failed = total = 0
    unknown_types: dict[str, int] = {}
    for meta in conversations:
        total += 1
        try:
            parsed = _api.parse(meta)
        except Exception as exc:  # noqa: BLE001 -- doctor reports every failure, whatever it is
            failed += 1
            yield f"  cannot parse {meta.id} ({meta.path}): {type(exc).__name__}: {exc}"
            continue
        empty += not parsed.messages
        malformed += parsed.diagnostics.malformed
        unknown += len(parsed.diagnostics.unknown)
        for record in parsed.diagnostics.unknown:
            key = f"{record.type or 'untyped'} (writer {record.producer_version or '?'})"
            unknown_types[key] = unknown_types.get(key, 0) + 1
    yield f"  {total} conversation(s) listed, {failed} failed to parse"
    if empty:
        yield f"  {empty} conversation(s) have no messages (empty or summary-only files)"
    if malformed:
        yield f"  {malformed} malformed record(s) were skipped and counted"
    for key, count in sorted(unknown_types.items()):
        yield f"  {count} record(s) of unknown type {key} were kept raw"


def _doctor(args: argparse.Namespace, out: TextIO) -> int:
    host = _host(args)
    names = args.source or list(adapter_names())
    out.write(f"home {host.home} (platform {host.platform})\n")
    for name in names:
        out.write(f"\n{name}\n")
        try:
            adapter = get_adapter(name)
        except ChatparseError as exc:
            out.write(f"  cannot be loaded: {exc}\n")
            continue
        if isinstance(adapter, Explainer):
            out.writelines(f"  {line}\n" for line in adapter.explain(host))
        try:
            found = adapter.detect(host)
        except Exception as exc:  # noqa: BLE001 -- doctor reports every failure, whatever it is
            out.write(f"  detect failed: {type(exc).__name__}: {exc}\n")
            continue
        if found is None:
            out.write("  not found on this home\n")
            continue
        out.write(f"  found: {', '.join(found.roots)}\n")
        try:
            metas = list(adapter.scan(found))
        except ChatparseError as exc:
            out.write(f"  scan failed: {exc}\n")
            continue
        out.writelines(f"{line}\n" for line in _summarise(metas))
    return EXIT_OK


def _conformance(args: argparse.Namespace) -> int:
    from chatparse.testing import run_conformance  # noqa: PLC0415 -- only this command pays

    return run_conformance(args.directory, adapter=args.adapter, update=args.update)


def _dispatch(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    handlers: dict[str, Callable[[], int]] = {
        "adapters": lambda: _adapters(args, out),
        "detect": lambda: _detect(args, out),
        "scan": lambda: _scan(args, out),
        "parse": lambda: _parse(args, out, err),
        "export": lambda: _export(args, out, err),
        "conformance": lambda: _conformance(args),
        "doctor": lambda: _doctor(args, out),
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
        with warnings.catch_warnings():
            # Our warnings are for the person at the terminal, whatever filters are in force.
            warnings.filterwarnings("always", category=ChatparseWarning)
            if not args.debug:
                warnings.showwarning = _show_warning
            return _dispatch(args, sys.stdout, sys.stderr)
    except (_Usage, ChatparseError, OSError) as exc:
        if args.debug:
            raise
        sys.stderr.write(f"chatparse: error: {exc}\n")
        return EXIT_USAGE
    except KeyboardInterrupt:
        sys.stderr.write("chatparse: interrupted\n")
        return 130
