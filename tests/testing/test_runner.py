"""The runner: goldens, invariants and the broken fixtures the kit must catch."""

from __future__ import annotations

import base64
import hashlib
import json
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import closing
from datetime import UTC, datetime, timedelta
from itertools import count
from pathlib import Path
from typing import Any, ClassVar

import pytest
from attrs import evolve

from chatparse import (
    ConversationMeta,
    Diagnostics,
    Host,
    Message,
    ParsedConversation,
    SourceInfo,
    ToolCall,
)
from chatparse.testing import CaseResult, load_cases, run_case

CaseMaker = Callable[..., Path]


class LineAdapter:
    """A file-per-session adapter: ``~/.kit/<id>.txt``, one user message per line.

    Subclasses override one hook each to break exactly one rule.
    """

    name = "kit-test"
    display_name = "Kit Test"
    parser_version = "1"
    scan_reads_content: ClassVar[object] = False

    def detect(self, host: Host) -> SourceInfo | None:
        """The ``.kit`` folder, when present."""
        root = host.home / ".kit"
        if not root.is_dir():
            return None
        return SourceInfo(source=self.name, display_name=self.display_name, roots=(str(root),))

    def scan(self, source: SourceInfo) -> Iterator[ConversationMeta]:
        """One conversation per ``.txt`` file, by stat."""
        for path in sorted(Path(source.roots[0]).glob("*.txt")):
            stat = path.stat()
            yield ConversationMeta(
                source=self.name,
                id=path.stem,
                path=str(path),
                size=stat.st_size,
                mtime=datetime.fromtimestamp(stat.st_mtime, UTC),
                fingerprint=f"{stat.st_size}:{stat.st_mtime_ns}",
                title=self.scan_title(path),
            )

    def scan_title(self, path: Path) -> str | None:  # noqa: ARG002 -- hook for subclasses
        """No title at scan time: that would need the content."""
        return None

    def text(self, line: str) -> str:
        """The message text for one line."""
        return line

    def message_id(self, meta: ConversationMeta, number: int) -> str:
        """A deterministic id per line."""
        return hashlib.sha256(f"{meta.id}:{number}".encode()).hexdigest()[:12]

    def fields_for(self, meta: ConversationMeta) -> dict[str, Any]:  # noqa: ARG002 -- subclass hook
        """More ParsedConversation fields."""
        return {}

    def parse(self, meta: ConversationMeta) -> ParsedConversation:
        """Every line is a user message."""
        lines = Path(meta.path).read_text(encoding="utf-8").splitlines()
        messages = [
            Message(id=self.message_id(meta, n), role="user", text=self.text(line))
            for n, line in enumerate(lines)
        ]
        fields: dict[str, Any] = {
            "source": self.name,
            "id": meta.id,
            "meta": meta,
            "parser_version": self.parser_version,
            "messages": messages,
            "diagnostics": Diagnostics(records_seen=len(lines), records_used=len(lines)),
        }
        fields.update(self.fields_for(meta))
        return ParsedConversation(**fields)


class SqliteAdapter:
    """A shared-container adapter: ``~/db/chat.db``, table ``chats(id, body)``, one chat per row."""

    name = "kit-sql"
    display_name = "Kit SQL"
    parser_version = "1"
    scan_reads_content = True

    def detect(self, host: Host) -> SourceInfo | None:
        """The database, when present."""
        path = host.home / "db" / "chat.db"
        if not path.is_file():
            return None
        return SourceInfo(source=self.name, display_name=self.display_name, roots=(str(path),))

    def connect(self, path: str) -> sqlite3.Connection:
        """A read-only connection."""
        return sqlite3.connect(f"file:{path}?mode=ro", uri=True)

    def scan(self, source: SourceInfo) -> Iterator[ConversationMeta]:
        """One conversation per row."""
        path = source.roots[0]
        with closing(self.connect(path)) as connection:
            ids = [row[0] for row in connection.execute("SELECT id FROM chats ORDER BY id")]
        for chat_id in ids:
            yield ConversationMeta(source=self.name, id=chat_id, path=path, fingerprint=chat_id)

    def parse(self, meta: ConversationMeta) -> ParsedConversation:
        """The row's body is one user message; BLOB bodies are decoded as UTF-8."""
        with closing(self.connect(meta.path)) as connection:
            (body,) = connection.execute(
                "SELECT body FROM chats WHERE id = ?", (meta.id,)
            ).fetchone()
        text = body.decode("utf-8") if isinstance(body, bytes) else str(body)
        kind = "blob" if isinstance(body, bytes) else "text"
        return ParsedConversation(
            source=self.name,
            id=meta.id,
            meta=meta,
            parser_version=self.parser_version,
            title=kind,
            messages=[Message(id="m0", role="user", text=text)],
            diagnostics=Diagnostics(records_seen=1, records_used=1),
        )


CHATS = {".kit/one.txt": "hello\nworld\n", ".kit/two.txt": "second chat\n"}


def run(folder: Path, adapter: object | None = None, *, update: bool = False) -> CaseResult:
    """Run the one case in ``folder`` with ``adapter`` (default: a plain LineAdapter)."""
    [case] = load_cases(folder)
    return run_case(case, adapter=adapter or LineAdapter(), update=update)  # type: ignore[arg-type]


def accepted(folder: Path, adapter: object | None = None) -> CaseResult:
    """Write the golden with --update, then run again; the second run must pass."""
    first = run(folder, adapter, update=True)
    assert first.passed, first.report()
    return run(folder, adapter)


def problems(result: CaseResult) -> str:
    """All problems as one string, for ``in`` checks."""
    return "\n".join(result.problems)


# --- goldens ----------------------------------------------------------------------------------


def test_update_writes_a_canonical_golden_that_then_passes(make_case: CaseMaker) -> None:
    """--update writes the golden once; a second run passes without rewriting."""
    folder = make_case(files=CHATS)
    first = run(folder, update=True)
    assert first.passed
    assert first.golden_written
    second = run(folder)
    assert second.passed
    assert not second.golden_written
    text = (folder / "expected.json").read_text(encoding="utf-8")
    assert text.endswith("}\n")
    data = json.loads(text)
    assert list(data) == ["conversations", "detect", "golden_format"]
    assert data["golden_format"] == 1
    assert [c["id"] for c in data["conversations"]] == ["one", "two"]
    assert data["detect"]["roots"] == ["~/.kit"]
    assert data["conversations"][0]["meta"]["path"] == "~/.kit/one.txt"
    assert data["conversations"][0]["meta"]["mtime"] == "2025-01-01T00:00:00Z"


def test_golden_holds_no_temporary_path(make_case: CaseMaker) -> None:
    """The temporary home is written as ~ everywhere, even inside message text."""

    class EchoHome(LineAdapter):
        def text(self, line: str) -> str:
            return f"{line} at {self.home}/x"

        def detect(self, host: Host) -> SourceInfo | None:
            self.home = host.home
            return super().detect(host)

    folder = make_case(files=CHATS)
    result = run(folder, EchoHome(), update=True)
    assert result.actual is not None
    assert "chatparse-case-" not in result.actual
    assert "hello at ~/x" in result.actual


def test_non_ascii_is_written_as_is(make_case: CaseMaker) -> None:
    """Goldens are not ASCII-escaped."""
    folder = make_case(files={".kit/u.txt": "Grüße 🎉\n"})
    result = run(folder, update=True)
    assert "Grüße 🎉" in (folder / "expected.json").read_text(encoding="utf-8")
    assert result.passed


def test_wrong_golden_fails_with_a_diff(make_case: CaseMaker) -> None:
    """A golden that no longer matches fails and shows a unified diff of what changed."""
    folder = make_case(files=CHATS)
    run(folder, update=True)
    golden = folder / "expected.json"
    golden.write_text(golden.read_text(encoding="utf-8").replace('"world"', '"planet"'))
    result = run(folder)
    assert not result.passed
    assert "differs from expected.json" in problems(result)
    assert result.diff is not None
    assert '-          "text": "planet",' in result.diff
    assert '+          "text": "world",' in result.diff
    report = result.report(regenerate="REGEN-COMMAND")
    assert "REGEN-COMMAND" in report
    assert "kit-test/case" in report


def test_missing_golden_fails(make_case: CaseMaker) -> None:
    """A case without expected.json fails (and shows what the golden would be)."""
    result = run(make_case(files=CHATS))
    assert not result.passed
    assert "no golden" in problems(result)
    assert result.diff is not None
    assert result.diff.startswith("--- /dev/null")


@pytest.mark.parametrize("missing", ["case.toml", "home"])
def test_orphan_golden_fails(make_case: CaseMaker, missing: str) -> None:
    """A golden whose case lost its case.toml or home/ fails as an orphan, even with --update."""
    folder = make_case(files=CHATS)
    run(folder, update=True)
    target = folder / missing
    if target.is_dir():
        for path in sorted(target.rglob("*"), reverse=True):
            path.unlink() if path.is_file() else path.rmdir()
        target.rmdir()
    else:
        target.unlink()
    result = run(folder, update=True)
    assert not result.passed
    assert "orphan golden" in problems(result)


def test_update_refuses_output_that_breaks_an_invariant(make_case: CaseMaker) -> None:
    """--update never writes a golden from output that breaks an invariant."""

    class Surrogate(LineAdapter):
        def text(self, line: str) -> str:
            return line + "\ud800"

    folder = make_case(files=CHATS)
    result = run(folder, Surrogate(), update=True)
    assert not result.passed
    assert not (folder / "expected.json").exists()
    assert "was not rewritten" in problems(result)


def test_fixed_and_overridden_mtimes(make_case: CaseMaker) -> None:
    """Every file gets the case's mtime; files.mtimes overrides single files."""
    toml = """
        description = "mtimes"
        [files]
        mtime = 2024-02-03T04:05:06Z
        [files.mtimes]
        ".kit/two.txt" = 2020-01-01T00:00:00+02:00
    """
    folder = make_case(files=CHATS, toml=toml)
    result = run(folder, update=True)
    assert result.actual is not None
    data = json.loads(result.actual)
    mtimes = {c["id"]: c["meta"]["mtime"] for c in data["conversations"]}
    assert mtimes == {"one": "2024-02-03T04:05:06Z", "two": "2019-12-31T22:00:00Z"}


def test_host_platform_and_env_reach_the_adapter(make_case: CaseMaker) -> None:
    """The adapter sees the case's platform and env, with {home} expanded to the temp home."""
    seen: dict[str, Any] = {}

    class Spy(LineAdapter):
        def detect(self, host: Host) -> SourceInfo | None:
            seen.update(platform=host.platform, env=dict(host.env), home=str(host.home))
            return super().detect(host)

    toml = """
        description = "host"
        [host]
        platform = "win32"
        env = { APPDATA = "{home}/AppData/Roaming", LANG = "C" }
    """
    assert run(make_case(files=CHATS, toml=toml), Spy(), update=True).passed
    assert seen["platform"] == "win32"
    assert seen["env"] == {"APPDATA": f"{seen['home']}/AppData/Roaming", "LANG": "C"}


def test_default_host_is_fixed_not_this_machine(make_case: CaseMaker) -> None:
    """Without [host], a case runs as linux with an empty environment."""
    seen: dict[str, Any] = {}

    class Spy(LineAdapter):
        def detect(self, host: Host) -> SourceInfo | None:
            seen.update(platform=host.platform, env=dict(host.env))
            return super().detect(host)

    run(make_case(files=CHATS), Spy(), update=True)
    assert seen == {"platform": "linux", "env": {}}


def test_no_source_gives_a_null_detect(make_case: CaseMaker) -> None:
    """A home without the source yields detect null and no conversations."""
    result = run(make_case(files={".keep": ""}), update=True)
    assert result.passed
    assert result.actual is not None
    assert json.loads(result.actual) == {"conversations": [], "detect": None, "golden_format": 1}


def test_problem_case_fails_without_running(make_case: CaseMaker) -> None:
    """A case whose case.toml is broken fails with the reason."""
    folder = make_case(files=CHATS, toml='description = "x"\nplatform = "linux"\n')
    result = run(folder)
    assert not result.passed
    assert "unknown key(s) platform" in problems(result)


def test_unknown_adapter_fails_the_case(make_case: CaseMaker) -> None:
    """A case for an adapter that is not installed fails, naming it."""
    [case] = load_cases(make_case(files=CHATS, adapter="no-such-adapter"))
    result = run_case(case)
    assert not result.passed
    assert "adapter unavailable" in problems(result)
    assert "no-such-adapter" in problems(result)


# --- invariants: each broken adapter must make the kit fail --------------------------------------


class Surrogate(LineAdapter):
    def text(self, line: str) -> str:
        return line[:2] + "\udc80" + line[2:]


class Base64Image(LineAdapter):
    def text(self, line: str) -> str:
        payload = base64.b64encode(hashlib.sha512(line.encode()).digest() * 3).decode()
        return f"{line} data:image/png;base64,{payload}"


class DuplicateIds(LineAdapter):
    def message_id(self, meta: ConversationMeta, number: int) -> str:  # noqa: ARG002 -- broken on purpose
        return "same"


class Unbalanced(LineAdapter):
    def fields_for(self, meta: ConversationMeta) -> dict[str, Any]:  # noqa: ARG002 -- broken on purpose
        return {"diagnostics": Diagnostics(records_seen=5, records_used=1)}


_calls = count()


class Nondeterministic(LineAdapter):
    def fields_for(self, meta: ConversationMeta) -> dict[str, Any]:  # noqa: ARG002 -- broken on purpose
        return {"title": f"parse number {next(_calls)}"}


class NoRoundTrip(LineAdapter):
    def fields_for(self, meta: ConversationMeta) -> dict[str, Any]:  # noqa: ARG002 -- broken on purpose
        message = Message(
            id="tool",
            role="assistant",
            tool_calls=[ToolCall(id="t1", name="edit", input=("a", "tuple"))],
        )
        return {"messages": [message], "diagnostics": Diagnostics(records_seen=1, records_used=1)}


class WrongSource(LineAdapter):
    def fields_for(self, meta: ConversationMeta) -> dict[str, Any]:  # noqa: ARG002 -- broken on purpose
        return {"source": "someone-else"}


class WritesUnderHome(LineAdapter):
    def parse(self, meta: ConversationMeta) -> ParsedConversation:
        Path(meta.path).with_suffix(".cache").write_text("cached", encoding="utf-8")
        return super().parse(meta)


class TouchesSession(LineAdapter):
    def parse(self, meta: ConversationMeta) -> ParsedConversation:
        with Path(meta.path).open("a", encoding="utf-8") as handle:
            handle.write("appended\n")
        return super().parse(meta)


class DeletesSession(LineAdapter):
    def parse(self, meta: ConversationMeta) -> ParsedConversation:
        conversation = super().parse(meta)
        Path(meta.path).unlink()
        return conversation


class ReadsInScan(LineAdapter):
    def scan_title(self, path: Path) -> str | None:
        return path.read_text(encoding="utf-8").splitlines()[0]


class ParseRaises(LineAdapter):
    def parse(self, meta: ConversationMeta) -> ParsedConversation:
        if meta.id == "two":
            msg = "cannot read this one"
            raise RuntimeError(msg)
        return super().parse(meta)


class DetectRaises(LineAdapter):
    def detect(self, host: Host) -> SourceInfo | None:
        msg = f"no idea about {host.platform}"
        raise ValueError(msg)


class SubagentDuplicates(LineAdapter):
    def fields_for(self, meta: ConversationMeta) -> dict[str, Any]:
        child = ParsedConversation(
            source=self.name,
            id=f"{meta.id}-child",
            meta=meta,
            parser_version="1",
            messages=[Message(id="x", role="user"), Message(id="x", role="assistant")],
            diagnostics=Diagnostics(records_seen=2, records_used=2),
        )
        return {"subagents": [child]}


class WrongDetectType(LineAdapter):
    def detect(self, host: Host) -> SourceInfo | None:  # noqa: ARG002 -- broken on purpose
        return "a string"  # type: ignore[return-value]


class WrongScanType(LineAdapter):
    def scan(self, source: SourceInfo) -> Iterator[ConversationMeta]:  # noqa: ARG002 -- broken
        yield {"id": "dict"}  # type: ignore[misc]


class WrongParseType(LineAdapter):
    def parse(self, meta: ConversationMeta) -> ParsedConversation:
        return super().parse(meta).messages[0]  # type: ignore[return-value]


class NotJson(LineAdapter):
    def fields_for(self, meta: ConversationMeta) -> dict[str, Any]:  # noqa: ARG002 -- broken
        call = ToolCall(id="t", name="x", input={1, 2})
        message = Message(id="m", role="assistant", tool_calls=[call])
        return {"messages": [message], "diagnostics": Diagnostics(records_seen=1, records_used=1)}


class MtimeTimes(LineAdapter):
    """Takes the conversation's start from its file: deterministic, and invented."""

    def fields_for(self, meta: ConversationMeta) -> dict[str, Any]:
        return {"created_at": meta.mtime}


class ClockTimes(LineAdapter):
    """Stamps each message with today's date: the same on every parse of a day, and invented."""

    def parse(self, meta: ConversationMeta) -> ParsedConversation:
        conversation = super().parse(meta)
        today = datetime.now(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
        messages = [evolve(message, timestamp=today) for message in conversation.messages]
        return evolve(conversation, messages=messages)


_NEXT_YEAR = datetime.now(UTC) + timedelta(days=365)


class ExpiresSoon(LineAdapter):
    """Refuses to parse once the clock passes a date: the moved clock's parse raises."""

    def parse(self, meta: ConversationMeta) -> ParsedConversation:
        if datetime.now(UTC) > _NEXT_YEAR:
            msg = "this reader has expired"
            raise RuntimeError(msg)
        return super().parse(meta)


class ResultsAsTurns(LineAdapter):
    """Reads a line "result: ..." as a user turn holding the tool's output, not as a result."""

    def parse(self, meta: ConversationMeta) -> ParsedConversation:
        conversation = super().parse(meta)
        result = ToolCall(id="t1", name="Bash", output=conversation.messages[0].text)
        first = evolve(conversation.messages[0], text="", tool_calls=[result])
        return evolve(conversation, messages=[first, *conversation.messages[1:]])


BROKEN: list[tuple[type[LineAdapter], str]] = [
    (WrongDetectType, "detect() must return SourceInfo or None, got str"),
    (WrongScanType, "scan() must return ConversationMeta items, got dict"),
    (WrongParseType, "parse() of conversation 'one' must return a ParsedConversation, got Message"),
    (NotJson, "to_dict(c) is not plain JSON data"),
    (Surrogate, "$.messages[0].text is not well-formed Unicode"),
    (Base64Image, "base64-looking payload"),
    (DuplicateIds, "message ids are not unique: 'same'"),
    (Unbalanced, "diagnostics do not balance: records_seen=5"),
    (Nondeterministic, "parsing twice gave different results"),
    (NoRoundTrip, "from_dict(to_dict(c)) != c"),
    (WrongSource, "source is 'someone-else'"),
    (WritesUnderHome, "created ~/.kit/one.cache"),
    (TouchesSession, "changed ~/.kit/one.txt (content, modification time)"),
    (DeletesSession, "deleted ~/.kit/one.txt"),
    (ReadsInScan, "scan() opened ~/.kit/one.txt"),
    (ParseRaises, "parse() of conversation 'two'"),
    (DetectRaises, "detect() raised ValueError: no idea about linux"),
    (SubagentDuplicates, "conversation 'one' > subagent 'one-child': message ids are not unique"),
    (MtimeTimes, "with every file's modification time moved, the output changed"),
    (ClockTimes, "with the clock moved, the output changed"),
    (ExpiresSoon, "with the clock moved, parse() of conversation 'one'"),
    (ResultsAsTurns, "user turn (kind 'message') made only of tool results"),
]


@pytest.mark.parametrize(("adapter", "expected"), BROKEN, ids=[cls.__name__ for cls, _ in BROKEN])
def test_broken_adapter_fails_its_case(
    make_case: CaseMaker, adapter: type[LineAdapter], expected: str
) -> None:
    """Each way of breaking the rules fails the case with a message naming case and problem."""
    golden_source = make_case("golden", files=CHATS)
    run(golden_source, update=True)
    folder = make_case(files=CHATS)
    (folder / "expected.json").write_bytes((golden_source / "expected.json").read_bytes())
    result = run(folder, adapter())
    assert not result.passed
    text = problems(result)
    assert expected in text, text
    assert all(problem.startswith("[kit-test/case] ") for problem in result.problems)


def test_conversation_messages_name_the_conversation(make_case: CaseMaker) -> None:
    """An invariant violation names the conversation id it was found in."""
    result = run(make_case(files=CHATS), DuplicateIds())
    assert any("conversation 'one': message ids" in p for p in result.problems)


def test_lone_surrogate_report_still_prints(make_case: CaseMaker) -> None:
    """A report about a lone surrogate is itself encodable, so CLI and pytest can print it."""
    result = run(make_case(files=CHATS), Surrogate())
    result.report().encode("utf-8")
    result.summary().encode("utf-8")


def test_declared_scan_reads_are_allowed(make_case: CaseMaker) -> None:
    """An adapter that declares scan_reads_content may open files during scan."""

    class Declared(ReadsInScan):
        scan_reads_content = True

    class Patterns(ReadsInScan):
        scan_reads_content = ("*.txt",)

    class OtherPatterns(ReadsInScan):
        scan_reads_content = ("*.json",)

    folder = make_case(files=CHATS)
    assert accepted(folder, Declared()).passed
    assert run(folder, Patterns()).passed
    assert "scan() opened" in problems(run(folder, OtherPatterns()))


def test_bad_scan_reads_declaration_fails(make_case: CaseMaker) -> None:
    """A scan_reads_content that is neither bool nor patterns is reported."""

    class Bad(LineAdapter):
        scan_reads_content = 3

    folder = make_case(files=CHATS)
    assert "must be a bool or a collection of glob patterns" in problems(run(folder, Bad()))


def test_reads_outside_scan_are_not_reported(make_case: CaseMaker) -> None:
    """Only scan is watched: parse reads its files freely, and the watch ends with scan."""
    folder = make_case(files=CHATS)
    assert accepted(folder).passed
    (folder / "home" / ".kit" / "one.txt").read_text(encoding="utf-8")


# --- SQLite cases -----------------------------------------------------------------------------

SQL_TEXT = """
journal_mode = "{mode}"

[[tables]]
name = "chats"
sql = "CREATE TABLE chats (id TEXT PRIMARY KEY, body)"

[[tables.rows]]
id = "a"
body = "checkpointed text"

[[tables.rows]]
id = "b"
body = {{ blob = "checkpointed blob" }}
{wal}
"""

WAL_ROWS = """
[[tables.wal_rows]]
id = "c"
body = "only in the WAL"
"""


def sql_case(make_case: CaseMaker, *, mode: str = "wal", wal: bool = True) -> Path:
    """A case whose home holds ~/db/chat.db in the SQLite text form."""
    text = SQL_TEXT.format(mode=mode, wal=WAL_ROWS if wal else "")
    return make_case(adapter="kit-sql", files={"db/chat.db.sqlite.toml": text})


def test_sqlite_case_sees_wal_rows_and_blobs(make_case: CaseMaker) -> None:
    """A read-only reader sees checkpointed rows, BLOBs and rows still in an open writer's WAL."""
    result = accepted(sql_case(make_case), SqliteAdapter())
    assert result.passed, result.report()
    assert result.actual is not None
    data = json.loads(result.actual)
    texts = {c["id"]: (c["title"], c["messages"][0]["text"]) for c in data["conversations"]}
    assert texts == {
        "a": ("text", "checkpointed text"),
        "b": ("blob", "checkpointed blob"),
        "c": ("text", "only in the WAL"),
    }
    assert data["detect"]["roots"] == ["~/db/chat.db"]


def test_rollback_journal_case_passes(make_case: CaseMaker) -> None:
    """A database in the default rollback-journal mode is read without leaving anything behind."""
    assert accepted(sql_case(make_case, mode="delete", wal=False), SqliteAdapter()).passed


def test_reader_that_creates_wal_files_is_caught(make_case: CaseMaker) -> None:
    """Opening a closed WAL database read-only creates -wal/-shm files: the kit reports it."""
    result = run(sql_case(make_case, wal=False), SqliteAdapter(), update=True)
    assert "created ~/db/chat.db-shm" in problems(result)


def test_adapter_leaving_a_database_locked_fails(make_case: CaseMaker) -> None:
    """A cursor left open holds a lock; the kit finds it after the run."""
    leaked: list[sqlite3.Connection] = []
    cursors: list[sqlite3.Cursor] = []

    class Leaky(SqliteAdapter):
        def scan(self, source: SourceInfo) -> Iterator[ConversationMeta]:
            connection = self.connect(source.roots[0])
            leaked.append(connection)
            cursor = connection.execute("SELECT id FROM chats ORDER BY id")
            cursor.fetchone()  # a half-read cursor keeps its read transaction open
            cursors.append(cursor)
            yield from super().scan(source)

    try:
        result = run(sql_case(make_case, mode="delete", wal=False), Leaky(), update=True)
    finally:
        for connection in leaked:
            connection.close()
    assert "left a database locked: ~/db/chat.db is still locked" in problems(result)


def test_adapter_leaving_a_wal_snapshot_open_fails(make_case: CaseMaker) -> None:
    """In WAL mode a lingering read transaction does not block writers, but is still found."""
    leaked: list[sqlite3.Connection] = []

    class Leaky(SqliteAdapter):
        def scan(self, source: SourceInfo) -> Iterator[ConversationMeta]:
            connection = self.connect(source.roots[0])
            leaked.append(connection)
            connection.execute("BEGIN")
            connection.execute("SELECT count(*) FROM chats").fetchone()
            yield from super().scan(source)

    try:
        result = run(sql_case(make_case), Leaky(), update=True)
    finally:
        for connection in leaked:
            connection.close()
    assert "still has a reader holding a snapshot" in problems(result)


def test_bad_sqlite_text_fails_the_case(make_case: CaseMaker) -> None:
    """A database text file the kit cannot materialize fails the case with the reason."""
    folder = make_case(adapter="kit-sql", files={"db/chat.db.sqlite.toml": "tables = 3\n"})
    result = run(folder, SqliteAdapter())
    assert "cannot set up the case" in problems(result)
    assert "[[tables]]" in problems(result)


def test_materialized_databases_never_reach_the_fixture(make_case: CaseMaker) -> None:
    """The fixture folder keeps only the text form; databases exist in the temporary copy."""
    folder = sql_case(make_case)
    accepted(folder, SqliteAdapter())
    assert sorted(p.name for p in (folder / "home" / "db").iterdir()) == ["chat.db.sqlite.toml"]


def test_undeclared_sqlite_scan_is_caught(make_case: CaseMaker) -> None:
    """sqlite3.connect during scan counts as reading content unless the adapter declares it."""

    class Undeclared(SqliteAdapter):
        scan_reads_content = False

    class OnlyDatabases(SqliteAdapter):
        scan_reads_content = ("db/*.db",)  # type: ignore[assignment]

    folder = sql_case(make_case)
    assert "scan() opened ~/db/chat.db" in problems(run(folder, Undeclared(), update=True))
    assert run(folder, OnlyDatabases(), update=True).passed
