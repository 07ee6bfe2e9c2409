"""The Windsurf adapter: what the conformance cases do not show."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import chatparse
from chatparse.adapters.windsurf import WindsurfAdapter
from chatparse.adapters.windsurf.steps import escape_controls
from chatparse.decoders.value import decode
from chatparse.errors import SourceUnavailableError
from chatparse.host import Host
from chatparse.model import ConversationMeta
from chatparse.testing import AdapterConformance, check_conversation

REPO = Path(__file__).resolve().parents[2]
TRAJECTORY = "2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e"


class TestWindsurfConformance(AdapterConformance):
    adapter = "windsurf"
    fixtures = REPO / "fixtures" / "windsurf"

    def make_adapter(self) -> chatparse.SourceAdapter:
        return WindsurfAdapter()


def step(kind: str, status: str = "done", **payload: Any) -> dict[str, Any]:
    return {"status": status, "type": kind, kind: payload}


def write(home: Path, lines: list[dict[str, Any]], name: str = TRAJECTORY) -> Path:
    folder = home / ".windsurf" / "transcripts"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def metas(home: Path) -> list[ConversationMeta]:
    adapter = WindsurfAdapter()
    found = adapter.detect(Host(home=home, env={}, platform="linux"))
    assert found is not None
    return list(adapter.scan(found))


# --- control characters ---


def test_control_characters_are_escaped_inside_strings_only() -> None:
    """A raw ESC or TAB in a string becomes an escape; a TAB between tokens stays whitespace."""
    raw = '{"a":\t"x\x1b[0m\ty", "b": "q\\"\x01"}'
    repaired = escape_controls(raw)
    assert repaired == '{"a":\t"x\\u001b[0m\\u0009y", "b": "q\\"\\u0001"}'
    assert decode(repaired) == {"a": "x\x1b[0m\ty", "b": 'q"\x01'}


def test_a_line_with_raw_control_characters_is_read_and_said(tmp_path: Path) -> None:
    """The line's step is read (not malformed) and a warning says it was repaired."""
    path = write(tmp_path, [step("user_input", user_response="run it")])
    with path.open("ab") as out:
        out.write(b'{"status": "done", "type": "planner_response", "planner_response": ')
        out.write(b'{"response": "col1\tcol2 \x1b[1mbold\x1b[0m"}}\n')
    (meta,) = metas(tmp_path)
    conversation = WindsurfAdapter().parse(meta)
    assert conversation.messages[1].text == "col1\tcol2 \x1b[1mbold\x1b[0m"
    assert conversation.diagnostics.malformed == 0
    assert any("control characters" in w for w in conversation.diagnostics.warnings)


# --- steps ---


def test_tool_steps_before_any_answer_make_an_answer_of_their_own(tmp_path: Path) -> None:
    """Tools after a prompt and before any answer hang on an empty answer; a new turn resets."""
    write(
        tmp_path,
        [
            step("user_input", user_response="one"),
            step("view_file", path="file:///p/a.py", content="x = 1\n"),
            step("planner_response", response="read it"),
            step("run_command", command="false", cwd="/p", exit_code=1, output="boom"),
            step("user_input", user_response="two"),
            step("grep_search", query="x", search_path="file:///p", total_results=0),
        ],
    )
    (meta,) = metas(tmp_path)
    conversation = WindsurfAdapter().parse(meta)
    assert check_conversation(conversation) == []
    shape = [(m.role, m.text, [c.name for c in m.tool_calls]) for m in conversation.messages]
    assert shape == [
        ("user", "one", []),
        ("assistant", "", ["view_file"]),
        ("assistant", "read it", ["run_command"]),
        ("user", "two", []),
        ("assistant", "", ["grep_search"]),
    ]
    command = conversation.messages[2].tool_calls[0]
    assert (command.input, command.output, command.is_error) == (
        {"command": "false", "cwd": "/p"},
        "boom",
        True,
    )
    assert command.result == {"exit_code": 1}
    assert conversation.project_path == "/p"
    assert conversation.created_at is None  # no times in the format, never the file's


def test_an_image_payload_in_a_tool_output_is_left_out(tmp_path: Path) -> None:
    """A data URI in a tool's output or input leaves a placeholder, never the payload."""
    payload = "iVBORw0KGgo" + "A" * 400
    write(
        tmp_path,
        [
            step("user_input", user_response="show it"),
            step("view_file", path=f"data:image/png;base64,{payload}", content=payload),
        ],
    )
    (meta,) = metas(tmp_path)
    conversation = WindsurfAdapter().parse(meta)
    assert check_conversation(conversation) == []
    assert payload not in json.dumps(chatparse.to_dict(conversation))


# --- where it looks ---


def test_a_transcripts_folder_without_transcripts_is_no_source(tmp_path: Path) -> None:
    """Only ``*.jsonl`` files directly in the folder are transcripts."""
    folder = tmp_path / ".windsurf" / "transcripts"
    (folder / "old").mkdir(parents=True)
    (folder / "old" / "x.jsonl").write_text("{}\n")
    (folder / "notes.txt").write_text("hi\n")
    assert WindsurfAdapter().detect(Host(home=tmp_path, env={}, platform="win32")) is None


def test_a_transcript_gone_since_the_scan_cannot_be_parsed(tmp_path: Path) -> None:
    """``parse`` of a removed transcript raises, naming it."""
    path = write(tmp_path, [step("user_input", user_response="hi")])
    (meta,) = metas(tmp_path)
    path.unlink()
    with pytest.raises(SourceUnavailableError, match="transcript"):
        WindsurfAdapter().parse(meta)


def test_sniff_knows_a_transcript_and_nothing_else(tmp_path: Path) -> None:
    """Sure of a step line, surest in the transcripts folder; another tool's JSONL is not one."""
    adapter = WindsurfAdapter()
    path = write(tmp_path, [step("user_input", user_response="hi")])
    elsewhere = tmp_path / "copy.jsonl"
    elsewhere.write_bytes(path.read_bytes())
    other = tmp_path / "other.jsonl"
    other.write_text(json.dumps({"type": "user", "message": {"content": "hi"}}) + "\n")
    assert adapter.sniff(path) == 0.95
    assert adapter.sniff(elsewhere) == 0.7
    assert adapter.sniff(other) == 0.0
    assert adapter.sniff(tmp_path / "missing.jsonl") == 0.0
    assert [m.id for m in adapter.scan_path(elsewhere)] == ["copy"]


def test_explain_counts_the_encrypted_store_and_reads_no_pb(tmp_path: Path) -> None:
    """Doctor counts the .pb files, says why they are not read, and which hooks are set."""
    cascade = tmp_path / ".codeium" / "windsurf" / "cascade"
    cascade.mkdir(parents=True)
    for n in range(3):
        (cascade / f"{n}.pb").write_bytes(bytes(range(256)))
    (tmp_path / ".codeium" / "hooks.json").write_text('{"hooks": {"pre_read_code": []}}')
    lines = list(WindsurfAdapter().explain(Host(home=tmp_path, env={}, platform="darwin")))
    said = "\n".join(lines)
    assert f"{cascade}: 3 .pb file(s), 768 bytes" in said
    assert "cannot read them and does not try" in said
    assert "transcripts: missing" in said
    assert "does not name the post_cascade_response_with_transcript hook" in said
