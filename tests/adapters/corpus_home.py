"""What the corpus tests share: real samples put into a fake home, parsed, every record checked.

The samples stay where they are (../shared/corpus*, never in the repo); each test copies them
into a temporary home laid out as the tool lays it out, lets the adapter find them as it would on
a machine, and checks the facts it read off the raw files. ``parse_home`` does the finding and
the checks every such test makes first.

(A module of its own, not ``conftest.py``: a second ``conftest`` module would shadow the one the
tests of ``tests/`` import helpers from by that name.)
"""

from __future__ import annotations

import shutil
from pathlib import Path

from chatparse.adapter import SourceAdapter
from chatparse.host import Host
from chatparse.model import ParsedConversation
from chatparse.testing import check_conversation

__all__ = ["assert_accounted", "parse_home", "place"]


def place(sample: Path, target: Path) -> Path:
    """Copy the file ``sample`` to ``target`` in a fake home, making its folders; ``target``."""
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(sample, target)
    return target


def assert_accounted(conversation: ParsedConversation, *, unknown: bool = False) -> None:
    """Each rule of the model holds, and every record is accounted for, sub-agents' too.

    Accounted for: the ledger balances, nothing was malformed, and (unless ``unknown``, for a
    sample that holds records on purpose that are to be kept raw) nothing was left unknown.
    """
    for each in (conversation, *conversation.subagents):
        assert check_conversation(each) == []
        assert each.diagnostics.balanced
        assert each.diagnostics.malformed == 0
        assert unknown or each.diagnostics.unknown == ()


def parse_home(
    adapter: SourceAdapter, home: Path, platform: str = "linux", *, unknown: bool = False
) -> dict[str, ParsedConversation]:
    """Every conversation ``adapter`` finds in the fake ``home``, by id, each accounted for.

    ``unknown``: records kept raw are allowed (see :func:`assert_accounted`).
    """
    found = adapter.detect(Host(home=home, env={}, platform=platform))
    assert found is not None
    conversations = {meta.id: adapter.parse(meta) for meta in adapter.scan(found)}
    for conversation in conversations.values():
        assert_accounted(conversation, unknown=unknown)
    return conversations
