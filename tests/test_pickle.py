"""Every model object pickles and unpickles equal, so metas and results cross processes.

Checked on every conversation of every conformance golden (rebuilt with ``from_dict``) and on
every seed corpus file that ``parse_path`` reads, at the highest protocol and protocol 5.
"""

from __future__ import annotations

import json
import pickle
import warnings
from pathlib import Path
from typing import Any

import pytest

import chatparse
from chatparse import ParsedConversation
from chatparse.errors import ChatparseError

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO.parent / "shared" / "corpus"
GOLDENS = sorted(REPO.glob("fixtures/*/*/expected.json"))


def round_trips(value: Any) -> None:
    for protocol in {5, pickle.HIGHEST_PROTOCOL}:
        copy = pickle.loads(pickle.dumps(value, protocol=protocol))  # noqa: S301 -- our own bytes
        assert copy == value
        assert type(copy) is type(value)


def every_object(conversation: ParsedConversation) -> list[Any]:
    objects: list[Any] = [conversation, conversation.meta, conversation.diagnostics]
    objects += conversation.diagnostics.unknown
    for message in conversation.messages:
        objects += [message, message.usage, *message.tool_calls, *message.images]
    for subagent in conversation.subagents:
        objects += every_object(subagent)
    return [o for o in objects if o is not None]


@pytest.mark.parametrize("golden", GOLDENS, ids=lambda p: f"{p.parent.parent.name}/{p.parent.name}")
def test_every_golden_conversation_pickles(golden: Path) -> None:
    document = json.loads(golden.read_text(encoding="utf-8"))
    conversations = [chatparse.from_dict(c) for c in document["conversations"]]
    for conversation in conversations:
        for value in every_object(conversation):
            round_trips(value)


def test_goldens_were_found() -> None:
    assert len(GOLDENS) >= 50


@pytest.mark.skipif(not CORPUS.is_dir(), reason=f"no corpus at {CORPUS}")
def test_every_corpus_file_read_by_parse_path_pickles() -> None:
    read = 0
    for path in sorted(p for p in CORPUS.rglob("*") if p.is_file()):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # a skipped store is not this test's concern
                conversations = chatparse.parse_path(path)
        except ChatparseError:
            continue  # not a conversation file (a licence, a README) or not readable alone
        for conversation in conversations:
            round_trips(conversation)
            round_trips(conversation.meta)
            read += 1
    assert read >= 20
