"""The Aider samples of ../shared/corpus-next/aider parse, every block accounted for.

Two real chat histories (excerpts cut at line boundaries: the aider repository's own 2024
history, Aider 0.47, and mozgoslav's, Aider 0.86 with a local model that streams reasoning) and
a real input history. They are copied into projects of a temporary home (never into the repo);
the facts checked were read off the raw files.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from chatparse.adapters.aider import AiderAdapter
from chatparse.host import Host
from chatparse.model import ParsedConversation
from chatparse.testing import check_conversation

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus-next" / "aider"
AIDER = CORPUS / "Aider-AI__aider/tests/fixtures/chat-history.excerpt.md"
MOZGOSLAV = CORPUS / "AlexShchuka__mozgoslav"

pytestmark = pytest.mark.skipif(not CORPUS.is_dir(), reason=f"no corpus at {CORPUS}")


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A home with two projects under ~/code, each holding the files as Aider names them."""
    home = tmp_path_factory.mktemp("home")
    (home / "code" / "aider").mkdir(parents=True)
    (home / "code" / "mozgoslav").mkdir()
    shutil.copy(AIDER, home / "code" / "aider" / ".aider.chat.history.md")
    shutil.copy(
        MOZGOSLAV / ".aider.chat.history.excerpt.md",
        home / "code" / "mozgoslav" / ".aider.chat.history.md",
    )
    shutil.copy(
        MOZGOSLAV / ".aider.input.history", home / "code" / "mozgoslav" / ".aider.input.history"
    )
    return home


@pytest.fixture(scope="module")
def parsed(home: Path) -> dict[str, ParsedConversation]:
    """Every session of both projects, parsed and checked."""
    adapter = AiderAdapter()
    found = adapter.detect(Host(home=home, env={"CHATPARSE_PROJECTS": str(home / "code")}))
    assert found is not None
    conversations = {meta.id: adapter.parse(meta) for meta in adapter.scan(found)}
    for conversation in conversations.values():
        assert check_conversation(conversation) == []
        assert conversation.diagnostics.balanced
        assert conversation.diagnostics.malformed == 0
        assert conversation.diagnostics.unknown == ()
        assert conversation.diagnostics.warnings == ()
    return conversations


def of_project(parsed: dict[str, ParsedConversation], name: str) -> list[ParsedConversation]:
    return [c for c in parsed.values() if Path(c.project_path or "").name == name]


def test_every_session_is_a_conversation(parsed: dict[str, ParsedConversation]) -> None:
    """15 headers in the aider excerpt, 2 in mozgoslav's; the input history beside is not listed."""
    assert len(of_project(parsed, "aider")) == 15
    assert len(of_project(parsed, "mozgoslav")) == 2
    assert not [ident for ident in parsed if ident.endswith("@input-history")]


def test_the_2024_history(parsed: dict[str, ParsedConversation], home: Path) -> None:
    """Aider 0.47 and 0.48, claude-3-5-sonnet; each of the 14 Tokens lines is its answer's usage.

    Six sessions are a header alone (Aider started and left before its banner): empty.
    """
    sessions = of_project(parsed, "aider")
    assert {c.producer_version for c in sessions} == {"0.47.2-dev", "0.48.1-dev", None}
    assert len([c for c in sessions if not c.messages]) == 6
    answers = [m for c in sessions for m in c.messages if m.role == "assistant"]
    assert {m.model for m in answers} == {"claude-3-5-sonnet-20240620"}
    assert len([m for m in answers if m.usage is not None]) == 14
    first = parsed[f"{(home / 'code' / 'aider').as_posix()}@2024-08-06T10:03:58"]
    assert first.title is not None
    assert first.title.startswith("if `/add` find that no files match")
    usage = next(m.usage for m in first.messages if m.usage is not None)
    assert (usage.input_tokens, usage.output_tokens) == (11_140, 609)
    undo = [m for m in first.messages if m.text == "/undo"]
    assert [m.kind for m in undo] == ["command", "command"]
    outputs = [m for m in first.messages if m.kind == "command_output"]
    assert outputs[0].text.startswith("Removed: b3f47e8 style: Fix formatting")


def test_the_reasoning_model_history(parsed: dict[str, ParsedConversation], home: Path) -> None:
    """The aborted first session, then answers whose reasoning sits in Aider's tag."""
    folder = (home / "code" / "mozgoslav").as_posix()
    aborted = parsed[f"{folder}@2026-04-22T22:40:12"]
    assert [m.role for m in aborted.messages if m.kind == "message"] == ["user"]
    assert any("AuthenticationError" in m.text for m in aborted.messages)
    second = parsed[f"{folder}@2026-04-22T22:40:47"]
    assert second.producer_version == "0.86.2"
    answers = [m for m in second.messages if m.role == "assistant"]
    assert len([m for m in answers if m.usage is not None]) == 6
    hello = answers[0]
    assert hello.thinking is not None
    assert hello.thinking.startswith("Here's a thinking process:")
    assert "thinking-content" not in hello.text
    assert hello.text.startswith("Привет! Готов к работе.")
    assert hello.usage is not None
    assert (hello.usage.input_tokens, hello.usage.output_tokens) == (1_800, 653)
    assert hello.model == "lm_studio/qwen3.6-35b-a3b-uncensored-hauhaucs-aggressive"
    confirmation, follow_up = second.messages[-2:]  # a confirmation logged as a user line
    assert (confirmation.role, confirmation.kind) == ("user", "command")
    assert confirmation.text.endswith("[Yes]: all")
    assert follow_up.kind == "command_output"


def test_the_input_history(home: Path) -> None:
    """24 entries, read when the file is handed over; answers to confirmations are commands."""
    adapter = AiderAdapter()
    (meta,) = adapter.scan_path(home / "code" / "mozgoslav" / ".aider.input.history")
    conversation = adapter.parse(meta)
    assert check_conversation(conversation) == []
    assert conversation.diagnostics.records_seen == 24
    assert conversation.diagnostics.malformed == 0
    # "yes", then "d n " (no answer Aider takes: a message), "n", then the first prompt.
    kinds = [m.kind for m in conversation.messages[:4]]
    assert kinds == ["command", "message", "command", "message"]
    assert conversation.messages[3].text == "hi"
    assert all(m.timestamp is None for m in conversation.messages)
