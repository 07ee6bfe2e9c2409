"""The optional BatchParser protocol, and how iter_conversations uses it."""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

import chatparse
from chatparse import registry
from chatparse.adapter import BatchParser
from chatparse.errors import ParseWarning
from chatparse.model import ConversationMeta, ParsedConversation

from conftest import NoteAdapter


class BatchNoteAdapter(NoteAdapter):
    """The notes adapter, with a ``parsing()`` block that records what happens to it."""

    events: list[str]

    def __init__(self) -> None:
        self.events = []

    @contextmanager
    def parsing(self) -> Iterator[Callable[[ConversationMeta], ParsedConversation]]:
        self.events.append("open")

        def parse_one(meta: ConversationMeta) -> ParsedConversation:
            self.events.append(f"parse {meta.id}")
            return self.parse(meta)

        try:
            yield parse_one
        finally:
            self.events.append("close")


@pytest.fixture
def batch_notes(
    tmp_path: Path, ghost_builtins: registry.Registry
) -> tuple[chatparse.Host, BatchNoteAdapter]:
    adapter = BatchNoteAdapter()
    ghost_builtins.register(adapter, replace=False)
    notes = tmp_path / ".notes"
    notes.mkdir()
    for name, text in (("a", "one\ntwo\n"), ("b", "three\n"), ("c", "four\n")):
        (notes / f"{name}.txt").write_text(text, encoding="utf-8")
    return chatparse.Host(home=tmp_path, env={}, platform="linux"), adapter


def test_the_protocol_is_optional_and_checked_at_runtime() -> None:
    assert isinstance(BatchNoteAdapter(), BatchParser)
    assert not isinstance(NoteAdapter(), BatchParser)


def test_iter_conversations_parses_a_source_in_one_block(
    batch_notes: tuple[chatparse.Host, BatchNoteAdapter],
) -> None:
    host, adapter = batch_notes
    ids = [c.id for c in chatparse.iter_conversations(host, sources=["notes"])]
    assert ids == ["a", "b", "c"]
    assert adapter.events == ["open", "parse a", "parse b", "parse c", "close"]


def test_the_block_ends_when_the_caller_stops_early(
    batch_notes: tuple[chatparse.Host, BatchNoteAdapter],
) -> None:
    host, adapter = batch_notes
    conversations = chatparse.iter_conversations(host, sources=["notes"])
    assert isinstance(conversations, Generator)
    assert next(conversations).id == "a"
    assert adapter.events == ["open", "parse a"]
    conversations.close()
    assert adapter.events == ["open", "parse a", "close"]


def test_a_failure_inside_the_block_is_still_one_warning(
    batch_notes: tuple[chatparse.Host, BatchNoteAdapter],
) -> None:
    host, adapter = batch_notes
    (host.home / ".notes" / "boom.txt").write_text("x\n", encoding="utf-8")
    with pytest.warns(ParseWarning, match="boom"):
        ids = [c.id for c in chatparse.iter_conversations(host, sources=["notes"])]
    assert ids == ["a", "b", "c"]
    assert adapter.events[0] == "open"
    assert adapter.events[-1] == "close"
    assert adapter.events.count("open") == 1


def test_errors_raise_leaves_the_block_closed(
    batch_notes: tuple[chatparse.Host, BatchNoteAdapter],
) -> None:
    host, adapter = batch_notes
    (host.home / ".notes" / "boom.txt").write_text("x\n", encoding="utf-8")
    with pytest.raises(RuntimeError, match="boom"):
        list(chatparse.iter_conversations(host, sources=["notes"], errors="raise"))
    assert adapter.events == ["open", "parse a", "parse b", "parse boom", "close"]


class NotABatchParser(NoteAdapter):
    """Has an attribute called ``parsing`` that is not the protocol's method."""

    parsing = False


def test_an_attribute_named_parsing_is_not_taken_for_the_protocol(
    tmp_path: Path, ghost_builtins: registry.Registry
) -> None:
    ghost_builtins.register(NotABatchParser(), replace=False)
    notes = tmp_path / ".notes"
    notes.mkdir()
    (notes / "a.txt").write_text("one\n", encoding="utf-8")
    host = chatparse.Host(home=tmp_path, env={}, platform="linux")
    found = list(chatparse.iter_conversations(host, sources="notes", errors="raise"))
    assert [c.id for c in found] == ["a"]
