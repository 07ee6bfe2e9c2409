"""Shared helpers: fixture cases copied into a temporary home, run through an adapter, checked."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Final

import chatparse
from chatparse.host import Host
from chatparse.model import ParsedConversation
from chatparse.serialize import from_dict, to_dict
from chatparse.testing import Case, check_conversation, load_cases, materialize

__all__ = [
    "ADAPTERS",
    "FIXTURES",
    "budget",
    "case_home",
    "cases_of",
    "check_all",
    "run_adapter",
]

FIXTURES: Final = Path(__file__).resolve().parents[2] / "fixtures"
ADAPTERS: Final = ("claude-code", "codex", "copilot", "cursor", "trae")
FUZZ_ENV: Final = "CHATPARSE_FUZZ_EXAMPLES"


def budget(default: int) -> int:
    """The number of examples to try: ``default``, or ``$CHATPARSE_FUZZ_EXAMPLES`` when set."""
    value = os.environ.get(FUZZ_ENV, "")
    return int(value) if value.strip() else default


def cases_of(adapter: str) -> tuple[Case, ...]:
    """Every runnable fixture case of ``adapter``."""
    return tuple(case for case in load_cases(FIXTURES, adapter=adapter) if case.problem is None)


@contextmanager
def case_home(case: Case, workdir: Path) -> Iterator[Path]:
    """Copy ``case``'s home into ``workdir/home`` and materialize its databases for the block."""
    home = workdir / "home"
    shutil.copytree(case.home_dir, home, symlinks=True)
    with materialize(home):
        yield home


def host_for(case: Case, home: Path) -> Host:
    """The host the case describes, rooted at ``home``."""
    return Host(home=home, env=case.host_env(home), platform=case.platform)


def run_adapter(case: Case, home: Path) -> list[ParsedConversation]:
    """Detect, scan and parse every conversation of ``case``'s adapter in ``home``."""
    adapter = chatparse.get_adapter(case.adapter)
    found = adapter.detect(host_for(case, home))
    if found is None:
        return []
    return [adapter.parse(meta) for meta in list(adapter.scan(found))]


def check_all(conversations: list[ParsedConversation]) -> None:
    """Assert every invariant the kit knows, and the two the issue names, for each conversation."""
    for conversation in conversations:
        assert conversation.diagnostics.balanced, conversation.diagnostics
        assert from_dict(ParsedConversation, to_dict(conversation)) == conversation
        assert check_conversation(conversation) == []
