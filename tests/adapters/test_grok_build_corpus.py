"""The real Grok Build files of ../shared/corpus-next/grok-build parse, every record accounted for.

The files are copied into a temporary home laid out as Grok Build lays it out (never into the
repo); the facts checked were read off the raw lines.
"""

from __future__ import annotations

import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest
from corpus_home import parse_home

from chatparse.adapters.grok_build import GrokBuildAdapter
from chatparse.model import ParsedConversation

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus-next" / "grok-build"
CAPTURE = CORPUS / "jazzyalex__agent-sessions/Resources/Fixtures/stage0/agents/grok"
LEGACY = (
    CORPUS / "kenn-io__agentsview/internal/parser/testdata/grok-build/legacy"
    "/%2Fworkspace%2Fagentsview/019f6000-0000-7000-8000-000000000002"
)
MAIN_ID = "019f6851-7ec4-7ef0-97d3-03f3eee38755"
SUB_ID = "019f6851-7ec4-7ef0-97d3-03f3eee38756"

pytestmark = pytest.mark.skipif(not CORPUS.is_dir(), reason=f"no corpus at {CORPUS}")


def _copy(files: list[Path], folder: Path) -> None:
    for path in files:
        if not path.is_file():
            pytest.skip(f"{path} is not in the corpus")
    folder.mkdir(parents=True)
    for path in files:
        shutil.copy(path, folder / path.name)


@pytest.fixture
def captured(tmp_path: Path) -> dict[str, ParsedConversation]:
    """The captured session and its sub-agent, each in its own folder under its cwd."""
    sessions = tmp_path / ".grok" / "sessions" / "%2Ftmp%2Fas-agent-lab%2Fgrok%2Fproject"
    _copy([CAPTURE / "summary.json", CAPTURE / "chat_history.jsonl"], sessions / MAIN_ID)
    subagent = CAPTURE / "subagent"
    _copy([subagent / "summary.json", subagent / "chat_history.jsonl"], sessions / SUB_ID)
    return parse_home(GrokBuildAdapter(), tmp_path, "darwin")


def test_the_captured_v1_session(captured: dict[str, ParsedConversation]) -> None:
    """System prompt skipped, environment context a notice, reasoning on its answer, a search."""
    conversation = captured[MAIN_ID]
    assert conversation.title == "Read hello.py and summarize what it prints"
    assert conversation.project_path == "/tmp/as-agent-lab/grok/project"  # noqa: S108 -- the sample's own
    assert conversation.git_branch == "main"
    assert conversation.created_at == datetime(2026, 7, 31, 10, 13, 27, 574131, tzinfo=UTC)
    assert conversation.updated_at == datetime(2026, 7, 31, 10, 15, 2, 118940, tzinfo=UTC)
    assert conversation.diagnostics.records_seen == 12  # summary.json and 11 lines
    assert conversation.diagnostics.skipped == {"system prompt": 1}
    assert [(m.id, m.role, m.kind) for m in conversation.messages] == [
        ("line-2", "user", "notice"),
        ("line-3", "user", "message"),
        ("line-4", "assistant", "message"),  # the answer takes the line of its reasoning
        ("line-7", "assistant", "message"),  # and of its server-side search
        ("line-10", "assistant", "message"),
        ("line-11", "user", "message"),
    ]
    notice, prompt, first, second, dangling, screenshot = conversation.messages
    assert notice.text.startswith("<user_info>\nOS Version: macos")
    assert prompt.text == "Read hello.py and summarize what it prints without editing files."
    assert first.thinking == (
        "The user wants a summary of hello.py without edits. I should read the file first."
    )
    (read,) = first.tool_calls
    assert (read.name, read.input) == (
        "read_file",
        {"target_file": "/tmp/as-agent-lab/grok/project/hello.py"},  # noqa: S108 -- the sample's own
    )
    assert read.output == 'print("hello from the grok fixture")\n'
    search, run = second.tool_calls
    assert (search.name, search.input["query"], search.output) == (
        "web_search",
        "python print builtin",
        None,
    )
    assert (run.name, run.output) == ("run_terminal_cmd", "hello from the grok fixture\n")
    assert {first.model, second.model} == {"grok-4.5"}
    # The last reasoning item has no answer after it in the file: it is kept as one of its own.
    assert (dangling.text, dangling.thinking) == ("", "Confirmed the output. I can answer now.")
    # The publisher scrubbed the screenshot's payload: the image is counted, its bytes are not kept.
    assert [image.media_type for image in screenshot.images] == ["image/png"]
    assert screenshot.text.endswith("Here is a screenshot for reference.")
    assert all(m.timestamp is None and m.usage is None for m in conversation.messages)


def test_the_captured_subagent_without_a_parent_id_is_its_own_conversation(
    captured: dict[str, ParsedConversation],
) -> None:
    """Its summary says session_kind "subagent" but names no parent: it cannot be nested."""
    sub = captured[SUB_ID]
    assert captured[MAIN_ID].subagents == ()
    assert sub.meta.locator == {"session_kind": "subagent"}
    assert sub.title == "Count the Python files under the project root"
    assert [m.role for m in sub.messages] == ["user", "assistant", "assistant"]
    (call,) = sub.messages[1].tool_calls
    assert call.output == "       1\n"
    assert sub.messages[-1].text == "There is 1 Python file under the project root."


def test_the_legacy_v0_chat_history(tmp_path: Path) -> None:
    """The file Grok Build's chat-history-downgrade wrote: OpenAI messages, no summary."""
    if not LEGACY.is_dir():
        pytest.skip("the legacy sample is not in the corpus")
    folder = tmp_path / ".grok" / "sessions" / "%2Fworkspace%2Fagentsview" / LEGACY.name
    _copy([LEGACY / "chat_history.jsonl"], folder)
    (conversation,) = parse_home(GrokBuildAdapter(), tmp_path, "darwin").values()
    assert conversation.project_path == "/workspace/agentsview"
    assert conversation.title == "Review parser compatibility"
    assert conversation.diagnostics.records_seen == 5
    prompt, first, last = conversation.messages
    assert (prompt.role, prompt.text) == ("user", "Review parser compatibility")
    assert (first.thinking, first.model) == ("Check the old format", "grok-4.5")
    (call,) = first.tool_calls
    assert (call.id, call.name, call.output) == ("call_1", "read_file", "source body")
    assert call.input == {"target_file": "src/session/persistence.rs"}
    assert last.text == "Compatibility checked."
