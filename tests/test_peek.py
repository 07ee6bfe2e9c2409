"""``scan(peek=True)``: titles, projects and times from a bounded read, agreeing with ``parse``."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any, Self

import pytest
from attrs import evolve

import chatparse
from chatparse.adapter import PEEK_BYTES, PathSniffer, Peeker, read_window
from chatparse.adapter import peeking as peeking_module
from chatparse.cli import main
from chatparse.decoders._files import open_binary
from chatparse.decoders.jsonl import Line
from chatparse.host import Host
from chatparse.model import ConversationMeta
from chatparse.registry import get_adapter
from chatparse.testing import load_cases

REPO = Path(__file__).resolve().parents[1]
CORPUS = Path("/work/shared/corpus")
PEEKING = ("claude-code", "codex", "copilot")
FIELDS = ("title", "project_path", "updated_at")


def _cases() -> list[Any]:
    return [case for source in PEEKING for case in load_cases(REPO / "fixtures" / source)]


class _Counting:
    """A binary stream that counts the bytes read through it."""

    def __init__(self, stream: IO[bytes], tally: list[int]) -> None:
        self._stream = stream
        self._tally = tally

    def read(self, size: int = -1) -> bytes:
        data = self._stream.read(size)
        self._tally.append(len(data))
        return data

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *_exc: object) -> None:
        self._stream.close()


@pytest.fixture
def bytes_read(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Every read made through :func:`read_window`, in bytes."""
    tally: list[int] = []
    monkeypatch.setattr(
        peeking_module, "open_binary", lambda path: _Counting(open_binary(path), tally)
    )
    return tally


def _fields(value: Any) -> tuple[Any, ...]:
    return tuple(getattr(value, name) for name in FIELDS)


def _metas(home: Path, case: Any) -> Iterator[ConversationMeta]:
    host = Host(home=home, env=case.host_env(home), platform=case.platform)
    return chatparse.scan(host, sources=case.adapter)


@pytest.mark.parametrize("case", _cases(), ids=lambda case: case.name)
def test_peek_agrees_with_parse_on_every_fixture(
    case: Any, tmp_path: Path, bytes_read: list[int]
) -> None:
    home = tmp_path / "home"
    shutil.copytree(case.home_dir, home)
    adapter = get_adapter(case.adapter)
    assert isinstance(adapter, Peeker)
    for meta in _metas(home, case):
        bytes_read.clear()
        peeked = adapter.peek(meta)
        assert sum(bytes_read) <= 2 * PEEK_BYTES
        parsed = chatparse.parse(meta)
        assert _fields(peeked) == _fields(parsed), meta.path
        # A peeked meta parses as the scanned one: peeking changes no conversation.
        assert chatparse.parse(peeked) == evolve(parsed, meta=peeked), meta.path


def _corpus_metas(source: str) -> Iterator[ConversationMeta]:
    adapter = get_adapter(source)
    assert isinstance(adapter, PathSniffer)
    for path in sorted((CORPUS / source).rglob("*.json*")):
        if adapter.sniff(path) >= 0.5:  # the corpus holds other tools' files too
            yield from adapter.scan_path(path)


@pytest.mark.skipif(not CORPUS.is_dir(), reason="the shared corpus is not on this machine")
@pytest.mark.parametrize("source", PEEKING)
def test_peek_agrees_with_parse_on_the_corpus(source: str, bytes_read: list[int]) -> None:
    adapter = get_adapter(source)
    assert isinstance(adapter, Peeker)
    checked = 0
    for meta in _corpus_metas(source):
        bytes_read.clear()
        peeked = adapter.peek(meta)
        assert sum(bytes_read) <= 2 * PEEK_BYTES, meta.path
        if meta.size is not None and meta.size < PEEK_BYTES:
            assert _fields(peeked) == _fields(chatparse.parse(meta)), meta.path
            checked += 1
    assert checked


def _transcript_line(index: int, text: str) -> str:
    record = {
        "type": "user",
        "uuid": f"u{index}",
        "parentUuid": f"u{index - 1}" if index else None,
        "sessionId": "s",
        "cwd": "/work/p",
        "timestamp": f"2025-01-01T{index // 60:02d}:{index % 60:02d}:00Z",
        "message": {"role": "user", "content": text},
    }
    return json.dumps(record) + "\n"


def test_a_long_transcript_is_peeked_at_both_ends_only(
    tmp_path: Path, bytes_read: list[int]
) -> None:
    folder = tmp_path / ".claude" / "projects" / "-work-p"
    folder.mkdir(parents=True)
    lines = [_transcript_line(index, f"prompt {index} " + "x" * 400) for index in range(1000)]
    rename = '{"type":"custom-title","customTitle":"Renamed at the end","sessionId":"s"}\n'
    (folder / "s.jsonl").write_text("".join([*lines, rename]))
    host = Host(home=tmp_path, env={}, platform="linux")
    [meta] = chatparse.scan(host, sources="claude-code", peek=True)
    [plain] = chatparse.scan(host, sources="claude-code")
    parsed = chatparse.parse(plain)
    assert sum(bytes_read) <= 2 * PEEK_BYTES < (folder / "s.jsonl").stat().st_size
    assert (
        _fields(meta)
        == _fields(parsed)
        == (
            "Renamed at the end",
            "/work/p",
            parsed.messages[-1].timestamp,
        )
    )
    assert plain.title is None


def test_the_default_scan_does_not_peek(tmp_path: Path, bytes_read: list[int]) -> None:
    folder = tmp_path / ".claude" / "projects" / "-work-p"
    folder.mkdir(parents=True)
    (folder / "s.jsonl").write_text(_transcript_line(0, "hello"))
    host = Host(home=tmp_path, env={}, platform="linux")
    [meta] = chatparse.scan(host, sources="claude-code")
    assert (meta.title, bytes_read) == (None, [])
    [peeked] = chatparse.scan(host, sources="claude-code", peek=True)
    assert peeked.title == "hello"


def test_a_window_of_a_long_file_holds_whole_lines_from_each_end(tmp_path: Path) -> None:
    path = tmp_path / "lines.jsonl"
    lines = [f'{{"n":{index},"pad":"{"y" * 90}"}}\n' for index in range(5000)]
    path.write_text("".join(lines))
    window = read_window(path, budget=1000)
    head = [line.value["n"] for line in window.head_lines() if isinstance(line, Line)]
    tail = [line.value["n"] for line in window.tail_lines() if isinstance(line, Line)]
    assert not window.whole
    assert head == list(range(1000 // len(lines[0])))
    assert tail == list(range(5000 - len(tail), 5000))
    assert 0 < len(tail) <= len(head)


def test_a_short_file_is_one_whole_window(tmp_path: Path) -> None:
    path = tmp_path / "short.jsonl"
    path.write_bytes(b'{"a":1}\n{"a":2}')
    window = read_window(path, budget=10)
    assert window.whole
    assert [line.value for line in window.head_lines() if isinstance(line, Line)] == [
        {"a": 1},
        {"a": 2},
    ]
    assert list(window.tail_lines()) == []


def test_a_copilot_session_larger_than_the_window_is_left_as_scanned(tmp_path: Path) -> None:
    [case] = [case for case in _cases() if case.name == "copilot/json-versions"]
    home = tmp_path / "home"
    shutil.copytree(case.home_dir, home)
    adapter = get_adapter("copilot")
    assert isinstance(adapter, Peeker)
    metas = {meta.id: meta for meta in _metas(home, case)}
    padded = metas["v3-session"]
    with Path(padded.path).open("a") as session:
        session.write(" " * PEEK_BYTES)  # JSON allows trailing spaces: parse is unchanged
    assert adapter.peek(padded) == padded
    small = metas["v2-session"]
    assert adapter.peek(small).title == chatparse.parse(small).title is not None


def test_the_cli_scan_peeks(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / ".claude" / "projects" / "-work-p"
    folder.mkdir(parents=True)
    (folder / "s.jsonl").write_text(_transcript_line(0, "name me after this"))
    assert main(["scan", "--home", str(tmp_path), "--source", "claude-code", "--json"]) == 0
    [row] = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert (row["title"], row["project_path"], row["updated_at"]) == (
        "name me after this",
        "/work/p",
        "2025-01-01T00:00:00Z",
    )
