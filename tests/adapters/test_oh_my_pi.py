"""The Oh My Pi adapter: where it looks, its title rules, sub-agents and side-call usage."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import chatparse
from chatparse.adapters.oh_my_pi import OhMyPiAdapter, session_roots
from chatparse.adapters.pi import PiAdapter
from chatparse.host import Host
from chatparse.model import ParsedConversation
from chatparse.testing import AdapterConformance, check_conversation

REPO = Path(__file__).resolve().parents[2]
SESSION = "V1StGXR8_Z5jdHi6B-myT"
STAMP = "2026-08-01T10:00:01Z"


class TestOhMyPiConformance(AdapterConformance):
    adapter = "oh-my-pi"
    fixtures = REPO / "fixtures" / "oh-my-pi"

    def make_adapter(self) -> chatparse.SourceAdapter:
        return OhMyPiAdapter()


def slot(title: str) -> str:
    """Oh My Pi's title slot: one line of exactly 256 bytes, newline included."""
    line = json.dumps({"type": "title", "v": 1, "title": title, "updatedAt": STAMP, "pad": ""})
    return line[:-2] + " " * (255 - len(line.encode())) + '"}'


def write(folder: Path, name: str, lines: list[dict[str, Any] | str]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    text = "".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in lines)
    path.write_text(text, encoding="utf-8")
    return path


def header(ident: str = SESSION, **extra: Any) -> dict[str, Any]:
    fields = {"type": "session", "version": 3, "id": ident, "timestamp": STAMP, "cwd": "/w"}
    return fields | extra


def entry(kind: str, ident: str, parent: str | None, **fields: Any) -> dict[str, Any]:
    return {"type": kind, "id": ident, "parentId": parent, "timestamp": STAMP, **fields}


def change(ident: str, title: str) -> dict[str, Any]:
    return entry("title_change", ident, None, title=title)


def prompt(ident: str, parent: str | None, text: str) -> dict[str, Any]:
    return entry("message", ident, parent, message={"role": "user", "content": text})


def parse_home(home: Path, env: dict[str, str] | None = None) -> list[ParsedConversation]:
    adapter = OhMyPiAdapter()
    found = adapter.detect(Host(home=home, env=env or {}, platform="linux"))
    assert found is not None
    parsed = [adapter.parse(meta) for meta in adapter.scan(found)]
    for conversation in parsed:
        assert check_conversation(conversation) == []
    return parsed


SESSIONS = Path(".omp") / "agent" / "sessions" / "-demo"
NAME = f"2026-08-01T10-00-00-000Z_{SESSION}.jsonl"


# --- where it looks ---


def test_roots_default_profiles_and_migrated_xdg(tmp_path: Path) -> None:
    """XDG data (once migrated) comes first, then the agent folder, then each named profile."""
    for folder in (".omp/profiles/work/agent", ".omp/profiles/home/agent", "xdg/omp/profiles/a"):
        (tmp_path / folder).mkdir(parents=True)
    host = Host(home=tmp_path, env={"XDG_DATA_HOME": str(tmp_path / "xdg")}, platform="linux")
    assert session_roots(host) == [
        tmp_path / "xdg/omp/sessions",
        tmp_path / ".omp/agent/sessions",
        tmp_path / ".omp/profiles/home/agent/sessions",
        tmp_path / ".omp/profiles/work/agent/sessions",
        tmp_path / "xdg/omp/profiles/a/sessions",
    ]


@pytest.mark.parametrize(
    ("env", "platform", "first"),
    [
        ({"PI_CONFIG_DIR": ".pi-fork"}, "linux", ".pi-fork/agent/sessions"),
        ({"PI_CODING_AGENT_DIR": "~/agent2"}, "linux", "agent2/sessions"),
        ({"OMP_CODING_AGENT_DIR": "~/old-agent"}, "darwin", "old-agent/sessions"),
        # XDG is a Linux and macOS convention: Windows keeps ~/.omp even with the variable set.
        ({"XDG_DATA_HOME": "{home}/xdg"}, "win32", ".omp/agent/sessions"),
    ],
)
def test_variables_that_move_the_sessions(
    tmp_path: Path, env: dict[str, str], platform: str, first: str
) -> None:
    """Each variable Oh My Pi reads moves the first root as Oh My Pi would."""
    (tmp_path / "xdg" / "omp").mkdir(parents=True)
    env = {key: value.replace("{home}", str(tmp_path)) for key, value in env.items()}
    roots = session_roots(Host(home=tmp_path, env=env, platform=platform))
    assert roots[0] == tmp_path / first


# --- titles ---


@pytest.mark.parametrize(
    ("lines", "title"),
    [
        (
            [slot("From the slot"), header(title="From the header"), change("t", "Changed")],
            "From the slot",
        ),
        ([slot(""), header(title="Header"), change("t", "Old"), change("u", "Changed")], "Changed"),
        ([header(title="From the header")], "From the header"),
        ([header()], "the first prompt"),
    ],
)
def test_title_precedence(tmp_path: Path, lines: list[dict[str, Any] | str], title: str) -> None:
    """The slot, else the latest title_change, else the header's title, else the first prompt."""
    write(tmp_path / SESSIONS, NAME, [*lines, prompt("p", None, "the first prompt")])
    (conversation,) = parse_home(tmp_path)
    assert conversation.title == title


def test_the_slot_is_exactly_256_bytes_and_sniffed_as_oh_my_pi(tmp_path: Path) -> None:
    """A file that starts with the title slot is Oh My Pi's, never Pi's."""
    path = write(tmp_path, "s.jsonl", [slot("t"), header()])
    assert len(path.read_bytes().split(b"\n")[0]) + 1 == 256
    assert OhMyPiAdapter().sniff(path) == 0.95
    assert PiAdapter().sniff(path) == 0.0


# --- sub-agents and side calls ---


def test_subagents_nest_and_their_files_change_the_parents_fingerprint(tmp_path: Path) -> None:
    """A sub-agent's file is read inside its parent; touching it changes the parent's key."""
    folder = tmp_path / SESSIONS
    write(folder, NAME, [slot("t"), header(), prompt("p", None, "go")])
    agents = folder / NAME.removesuffix(".jsonl")
    child = write(agents, "scout.jsonl", [slot(""), header("child"), prompt("c", None, "look")])
    write(agents / "scout", "deep.jsonl", [slot(""), header("deep"), prompt("d", None, "dig")])
    (conversation,) = parse_home(tmp_path)
    (scout,) = conversation.subagents
    (deep,) = scout.subagents
    assert (scout.id, scout.meta.locator["agent"], scout.meta.locator["parent_session"]) == (
        "child",
        "scout",
        SESSION,
    )
    assert (deep.id, deep.meta.locator["parent_session"]) == ("deep", "child")
    before = conversation.meta.fingerprint
    with child.open("a", encoding="utf-8") as stream:
        stream.write(json.dumps(prompt("c2", "c", "more")) + "\n")
    (again,) = parse_home(tmp_path)
    assert again.meta.fingerprint != before
    assert len(again.subagents[0].messages) == 2


def test_side_call_usage_counts_towards_totals_off_the_main_line(tmp_path: Path) -> None:
    """model_usage (a title, a summary) is a usage-only side-chain notice, counted in totals."""
    usage = {"input": 120, "output": 9, "cacheRead": 30, "cacheWrite": 0}
    answer: dict[str, Any] = {"role": "assistant", "content": [{"type": "text", "text": "ok"}]}
    answer |= {"api": "anthropic-messages", "provider": "anthropic", "model": "claude-sonnet-4-5"}
    answer |= {"usage": {"input": 5, "output": 2}, "stopReason": "stop"}
    call: dict[str, Any] = {
        "purpose": "title",
        "api": "anthropic-messages",
        "provider": "anthropic",
    }
    call |= {"model": "claude-haiku-4-5", "usage": usage, "stopReason": "stop"}
    write(
        tmp_path / SESSIONS,
        NAME,
        [
            header(),
            prompt("p", None, "hi"),
            entry("message", "a", "p", message=answer),
            entry(
                "model_usage",
                "m",
                "a",
                purpose="title",
                api="anthropic-messages",
                provider="anthropic",
                model="claude-haiku-4-5",
                usage=usage,
                stopReason="stop",
            ),
        ],
    )
    (conversation,) = parse_home(tmp_path)
    side = conversation.messages[-1]
    assert (side.kind, side.is_sidechain, side.model, side.text) == (
        "notice",
        True,
        "claude-haiku-4-5",
        "title",
    )
    total = conversation.usage_total()
    assert (total.input_tokens, total.output_tokens) == (5 + 150, 2 + 9)
    assert [m.id for m in conversation.main_thread()] == ["p", "a"]


def test_explain_names_the_variables_in_force(tmp_path: Path) -> None:
    """Doctor says which variable moved the agent folder, and which roots exist."""
    env = {"OMP_CODING_AGENT_DIR": "~/a", "PI_CONFIG_DIR": ".o"}
    lines = list(OhMyPiAdapter().explain(Host(home=tmp_path, env=env, platform="linux")))
    assert lines[:2] == [
        "OMP_CODING_AGENT_DIR is set: ~/a (so ~/.omp/agent is not read)",
        "PI_CONFIG_DIR is set: ~/.o is read instead of ~/.omp",
    ]
    assert f"{tmp_path / 'a' / 'sessions'}: missing" in lines
