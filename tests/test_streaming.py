"""``iter_messages`` yields what ``parse`` holds: on every fixture, corpus file and line prefix."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

import chatparse
from chatparse._streaming import IdHorizons, iter_messages
from chatparse.adapter.protocol import MessageStreamer, PathSniffer
from chatparse.host import Host
from chatparse.model import ConversationMeta
from chatparse.testing._case import load_cases

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
CORPUS = ROOT.parent / "shared" / "corpus"
STREAMING = ("claude-code", "codex")


def _metas(source: str, case_name: str, tmp_path: Path) -> list[ConversationMeta]:
    """Every conversation the adapter lists in a copy of the fixture's home."""
    case = next(c for c in load_cases(FIXTURES, adapter=source) if c.name == case_name)
    home = tmp_path / "home"
    shutil.copytree(case.home_dir, home)
    host = Host(home=home, env=case.host_env(home), platform=case.platform)
    adapter = chatparse.get_adapter(source)
    found = adapter.detect(host)
    return [] if found is None else list(adapter.scan(found))


def _cases() -> Iterator[object]:
    for source in STREAMING:
        for case in load_cases(FIXTURES, adapter=source):
            yield pytest.param(source, case.name, id=case.name)


def _assert_streams_as_parsed(meta: ConversationMeta) -> int:
    parsed = chatparse.parse(meta).messages
    streamed = list(iter_messages(meta))
    assert streamed == list(parsed)
    return len(parsed)


@pytest.mark.parametrize(("source", "case_name"), list(_cases()))
def test_streaming_equals_parsing_on_fixtures(source: str, case_name: str, tmp_path: Path) -> None:
    for meta in _metas(source, case_name, tmp_path):
        _assert_streams_as_parsed(meta)


@pytest.mark.parametrize(("source", "case_name"), list(_cases()))
def test_streaming_equals_parsing_on_every_prefix(
    source: str, case_name: str, tmp_path: Path
) -> None:
    """Each JSON Lines file cut after every line, and in the middle of the next (torn)."""
    for meta in _metas(source, case_name, tmp_path):
        path = Path(meta.path)
        if path.suffix != ".jsonl":
            continue
        whole = path.read_bytes()
        ends = [i + 1 for i, byte in enumerate(whole) if byte == ord("\n")]
        starts = [0, *ends]
        torn = ((a + b) // 2 for a, b in zip(starts, [*ends, len(whole)], strict=True))
        cuts = sorted({*starts, *torn})
        for cut in cuts:
            path.write_bytes(whole[:cut])
            _assert_streams_as_parsed(meta)


def _corpus_files() -> list[object]:
    if not CORPUS.is_dir():
        return [pytest.param(None, None, marks=pytest.mark.skip(reason="no corpus here"))]
    return [
        pytest.param(source, path, id=f"{source}:{path.name}")
        for source in STREAMING
        for path in sorted((CORPUS / source).rglob("*.jsonl"))
    ]


@pytest.mark.parametrize(("source", "path"), _corpus_files())
def test_streaming_equals_parsing_on_the_corpus(source: str, path: Path) -> None:
    adapter = chatparse.get_adapter(source)
    assert isinstance(adapter, PathSniffer)
    for meta in adapter.scan_path(path):
        _assert_streams_as_parsed(meta)


def test_claude_code_and_codex_stream() -> None:
    for source in STREAMING:
        assert isinstance(chatparse.get_adapter(source), MessageStreamer)


def test_other_adapters_fall_back_to_parse(tmp_path: Path) -> None:
    adapter = chatparse.get_adapter("copilot")
    assert not isinstance(adapter, MessageStreamer)
    metas = _metas("copilot", load_cases(FIXTURES, adapter="copilot")[0].name, tmp_path)
    assert metas
    counted = [_assert_streams_as_parsed(meta) for meta in metas]
    assert any(counted)  # the fixture has messages: the comparison compared something


def test_a_message_is_handed_out_before_the_file_is_read(tmp_path: Path) -> None:
    """The window: the first message comes while later lines are still unread."""
    path = tmp_path / "projects" / "p" / "s.jsonl"
    path.parent.mkdir(parents=True)
    lines = [
        '{"type":"user","uuid":"u1","parentUuid":null,"message":{"role":"user","content":"hi"}}',
        *(
            f'{{"type":"progress","uuid":"p{n}","parentUuid":"u1","data":"{"x" * 2000}"}}'
            for n in range(3000)
        ),
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    adapter = chatparse.get_adapter("claude-code")
    assert isinstance(adapter, PathSniffer)
    meta = next(iter(adapter.scan_path(path)))
    messages = iter_messages(meta)
    first = next(messages)
    assert first.text == "hi"
    frame = messages.gi_frame  # type: ignore[attr-defined]  # the generator, paused
    line = frame.f_locals["line"]
    assert line.end_offset < path.stat().st_size // 2


def test_iter_messages_takes_a_meta() -> None:
    with pytest.raises(TypeError, match="iter_messages"):
        iter_messages("session.jsonl")  # type: ignore[arg-type]


def test_an_id_is_settled_only_past_its_last_line(tmp_path: Path) -> None:
    path = tmp_path / "ids.jsonl"
    first = b'{"id":"a","uuid":"b"}\n'
    second = b'{"tool_use_id" : "a"}\n'
    path.write_bytes(first + second)
    horizons = IdHorizons(path)
    end = len(first) + len(second)
    assert horizons.passed("a", end)
    assert horizons.passed("b", end)
    assert horizons.passed("never written", 0)
    assert not horizons.passed("a", end + 1)  # past what was indexed: the file grew


def test_an_escape_that_may_spell_an_id_holds_every_id(tmp_path: Path) -> None:
    path = tmp_path / "escaped.jsonl"
    path.write_bytes(b'{"id":"a"}\n{"\\u0069d":"x"}\n')
    horizons = IdHorizons(path)
    assert not horizons.passed("x", 0)
    assert horizons.passed("x", path.stat().st_size)
