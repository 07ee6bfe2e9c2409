"""The public functions: detect, scan, parse, iter_conversations and parse_path."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

import chatparse
from chatparse import registry
from chatparse._collector import YOUNG_THRESHOLD_WHILE_PARSING
from chatparse.errors import (
    AdapterNotFoundError,
    ChatparseWarning,
    ParseWarning,
    SourceUnavailableError,
    UnsupportedInputError,
)
from chatparse.model import ConversationMeta, ParsedConversation

from conftest import NoteAdapter


@pytest.fixture
def notes_home(tmp_path: Path, ghost_builtins: registry.Registry) -> chatparse.Host:
    """A fake home with two note files, the notes adapter, and one unwritten built-in."""
    ghost_builtins.register(NoteAdapter, replace=False)
    notes = tmp_path / ".notes"
    notes.mkdir()
    (notes / "a.txt").write_text("one\ntwo\n", encoding="utf-8")
    (notes / "b.txt").write_text("three\n", encoding="utf-8")
    return chatparse.Host(home=tmp_path, env={}, platform="linux")


def test_detect_named_source(notes_home: chatparse.Host) -> None:
    """detect() with a source name asks only that adapter."""
    [found] = chatparse.detect(notes_home, sources=["notes"])
    assert found.source == "notes"
    assert found.roots == (str(notes_home.home / ".notes"),)
    assert chatparse.detect(notes_home, sources="notes") == [found]


def test_detect_all_skips_unloadable_with_warnings(notes_home: chatparse.Host) -> None:
    """Over every adapter, an unwritten built-in is skipped with a warning."""
    with pytest.warns(ChatparseWarning, match="does not include it yet"):
        found = chatparse.detect(notes_home)
    assert [info.source for info in found] == ["notes"]


def test_detect_unknown_name_raises(notes_home: chatparse.Host) -> None:
    """A source named explicitly must exist."""
    with pytest.raises(AdapterNotFoundError):
        chatparse.detect(notes_home, sources=["nope"])


def test_detect_finds_nothing_on_empty_home(
    tmp_path: Path, fresh_registry: registry.Registry
) -> None:
    """No source directory means no SourceInfo, not an error."""
    fresh_registry.register(NoteAdapter, replace=False)
    host = chatparse.Host(home=tmp_path, env={}, platform="linux")
    assert chatparse.detect(host, sources=["notes"]) == []


def test_scan_and_parse(notes_home: chatparse.Host) -> None:
    """scan() lists conversations and parse() reads each with the adapter that listed it."""
    metas = list(chatparse.scan(notes_home, sources=["notes"]))
    assert [meta.id for meta in metas] == ["a", "b"]
    parsed = chatparse.parse(metas[0])
    assert [m.text for m in parsed.messages] == ["one", "two"]


def test_iter_conversations_skips_failures_with_warning(notes_home: chatparse.Host) -> None:
    """A conversation whose parse raises is skipped with a ParseWarning naming it."""
    (notes_home.home / ".notes" / "boom.txt").write_text("x\n", encoding="utf-8")
    with pytest.warns(ParseWarning, match=r"notes conversation boom \(.*boom.txt\)"):
        ids = [c.id for c in chatparse.iter_conversations(notes_home, sources=["notes"])]
    assert ids == ["a", "b"]


def test_a_skipped_conversation_is_reported_at_the_callers_line(
    notes_home: chatparse.Host,
) -> None:
    """The ParseWarning points at the loop that asked, not at chatparse's own code."""
    (notes_home.home / ".notes" / "boom.txt").write_text("x\n", encoding="utf-8")
    with pytest.warns(ParseWarning) as caught:
        for _conversation in chatparse.iter_conversations(notes_home, sources=["notes"]):
            pass
    assert [Path(w.filename).name for w in caught] == [Path(__file__).name]


def test_work_that_fails_after_the_parse_is_that_conversations_failure(
    notes_home: chatparse.Host,
) -> None:
    """map_conversations(func): in this process too, an exception in then skips, or raises."""

    def then(conversation: ParsedConversation) -> str:
        if conversation.id == "a":
            raise LookupError("then failed on a")
        return conversation.id

    with pytest.warns(ParseWarning, match=r"notes conversation a .*LookupError: then failed"):
        ids = list(chatparse.map_conversations(then, notes_home, sources=["notes"]))
    assert ids == ["b"]
    with pytest.raises(LookupError, match="then failed on a"):
        list(chatparse.map_conversations(then, notes_home, sources=["notes"], errors="raise"))


def test_iter_conversations_can_raise(notes_home: chatparse.Host) -> None:
    """errors='raise' stops at the first failing conversation."""
    (notes_home.home / ".notes" / "boom.txt").write_text("x\n", encoding="utf-8")
    with pytest.raises(RuntimeError, match="boom"):
        list(chatparse.iter_conversations(notes_home, sources=["notes"], errors="raise"))


def test_iter_conversations_checks_errors_argument(notes_home: chatparse.Host) -> None:
    """An unknown errors= value is a usage error."""
    with pytest.raises(ValueError, match="errors must be"):
        list(chatparse.iter_conversations(notes_home, errors="ignore"))  # type: ignore[arg-type]  # the point of the test


def test_parse_path_sniffs_source(notes_home: chatparse.Host) -> None:
    """parse_path finds the adapter that recognises the file."""
    path = notes_home.home / ".notes" / "a.txt"
    with pytest.warns(ChatparseWarning):  # the unwritten built-in is skipped
        [parsed] = chatparse.parse_path(path)
    assert parsed.source == "notes"
    assert len(parsed.messages) == 2
    assert chatparse.parse_path(str(path), source="notes") == [parsed]


def test_parse_path_source_overrides_sniffing(notes_home: chatparse.Host) -> None:
    """A named source reads the file even when its sniffer would not claim it."""
    odd = notes_home.home / "renamed.log"
    odd.write_text("hello\n", encoding="utf-8")
    [parsed] = chatparse.parse_path(odd, source="notes")
    assert parsed.messages[0].text == "hello"


def test_parse_path_errors(notes_home: chatparse.Host) -> None:
    """Missing paths and unrecognised files raise clear errors."""
    with pytest.raises(SourceUnavailableError, match="no such file"):
        chatparse.parse_path(notes_home.home / "missing.txt", source="notes")
    other = notes_home.home / "data.bin"
    other.write_bytes(b"\0")
    with (
        pytest.warns(ChatparseWarning),
        pytest.raises(UnsupportedInputError, match="no installed adapter recognises"),
    ):
        chatparse.parse_path(other)


def test_bulk_detect_survives_a_raising_adapter(
    notes_home: chatparse.Host, ghost_builtins: registry.Registry
) -> None:
    """An adapter whose detect() raises is skipped with a warning over all adapters."""

    class Crashy(NoteAdapter):
        name = "crashy"

        def detect(self, host: chatparse.Host) -> chatparse.SourceInfo | None:  # noqa: ARG002 -- the protocol's signature
            raise OSError("permission denied")

    ghost_builtins.register(Crashy, replace=False)
    with pytest.warns(ChatparseWarning) as caught:
        found = chatparse.detect(notes_home)
    assert [info.source for info in found] == ["notes"]
    assert any("'crashy': detect() raised OSError" in str(w.message) for w in caught)
    with pytest.raises(OSError, match="permission denied"):
        chatparse.detect(notes_home, sources=["crashy"])


@pytest.mark.parametrize("value", ["a", Path("a.txt"), None])
def test_parse_of_something_else_than_a_meta_says_what_to_do(value: object) -> None:
    """parse() of an id or a path is a TypeError that names the recipe and parse_path."""
    with pytest.raises(TypeError, match=r"not a \w+; to parse by id, scan first") as caught:
        chatparse.parse(value)  # type: ignore[arg-type]  # the point of the test
    assert "parse_path(PATH)" in str(caught.value)


def test_parse_by_id_recipe_from_the_docs(notes_home: chatparse.Host) -> None:
    """The documented way to parse by id: find the meta with scan(), then parse it."""
    wanted = "b"
    conversation = chatparse.parse(
        next(m for m in chatparse.scan(notes_home, sources="notes") if m.id == wanted)
    )
    assert (conversation.id, [m.text for m in conversation.messages]) == ("b", ["three"])


class PacedNotes(NoteAdapter):
    """Notes that record the collector's thresholds while parsing; ``slow`` waits for a signal."""

    def __init__(self) -> None:
        self.seen: list[tuple[int, int, int]] = []
        self.go_on = threading.Event()
        self.started = threading.Event()

    def parse(self, meta: ConversationMeta) -> ParsedConversation:
        self.seen.append(gc.get_threshold())
        if meta.id == "slow":
            self.started.set()
            assert self.go_on.wait(timeout=30)
        return super().parse(meta)


@pytest.fixture
def thresholds() -> Iterator[tuple[int, int, int]]:
    """CPython 3.11's default thresholds for the test, the process's own put back afterwards.

    Read back, not assumed: a Python whose collector is incremental may report other values.
    """
    before = gc.get_threshold()
    gc.set_threshold(700, 10, 10)
    try:
        yield gc.get_threshold()
    finally:
        gc.set_threshold(*before)


def raised(thresholds: tuple[int, int, int]) -> tuple[int, int, int]:
    """The thresholds while a parse runs: only the young generation's changes."""
    return (YOUNG_THRESHOLD_WHILE_PARSING, *thresholds[1:])


@pytest.fixture
def paced(
    notes_home: chatparse.Host,  # noqa: ARG001 -- registers the plain adapter this one replaces
    ghost_builtins: registry.Registry,
) -> PacedNotes:
    """The notes home read by :class:`PacedNotes` (replacing the plain notes adapter)."""
    adapter = PacedNotes()
    ghost_builtins.register(adapter, replace=True)
    return adapter


def test_parse_collects_young_objects_less_often_and_puts_it_back(
    notes_home: chatparse.Host, paced: PacedNotes, thresholds: tuple[int, int, int]
) -> None:
    """parse, iter_conversations and parse_path raise the young threshold only while parsing."""
    metas = list(chatparse.scan(notes_home, sources=["notes"]))
    chatparse.parse(metas[0])
    assert gc.get_threshold() == thresholds
    assert len(list(chatparse.iter_conversations(notes_home, sources=["notes"]))) == 2
    assert gc.get_threshold() == thresholds
    chatparse.parse_path(notes_home.home / ".notes" / "a.txt", source="notes")
    assert gc.get_threshold() == thresholds
    assert paced.seen == [raised(thresholds)] * 4


def test_batches_of_workers_engines_and_export_are_paced_too(
    notes_home: chatparse.Host, paced: PacedNotes, thresholds: tuple[int, int, int]
) -> None:
    """The batch parse every worker, engine partition and export runs paces the collector."""
    from chatparse._batch import parse_batch  # noqa: PLC0415 -- the internal under test

    metas = list(chatparse.scan(notes_home, sources=["notes"]))
    assert len(parse_batch(metas)) == 2
    assert gc.get_threshold() == thresholds
    assert paced.seen == [raised(thresholds)] * 2


def test_threshold_is_put_back_when_a_parse_raises(
    notes_home: chatparse.Host, paced: PacedNotes, thresholds: tuple[int, int, int]
) -> None:
    """A parse that raises leaves the thresholds as they were."""
    (notes_home.home / ".notes" / "boom.txt").write_text("x\n", encoding="utf-8")
    boom = next(m for m in chatparse.scan(notes_home, sources=["notes"]) if m.id == "boom")
    with pytest.raises(RuntimeError, match="boom"):
        chatparse.parse(boom)
    assert gc.get_threshold() == thresholds
    with pytest.raises(RuntimeError, match="boom"):
        list(chatparse.iter_conversations(notes_home, sources=["notes"], errors="raise"))
    assert gc.get_threshold() == thresholds
    assert paced.seen == [raised(thresholds)] * 4  # boom, then a, b and boom


def test_two_threads_parsing_put_the_threshold_back_after_the_last(
    notes_home: chatparse.Host, paced: PacedNotes, thresholds: tuple[int, int, int]
) -> None:
    """The threshold stays raised until the last of two concurrent parses ends."""
    (notes_home.home / ".notes" / "slow.txt").write_text("x\n", encoding="utf-8")
    metas = {m.id: m for m in chatparse.scan(notes_home, sources=["notes"])}
    slow = threading.Thread(target=chatparse.parse, args=(metas["slow"],))
    slow.start()
    try:
        assert paced.started.wait(timeout=30)
        chatparse.parse(metas["a"])
        assert gc.get_threshold() == raised(thresholds)  # the slow parse still runs
    finally:
        paced.go_on.set()
        slow.join(timeout=30)
    assert gc.get_threshold() == thresholds
    assert paced.seen == [raised(thresholds)] * 2


@pytest.mark.parametrize("outside", [(0, 10, 10), (100_000, 10, 10)])
def test_disabled_or_higher_threshold_is_left_alone(
    notes_home: chatparse.Host,
    paced: PacedNotes,
    thresholds: tuple[int, int, int],  # noqa: ARG001 -- puts the process's own back afterwards
    outside: tuple[int, int, int],
) -> None:
    """Automatic collection turned off (0), or a threshold already higher, is not changed."""
    gc.set_threshold(*outside)
    outside = gc.get_threshold()
    chatparse.parse(next(chatparse.scan(notes_home, sources=["notes"])))
    assert paced.seen == [outside]
    assert gc.get_threshold() == outside


def test_threshold_set_by_the_program_during_a_parse_is_kept(
    notes_home: chatparse.Host, paced: PacedNotes, thresholds: tuple[int, int, int]
) -> None:
    """A threshold the program sets while a parse runs is not overwritten when it ends."""
    metas = iter(chatparse.scan(notes_home, sources=["notes"]))
    original = paced.parse

    def parse_and_retune(meta: ConversationMeta) -> ParsedConversation:
        gc.set_threshold(1234)
        return original(meta)

    paced.parse = parse_and_retune  # type: ignore[method-assign]
    chatparse.parse(next(metas))
    assert gc.get_threshold() == (1234, *thresholds[1:])
