"""Hostile inputs: huge lines, absurd nesting, broken encodings, loops, races, impostor files."""

from __future__ import annotations

import json
import os
import sqlite3
import sys
import tempfile
import threading
import tracemalloc
import warnings
from collections.abc import Callable, Iterator
from contextlib import closing, contextmanager
from pathlib import Path
from typing import Any, Final

import pytest

import chatparse
from chatparse.decoders import jsonl
from chatparse.errors import SkippedSourceWarning, SourceUnavailableError
from chatparse.model import ParsedConversation
from chatparse.testing import Case
from robustness._support import (
    ADAPTERS,
    case_home,
    cases_of,
    check_all,
    host_for,
    open_to_all,
    run_adapter,
    where_modes_apply,
)

GIB: Final = 1 << 30
MIB: Final = 1 << 20
_PLACEHOLDER: Final = "\x00chatparse-payload\x00"

# Windows has no POSIX file modes: chmod only sets the read-only flag, so a folder cannot be made
# unlistable, and where_modes_apply needs os.geteuid and os.fork.
NEEDS_POSIX_MODES: Final = pytest.mark.skipif(
    sys.platform == "win32", reason="Windows has no POSIX file modes to deny a folder's listing"
)
# Windows lets only administrators and Developer Mode make symbolic links, and a link to a
# folder must be made as a directory link: the loops below cannot be laid out as on POSIX.
NEEDS_POSIX_SYMLINKS: Final = pytest.mark.skipif(
    sys.platform == "win32", reason="Windows symbolic links need a privilege and a target kind"
)

# One case per adapter and container kind, each holding real-shaped records to sit beside.
CASES: Final = {
    "aider": "project-folders-current-format",
    "amp": "typical-thread",
    "antigravity": "cli-full-transcript-and-history",
    "claude-code": "tool-pairing",
    "cline": "typical-native-tools",
    "cline-json": "sdk-sessions-subagent-compaction",
    "codex": "modern-rollout",
    "codex-json": "typescript-json-document",
    "continue": "ide-sessions-with-index",
    "copilot": "log-append-and-rewrite",
    "copilot-cli": "current-events-and-workspace",
    "copilot-db": "legacy-interactive-sessions",
    "copilot-json": "json-versions",
    "crush": "crush-project-tools-subagent-summary",
    "cursor": "heads-and-global-bubbles",
    "cursor-cli": "transcripts-nested-flat-and-subagent",
    "factory-droid": "typical-session",
    "gemini-cli": "replay-log",
    "gemini-cli-json": "legacy-document",
    "goose": "early-schema-compaction-and-legacy-files",
    "goose-db": "sessions-db-thinking-tools-subagent",
    "grok-build": "typical-session-with-subagent",
    "hermes": "state-db-compression-chain-and-subagent",
    "kilo-code": "typical-globalstate-index",
    "kilo-code-db": "kilo7-database-and-json-tree",
    "kimi": "code-oplog-subagent-compaction-undo",
    "kiro": "session-files-kiro-home-and-amazon-q",
    "mistral-vibe": "typical-2x-session-with-subagent",
    "oh-my-pi": "title-slot-and-subagents",
    "openclaw": "gateway-session",
    "opencode": "json-storage-tree",
    "opencode-db": "sqlite-tools-usage-subagent",
    "openhands": "typical-session-with-usage",
    "pi": "v3-tools-and-usage",
    "qwen-code": "telemetry-usage",
    "roo-code": "typical-history-item-condense",
    "trae": "turn-order-and-timestamps",
    "windsurf": "typical-hook-transcript",
    "zed": "first-agent-versions-macos",
}

PAYLOADS: Final = {
    "deep-arrays": b"[" * 100_000 + b"]" * 100_000,
    "deep-objects": b'{"a":' * 100_000 + b"1" + b"}" * 100_000,
    "invalid-utf8": b'{"type":"user","text":"\xff\xfe\xc3 \xed\xa0\x80 end"}',
    "bom-mid-file": b'\xef\xbb\xbf{"type":"user","message":{"role":"user","content":"bom"}}',
    "nul": b'{"type":"user","text":"a\x00b"}\x00\x00',
    "rtl-and-emoji": '{"type":"user","text":"\u202e\U0001f469\u200d\U0001f4bb\u200f"}'.encode(),
}


def _case(key: str) -> Case:
    adapter = key.rsplit("-", 1)[0] if key.endswith(("-json", "-db")) else key
    name = f"{adapter}/{CASES[key]}"
    return next(case for case in cases_of(adapter) if case.name == name)


def _records_file(home: Path) -> Path | None:
    """The largest conversation file (not ``workspace.json``) of a home, if it has one."""
    files = [
        path
        for path in home.rglob("*")
        if path.is_file() and path.suffix in {".jsonl", ".json"} and path.name != "workspace.json"
    ]
    return max(files, key=lambda path: path.stat().st_size, default=None)


def _into_first_list(value: Any) -> Any:
    """``value`` with the placeholder added to its first (breadth-first) list of objects."""
    queue = [value]
    while queue:
        node = queue.pop(0)
        children = (
            list(node.values())
            if isinstance(node, dict)
            else node
            if isinstance(node, list)
            else []
        )
        if isinstance(node, list) and any(isinstance(item, dict) for item in node):
            node.insert(min(1, len(node)), _PLACEHOLDER)
            return value
        queue.extend(children)
    return [value, _PLACEHOLDER]


def _embed(raw: bytes, payload: bytes) -> bytes:
    """A JSON document with ``payload`` as one more item of its first list of objects."""
    text = json.dumps(_into_first_list(json.loads(raw))).encode()
    return text.replace(json.dumps(_PLACEHOLDER).encode(), payload)


def inject(home: Path, payload: bytes) -> str:
    """Put ``payload`` among the records of the home's conversation store; say where."""
    target = _records_file(home)
    if target is not None and target.suffix == ".jsonl":
        lines = target.read_bytes().splitlines(keepends=True)
        target.write_bytes(b"".join([*lines[:1], payload + b"\n", *lines[1:]]))
        return str(target)
    if target is not None:
        target.write_bytes(_embed(target.read_bytes(), payload))
        return str(target)
    for db in sorted(home.rglob("*.vscdb")):
        with closing(sqlite3.connect(db, isolation_level=None)) as connection:
            connection.text_factory = bytes
            tables = [
                row[0].decode()
                for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
            ]
            for table in tables:
                biggest = connection.execute(
                    f'SELECT rowid, value FROM "{table}" ORDER BY length(value) DESC LIMIT 1'  # noqa: S608 -- test tables
                ).fetchone()
                if biggest is None:
                    continue
                try:
                    new = _embed(biggest[1], payload)
                except (TypeError, ValueError):
                    new = payload
                connection.execute(
                    f'UPDATE "{table}" SET value = CAST(? AS TEXT) WHERE rowid = ?',  # noqa: S608 -- ditto
                    (new, biggest[0]),
                )
    return "databases"


@contextmanager
def home_of(key: str) -> Iterator[tuple[Case, Path]]:
    """A temporary copy of the key's case, databases materialized."""
    case = _case(key)
    with (
        tempfile.TemporaryDirectory(prefix="chatparse-hostile-") as tmp,
        case_home(case, Path(tmp)) as home,
    ):
        yield case, home


@pytest.mark.parametrize("payload", PAYLOADS)
@pytest.mark.parametrize("key", CASES)
def test_hostile_record_among_real_ones(key: str, payload: str) -> None:
    """A hostile record among real ones parses without raising, and every invariant holds."""
    with home_of(key) as (case, home):
        before = run_adapter(case, home)
        inject(home, PAYLOADS[payload])
        after = run_adapter(case, home)
        check_all(after)
        lost = {c.id for c in before} - {c.id for c in after}
        # One JSON value holding many sessions (Trae's store) cannot be read past a syntax error
        # or the depth limit: the sessions after it are lost, and a warning says so.
        warnings = [w for c in after for w in c.diagnostics.warnings]
        assert not lost or any("cannot be read" in warning for warning in warnings), lost


def _counted_peak(work: Callable[[], object]) -> int:
    tracemalloc.start()
    try:
        work()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_gigabyte_line_from_a_pipe_costs_bounded_memory() -> None:
    """A 1 GiB line from a pipe is reported malformed; peak memory stays far below its size."""
    read_end, write_end = os.pipe()
    piece = b'{"type":"user","text":"' + b"x" * (MIB - 30)

    def produce() -> None:
        with open(write_end, "wb") as out:  # noqa: PTH123 -- a pipe descriptor, not a path
            out.writelines(piece for _ in range(GIB // len(piece) + 1))
            out.write(b'"}\n{"type":"after"}\n')

    writer = threading.Thread(target=produce)
    writer.start()
    records: list[jsonl.Line | jsonl.Malformed] = []
    with open(read_end, "rb") as stream:  # noqa: PTH123 -- ditto
        peak = _counted_peak(lambda: records.extend(jsonl.iter_lines(stream)))
    writer.join()
    assert [type(record).__name__ for record in records] == ["Malformed", "Line"]
    assert isinstance(records[0], jsonl.Malformed)
    assert records[0].end_offset > GIB
    assert peak < 2 * jsonl.MAX_LINE_BYTES + 16 * MIB


def test_a_gigabyte_line_in_a_session_file_costs_bounded_memory() -> None:
    """A Claude Code session with a 1 GiB line (sparse) parses its other lines, memory bounded."""
    with home_of("claude-code") as (case, home):
        session = _records_file(home)
        assert session is not None
        lines = session.read_bytes().splitlines(keepends=True)
        with session.open("wb") as out:
            out.write(lines[0])
            out.seek(GIB, os.SEEK_CUR)  # a hole of NUL bytes: one line of 1 GiB, never on disk
            out.write(b"\n" + b"".join(lines[1:]))
        conversations: list[ParsedConversation] = []
        peak = _counted_peak(lambda: conversations.extend(run_adapter(case, home)))
        check_all(conversations)
        (conversation,) = conversations
        assert conversation.diagnostics.malformed == 1
        assert len(conversation.messages) > 1
        assert peak < 2 * jsonl.MAX_LINE_BYTES + 16 * MIB


# --- the source tree itself ----------------------------------------------------------------------

# Every adapter, and Copilot's JSON session files as a container of their own.
TREE_CASES: Final = (*ADAPTERS, "copilot-json")


def _is_store(path: Path) -> bool:
    """A database, or a chat log that is not JSON (Aider's Markdown history)."""
    return path.suffix in {".vscdb", ".db", ".sqlite3"} or path.name.endswith(".chat.history.md")


def _session_dir(home: Path) -> Path:
    target = _records_file(home)
    if target is not None:
        return target.parent
    stores = (path for path in home.rglob("*") if path.is_file() and _is_store(path))
    return max(stores, key=lambda path: len(path.parts)).parent


@NEEDS_POSIX_SYMLINKS
@pytest.mark.parametrize("key", TREE_CASES)
def test_symlink_loops_in_the_tree_do_not_stop_the_scan(key: str) -> None:
    """Self-links, a two-link cycle and a link to an ancestor are passed over; data still parses."""
    with home_of(key) as (case, home):
        expected = {c.id for c in run_adapter(case, home)}
        folder = _session_dir(home)
        (folder / "self.jsonl").symlink_to(folder / "self.jsonl")
        (folder / "a.json").symlink_to(folder / "b.json")
        (folder / "b.json").symlink_to(folder / "a.json")
        (folder / "up").symlink_to(folder.parent)
        (folder / "state.vscdb-loop").symlink_to(folder / "state.vscdb-loop")
        conversations = run_adapter(case, home)
        check_all(conversations)
        assert {c.id for c in conversations} >= expected


LOOKS_IN_LOCKED: Final = frozenset(
    {
        "aider",
        "claude-code",
        "cline",
        "codex",
        "copilot-cli",
        "crush",
        "cursor",
        "cursor-cli",
        "factory-droid",
        "grok-build",
        "kilo-code",
        "kimi",
        "kiro",
        "mistral-vibe",
        "oh-my-pi",
        "openhands",
        "pi",
        "roo-code",
        "trae",
    }
)
"""Adapters that list the folder the test locks (Copilot never looks in it): each must warn."""


@NEEDS_POSIX_MODES
@pytest.mark.parametrize("mode", [0o000, 0o444], ids=["unlistable", "listable-not-searchable"])
@pytest.mark.parametrize("key", TREE_CASES)
def test_unreadable_files_and_folders_are_passed_over_and_the_scan_goes_on(
    key: str, mode: int
) -> None:
    """An unreadable folder is passed over with a warning; an unreadable store cannot be parsed.

    A folder of mode ``r--`` shows its names but refuses their stat: what it holds must be passed
    over as loudly as a folder that cannot be listed at all. Run as a user the modes apply to,
    also when the tests run as root (see where_modes_apply).
    """
    with home_of(key) as (case, home):
        adapter = chatparse.get_adapter(case.adapter)
        expected = {c.id for c in run_adapter(case, home)}  # also imports what the checks use
        folder = _session_dir(home)
        locked = folder.parent / "locked"
        locked.mkdir()
        (locked / "x.jsonl").write_text("{}\n")

        def scan_goes_on() -> None:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                conversations = run_adapter(case, home, quiet=False)
            check_all(conversations)
            assert {c.id for c in conversations} == expected
            said = [str(w.message) for w in caught if w.category is SkippedSourceWarning]
            assert [w for w in caught if w.category is not SkippedSourceWarning] == []
            if case.adapter in LOOKS_IN_LOCKED:
                assert said, "the unreadable folder was passed over in silence"
                assert all(str(locked) in message for message in said), said
            else:
                assert said == []

        def each_parse_says_unavailable() -> None:
            for meta in metas:
                with pytest.raises(SourceUnavailableError):
                    adapter.parse(meta)

        found = adapter.detect(host_for(case, home))
        assert found is not None
        metas = list(adapter.scan(found))
        open_to_all(home)
        try:
            locked.chmod(mode)
            where_modes_apply(scan_goes_on)
            for meta in metas:
                Path(meta.path).chmod(0)
            where_modes_apply(each_parse_says_unavailable)
        finally:
            locked.chmod(0o700)


@NEEDS_POSIX_MODES
@pytest.mark.parametrize("key", ["cursor", "trae", "copilot"])
def test_a_workspace_storage_that_cannot_be_listed_is_named(key: str) -> None:
    """The folder of all workspaces unreadable: detect and scan go on, and say what they skipped."""
    with home_of(key) as (case, home):
        run_adapter(case, home)  # imports what the check uses
        (storage,) = home.rglob("workspaceStorage")
        open_to_all(home)

        def goes_on_and_says_so() -> None:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                check_all(run_adapter(case, home, quiet=False))
            said = {str(w.message) for w in caught if w.category is SkippedSourceWarning}
            assert any(f"passed over {storage}: cannot be listed" in m for m in said), said

        try:
            storage.chmod(0)
            where_modes_apply(goes_on_and_says_so)
        finally:
            storage.chmod(0o700)


@pytest.mark.parametrize("change", ["truncate", "empty", "replace", "delete", "not-sqlite"])
@pytest.mark.parametrize("key", TREE_CASES)
def test_a_store_changed_between_scan_and_parse(key: str, change: str) -> None:
    """A store truncated, emptied, replaced or deleted after the scan parses or is unavailable."""
    with home_of(key) as (case, home):
        adapter = chatparse.get_adapter(case.adapter)
        found = adapter.detect(host_for(case, home))
        assert found is not None
        metas = list(adapter.scan(found))
        assert metas
        for path in {Path(meta.path) for meta in metas}:
            raw = path.read_bytes()
            if change == "truncate":
                path.write_bytes(raw[: len(raw) // 2])
            elif change == "empty":
                path.write_bytes(b"")
            elif change == "replace":
                path.with_name("new").write_bytes(raw[len(raw) // 3 :])
                path.with_name("new").replace(path)
            elif change == "delete":
                path.unlink()
            else:
                path.write_bytes(b"SQLite format 2\x00" + os.urandom(200))
        unnamed: list[str] = []
        for meta in metas:
            try:
                conversation = adapter.parse(meta)
            except SourceUnavailableError as exc:
                if meta.path not in str(exc):
                    unnamed.append(str(exc))
            else:
                check_all([conversation])
        assert unnamed == []


@pytest.mark.parametrize("key", TREE_CASES)
def test_a_session_file_that_is_a_directory(key: str) -> None:
    """A folder named like a session file or a database is passed over; the rest parses."""
    with home_of(key) as (case, home):
        expected = {c.id for c in run_adapter(case, home)}
        folder = _session_dir(home)
        for name in (
            "rollout-2026-01-02T10-15-00-019b7c2e-0000-7d3e-9b21-6f0c8e1d2aff.jsonl",
            "dddddddd-0000-4ddd-8ddd-0000000000ff.jsonl",
            "x.json",
            "agent-ff.jsonl",
        ):
            (folder / name).mkdir()
        sibling = folder.parent / "ffffffffffffffffffffffffffffffff"
        (sibling / "state.vscdb").mkdir(parents=True)
        conversations = run_adapter(case, home)
        check_all(conversations)
        assert {c.id for c in conversations} >= expected


@pytest.mark.parametrize("key", ["cursor", "trae", "copilot-db"])
def test_a_database_that_is_not_sqlite(key: str) -> None:
    """Each state.vscdb replaced by other bytes: scan passes over it, and names it in a warning.

    ``parse_path`` says it is not a database.

    Copilot reads single session files only, so its ``parse_path`` is not asked about a database.
    """
    with home_of(key) as (case, home):
        dbs = sorted(home.rglob("state.vscdb"))
        assert dbs
        for db in dbs:
            db.write_bytes(b"{" + os.urandom(4096))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            check_all(run_adapter(case, home, quiet=False))
        said = " ".join(str(w.message) for w in caught if w.category is SkippedSourceWarning)
        assert [w for w in caught if w.category is not SkippedSourceWarning] == []
        if case.adapter != "copilot":  # its stores hold drafts; the sessions are files
            assert all(f"passed over {db}: not a SQLite database" in said for db in dbs), said
        if case.adapter == "copilot":
            return
        with pytest.raises(SourceUnavailableError, match="not a SQLite database"):
            chatparse.parse_path(dbs[0], source=case.adapter)
