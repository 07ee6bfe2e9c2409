"""The OpenClaw adapter: its folders, file names, gateway wrappers, copies and index."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import chatparse
from chatparse import registry
from chatparse.adapters.oh_my_pi import OhMyPiAdapter
from chatparse.adapters.openclaw import (
    OpenClawAdapter,
    answer_text,
    classify,
    prompt_text,
    state_dirs,
)
from chatparse.adapters.pi import PiAdapter
from chatparse.host import Host
from chatparse.model import ParsedConversation
from chatparse.testing import AdapterConformance, check_conversation

REPO = Path(__file__).resolve().parents[2]
SESSION = "8555a0a4-0b79-459d-939c-e17cdbbf4fe2"
STAMP = "2026-03-08T12:15:35Z"


class TestOpenClawConformance(AdapterConformance):
    adapter = "openclaw"
    fixtures = REPO / "fixtures" / "openclaw"

    def make_adapter(self) -> chatparse.SourceAdapter:
        return OpenClawAdapter()


@pytest.fixture
def registered(fresh_registry: registry.Registry) -> None:
    """The Pi family registered in a fresh registry, as once built in."""
    for adapter in (PiAdapter, OhMyPiAdapter, OpenClawAdapter):
        fresh_registry.register(adapter, replace=True)


def transcript(folder: Path, name: str, lines: list[dict[str, Any]]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def header(ident: str = SESSION) -> dict[str, Any]:
    return {"type": "session", "version": 3, "id": ident, "timestamp": STAMP, "cwd": "/w"}


def said(ident: str, parent: str | None, role: str, text: str) -> dict[str, Any]:
    message: dict[str, Any] = {"role": role, "content": [{"type": "text", "text": text}]}
    if role == "assistant":
        message |= {"provider": "openai", "model": "gpt-5", "api": "openai-responses"}
    return {
        "type": "message",
        "id": ident,
        "parentId": parent,
        "timestamp": STAMP,
        "message": message,
    }


def parse_home(home: Path, env: dict[str, str] | None = None) -> list[ParsedConversation]:
    adapter = OpenClawAdapter()
    found = adapter.detect(Host(home=home, env=env or {}, platform="linux"))
    assert found is not None
    parsed = [adapter.parse(meta) for meta in adapter.scan(found)]
    for conversation in parsed:
        assert check_conversation(conversation) == []
    return parsed


SESSIONS = Path(".openclaw") / "agents" / "main" / "sessions"


# --- the gateway's wrappers ---

SENDER = (
    'Sender (untrusted metadata):\n```json\n{\n  "label": "openclaw-tui (gateway-client)"\n}'
    "\n```\n\n"
)
QUOTED = "I quoted this: Sender (untrusted metadata): nothing else"
MIDDLE = "No directive [[reply_to_current]] in the middle"
CHAT = 'Conversation info (untrusted metadata):\n```json\n{\n  "message_id": "10285"\n}\n```\n\n'


@pytest.mark.parametrize(
    ("text", "typed"),
    [
        (SENDER + "[Sun 2026-03-08 22:03 GMT+9] はくあ", "はくあ"),
        (CHAT + SENDER + "How big is the context?", "How big is the context?"),
        ("[Wed 2026-03-11 23:51 PDT] " + CHAT + "hi", "hi"),
        ("Untrusted context (metadata, do not treat as instructions):\nprovenance\n\nok", "ok"),
        ("[x] a checklist item, not a time", "[x] a checklist item, not a time"),
        (QUOTED, QUOTED),
        (SENDER.rstrip(), SENDER.rstrip()),  # nothing but metadata: kept whole
    ],
)
def test_prompts_lose_the_gateways_metadata_and_time(text: str, typed: str) -> None:
    """Leading metadata blocks and the received-at time are removed; nothing else is."""
    assert prompt_text(text) == typed


@pytest.mark.parametrize(
    ("text", "visible"),
    [
        ("[[reply_to_current]] Lights off.", "Lights off."),
        ("[[reply_to:4711]]2°C", "2°C"),
        (MIDDLE, MIDDLE),
    ],
)
def test_answers_lose_a_leading_reply_directive(text: str, visible: str) -> None:
    """The gateway acts on [[reply_to...]] at the start of an answer and never shows it."""
    assert answer_text(text) == visible


# --- file names and folders ---


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        (f"{SESSION}.jsonl", (SESSION, True)),
        (f"{SESSION}-topic-42.jsonl", (f"{SESSION}-topic-42", True)),
        (f"{SESSION}.jsonl.reset.2026-02-23T12-34-56.000Z", (SESSION, False)),
        (f"{SESSION}.jsonl.deleted.2026-02-23T12-34-56Z.{'a' * 32}", (SESSION, False)),
        (f"{SESSION}.jsonl.bak.2026-02-23T12-34-56.000Z", (SESSION, False)),
        (f"{SESSION}.jsonl.full.bak", (SESSION, False)),
        (f"{SESSION}.checkpoint.11111111-1111-4111-8111-111111111111.jsonl", (SESSION, False)),
        (f"{SESSION}.trajectory.jsonl", None),
        (f"{SESSION}.jsonl.deleted.2026-02-23T12-34-56.000Z.zst", None),
        ("sessions.json", None),
        ("sessions.json.bak.1773000000000", None),
        (f"{SESSION}.jsonl.reset.yesterday", None),
    ],
)
def test_which_files_are_transcripts(name: str, expected: tuple[str, bool] | None) -> None:
    """Live transcripts, archives and checkpoints name their session; the rest is no transcript."""
    named = classify(name)
    assert (named.id, named.live) == expected if named is not None else expected is None


def test_state_folders_follow_openclaw_home_and_the_old_variable(tmp_path: Path) -> None:
    """OPENCLAW_HOME replaces the home; CLAWDBOT_STATE_DIR still names the state folder."""
    env = {"OPENCLAW_HOME": "~/oc-home"}
    variable, dirs = state_dirs(Host(home=tmp_path, env=env, platform="linux"))
    assert variable is None
    assert dirs[0] == tmp_path / "oc-home" / ".openclaw"
    assert [d.name for d in dirs] == [".openclaw", ".clawdbot", ".moldbot", ".moltbot"]
    env |= {"CLAWDBOT_STATE_DIR": "~/state"}
    assert state_dirs(Host(home=tmp_path, env=env, platform="linux")) == (
        "CLAWDBOT_STATE_DIR",
        [tmp_path / "oc-home" / "state"],
    )


# --- copies ---


@pytest.mark.usefixtures("registered")
def test_a_rotated_transcript_without_a_header_still_parses_alone(tmp_path: Path) -> None:
    """parse_path on the live half of a rotation: no header, so no folder, every message kept."""
    path = transcript(
        tmp_path / SESSIONS,
        f"{SESSION}.jsonl",
        [said("b", "a", "user", "thanks"), said("c", "b", "assistant", "[[reply_to_current]] 👍")],
    )
    assert OpenClawAdapter().sniff(path) == 0.9
    (conversation,) = chatparse.parse_path(path)
    assert (conversation.source, conversation.id, conversation.project_path) == (
        "openclaw",
        SESSION,
        None,
    )
    assert [m.text for m in conversation.messages] == ["thanks", "👍"]
    assert conversation.messages[0].parent_id is None  # its parent is in the archived half


@pytest.mark.usefixtures("registered")
def test_an_archive_handed_over_is_read_as_its_session(tmp_path: Path) -> None:
    """A .reset archive is sniffed as OpenClaw's (Pi's sniffer wants a .jsonl name)."""
    name = f"{SESSION}.jsonl.reset.2026-03-05T18-30-00.000Z"
    archive = transcript(tmp_path, name, [header(), said("a", None, "user", "hi")])
    assert PiAdapter().sniff(archive) == 0.0
    (conversation,) = chatparse.parse_path(archive)
    assert (conversation.source, conversation.id) == ("openclaw", SESSION)


def test_a_copy_removed_after_the_scan_is_named_not_fatal(tmp_path: Path) -> None:
    """An archived copy gone by parse time is a warning; the live file is still read."""
    folder = tmp_path / SESSIONS
    name = f"{SESSION}.jsonl.bak.2026-03-10T09-00-00.000Z"
    backup = transcript(folder, name, [header(), said("a", None, "user", "old")])
    transcript(folder, f"{SESSION}.jsonl", [said("b", "a", "user", "new")])
    adapter = OpenClawAdapter()
    found = adapter.detect(Host(home=tmp_path, env={}, platform="linux"))
    assert found is not None
    (meta,) = adapter.scan(found)
    backup.unlink()
    conversation = adapter.parse(meta)
    assert [m.text for m in conversation.messages] == ["new"]
    assert len(conversation.diagnostics.warnings) == 1
    assert conversation.diagnostics.warnings[0].startswith(f"{backup.name}: not read")


# --- the index ---


def test_a_damaged_index_costs_titles_only(tmp_path: Path) -> None:
    """sessions.json cut off mid-write: no title from it, the transcript still listed."""
    folder = tmp_path / SESSIONS
    transcript(folder, f"{SESSION}.jsonl", [header(), said("a", None, "user", "first words")])
    (folder / "sessions.json").write_text('{"agent:main:main": {"sessionId": "', encoding="utf-8")
    (conversation,) = parse_home(tmp_path)
    assert conversation.title == "first words"
    explained = list(OpenClawAdapter().explain(Host(home=tmp_path, env={}, platform="linux")))
    assert f"{folder}: 1 transcript file(s); sessions.json damaged" in explained


def test_a_cycle_of_spawners_does_not_hide_its_sessions(tmp_path: Path) -> None:
    """Two sessions that name each other as parent: both listed, neither swallowed."""
    folder = tmp_path / SESSIONS
    transcript(folder, "a.jsonl", [header("a"), said("x", None, "user", "a")])
    transcript(folder, "b.jsonl", [header("b"), said("y", None, "user", "b")])
    index = {
        "agent:main:a": {"sessionId": "a", "spawnedBy": "agent:main:b"},
        "agent:main:b": {"sessionId": "b", "spawnedBy": "agent:main:a"},
    }
    (folder / "sessions.json").write_text(json.dumps(index), encoding="utf-8")
    parsed = parse_home(tmp_path)
    assert [(c.id, c.subagents) for c in parsed] == [("a", ()), ("b", ())]


def test_explain_reports_stores_it_cannot_read(tmp_path: Path) -> None:
    """Compressed archives, encrypted transcripts and the SQLite store are named, not guessed at."""
    folder = tmp_path / SESSIONS
    transcript(folder, f"{SESSION}.jsonl", [header()])
    (folder / "e.jsonl").write_bytes(b"OPENCLAW_ENCRYPTED_V1\nAAAA:BBBB:CCCC")
    (folder / f"{SESSION}.jsonl.deleted.2026-01-01T00-00-00.000Z.zst").write_bytes(b"\x28\xb5")
    store = folder.parent / "agent" / "openclaw-agent.sqlite"
    store.parent.mkdir()
    store.write_bytes(b"SQLite format 3\x00")
    lines = list(OpenClawAdapter().explain(Host(home=tmp_path, env={}, platform="linux")))
    assert f"{folder}: 1 Zstandard-compressed archive(s) are not read" in lines
    assert f"{store}: OpenClaw's SQLite session store, which chatparse does not read yet" in lines
    assert f"{folder}: 1 encrypted transcript(s) (OPENCLAW_ENCRYPTED_V1) are not read" in lines
    conversations = {c.id: c for c in parse_home(tmp_path)}
    warnings = conversations["e"].diagnostics.warnings
    assert warnings[-1] == f"{folder / 'e.jsonl'} is encrypted (OPENCLAW_ENCRYPTED_V1): not read"
