"""The Aider adapter: what the conformance cases do not show."""

from __future__ import annotations

from pathlib import Path

import pytest

import chatparse
from chatparse.adapters.aider import AiderAdapter
from chatparse.errors import SourceUnavailableError
from chatparse.host import Host
from chatparse.model import ParsedConversation
from chatparse.testing import AdapterConformance, check_conversation

REPO = Path(__file__).resolve().parents[2]
HEADER = "# aider chat started at 2026-01-05 10:00:00\n\n"


class TestAiderConformance(AdapterConformance):
    adapter = "aider"
    fixtures = REPO / "fixtures" / "aider"

    def make_adapter(self) -> chatparse.SourceAdapter:
        return AiderAdapter()


def write_history(folder: Path, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / ".aider.chat.history.md"
    path.write_text(text, encoding="utf-8")
    return path


def parse_all(adapter: AiderAdapter, host: Host) -> list[ParsedConversation]:
    found = adapter.detect(host)
    assert found is not None
    conversations = [adapter.parse(meta) for meta in adapter.scan(found)]
    for conversation in conversations:
        assert check_conversation(conversation) == []
    return conversations


@pytest.mark.parametrize(
    ("printed", "count"),
    [("653", 653), ("11,140", 11_140), ("1.8k", 1_800), ("12k", 12_000), ("1.2M", 1_200_000)],
)
def test_counts_as_aider_prints_them(tmp_path: Path, printed: str, count: int) -> None:
    """Each way Aider has printed a count is read as the number it stands for."""
    path = write_history(
        tmp_path, f"{HEADER}#### hi  \n\nHello.\n\n> Tokens: {printed} sent, 7 received.  \n"
    )
    (meta,) = AiderAdapter().scan_path(path)
    answer = next(m for m in AiderAdapter().parse(meta).messages if m.role == "assistant")
    assert answer.usage is not None
    assert (answer.usage.input_tokens, answer.usage.output_tokens) == (count, 7)


def test_projects_given_to_the_adapter_and_the_windows_separator(tmp_path: Path) -> None:
    """Folders outside the home are read when named, as arguments or in the variable."""
    home, elsewhere = tmp_path / "home", tmp_path / "disk"
    home.mkdir()
    write_history(elsewhere / "one", f"{HEADER}#### first  \n")
    write_history(elsewhere / "two", f"{HEADER}#### second  \n")
    assert AiderAdapter().detect(Host(home=home, env={}, platform="linux")) is None
    given = parse_all(AiderAdapter(projects=[elsewhere / "one"]), Host(home=home, env={}))
    assert [c.title for c in given] == ["first"]
    env = {"CHATPARSE_PROJECTS": f"{elsewhere / 'one'};{elsewhere / 'two'}"}
    named = parse_all(AiderAdapter(), Host(home=home, env=env, platform="win32"))
    assert sorted(c.title or "" for c in named) == ["first", "second"]
    assert {c.project_path for c in named} == {str(elsewhere / "one"), str(elsewhere / "two")}


def test_a_file_named_twice_is_read_once(tmp_path: Path) -> None:
    """The variable naming a project's own file and the project folder give one copy."""
    path = write_history(tmp_path / "code" / "app", f"{HEADER}#### once  \n")
    env = {"AIDER_CHAT_HISTORY_FILE": str(path), "CHATPARSE_PROJECTS": str(path.parent)}
    conversations = parse_all(AiderAdapter(), Host(home=tmp_path, env=env))
    assert [c.title for c in conversations] == ["once"]


def test_appending_changes_only_the_last_sessions_fingerprint(tmp_path: Path) -> None:
    """Sessions are fingerprinted by their own bytes: older ones keep theirs as the file grows."""
    first = f"{HEADER}#### one  \n\nAnswer one.\n"
    second = "\n# aider chat started at 2026-01-05 11:00:00\n\n#### two  \n"
    path = write_history(tmp_path, first + second)
    before = {m.id: m.fingerprint for m in AiderAdapter().scan_path(path)}
    with path.open("a", encoding="utf-8") as stream:
        stream.write("\nAnswer two.\n")
    after = {m.id: m.fingerprint for m in AiderAdapter().scan_path(path)}
    assert before.keys() == after.keys()
    (old, new) = sorted(before)
    assert before[old] == after[old]
    assert before[new] != after[new]


def test_sniff_by_name_and_by_header(tmp_path: Path) -> None:
    """Aider's file names are sure; another Markdown file is Aider's by its session header."""
    adapter = AiderAdapter()
    assert adapter.sniff(write_history(tmp_path, "anything")) == 0.95
    renamed = tmp_path / "chat.md"
    renamed.write_text(HEADER, encoding="utf-8")
    assert adapter.sniff(renamed) == 0.8
    other = tmp_path / "notes.md"
    other.write_text("# Notes\n", encoding="utf-8")
    assert adapter.sniff(other) == 0.0
    assert adapter.sniff(tmp_path / "missing.md") == 0.0


def test_explain_names_the_variables_and_what_was_found(tmp_path: Path) -> None:
    """Doctor says which variables are set, where it looked, and how many files it found."""
    write_history(tmp_path / "code" / "app", HEADER)
    env = {"CHATPARSE_PROJECTS": str(tmp_path / "code")}
    lines = list(AiderAdapter().explain(Host(home=tmp_path, env=env)))
    assert "AIDER_CHAT_HISTORY_FILE is not set" in lines
    assert f"CHATPARSE_PROJECTS is set: {tmp_path / 'code'}" in lines
    assert any(line.startswith("1 chat history file(s)") for line in lines)


def test_explain_says_when_no_project_folder_is_known(tmp_path: Path) -> None:
    """Doctor points to CHATPARSE_PROJECTS when only the home is looked in, and not otherwise."""
    hint = "no project folders are known"
    unset = list(AiderAdapter().explain(Host(home=tmp_path, env={})))
    assert "CHATPARSE_PROJECTS is not set" in unset
    assert any(line.startswith(hint) for line in unset)
    relative = list(AiderAdapter().explain(Host(home=tmp_path, env={"CHATPARSE_PROJECTS": "a"})))
    assert any(line.startswith(hint) for line in relative)
    given = list(AiderAdapter(projects=[tmp_path / "code"]).explain(Host(home=tmp_path, env={})))
    assert not any(line.startswith(hint) for line in given)


def test_a_history_gone_since_the_scan(tmp_path: Path) -> None:
    """Parse says the file is missing instead of giving an empty conversation."""
    path = write_history(tmp_path, f"{HEADER}#### hi  \n")
    (meta,) = AiderAdapter().scan_path(path)
    path.unlink()
    with pytest.raises(SourceUnavailableError):
        AiderAdapter().parse(meta)


def test_output_after_a_confirmation_is_a_notice_not_a_usage(tmp_path: Path) -> None:
    """A Tokens line after a user line, with no answer between, is said and not kept."""
    path = write_history(tmp_path, f"{HEADER}#### hi  \n> Tokens: 10 sent, 0 received.  \n")
    (meta,) = AiderAdapter().scan_path(path)
    conversation = AiderAdapter().parse(meta)
    assert all(m.usage is None for m in conversation.messages)
    assert conversation.diagnostics.warnings == (
        "line 4: a Tokens line with no answer before it; not kept",
    )


@pytest.mark.usefixtures("fresh_registry")
def test_an_instance_with_projects_replaces_the_registered_one(tmp_path: Path) -> None:
    """What the docs say to do: register an adapter that knows the projects, by its name."""
    write_history(tmp_path / "disk" / "app", f"{HEADER}#### registered  \n")
    chatparse.register_adapter(AiderAdapter(projects=[tmp_path / "disk" / "app"]), replace=True)
    adapter = chatparse.get_adapter("aider")
    assert isinstance(adapter, AiderAdapter)
    conversations = parse_all(adapter, Host(home=tmp_path / "home", env={}))
    assert [c.title for c in conversations] == ["registered"]


def test_an_input_history_a_variable_names_is_told_by_its_entries(tmp_path: Path) -> None:
    """A file of another name is read as an input history when its entries say it is one."""
    inputs = tmp_path / "logs" / "typed.txt"
    inputs.parent.mkdir()
    inputs.write_text("\n# 2026-01-05 10:00:01.123456\n+/help\n", encoding="utf-8")
    adapter = AiderAdapter()
    assert adapter.sniff(inputs) == 0.7
    env = {"AIDER_INPUT_HISTORY_FILE": str(inputs)}
    (conversation,) = parse_all(adapter, Host(home=tmp_path, env=env))
    assert conversation.meta.locator["kind"] == "input-history"
    assert conversation.project_path is None
    assert [(m.kind, m.text) for m in conversation.messages] == [("command", "/help")]
