"""The OpenClaw samples of ../shared/corpus-next/openclaw parse, every record accounted for.

Both are hand-made by a third party (agent-sessions), with shapes a real writer does not make
(a parentId naming the header or a tool call, a ``system`` role, a ``compact`` entry): they show
that drift is tolerated. Copied into a temporary home (never into the repo); the facts checked
were read off their raw lines.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from corpus_home import parse_home

from chatparse.adapters.openclaw import OpenClawAdapter
from chatparse.model import ParsedConversation

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus-next" / "openclaw"
SAMPLES = CORPUS / "jazzyalex__agent-sessions/Resources/Fixtures/stage0/agents/openclaw"

pytestmark = pytest.mark.skipif(not CORPUS.is_dir(), reason=f"no corpus at {CORPUS}")


def parse(tmp_path: Path, sample: str, session: str) -> ParsedConversation:
    """Parse a sample as ``<session>.jsonl`` in the main agent's sessions folder."""
    source = SAMPLES / sample
    if not source.is_file():
        pytest.skip(f"{sample} is not in the corpus")
    folder = tmp_path / ".openclaw" / "agents" / "main" / "sessions"
    folder.mkdir(parents=True)
    shutil.copy(source, folder / f"{session}.jsonl")
    (conversation,) = parse_home(OpenClawAdapter(), tmp_path, unknown=True).values()
    return conversation


def test_small_session_with_a_string_tool_result(tmp_path: Path) -> None:
    """A prompt, an answer calling shell_exec, and its result given as a plain string."""
    conversation = parse(tmp_path, "small.jsonl", "openclaw-stage0-small")
    assert conversation.project_path == "/tmp/repo"  # noqa: S108 -- the sample's own
    assert conversation.meta.locator["agent"] == "main"
    prompt, answer = conversation.messages
    assert (prompt.role, prompt.text, prompt.parent_id) == ("user", "List files", None)
    assert (answer.text, answer.parent_id) == ("Running ls now.", prompt.id)
    (call,) = answer.tool_calls
    assert (call.id, call.name, call.input) == ("tc1", "shell_exec", {"command": "ls"})
    assert (call.output, call.is_error) == ("main.swift\nResources\n", False)
    assert answer.usage is None  # the sample records none
    assert conversation.diagnostics.skipped == {"model_change: setting": 1}
    assert conversation.diagnostics.records_seen == 5


def test_schema_drift_is_kept_raw_or_read_tolerantly(tmp_path: Path) -> None:
    """Unknown entry types are kept raw; extension state is skipped; a system role is a notice."""
    conversation = parse(tmp_path, "schema_drift.jsonl", "openclaw-stage0-drift")
    assert [(m.role, m.kind, m.text) for m in conversation.messages] == [
        ("user", "message", "Need a quick diagnostic"),
        ("assistant", "message", "I am running diagnostics."),
        ("system", "notice", "diagnostic summary updated"),
    ]
    (call,) = conversation.messages[1].tool_calls
    assert (call.name, call.output) == ("diagnostic_tool", "PASS\n")
    (unknown,) = conversation.diagnostics.unknown
    assert (unknown.where, unknown.type) == ("line 7", "compact")
    assert '"note":"legacy event for drift coverage"' in unknown.raw
    assert conversation.diagnostics.skipped == {
        "custom: extension state (not sent to the model)": 1
    }
    assert conversation.title == "Need a quick diagnostic"
