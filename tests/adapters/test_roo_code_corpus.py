"""Every Roo Code sample of ../shared/corpus-next/roo-code parses in full.

The samples are copied into a temporary home (never into the repo); the facts checked were
read off the raw files.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from corpus_home import parse_home

from chatparse.adapters.roo_code import RooCodeAdapter
from chatparse.model import ParsedConversation

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus-next" / "roo-code"
TASKS = Path(".config/Code/User/globalStorage/rooveterinaryinc.roo-cline/tasks")

pytestmark = pytest.mark.skipif(not CORPUS.is_dir(), reason=f"no corpus at {CORPUS}")


@pytest.fixture
def parsed(tmp_path: Path) -> dict[str, ParsedConversation]:
    """Both samples' task folders, side by side in one extension folder."""
    shutil.copytree(
        CORPUS / "vshulcz__deja-vu" / "fixtures" / "registry" / "roo" / "tasks", tmp_path / TASKS
    )
    shutil.copytree(
        CORPUS
        / "yigitkonur__cli-continues"
        / "test-fixtures"
        / "roo-code"
        / "tasks"
        / "test-task-1",
        tmp_path / TASKS / "test-task-1",
    )
    return parse_home(RooCodeAdapter(), tmp_path)


def test_history_item_gives_title_and_workspace(parsed: dict[str, ParsedConversation]) -> None:
    conversation = parsed["1767225700000"]
    assert (conversation.title, conversation.project_path) == (
        "Fix the flaky test",
        "/home/example/work/demo",
    )
    assert conversation.created_at is not None  # the task id, epoch ms
    assert conversation.created_at.isoformat() == "2026-01-01T00:01:40+00:00"
    assert [m.text for m in conversation.messages] == [
        "Fix the flaky test",
        "The retry loop reused a stale timeout; pinned it per attempt.",
    ]


def test_the_ui_log_starts_with_say_text(parsed: dict[str, ParsedConversation]) -> None:
    """Roo's first row is say:text, the prompt; three requests carry usage."""
    conversation = parsed["test-task-1"]
    assert conversation.messages[0].role == "user"
    assert (
        conversation.title == "Set up a CI/CD pipeline with GitHub Actions for our Node.js project"
    )
    usages = [m.usage for m in conversation.messages if m.usage is not None]
    assert [(u.input_tokens, u.output_tokens) for u in usages] == [(120, 0), (360, 400), (450, 350)]
    assert conversation.messages[-1].text == (
        "CI/CD pipeline created at .github/workflows/ci.yml with matrix testing on Node 18 and 20."
    )
