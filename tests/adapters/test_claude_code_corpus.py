"""Every real Claude Code file in ../shared/corpus parses, with every line accounted for."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from chatparse.adapters.claude_code import ClaudeCodeAdapter
from chatparse.host import Host
from chatparse.testing import check_conversation

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus" / "claude-code"

pytestmark = pytest.mark.skipif(not CORPUS.is_dir(), reason=f"no corpus at {CORPUS}")


def lay_out_as_home(home: Path) -> int:
    """Copy each corpus transcript into <home>/.claude/projects/<its folder>/, keeping layouts."""
    projects = home / ".claude" / "projects"
    count = 0
    for source in sorted(CORPUS.rglob("*.jsonl")):
        parts = source.relative_to(CORPUS).parts
        if "subagents" in parts:
            at = parts.index("subagents")
            target = projects / parts[at - 2] / parts[at - 1] / "subagents" / parts[-1]
        else:
            target = projects / parts[-2] / parts[-1]
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
        sidecar = source.with_name(source.stem + ".meta.json")
        if sidecar.is_file():
            shutil.copyfile(sidecar, target.with_name(sidecar.name))
        count += 1
    return count


def test_every_corpus_file_parses_with_balanced_diagnostics(tmp_path: Path) -> None:
    """Parse the whole corpus as one home: no exception, and every invariant holds."""
    files = lay_out_as_home(tmp_path)
    adapter = ClaudeCodeAdapter()
    found = adapter.detect(Host(home=tmp_path, env={}))
    assert found is not None
    conversations = [adapter.parse(meta) for meta in adapter.scan(found)]
    problems = [p for c in conversations for p in check_conversation(c)]
    assert problems == []
    read = len(conversations) + sum(len(c.subagents) for c in conversations)
    empty = sum(1 for path in tmp_path.rglob("*.jsonl") if path.stat().st_size == 0)
    assert read + empty == files
    assert sum(len(c.messages) for c in conversations) > 100  # 150 at the time of writing
