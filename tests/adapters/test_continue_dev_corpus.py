"""The Continue sample of ../shared/corpus-next/continue parses, every record accounted for.

The sample is a genuine session of the ``cn`` CLI. It is copied into a temporary home laid out
as Continue lays it out (never into the repo); the facts checked were read off the raw file.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from corpus_home import parse_home

from chatparse.adapters.continue_dev import ContinueAdapter

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus-next" / "continue"
CLI = CORPUS / "git-ai-project__git-ai/tests/fixtures/continue-cli-session-simple.json"
SESSION = "2dbfd673-096d-4773-b5f3-9023894a7355"

pytestmark = pytest.mark.skipif(not CLI.is_file(), reason=f"no corpus sample at {CLI}")


def test_the_cli_session(tmp_path: Path) -> None:
    """Four history items: a prompt, two tool-calling answers, a closing answer; session usage."""
    folder = tmp_path / ".continue" / "sessions"
    folder.mkdir(parents=True)
    shutil.copy(CLI, folder / f"{SESSION}.json")
    (conversation,) = parse_home(ContinueAdapter(), tmp_path).values()
    diagnostics = conversation.diagnostics
    assert (diagnostics.records_seen, diagnostics.records_used) == (5, 5)  # 4 items + the document
    assert diagnostics.warnings == ()
    assert conversation.id == SESSION
    assert conversation.title == "File Reading and Appending"
    assert conversation.project_path == "/Users/svarlamov/projects/testing-git"
    prompt, read, edit, done = conversation.messages
    assert (prompt.role, prompt.text) == ("user", "Add another hello world line to @index.ts")
    (read_call,) = read.tool_calls
    assert (read_call.id, read_call.name) == ("toolu_017kkmwnG8dAndW8zbtbsS4H", "Read")
    assert read_call.input == {"filepath": "/Users/svarlamov/projects/testing-git/index.ts"}
    assert read_call.output is not None
    assert read_call.output.startswith("Content of /Users/svarlamov/projects/testing-git/index.ts:")
    assert read_call.is_error is False
    (edit_call,) = edit.tool_calls
    assert edit_call.name == "MultiEdit"
    assert edit_call.output is not None
    assert edit_call.output.startswith("Successfully edited")
    assert edit.text == ""
    assert done.text.startswith("Done! I've added another")
    # Only the session's total is recorded (Anthropic-style: cache parts beside promptTokens).
    assert [m.usage for m in (prompt, read, edit)] == [None, None, None]
    usage = done.usage
    assert usage is not None
    assert (usage.input_tokens, usage.output_tokens) == (1813 + 4366 + 2183, 305)
    assert (usage.cache_read_tokens, usage.cache_write_tokens) == (4366, 2183)
    # Continue records no time per message, and the CLI no index: no time at all.
    assert all(m.timestamp is None for m in conversation.messages)
    assert (conversation.created_at, conversation.updated_at) == (None, None)
