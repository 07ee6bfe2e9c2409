"""The Pi adapter and the reader it shares with Oh My Pi and OpenClaw: what the cases don't show."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

import chatparse
from chatparse import registry
from chatparse.adapters._pi import id_from_name, read_head
from chatparse.adapters._pi.content import scrub
from chatparse.adapters.oh_my_pi import OhMyPiAdapter
from chatparse.adapters.pi import PiAdapter
from chatparse.errors import SourceUnavailableError, UnavailableCause
from chatparse.host import Host
from chatparse.model import ImageRef, ParsedConversation
from chatparse.testing import AdapterConformance, check_conversation

REPO = Path(__file__).resolve().parents[2]
SESSION = "0b9d3c52-6f1e-4f7a-9a51-3c2d8e7f6a10"
PAYLOAD = "iVBORw0KGgo" + "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVphYmNkZWZnaGlqa2xtbm9w" * 4


class TestPiConformance(AdapterConformance):
    adapter = "pi"
    fixtures = REPO / "fixtures" / "pi"

    def make_adapter(self) -> chatparse.SourceAdapter:
        return PiAdapter()


# --- helpers ---


class Writer:
    """Writes a version 3 session into a fake home, entry by entry."""

    def __init__(self, home: Path, session: str = SESSION, *, version: int | None = 3) -> None:
        folder = home / ".pi" / "agent" / "sessions" / "--home-dev-p--"
        folder.mkdir(parents=True, exist_ok=True)
        self.path = folder / f"2026-01-05T10-00-00-000Z_{session}.jsonl"
        self.second = 0
        header: dict[str, Any] = {"type": "session", "version": version, "id": session}
        header |= {"timestamp": "2026-01-05T10:00:00.000Z", "cwd": "/home/dev/p"}
        if version is None:
            del header["version"]
        self.lines: list[dict[str, Any] | str] = [header]

    def entry(self, kind: str, ident: str, parent: str | None, **fields: Any) -> None:
        self.second += 1
        stamp = f"2026-01-05T10:00:{self.second:02d}.000Z"
        self.lines.append(
            {"type": kind, "id": ident, "parentId": parent, "timestamp": stamp, **fields}
        )

    def message(self, ident: str, parent: str | None, **message: Any) -> None:
        self.entry("message", ident, parent, message={"timestamp": 1767607200000, **message})

    def write(self) -> Path:
        text = "".join(
            (line if isinstance(line, str) else json.dumps(line)) + "\n" for line in self.lines
        )
        self.path.write_text(text, encoding="utf-8")
        return self.path


def answer(text: str, **usage: int) -> dict[str, Any]:
    counts = {"input": 10, "output": 5, "cacheRead": 0, "cacheWrite": 0} | usage
    return {
        "role": "assistant",
        "content": [{"type": "text", "text": text}],
        "api": "anthropic-messages",
        "provider": "anthropic",
        "model": "claude-sonnet-4-5",
        "usage": counts,
        "stopReason": "stop",
    }


def parse_home(home: Path) -> list[ParsedConversation]:
    adapter = PiAdapter()
    found = adapter.detect(Host(home=home, env={}, platform="linux"))
    assert found is not None
    parsed = [adapter.parse(meta) for meta in adapter.scan(found)]
    for conversation in parsed:
        assert check_conversation(conversation) == []
    return parsed


@pytest.fixture
def registered(fresh_registry: registry.Registry) -> None:
    """Pi and Oh My Pi registered in a fresh registry, as they are once built in."""
    fresh_registry.register(PiAdapter, replace=True)
    fresh_registry.register(OhMyPiAdapter, replace=True)


# --- names and heads ---


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        (
            "2025-12-09T00-53-29-825Z_ffae836b-9420-4060-ac13-7745215f90ff.jsonl",
            "ffae836b-9420-4060-ac13-7745215f90ff",
        ),
        ("2026-08-01T10-00-00-000Z_V1StGXR8_Z5jdHi6B-myT.jsonl", "V1StGXR8_Z5jdHi6B-myT"),
        ("scout.jsonl", "scout"),
        ("notes_2026.jsonl", "notes_2026"),
    ],
)
def test_the_session_id_of_a_file_name_is_what_follows_its_time(name: str, expected: str) -> None:
    """Pi names files <ISO time>_<id>.jsonl; a name of another shape is the id whole."""
    assert id_from_name(Path(name)) == expected


def test_a_header_gives_id_folder_time_version_and_fork_parent(tmp_path: Path) -> None:
    """The head of a version 1 file reads its branchedFrom as the fork's parent, version 1."""
    path = tmp_path / "s.jsonl"
    header = {"type": "session", "id": "abc", "timestamp": "2025-12-09T00:53:29.825Z"}
    header |= {"cwd": "/w", "branchedFrom": "/p/old.jsonl"}
    path.write_text(json.dumps(header) + "\n", encoding="utf-8")
    head = read_head(path)
    assert (head.id, head.cwd, head.version, head.parent, head.slot) == (
        "abc",
        "/w",
        1,
        "/p/old.jsonl",
        False,
    )
    assert head.created_at is not None
    assert head.created_at.isoformat() == "2025-12-09T00:53:29.825000+00:00"


# --- the tree ---


def test_main_thread_follows_the_branch_the_file_ends_on(tmp_path: Path) -> None:
    """After /tree, the abandoned branch is a side chain and main_thread() skips it."""
    writer = Writer(tmp_path)
    writer.message("u1", None, role="user", content="first")
    writer.message("a1", "u1", **answer("one"))
    writer.message("u2", "a1", role="user", content="abandoned")
    writer.message("a2", "u2", **answer("abandoned answer"))
    writer.entry("branch_summary", "bs", "a1", fromId="a2", summary="tried something")
    writer.message("u3", "bs", role="user", content="second try")
    writer.message("a3", "u3", **answer("kept"))
    writer.write()
    (conversation,) = parse_home(tmp_path)
    sides = {m.id for m in conversation.messages if m.is_sidechain}
    assert sides == {"u2", "a2"}
    assert [m.id for m in conversation.main_thread()] == ["u1", "a1", "bs", "u3", "a3"]


def test_settings_between_messages_are_skipped_in_the_parent_chain(tmp_path: Path) -> None:
    """A model change between two messages does not break the chain: the parent is a message."""
    writer = Writer(tmp_path)
    writer.entry("model_change", "m0", None, provider="openai", modelId="gpt-5")
    writer.message("u1", "m0", role="user", content="hi")
    writer.entry("thinking_level_change", "t1", "u1", thinkingLevel="high")
    writer.entry("label", "l1", "t1", targetId="u1", label="start")
    writer.message("a1", "l1", **answer("hello"))
    writer.write()
    (conversation,) = parse_home(tmp_path)
    assert [(m.id, m.parent_id) for m in conversation.messages] == [("u1", None), ("a1", "u1")]


def test_a_version_1_file_is_a_plain_list(tmp_path: Path) -> None:
    """Entries without ids get line ids and no parents, so main_thread() is every message."""
    writer = Writer(tmp_path, version=None)
    writer.lines += [
        {"type": "message", "timestamp": f"2025-12-08T23:00:0{second}Z", "message": message}
        for second, message in enumerate(
            [
                {"role": "user", "content": "ls"},
                {"role": "bashExecution", "command": "ls", "output": "a\n", "exitCode": 2},
                answer("done"),
            ],
            start=1,
        )
    ]
    writer.write()
    (conversation,) = parse_home(tmp_path)
    assert [m.id for m in conversation.messages] == ["L2", "L3", "L3:output", "L4"]
    assert all(m.parent_id is None for m in conversation.messages)
    assert conversation.main_thread() == conversation.messages
    assert conversation.messages[2].text == "a\n\n[exit code 2]"
    assert conversation.meta.locator["format_version"] == "1"


def test_entry_ids_used_twice_give_unique_message_ids(tmp_path: Path) -> None:
    """A colliding entry id gets #2, in reading order; parents still point at the first."""
    writer = Writer(tmp_path)
    writer.message("aaaa", None, role="user", content="one")
    writer.message("aaaa", "aaaa", **answer("two"))
    writer.write()
    (conversation,) = parse_home(tmp_path)
    assert [(m.id, m.parent_id) for m in conversation.messages] == [
        ("aaaa", None),
        ("aaaa#2", "aaaa"),
    ]


# --- usage ---


def test_usage_of_a_fork_counts_once_across_both_files(tmp_path: Path) -> None:
    """/fork copies entries verbatim: the copied response has the same dedup key."""
    writer = Writer(tmp_path)
    writer.message("u1", None, role="user", content="hi")
    writer.message("a1", "u1", **answer("hello", input=3, cacheRead=100), responseId="msg_1")
    writer.write()
    fork = Writer(tmp_path, session="f0f0f0f0-0000-4000-8000-000000000001")
    fork.lines[0]["parentSession"] = str(writer.path)  # type: ignore[index] # the header
    fork.lines += writer.lines[1:]
    fork.write()
    conversations = parse_home(tmp_path)
    assert len(conversations) == 2
    keys = {c.messages[-1].usage.dedup_key for c in conversations if c.messages[-1].usage}
    assert len(keys) == 1
    (row,) = chatparse.usage_report(conversations, by="source")
    assert (row.responses, row.input_tokens, row.cache_read_tokens) == (1, 103, 100)


def test_failed_requests_record_no_usage_but_real_zero_counts_stay(tmp_path: Path) -> None:
    """An aborted request's all-zero usage is no usage; a response's zero cache write is kept."""
    writer = Writer(tmp_path)
    writer.message("u1", None, role="user", content="hi")
    aborted = answer("", input=0, output=0) | {"stopReason": "aborted", "content": []}
    writer.message("a1", "u1", **aborted)
    writer.message("a2", "a1", **answer("fine", input=7, output=2))
    writer.write()
    (conversation,) = parse_home(tmp_path)
    first, second = conversation.messages[1:]
    assert (first.kind, first.usage) == ("notice", None)
    assert second.usage is not None
    assert (second.usage.input_tokens, second.usage.cache_write_tokens) == (7, 0)
    assert second.usage.reasoning_tokens is None


# --- images ---


def test_images_in_tool_arguments_and_details_are_measured_not_kept() -> None:
    """An image block or data URI inside structured tool data becomes a placeholder and a ref."""
    images: list[ImageRef] = []
    value = {
        "shots": [{"type": "image", "data": PAYLOAD, "mimeType": "image/png"}],
        "note": f"see data:image/jpeg;base64,{PAYLOAD} here",
        "plain": {"n": 1},
    }
    cleaned = scrub(value, images)
    assert [i.media_type for i in images] == ["image/png", "image/jpeg"]
    assert PAYLOAD not in json.dumps(cleaned)
    assert cleaned["plain"] is value["plain"]  # untouched parts are not copied
    untouched = {"a": [1, "b"]}
    assert scrub(untouched, images) is untouched


def test_images_in_a_tool_result_go_to_the_message_that_called(tmp_path: Path) -> None:
    """A screenshot a tool returned is an ImageRef of the calling message; output says where."""
    writer = Writer(tmp_path)
    writer.message("u1", None, role="user", content="look")
    call = {"type": "toolCall", "id": "c1", "name": "screenshot", "arguments": {}}
    writer.message("a1", "u1", **(answer("") | {"content": [call], "stopReason": "toolUse"}))
    image = {"type": "image", "data": PAYLOAD, "mimeType": "image/png"}
    result = {"toolCallId": "c1", "toolName": "screenshot", "content": [image], "isError": False}
    writer.message("r1", "a1", role="toolResult", **result)
    writer.write()
    (conversation,) = parse_home(tmp_path)
    caller = conversation.messages[1]
    assert [i.media_type for i in caller.images] == ["image/png"]
    assert caller.tool_calls[0].output == f"[image: image/png, {len(PAYLOAD) * 3 // 4} bytes]"


# --- finding files ---


def test_one_session_in_two_folders_is_one_conversation_from_the_larger(tmp_path: Path) -> None:
    """The larger copy of a session id is read; the other is named in a warning."""
    writer = Writer(tmp_path)
    writer.message("u1", None, role="user", content="hi")
    small = writer.write()
    writer.message("a1", "u1", **answer("hello"))
    other = small.parent.with_name("--home-dev-q--")
    other.mkdir()
    large = other / small.name
    writer.path = large
    writer.write()
    (conversation,) = parse_home(tmp_path)
    assert conversation.meta.path == str(large)
    assert len(conversation.messages) == 2
    assert conversation.diagnostics.warnings == (
        f"session {SESSION} is also at {small}; that copy is not read",
    )


def test_a_session_gone_since_the_scan_cannot_be_parsed(tmp_path: Path) -> None:
    """Parse raises SourceUnavailableError (MISSING) for a file deleted after the scan."""
    writer = Writer(tmp_path)
    writer.message("u1", None, role="user", content="hi")
    path = writer.write()
    adapter = PiAdapter()
    found = adapter.detect(Host(home=tmp_path, env={}, platform="linux"))
    assert found is not None
    (meta,) = adapter.scan(found)
    path.unlink()
    with pytest.raises(SourceUnavailableError) as raised:
        adapter.parse(meta)
    assert raised.value.cause is UnavailableCause.MISSING


def test_explain_says_where_it_looked(tmp_path: Path) -> None:
    """Doctor lines name the variable, the folder and how many session files it holds."""
    Writer(tmp_path).write()
    lines = list(PiAdapter().explain(Host(home=tmp_path, env={}, platform="linux")))
    assert lines[0] == "PI_CODING_AGENT_DIR is not set: using ~/.pi/agent"
    assert lines[1].endswith("sessions: 1 session file(s) in 1 project folder(s)")
    moved = Host(home=tmp_path, env={"PI_CODING_AGENT_DIR": "~/x"}, platform="linux")
    lines = list(PiAdapter().explain(moved))
    assert lines[0] == "PI_CODING_AGENT_DIR is set: ~/x (so ~/.pi/agent is not read)"
    assert lines[1] == f"{tmp_path / 'x' / 'sessions'}: missing"


# --- single files ---


@pytest.mark.usefixtures("registered")
def test_parse_path_reads_a_session_file_outside_any_home(tmp_path: Path) -> None:
    """A Pi file handed over directly is sniffed as Pi's (not Oh My Pi's) and parsed."""
    writer = Writer(tmp_path)
    writer.message("u1", None, role="user", content="hi")
    loose = tmp_path / "loose.jsonl"
    shutil.copy(writer.write(), loose)
    assert PiAdapter().sniff(loose) > OhMyPiAdapter().sniff(loose) > 0
    (conversation,) = chatparse.parse_path(loose)
    assert (conversation.source, conversation.id, conversation.title) == ("pi", SESSION, "hi")


def test_sniff_wants_a_session_header(tmp_path: Path) -> None:
    """Files that are not Pi sessions score 0: other JSON Lines, other suffixes, a title slot."""
    other = tmp_path / "other.jsonl"
    other.write_text('{"type":"user","message":{}}\n', encoding="utf-8")
    slot = tmp_path / "omp.jsonl"
    slot.write_text('{"type":"title","v":1,"title":"t"}\n{"type":"session","id":"x"}\n', "utf-8")
    text = tmp_path / "session.txt"
    text.write_text('{"type":"session","id":"x"}\n', encoding="utf-8")
    assert [PiAdapter().sniff(p) for p in (other, slot, text)] == [0.0, 0.0, 0.0]
