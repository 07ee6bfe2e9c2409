"""Regression tests for crashes the robustness tests found, each pinned without randomness."""

from __future__ import annotations

import sqlite3
import tempfile
import tracemalloc
from contextlib import closing
from pathlib import Path

import pytest

from chatparse.adapters.claude_code import ClaudeCodeAdapter
from chatparse.decoders import bigjson, sqlite
from chatparse.decoders.sqlite import open_snapshot
from chatparse.model import ParsedConversation
from robustness._support import case_home, cases_of, check_all, run_adapter


def test_tables_lists_every_table_when_batches_end_after_one_row(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``Snapshot.tables()`` reads every batch: one cut short by its time limit loses no table."""
    path = tmp_path / "state.vscdb"
    with closing(sqlite3.connect(path)) as connection:
        for name in ("ItemTable", "cursorDiskKV", "third"):
            connection.execute(f'CREATE TABLE "{name}" (key TEXT UNIQUE, value BLOB)')
        connection.commit()
    # A batch ends once 0 s have passed: after every row, as on a machine under load.
    monkeypatch.setattr(sqlite, "_BATCH_SECONDS", 0.0)
    with open_snapshot(path) as snapshot:
        assert snapshot.tables() == {"ItemTable", "cursorDiskKV", "third"}


def _deep(depth: int) -> bytes:
    return b"[" * depth + b"]" * depth


def test_bigjson_stops_at_the_depth_limit_with_bounded_memory() -> None:
    """A 100,000-deep item yields the items before it, then one Malformed, in a few MB.

    ijson's memory grows with the square of the depth (over 20 GB here, killed by the kernel).
    """
    document = b'{"items": [{"a": 1}, ' + _deep(100_000) + b', {"b": 2}]}'
    tracemalloc.start()
    try:
        items = list(bigjson.iter_items(document, "items.item"))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert items[0] == bigjson.Item(0, {"a": 1})
    assert isinstance(items[-1], bigjson.Malformed)
    assert items[-1].reason == "nested deeper than 1024 levels"
    assert len(items) == 2
    assert peak < 32 * 1024 * 1024


@pytest.mark.parametrize(("depth", "parsed"), [(1022, "Item"), (1023, "Malformed")])
def test_bigjson_depth_limit_counts_every_level(depth: int, parsed: str) -> None:
    """The document's own object and array count: 1024 levels in all parse, 1025 do not."""
    items = list(bigjson.iter_items(b'{"items": [' + _deep(depth) + b"]}", "items.item"))
    assert type(items[-1]).__name__ == parsed


def test_bigjson_brackets_in_strings_across_chunks_are_not_nesting() -> None:
    """Brackets and escaped quotes inside long strings, over many reads, do not count as depth."""
    text = b'\\"[{' * 100_000
    document = b'{"items": [{"a": "' + text + b'"}, ' + _deep(1000) + b"]}"
    items = list(bigjson.iter_items(document, "items.item"))
    assert [type(item).__name__ for item in items] == ["Item", "Item"]


def test_bigjson_depth_limit_reached_at_a_chunk_boundary() -> None:
    """A read that starts right at the level too deep reports the depth, not an early end."""
    document = b'{"items": [{"pad": "' + b"x" * (64 * 1024 - 20 - 4 - 1022) + b'"}, '
    document += b"[" * 1023 + b"]" * 1023 + b"]}"
    # The 1025th opening bracket is the first byte of the second 64 KiB read.
    assert document.index(b"[" * 1023) + 1022 == 64 * 1024
    items = list(bigjson.iter_items(document, "items.item"))
    assert [type(item).__name__ for item in items] == ["Item", "Malformed"]
    assert isinstance(items[-1], bigjson.Malformed)
    assert items[-1].reason == "nested deeper than 1024 levels"


def _append_to(case_name: str, suffix: str, lines: list[bytes]) -> list[ParsedConversation]:
    """Parse the case with ``lines`` appended to its files ending in ``suffix``."""
    adapter = case_name.partition("/")[0]
    case = next(case for case in cases_of(adapter) if case.name == case_name)
    with (
        tempfile.TemporaryDirectory(prefix="chatparse-regress-") as tmp,
        case_home(case, Path(tmp)) as home,
    ):
        for path in home.rglob(f"*{suffix}"):
            path.write_bytes(path.read_bytes() + b"".join(line + b"\n" for line in lines))
        return run_adapter(case, home)


UNHASHABLE_TYPES = [b'{"type": []}', b'{"type": {"a": 1}}', b'{"type": [1], "data": {}}']


def test_codex_record_types_that_are_not_strings_are_unknown() -> None:
    """A Codex response item or event whose type is a list or object is kept as unknown."""
    lines = [
        b'{"timestamp": "2026-01-02T10:20:00Z", "type": "response_item", "payload": {"type": []}}',
        b'{"timestamp": "2026-01-02T10:20:01Z", "type": "event_msg", "payload": {"type": {}}}',
    ]
    (conversation,) = _append_to("codex/modern-rollout", "a01.jsonl", lines)
    check_all([conversation])
    assert [u.raw for u in conversation.diagnostics.unknown[-2:]] == [
        line.decode() for line in lines
    ]


def test_copilot_transcript_event_types_that_are_not_strings_are_unknown() -> None:
    """A Copilot transcript event whose type is a list or object is kept as unknown."""
    conversations = _append_to("copilot/transcript-merge", "9900.jsonl", UNHASHABLE_TYPES)
    check_all(conversations)


@pytest.mark.parametrize("content", [b"8.3e-269", b"true", b'{"type": "text", "text": "lone"}'])
def test_claude_code_message_content_that_is_not_a_list(content: bytes) -> None:
    """A Claude Code user or assistant line whose content is a number or one object parses."""
    lines = [
        b'{"type": "user", "uuid": "u-odd", "sessionId": "s", "message": {"role": "user", '
        b'"content": ' + content + b"}}",
        b'{"type": "assistant", "uuid": "a-odd", "sessionId": "s", "message": {"role": '
        b'"assistant", "id": "msg_odd", "content": ' + content + b"}}",
    ]
    (conversation,) = _append_to("claude-code/tool-pairing", ".jsonl", lines)
    check_all([conversation])


def test_claude_code_timestamp_that_is_a_list() -> None:
    """A Claude Code line whose timestamp is a list or an object parses (it was hashed as is)."""
    lines = [
        (
            b'{"type": "user", "uuid": "u-ts", "timestamp": [], "message": {"role": "user", '
            b'"content": "a"}}'
        ),
        (
            b'{"type": "user", "uuid": "u-ts2", "timestamp": {"a": 1}, "message": '
            b'{"role": "user", "content": "b"}}'
        ),
    ]
    (conversation,) = _append_to("claude-code/tool-pairing", ".jsonl", lines)
    check_all([conversation])


@pytest.mark.parametrize("kind", [b'["user"]', b'{"a": 1}', b"7"])
def test_claude_code_sniff_of_a_line_whose_type_is_not_a_string(
    tmp_path: Path, kind: bytes
) -> None:
    """Found by fuzzing parse_path: a list-valued ``type`` made sniff raise TypeError."""
    path = tmp_path / "session.jsonl"
    path.write_bytes(b'{"type": ' + kind + b', "uuid": "u1"}\n')
    assert ClaudeCodeAdapter().sniff(path) == 0.0
