"""The public functions: detect, scan, parse, iter_conversations and parse_path."""

from __future__ import annotations

from pathlib import Path

import pytest

import chatparse
from chatparse import registry
from chatparse.errors import (
    AdapterNotFoundError,
    ChatparseWarning,
    ParseWarning,
    SourceUnavailableError,
    UnsupportedInputError,
)

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
