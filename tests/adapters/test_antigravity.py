"""The Antigravity adapter: what the conformance cases do not show, and Gemini CLI kept apart."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import chatparse
from chatparse.adapter import PathSniffer
from chatparse.adapters.antigravity import AntigravityAdapter
from chatparse.adapters.antigravity.prompts import model_chosen, split_prompt, system_text
from chatparse.adapters.gemini_cli import GeminiCliAdapter
from chatparse.host import Host
from chatparse.model import ConversationMeta, ParsedConversation
from chatparse.testing import AdapterConformance, check_conversation

REPO = Path(__file__).resolve().parents[2]
CONVERSATION = "5d6e7f80-9a1b-4c2d-8e3f-4a5b6c7d8e9f"
LOGS = (".system_generated", "logs")


class TestAntigravityConformance(AdapterConformance):
    adapter = "antigravity"
    fixtures = REPO / "fixtures" / "antigravity"

    def make_adapter(self) -> chatparse.SourceAdapter:
        return AntigravityAdapter()


def step(index: int, source: str, kind: str, **more: Any) -> dict[str, Any]:
    return {
        "step_index": index,
        "source": source,
        "type": kind,
        "status": "DONE",
        "created_at": f"2026-06-01T10:00:{index:02d}Z",
        **more,
    }


def write(
    home: Path,
    lines: list[dict[str, Any]],
    *,
    root: str = "antigravity-cli",
    name: str = "transcript_full.jsonl",
    ident: str = CONVERSATION,
) -> Path:
    folder = home.joinpath(".gemini", root, "brain", ident, *LOGS)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def parse_all(home: Path, **env: str) -> list[ParsedConversation]:
    adapter = AntigravityAdapter()
    found = adapter.detect(Host(home=home, env=env, platform="linux"))
    assert found is not None
    conversations = [adapter.parse(meta) for meta in adapter.scan(found)]
    for conversation in conversations:
        assert check_conversation(conversation) == []
    return conversations


# --- Gemini CLI and Antigravity share ~/.gemini: neither reads the other's files ---


def gemini_cli_session(home: Path) -> Path:
    chats = home / ".gemini" / "tmp" / "proj" / "chats"
    chats.mkdir(parents=True)
    path = chats / "session-2026-06-01T10-00-11111111.jsonl"
    header = {
        "sessionId": "11111111-2222-4333-8444-555555555555",
        "projectHash": "proj",
        "startTime": "2026-06-01T10:00:00.000Z",
        "lastUpdated": "2026-06-01T10:00:01Z",
    }
    message: dict[str, Any] = {
        "id": "m1",
        "timestamp": "2026-06-01T10:00:01.000Z",
        "type": "user",
        "content": [{"text": "hello Gemini"}],
    }
    path.write_text(json.dumps(header) + "\n" + json.dumps(message) + "\n")
    return path


@pytest.mark.parametrize("env_name", [None, "GEMINI_CLI_HOME"])
def test_gemini_cli_and_antigravity_never_claim_each_others_files(
    tmp_path: Path, env_name: str | None
) -> None:
    """One ~/.gemini holding both: each adapter lists and sniffs only its own files.

    With ``GEMINI_CLI_HOME`` pointing at the same home, Gemini CLI's base is the same folder;
    Antigravity follows no variable of Gemini CLI's.
    """
    session = gemini_cli_session(tmp_path)
    transcript = write(tmp_path, [step(0, "USER_EXPLICIT", "USER_INPUT", content="hello agy")])
    env = {env_name: str(tmp_path)} if env_name else {}
    host = Host(home=tmp_path, env=env, platform="linux")
    gemini, antigravity = GeminiCliAdapter(), AntigravityAdapter()

    gemini_found = gemini.detect(host)
    antigravity_found = antigravity.detect(host)
    assert gemini_found is not None
    assert antigravity_found is not None
    assert [m.path for m in gemini.scan(gemini_found)] == [str(session)]
    assert [m.path for m in antigravity.scan(antigravity_found)] == [str(transcript)]
    assert not set(gemini_found.roots) & set(antigravity_found.roots)

    assert antigravity.sniff(session) == 0.0
    assert gemini.sniff(transcript) == 0.0
    assert antigravity.sniff(transcript) > 0.9
    registered = chatparse.get_adapter("gemini-cli")
    assert isinstance(registered, PathSniffer)
    assert registered.sniff(transcript) == 0.0


def test_a_gemini_cli_home_alone_is_no_antigravity_source(tmp_path: Path) -> None:
    """Gemini CLI's files do not make Antigravity detected."""
    gemini_cli_session(tmp_path)
    assert AntigravityAdapter().detect(Host(home=tmp_path, env={}, platform="linux")) is None


# --- the transcript ---


def test_tool_arguments_are_decoded_once_more_only_in_the_short_transcript(
    tmp_path: Path,
) -> None:
    """transcript.jsonl encodes each argument twice; transcript_full.jsonl does not."""
    args = {"Path": '"/p/a.go"', "Limit": "12", "Raw": "not json"}
    lines = [
        step(0, "USER_EXPLICIT", "USER_INPUT", content="<USER_REQUEST>go</USER_REQUEST>"),
        step(1, "MODEL", "PLANNER_RESPONSE", tool_calls=[{"name": "view_file", "args": args}]),
    ]
    write(tmp_path, lines, name="transcript.jsonl", ident="short")
    write(tmp_path, lines, ident="full")
    by_id = {c.id: c for c in parse_all(tmp_path)}
    assert by_id["short"].messages[1].tool_calls[0].input == {
        "Path": "/p/a.go",
        "Limit": 12,
        "Raw": "not json",
    }
    assert by_id["full"].messages[1].tool_calls[0].input == args


def test_results_answer_the_latest_answers_calls_in_order(tmp_path: Path) -> None:
    """Results go, by position, to the calls of the answer before them; a new answer resets."""
    calls = [{"name": "a", "args": {}}, {"name": "b", "args": {}}]
    write(
        tmp_path,
        [
            step(0, "USER_EXPLICIT", "USER_INPUT", content="x"),
            step(1, "MODEL", "PLANNER_RESPONSE", tool_calls=calls[:1]),
            step(2, "MODEL", "PLANNER_RESPONSE", tool_calls=calls),
            step(3, "MODEL", "RUN_COMMAND", content="first"),
            step(4, "MODEL", "VIEW_FILE", content="second", status="ERROR"),
            step(5, "MODEL", "VIEW_FILE", content="third"),
        ],
    )
    (conversation,) = parse_all(tmp_path)
    first, second = conversation.messages[1], conversation.messages[2]
    assert first.tool_calls[0].output is None  # its result never came: unanswered
    assert [(c.name, c.output, c.is_error) for c in second.tool_calls] == [
        ("a", "first", False),
        ("b", "second", True),
    ]
    orphan = conversation.messages[3]
    assert (orphan.role, orphan.kind, orphan.text) == ("user", "tool_result", "third")


def test_a_failed_command_is_an_error_though_its_status_is_done(tmp_path: Path) -> None:
    """RUN_COMMAND says "The command failed with exit code: N" with status DONE."""
    write(
        tmp_path,
        [
            step(0, "MODEL", "PLANNER_RESPONSE", tool_calls=[{"name": "run_command"}] * 2),
            step(1, "MODEL", "RUN_COMMAND", content="The command failed with exit code: 1\n"),
            step(2, "MODEL", "RUN_COMMAND", content="Output:\nall good\n"),
        ],
    )
    (conversation,) = parse_all(tmp_path)
    assert [c.is_error for c in conversation.messages[0].tool_calls] == [True, False]


def test_the_wrappers_around_a_prompt() -> None:
    """The request is the prompt; settings changes are kept apart and name the model."""
    content = (
        "<USER_REQUEST>\nFix it\n</USER_REQUEST>\n<ADDITIONAL_METADATA>\nlocal time\n"
        "</ADDITIONAL_METADATA>\n<USER_SETTINGS_CHANGE>\nThe user changed setting `Model "
        "Selection` from None to Gemini 3.5 Flash (Medium).\n</USER_SETTINGS_CHANGE>"
    )
    prompt = split_prompt(content)
    assert prompt.text == "Fix it"
    assert model_chosen(prompt.settings) == "Gemini 3.5 Flash (Medium)"
    assert split_prompt("plain text <ADDITIONAL_METADATA>x</ADDITIONAL_METADATA>").text == (
        "plain text"
    )
    assert model_chosen(["The user changed setting `Theme` from dark to light."]) is None
    assert system_text("A <SYSTEM_MESSAGE> says:\n<SYSTEM_MESSAGE>\nhi\n</SYSTEM_MESSAGE>") == "hi"
    assert system_text("no wrapper") == "no wrapper"


# --- where it looks ---


def test_full_transcript_then_newest_root_wins(tmp_path: Path) -> None:
    """One id in several roots and layouts: transcript_full.jsonl first, then the CLI's root."""
    line = [step(0, "USER_EXPLICIT", "USER_INPUT", content="hi")]
    write(tmp_path, line, root="antigravity", name="transcript_full.jsonl")
    write(tmp_path, line, root="antigravity-cli", name="transcript.jsonl")
    write(tmp_path, line, root="antigravity-ide", name="transcript_full.jsonl")
    adapter = AntigravityAdapter()
    found = adapter.detect(Host(home=tmp_path, env={}, platform="win32"))
    assert found is not None
    (meta,) = adapter.scan(found)
    assert "antigravity-ide" in meta.path
    assert meta.locator == {"layout": "full"}


def test_scan_path_names_the_conversation_by_its_brain_folder(tmp_path: Path) -> None:
    """A transcript in its folder is named by the folder; a loose file by its own name."""
    path = write(tmp_path, [step(0, "USER_EXPLICIT", "USER_INPUT", content="hi")])
    loose = tmp_path / "exported.jsonl"
    loose.write_bytes(path.read_bytes())
    adapter = AntigravityAdapter()
    ids: list[ConversationMeta] = [*adapter.scan_path(path), *adapter.scan_path(loose)]
    assert [m.id for m in ids] == [CONVERSATION, "exported"]
    assert adapter.sniff(loose) == 0.7


def test_explain_says_what_is_unreadable_and_why(tmp_path: Path) -> None:
    """The encrypted .pb files, the protobuf .db files and artifact-only folders are named."""
    base = tmp_path / ".gemini" / "antigravity"
    (base / "conversations").mkdir(parents=True)
    (base / "conversations" / "a.pb").write_bytes(b"\x8f" * 64)
    (base / "brain" / "a").mkdir(parents=True)
    (base / "brain" / "a" / "task.md").write_text("# Task\n")
    write(tmp_path, [step(0, "USER_EXPLICIT", "USER_INPUT", content="hi")], root="antigravity")
    ide = tmp_path / ".gemini" / "antigravity-ide" / "conversations"
    ide.mkdir(parents=True)
    (ide / "b.db").write_bytes(b"SQLite format 3\x00")
    said = "\n".join(AntigravityAdapter().explain(Host(home=tmp_path, env={}, platform="linux")))
    assert f"{base / 'conversations'}: 1 .pb file(s), 64 bytes" in said
    assert "encrypted (the key is in the OS keychain)" in said
    assert f"{ide}: 1 .db file(s), 16 bytes" in said
    assert "protobuf without a published schema" in said
    assert "1 conversation folder(s) hold only Markdown artifacts" in said
    assert "antigravity-cli: missing" in said


def test_sniff_refuses_a_step_whose_type_is_not_text(tmp_path: Path) -> None:
    """A damaged first line (``type`` a list) is no transcript, and sniffing does not raise."""
    path = tmp_path / "transcript.jsonl"
    path.write_text(json.dumps({"step_index": 0, "source": "MODEL", "type": []}) + "\n")
    assert AntigravityAdapter().sniff(path) == 0.0
