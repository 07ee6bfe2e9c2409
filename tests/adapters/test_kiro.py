"""The Kiro adapter: what the conformance cases do not show."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

import chatparse
from chatparse.adapters.kiro import KiroAdapter
from chatparse.errors import SourceUnavailableError, UnavailableCause
from chatparse.host import Host
from chatparse.model import ConversationMeta, ParsedConversation
from chatparse.testing import AdapterConformance, check_conversation

REPO = Path(__file__).resolve().parents[2]
CWD = "/home/dev/app"


class TestKiroConformance(AdapterConformance):
    adapter = "kiro"
    fixtures = REPO / "fixtures" / "kiro"

    def make_adapter(self) -> chatparse.SourceAdapter:
        return KiroAdapter()


# --- helpers ---


def state(ident: str, prompt: str, answer: str) -> str:
    """A ConversationState document with one turn."""
    turn = {
        "user": {"content": {"Prompt": {"prompt": prompt}}, "timestamp": None, "images": None},
        "assistant": {"Response": {"message_id": f"{ident}-a", "content": answer}},
    }
    return json.dumps({"conversation_id": ident, "history": [turn]})


def database(path: Path, rows: list[tuple[str, str, str]]) -> Path:
    """A Kiro CLI database whose conversations_v2 holds ``(key, id, value)`` rows."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with sqlite3.connect(path) as connection:
        connection.execute(
            "CREATE TABLE conversations_v2 (key TEXT NOT NULL, conversation_id TEXT NOT NULL,"
            " value TEXT NOT NULL, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,"
            " PRIMARY KEY (key, conversation_id))"
        )
        connection.executemany(
            "INSERT INTO conversations_v2 VALUES (?, ?, ?, 1759396503000, 1759396662400)", rows
        )
    connection.close()
    return path


def linux_db(home: Path) -> Path:
    return home / ".local" / "share" / "kiro-cli" / "data.sqlite3"


def journal(home: Path, ident: str, lines: list[dict[str, Any]], **metadata: Any) -> Path:
    folder = home / ".kiro" / "sessions" / "cli"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{ident}.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    if metadata:
        (folder / f"{ident}.json").write_text(json.dumps(metadata))
    return folder / f"{ident}.jsonl"


def prompt_line(text: str) -> dict[str, Any]:
    return {
        "version": "v1",
        "kind": "Prompt",
        "data": {"content": [{"kind": "text", "data": text}]},
    }


def scan(host: Host) -> list[ConversationMeta]:
    adapter = KiroAdapter()
    found = adapter.detect(host)
    assert found is not None
    return list(adapter.scan(found))


def linux(home: Path, **env: str) -> Host:
    return Host(home=home, env=env, platform="linux")


def parse_all(host: Host) -> list[ParsedConversation]:
    adapter = KiroAdapter()
    with adapter.parsing() as parse:
        conversations = [parse(meta) for meta in scan(host)]
    for conversation in conversations:
        assert check_conversation(conversation) == []
    return conversations


# --- where it looks ---


def test_nothing_to_detect_on_a_bare_home(tmp_path: Path) -> None:
    (tmp_path / ".kiro" / "settings").mkdir(parents=True)
    assert KiroAdapter().detect(linux(tmp_path)) is None


def test_an_empty_kiro_home_variable_means_the_default(tmp_path: Path) -> None:
    journal(tmp_path, "s1", [prompt_line("hi")])
    assert [m.id for m in scan(linux(tmp_path, KIRO_HOME=""))] == ["s1"]


def test_a_relative_xdg_data_home_is_ignored(tmp_path: Path) -> None:
    """The XDG spec says a relative value is invalid: ~/.local/share is read."""
    database(linux_db(tmp_path), [(CWD, "c1", state("c1", "q", "a"))])
    assert [m.id for m in scan(linux(tmp_path, XDG_DATA_HOME="relative/data"))] == ["c1"]


def test_windows_without_localappdata_reads_appdata_local(tmp_path: Path) -> None:
    db = tmp_path / "AppData" / "Local" / "kiro-cli" / "data.sqlite3"
    database(db, [("C:\\work", "w1", state("w1", "q", "a"))])
    host = Host(home=tmp_path, env={}, platform="win32")
    assert [m.id for m in scan(host)] == ["w1"]


def test_the_kiro_cli_database_wins_over_amazon_q(tmp_path: Path) -> None:
    database(linux_db(tmp_path), [(CWD, "same", state("same", "kiro copy", "a"))])
    amazon_q = tmp_path / ".local" / "share" / "amazon-q" / "data.sqlite3"
    database(amazon_q, [(CWD, "same", state("same", "amazon q copy", "a"))])
    (conversation,) = parse_all(linux(tmp_path))
    assert conversation.messages[0].text == "kiro copy"
    assert conversation.meta.locator["producer"] == "kiro-cli"


def test_explain_names_every_place(tmp_path: Path) -> None:
    database(linux_db(tmp_path), [(CWD, "c1", state("c1", "q", "a"))])
    lines = list(KiroAdapter().explain(linux(tmp_path)))
    assert "KIRO_HOME is not set" in lines
    assert f"{linux_db(tmp_path)}: present, tables conversations_v2" in lines
    assert f"{tmp_path / '.local/share/amazon-q/data.sqlite3'}: missing" in lines
    assert f"{tmp_path / '.kiro/sessions'}: missing" in lines


def test_explain_says_when_a_database_cannot_be_read(tmp_path: Path) -> None:
    db = linux_db(tmp_path)
    db.parent.mkdir(parents=True)
    db.write_bytes(b"not a database at all, just bytes" * 4)
    lines = list(KiroAdapter().explain(linux(tmp_path)))
    assert any(line.startswith(f"{db}: present but not readable") for line in lines)


# --- what it reads ---


def test_batch_parsing_equals_parsing_one_at_a_time(tmp_path: Path) -> None:
    rows = [(CWD, f"c{i}", state(f"c{i}", f"q{i}", f"a{i}")) for i in range(3)]
    database(linux_db(tmp_path), rows)
    journal(tmp_path, "s1", [prompt_line("from the journal")])
    adapter = KiroAdapter()
    metas = scan(linux(tmp_path))
    with adapter.parsing() as parse:
        batch = [parse(meta) for meta in metas]
    assert batch == [adapter.parse(meta) for meta in metas]
    assert len(batch) == 4


def test_a_conversation_deleted_since_the_scan_is_missing(tmp_path: Path) -> None:
    db = database(linux_db(tmp_path), [(CWD, "c1", state("c1", "q", "a"))])
    (meta,) = scan(linux(tmp_path))
    with sqlite3.connect(db) as connection:
        connection.execute("DELETE FROM conversations_v2")
    connection.close()
    with pytest.raises(SourceUnavailableError) as caught:
        KiroAdapter().parse(meta)
    assert caught.value.cause is UnavailableCause.MISSING


def test_usage_is_never_invented(tmp_path: Path) -> None:
    """Kiro records credits, not tokens: no message carries usage."""
    database(linux_db(tmp_path), [(CWD, "c1", state("c1", "q", "a"))])
    (conversation,) = parse_all(linux(tmp_path))
    assert [m.usage for m in conversation.messages] == [None, None]


def test_a_base64_image_in_tool_input_is_dropped(tmp_path: Path) -> None:
    payload = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk" * 4
    use = {
        "kind": "toolUse",
        "data": {"toolUseId": "t1", "name": "upload", "input": {"image": payload}},
    }
    answer = {"version": "v1", "kind": "AssistantMessage", "data": {"content": [use]}}
    journal(tmp_path, "s1", [prompt_line("upload it"), answer])
    (conversation,) = parse_all(linux(tmp_path))
    (call,) = conversation.messages[-1].tool_calls
    assert payload not in json.dumps(call.input)


# --- single paths ---


def test_parse_path_takes_a_journal_its_metadata_or_a_database(tmp_path: Path) -> None:
    path = journal(tmp_path, "s1", [prompt_line("hi")], session_id="s1", cwd=CWD)
    db = database(linux_db(tmp_path), [(CWD, "c1", state("c1", "q", "a"))])
    adapter = KiroAdapter()
    assert adapter.sniff(path) == 0.9
    assert [m.id for m in adapter.scan_path(path.with_suffix(".json"))] == ["s1"]
    assert adapter.sniff(db) == 0.9
    assert [m.id for m in adapter.scan_path(db)] == ["c1"]
    assert adapter.sniff(tmp_path / "elsewhere.jsonl") == 0.0
