"""The ``chatparse`` command.

Exit codes: 0 when everything worked, 1 when something the command was asked to do failed (an
adapter that cannot be loaded, a conversation that cannot be parsed), 2 for a usage error.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import TextIO

from chatparse.errors import ChatparseError
from chatparse.registry import AdapterSpec, Registry

__all__ = ["main"]

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2


def _version() -> str:
    from importlib.metadata import version  # noqa: PLC0415 -- only `--version` pays for it

    return version("chatparse")


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="chatparse",
        description="Read the chat histories AI coding assistants leave on disk.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    adapters = commands.add_parser(
        "adapters",
        help="list the registered adapters, where they come from, and whether they load",
        description="List every registered adapter: built-ins, installed plugins, and why any "
        "of them cannot be loaded.",
    )
    adapters.add_argument("--json", action="store_true", help="one JSON object per line")
    adapters.add_argument(
        "--check", action="store_true", help="exit 1 when any adapter cannot be loaded"
    )
    return parser


def _adapter_row(registry: Registry, spec: AdapterSpec) -> dict[str, object]:
    row: dict[str, object] = {
        "name": spec.name,
        "origin": spec.origin,
        "distribution": spec.distribution,
    }
    try:
        adapter = registry.get(spec.name)
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


def _adapters(*, as_json: bool, check: bool, out: TextIO) -> int:
    registry = Registry()
    rows = [_adapter_row(registry, spec) for spec in registry.specs()]
    if as_json:
        out.writelines(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
    else:
        width = max((len(str(row["name"])) for row in rows), default=0)
        for row in rows:
            origin = f"{row['origin']} ({row['distribution']})"
            if row["status"] == "ok":
                detail = f"{row['display_name']}, parser {row['parser_version']}"
            else:
                detail = f"NOT LOADABLE: {row['error']}"
            out.write(f"{row['name']:<{width}}  {origin:<28}  {detail}\n")
    failed = any(row["status"] != "ok" for row in rows)
    return EXIT_FAILED if check and failed else EXIT_OK


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line with ``argv`` (default: ``sys.argv[1:]``); return the exit code."""
    args = _build_parser().parse_args(argv)
    if args.command == "adapters":
        return _adapters(as_json=args.json, check=args.check, out=sys.stdout)
    return EXIT_USAGE  # pragma: no cover -- argparse rejects unknown commands first
