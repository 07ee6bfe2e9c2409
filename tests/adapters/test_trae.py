"""The Trae adapter: conformance cases, where it looks, and the rules one by one."""

from __future__ import annotations

import gc
import json
import sqlite3
import subprocess
import sys
import tracemalloc
import weakref
from collections.abc import Generator, Iterable
from contextlib import closing
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

import chatparse
from chatparse.adapters.trae import TraeAdapter, block, parsed, scanning, stores
from chatparse.adapters.trae import split as cutting
from chatparse.adapters.trae.session import Session
from chatparse.decoders import value as jsonvalue
from chatparse.decoders.sqlite import open_snapshot
from chatparse.errors import SourceUnavailableError
from chatparse.host import Host
from chatparse.model import ConversationMeta, Message, ParsedConversation
from chatparse.testing import AdapterConformance, check_conversation

REPO = Path(__file__).resolve().parents[2]
T0 = 1767348000000  # 2026-01-02T10:00:00Z in epoch milliseconds
SID = "68302619eadbed83163f2693"
STORE = "memento/icube-ai-agent-storage"
HISTORY = "icube-ai-agent-storage-input-history"


class TestTraeConformance(AdapterConformance):
    adapter = "trae"
    fixtures = REPO / "fixtures"


# --- helpers ---


def user(turn: int, text: str, **extra: Any) -> dict[str, Any]:
    return {
        "role": "user",
        "content": text,
        "turnIndex": turn,
        "turnId": f"t{turn}",
        "timestamp": T0 + turn * 10_000,
    } | extra


def bot(turn: int, **extra: Any) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": "",
        "status": "completed",
        "turnIndex": turn,
        "turnId": f"t{turn}",
        "timestamp": T0 + turn * 10_000 + 5_000,
    } | extra


def session(messages: Iterable[object], sid: str = SID, **extra: Any) -> dict[str, Any]:
    return (
        {"sessionId": sid, "createdAt": T0, "updatedAt": T0 + 99_000}
        | extra
        | {"messages": list(messages)}
    )


def write_db(path: Path, rows: dict[str, object], *, blob: bool = False) -> Path:
    """A workspace ``state.vscdb`` whose ``ItemTable`` holds ``rows`` (JSON-encoded unless str)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with closing(sqlite3.connect(path)) as db, db:
        db.execute(
            "CREATE TABLE IF NOT EXISTS ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)"
        )
        for key, value in rows.items():
            text = value if isinstance(value, str) or value is None else json.dumps(value)
            stored: object = text.encode() if blob and isinstance(text, str) else text
            db.execute("INSERT INTO ItemTable VALUES (?, ?)", (key, stored))
    return path


def workspace(  # noqa: PLR0913 -- keyword options of one fixture builder
    home: Path,
    sessions: Iterable[dict[str, Any]] = (),
    *,
    wid: str = "ws1",
    product: str = "Trae",
    history: object = None,
    extra: dict[str, object] | None = None,
    blob: bool = False,
) -> Path:
    """A workspace folder under ``~/.config/<product>/User`` with a store of ``sessions``."""
    folder = home / ".config" / product / "User" / "workspaceStorage" / wid
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "workspace.json").write_text(json.dumps({"folder": f"file:///home/ada/{wid}"}))
    rows: dict[str, object] = {STORE: {"currentSessionId": SID, "list": list(sessions)}}
    if history is not None:
        rows[HISTORY] = history
    rows |= extra or {}
    return write_db(folder / "state.vscdb", rows, blob=blob)


def at(ms: int) -> datetime:
    return datetime.fromtimestamp(ms / 1000, UTC)


def host(home: Path, platform: str = "linux", **env: str) -> Host:
    return Host(home=home, env=env, platform=platform)


def scan_all(home: Path, adapter: TraeAdapter | None = None) -> list[ConversationMeta]:
    adapter = adapter or TraeAdapter()
    source = adapter.detect(host(home))
    assert source is not None
    return list(adapter.scan(source))


def parse_all(home: Path, adapter: TraeAdapter | None = None) -> dict[str, ParsedConversation]:
    adapter = adapter or TraeAdapter()
    parsed = {}
    for meta in scan_all(home, adapter):
        conversation = adapter.parse(meta)
        assert check_conversation(conversation) == []
        assert conversation.diagnostics.balanced
        parsed[conversation.id] = conversation
    return parsed


def parse_one(tmp_path: Path, messages: Iterable[object], **extra: Any) -> ParsedConversation:
    workspace(tmp_path, [session(messages, **extra)])
    return parse_all(tmp_path)[SID]


def count_opens(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """The databases scan and parse open from now on, in order."""
    opened: list[Path] = []

    def counting(path: Path) -> Any:
        opened.append(Path(path))
        return open_snapshot(path)

    for module in (scanning, parsed):
        monkeypatch.setattr(module, "open_snapshot", counting)
    return opened


def texts(conversation: ParsedConversation) -> list[tuple[str, str]]:
    return [(m.role, m.text) for m in conversation.messages]


def answers(conversation: ParsedConversation) -> list[Message]:
    return [m for m in conversation.messages if m.role == "assistant"]


# --- where it looks ---


@pytest.mark.parametrize(
    ("platform", "env", "user_dir"),
    [
        ("linux", {}, ".config/Trae/User"),
        ("linux", {"XDG_CONFIG_HOME": "{home}/xdg"}, "xdg/Trae CN/User"),
        ("darwin", {}, "Library/Application Support/TRAE SOLO CN/User"),
        ("win32", {}, "AppData/Roaming/Trae CN/User"),
        ("win32", {"APPDATA": "{home}/Roaming"}, "Roaming/Trae/User"),
    ],
)
def test_detect_finds_each_product_on_each_platform(
    tmp_path: Path, platform: str, env: dict[str, str], user_dir: str
) -> None:
    """Trae, Trae CN and TRAE SOLO CN are found where their platform keeps user data."""
    db = tmp_path / user_dir / "workspaceStorage" / "w" / "state.vscdb"
    write_db(db, {STORE: {"list": [session([user(1, "hi")])]}})
    environment = {k: v.replace("{home}", str(tmp_path)) for k, v in env.items()}
    found = TraeAdapter().detect(host(tmp_path, platform, **environment))
    assert found is not None
    assert found.roots == (str(tmp_path / user_dir),)


def test_detect_needs_a_workspace_database(tmp_path: Path) -> None:
    """A user folder whose workspaces have no ``state.vscdb`` is not a source."""
    folder = tmp_path / ".config" / "Trae" / "User" / "workspaceStorage" / "w"
    folder.mkdir(parents=True)
    (folder / "workspace.json").write_text('{"folder": "file:///p"}')
    assert TraeAdapter().detect(host(tmp_path)) is None


def test_explain_names_the_encrypted_database_only_when_it_exists(tmp_path: Path) -> None:
    """``doctor`` says the encrypted ``ModularData/ai-agent/database.db`` is not read."""
    adapter = TraeAdapter()
    assert not any("database.db" in line for line in adapter.explain(host(tmp_path)))
    encrypted = tmp_path / ".config" / "Trae CN" / "ModularData" / "ai-agent" / "database.db"
    encrypted.parent.mkdir(parents=True)
    encrypted.write_bytes(b"\x8f\x3aencrypted")
    lines = list(adapter.explain(host(tmp_path)))
    assert any(str(encrypted) in line and "not read" in line for line in lines)
    assert any(line.startswith("Trae: ") and "missing" in line for line in lines)


def test_explain_reports_damage_leftovers_and_unreadable_databases(tmp_path: Path) -> None:
    """Damaged values, older keys without messages and broken files are named for ``doctor``."""
    workspace(
        tmp_path,
        extra={"memento/icube-ai-ng-chat-storage-1": {"list": []}},
    )
    write_db(
        tmp_path / ".config/Trae/User/workspaceStorage/ws2/state.vscdb",
        {STORE: '{"list": [{"sessionId": "a", "messages": []}, {"sessionId": "b", "mess'},
    )
    broken = tmp_path / ".config/Trae/User/workspaceStorage/ws3/state.vscdb"
    broken.parent.mkdir(parents=True)
    broken.write_text("not a database")
    text = "\n".join(TraeAdapter().explain(host(tmp_path)))
    assert "3 workspace database(s)" in text
    assert "memento/icube-ai-ng-chat-storage-1 holds no session with messages" in text
    assert "is damaged at byte" in text
    assert f"{broken}: cannot be read" in text


# --- scan ---


def test_scan_reads_the_project_times_and_title_without_parsing(tmp_path: Path) -> None:
    """A meta carries the workspace's project, the session's times and its title."""
    workspace(tmp_path, [session([user(1, "hi")], title="Greeting")], blob=True)
    (meta,) = scan_all(tmp_path)
    assert meta.id == SID
    assert meta.project_path == "/home/ada/ws1"
    assert meta.title == "Greeting"
    assert meta.created_at == datetime.fromtimestamp(T0 / 1000, UTC)
    assert meta.path.endswith("state.vscdb")
    assert meta.locator["key"] == STORE


def test_scan_opens_each_database_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """However many sessions a workspace database holds, scan opens it once."""
    workspace(tmp_path, [session([user(1, "a")], sid=f"s{n}") for n in range(5)], history=[])
    opened = count_opens(monkeypatch)
    assert len(scan_all(tmp_path)) == 5
    assert len(opened) == 1


def test_fingerprint_follows_the_session_not_the_database(tmp_path: Path) -> None:
    """Changing one session changes its fingerprint only, though the shared file changed."""
    first = session([user(1, "a")], sid="first")
    second = session([user(1, "b")], sid="second")
    db = workspace(tmp_path, [first, second])
    before = {m.id: m.fingerprint for m in scan_all(tmp_path)}
    second["messages"].append(bot(1, content="a much longer answer " * 50))
    db.unlink()
    workspace(tmp_path, [first, second])
    after = {m.id: m.fingerprint for m in scan_all(tmp_path)}
    assert after["first"] == before["first"]
    assert after["second"] != before["second"]


def test_fingerprint_covers_every_field_of_the_session(tmp_path: Path) -> None:
    """A field parse reads besides the messages (here the token in the hasMore warning) counts."""
    workspace(tmp_path, [session([user(1, "a")], hasMore=True, nextPageToken="p1")])
    (before,) = scan_all(tmp_path)
    (tmp_path / ".config" / "Trae" / "User" / "workspaceStorage" / "ws1" / "state.vscdb").unlink()
    workspace(tmp_path, [session([user(1, "a")], hasMore=True, nextPageToken="p2")])
    (after,) = scan_all(tmp_path)
    assert after.fingerprint != before.fingerprint


def split_list(value: bytes) -> list[tuple[Any, str]] | None:
    """The items of a store value, with their digests, when it splits."""
    return cutting.split_list(value, lambda _position, item, digest: (item, digest))


def compact(value: object) -> str:
    """JSON as Trae writes it (``JSON.stringify``): no spaces, non-ASCII as it is."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def test_a_compact_store_gives_what_any_store_gives(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A compact store, read item by item, gives what the same store with spaces gives.

    The spaced one is decoded whole; the conversations and the fingerprints are the same.
    """
    stored = [
        session([user(1, "héllo 你好"), bot(1, proposal="done")], sid="a", title="first"),
        session([user(1, 'x},{"sessionId":"b"} ]}')], sid="b", extra={"list": [1]}),
        session([], sid="c"),
    ]
    split: list[bool] = []
    real_split = cutting.split_list

    def spy(value: bytes, each: Any) -> Any:
        pieces = real_split(value, each)
        split.append(pieces is not None)
        return pieces

    monkeypatch.setattr(stores, "split_list", spy)
    results = {}
    for layout, dumps in (("spaced", json.dumps), ("compact", compact)):
        home = tmp_path / layout
        store = dumps({"currentSessionId": "a", "list": stored})
        workspace(home, extra={STORE: store, HISTORY: dumps([{"inputText": "p"}])})
        metas = scan_all(home)
        conversations = parse_all(home)
        results[layout] = (
            [(m.id, m.fingerprint, m.title) for m in metas],
            {k: (c.messages, c.diagnostics) for k, c in conversations.items()},
        )
        assert set(split) == {layout == "compact"}
        split.clear()
    assert results["compact"] == results["spaced"]


@pytest.mark.parametrize("dumps", [json.dumps, compact])
@pytest.mark.parametrize("damaged", [False, True])
def test_parsing_while_scanning_gives_what_parse_gives(
    tmp_path: Path, dumps: Any, *, damaged: bool
) -> None:
    """Within ``parsing()`` scan parses each session as it decodes it: the results are parse's.

    With sessions stored without messages (whose prompts come from the input history), an
    older store, and a value cut short (streamed, so parsed again by ``parse``).
    """
    sessions = [
        session([user(1, "héllo"), bot(1, proposal="done", status="failed")], sid="a"),
        session([], sid="b"),
        session([user(2, "again"), user(1, "first")], sid="c", hasMore=True),
    ]
    store = dumps({"currentSessionId": "a", "list": sessions})
    if damaged:
        store = store[: store.index('"c"') + 2]
    legacy = dumps({"list": [session([user(1, "old")], sid="old")]})
    history = dumps([{"inputText": "from history", "sessionId": "b"}])
    workspace(
        tmp_path,
        extra={STORE: store, HISTORY: history, "memento/icube-ai-chat-storage-1": legacy},
    )
    one_by_one = parse_all(tmp_path)
    adapter = TraeAdapter()
    with adapter.parsing() as parse:
        source = adapter.detect(host(tmp_path))
        assert source is not None
        together = {meta.id: parse(meta) for meta in adapter.scan(source)}
    assert together == one_by_one
    assert sorted(together) == (["a", "b", "old"] if damaged else ["a", "b", "c", "old"])
    with_api = {c.id: c for c in chatparse.iter_conversations(host(tmp_path), sources=["trae"])}
    assert with_api == one_by_one


@pytest.mark.parametrize(
    ("value", "items"),
    [
        ('{"list":[]}', 0),
        ('{"currentSessionId":"a","list":[{"sessionId":"a"},{"sessionId":"b","t":"},{"}]}', 2),
        ('{"list":[{"sessionId":"a"}],"currentSessionId":"a"}', 1),
        ('{"list":[{"sessionId":"a","t":"\\ud800 \\u00e9"}]}', 1),  # repaired as whole
        # Cut where an item does not end: an object in an item starts with the same key.
        ('{"list":[{"sessionId":"a","m":[{"sessionId":"a"},{"sessionId":"a"}]}]}', None),
        # A "list" before the root's own, and a second one after it (the last one counts).
        ('{"m":{"list":[{"sessionId":"x"}]},"list":[{"sessionId":"a"}]}', None),
        ('{"list":[{"sessionId":"a"}],"list":null}', None),
        ('{"list":[{"sessionId":"a"}],"list":[]}', None),
        ('{"list":[{"sessionId":"a"}],"x":[1]}', None),
        # Not as a compact writer writes it, or not a list of objects.
        ('{"list": [{"sessionId":"a"}]}', None),
        ('{"list":[ {"sessionId":"a"}]}', None),
        ('{"list":[{"sessionId":"a"} ,{"sessionId":"b"}]}', None),
        ('{"list":[{"sessionId":"a"},{"sessionId":"b"} ]}', 2),  # what follows a cut is the item's
        ('{"list":[1,2]}', None),
        ('[{"list":[{"sessionId":"a"}]}]', None),
        # Damage: the whole value is streamed instead, which says where.
        ('{"list":[{"sessionId":"a"},{"sessionId":"b"', None),
        ('{"list":[{"sessionId":"a"},{"sessionId":"b"}]', None),
    ],
)
def test_a_store_is_split_into_its_items_only_where_the_cuts_are_proved(
    value: str, items: int | None
) -> None:
    """Each piece is an item exactly as the whole value's decode gives it, else nothing."""
    split = split_list(value.encode())
    if items is None:
        assert split is None
        return
    assert split is not None
    assert len(split) == items
    whole = jsonvalue.decode(value.encode())
    assert isinstance(whole, dict)
    assert [item for item, _ in split] == whole["list"]
    # The digest is of each item's own bytes: the same as of the item written back, unless the
    # writer spelled it otherwise (here with escapes, or a space).
    written_back = [scanning.digest(item) for item, _ in split]
    if "\\u" in value or " " in value:
        assert [digest for _, digest in split] != written_back
    else:
        assert [digest for _, digest in split] == written_back


def test_a_split_item_is_refused_as_deep_as_the_whole_value_would_be() -> None:
    """An item decoded on its own is as deep as within the value: too deep there, too deep here."""
    refused = []
    for depth in range(1018, 1026):
        deep = "[" * depth + "]" * depth
        value = f'{{"list":[{{"sessionId":"a"}},{{"sessionId":"b","x":{deep}}}]}}'.encode()
        whole = jsonvalue.decode(value)
        split = split_list(value)
        refused.append(not isinstance(whole, dict))
        if not isinstance(whole, dict):
            assert split is None, depth
        else:
            assert split is not None, depth
            items = [item for item, _ in split]  # too deep to compare with ==
            assert jsonvalue.canonical_bytes(items) == jsonvalue.canonical_bytes(whole["list"])
    assert True in refused
    assert False in refused


def test_a_session_nested_as_deep_as_json_is_read_is_listed(tmp_path: Path) -> None:
    """A value nested about 1000 levels deep in a session neither breaks the fingerprint nor scan.

    Deeper than orjson writes and than ``json`` recurses, but within what chatparse decodes.
    """
    deep = "[" * 1000 + "1" + "]" * 1000
    store = json.dumps({"list": [session([user(1, "a", extra="@")])]}).replace('"@"', deep)
    workspace(tmp_path, extra={STORE: store})
    (conversation,) = parse_all(tmp_path).values()
    assert texts(conversation) == [("user", "a")]


WITHOUT_ORJSON = """
import sys
sys.modules["orjson"] = None  # any `import orjson` now raises ImportError
from chatparse.cli import main
sys.exit(main(["conformance", sys.argv[1]]))
"""


def test_goldens_hold_without_orjson() -> None:
    """The goldens' fingerprints (digests of each session's JSON) hold with ``json`` writing it."""
    folder = REPO / "fixtures" / "trae"
    if not folder.is_dir():
        pytest.skip("needs the repository's fixtures")
    result = subprocess.run(
        [sys.executable, "-c", WITHOUT_ORJSON, str(folder)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_a_session_in_several_workspaces_is_listed_once_with_most_messages(
    tmp_path: Path,
) -> None:
    """The copy with the most messages wins, whichever product or workspace it is in."""
    workspace(tmp_path, [session([user(1, "a")])], wid="a", product="Trae")
    workspace(tmp_path, [session([user(1, "a"), bot(1, content="b")])], wid="b", product="Trae CN")
    workspace(tmp_path, [session([])], wid="c", product="Trae")
    (conversation,) = parse_all(tmp_path).values()
    assert conversation.project_path == "/home/ada/b"
    assert len(conversation.messages) == 2
    assert conversation.meta.locator["copies"] == "3"
    assert any("stored 3 times" in w for w in conversation.diagnostics.warnings)


def test_equal_copies_go_to_the_one_updated_last(tmp_path: Path) -> None:
    """With as many messages in each copy, the later ``updatedAt`` wins."""
    workspace(tmp_path, [session([user(1, "old")], updatedAt=T0 + 1)], wid="a")
    workspace(tmp_path, [session([user(1, "new")], updatedAt=T0 + 2)], wid="b")
    (conversation,) = parse_all(tmp_path).values()
    assert texts(conversation) == [("user", "new")]


# --- messages ---


def test_user_text_is_parsed_query_else_content(tmp_path: Path) -> None:
    """``parsedQuery`` (the prompt without file references) wins; blank falls back to content."""
    conversation = parse_one(
        tmp_path,
        [
            user(1, "#file:a.py fix it", parsedQuery="fix it"),
            user(2, "plain content", parsedQuery="  "),
            user(3, "raw", parsedQuery=[{"text": "from "}, "pieces"]),
        ],
    )
    assert [m.text for m in conversation.messages] == ["fix it", "plain content", "from pieces"]


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        (bot(1, content="content wins", agentTaskContent={"proposal": "no"}), "content wins"),
        (bot(1, agentTaskContent={"proposal": "the proposal"}), "the proposal"),
        (
            bot(
                1,
                agentTaskContent={
                    "proposal": " ",
                    "guideline": {
                        "thought": "guideline",
                        "planItems": [{"toolName": "finish", "thought": "the finish step"}],
                    },
                },
            ),
            "the finish step",
        ),
        (bot(1, agentTaskContent={"guideline": {"thought": "the guideline"}}), "the guideline"),
        (bot(1, agentTaskContent=json.dumps({"proposal": "from a string"})), "from a string"),
    ],
)
def test_the_answer_follows_the_documented_fallbacks(
    tmp_path: Path, message: dict[str, Any], expected: str
) -> None:
    """Content, else the proposal, else the finish step's thought, else the guideline's."""
    (reply,) = answers(parse_one(tmp_path, [user(1, "q"), message]))
    assert reply.text == expected


def test_thinking_tool_calls_and_model_come_from_the_task(tmp_path: Path) -> None:
    """Reasoning and step thoughts are thinking; steps other than finish are tool calls."""
    task = {
        "proposal": "done",
        "proposalReasoningContent": "overall reasoning",
        "guideline": {
            "planItems": [
                {
                    "toolName": "view_files",
                    "thought": "look first",
                    "reasoningContent": "why look",
                    "params": '{"files": ["a.py"]}',
                    "toolCallId": "call-1",
                },
                {"toolName": "run_command", "params": {"command": "ls"}, "result": "a.py"},
                {"toolName": "finish", "thought": "done", "reasoningContent": "wrap up"},
            ]
        },
    }
    model = json.dumps({"config_name": "cfg", "display_model_name": "Doubao-1.5-pro"})
    (reply,) = answers(parse_one(tmp_path, [bot(1, agentTaskContent=task, modelInfo=model)]))
    assert reply.thinking == "overall reasoning\n\nwhy look\n\nlook first\n\nwrap up"
    assert [(c.id, c.name, c.input, c.output) for c in reply.tool_calls] == [
        ("call-1", "view_files", {"files": ["a.py"]}, None),
        (None, "run_command", {"command": "ls"}, "a.py"),
    ]
    assert reply.model == "Doubao-1.5-pro"


def test_model_falls_back_to_the_config_name(tmp_path: Path) -> None:
    """Without a display name, ``config_name`` names the model."""
    (reply,) = answers(parse_one(tmp_path, [bot(1, content="x", modelInfo={"config_name": "c"})]))
    assert reply.model == "c"


def test_a_task_string_that_is_not_json_still_yields_its_proposal(tmp_path: Path) -> None:
    """A cut-short ``agentTaskContent`` string gives its proposal leniently, with a warning."""
    broken = '{"proposal": "caf\\u00e9 and more text", "guideline": {"planIt'
    unreadable = "{not json at all"
    conversation = parse_one(
        tmp_path,
        [
            bot(1, agentTaskContent=broken),
            bot(2, content="fine", agentTaskContent=unreadable, meta="{nope"),
        ],
    )
    assert [m.text for m in answers(conversation)] == ["café and more text", "fine"]
    warnings = conversation.diagnostics.warnings
    assert (
        "messages[0]: agentTaskContent is not valid JSON; its proposal was recovered"
        in (warnings[0])
    )
    assert any(
        "messages[1]: agentTaskContent is not valid JSON; it was ignored" in w for w in warnings
    )
    assert any("messages[1]: meta is not valid JSON" in w for w in warnings)


def test_a_proposal_cut_inside_an_escape_loses_only_the_escape(tmp_path: Path) -> None:
    r"""Text cut in the middle of a ``\u`` escape keeps everything before the escape."""
    (reply,) = answers(parse_one(tmp_path, [bot(1, agentTaskContent='{"proposal": "ab\\u00')]))
    assert reply.text == "ab"


@pytest.mark.parametrize(
    ("status", "notice"),
    [
        ("failed", "Response failed: quota"),
        ("cancelled", "Response cancelled: quota"),
        ("running", "Response status 'running': quota"),
    ],
)
def test_a_status_other_than_completed_becomes_a_notice(
    tmp_path: Path, status: str, notice: str
) -> None:
    """A failed, cancelled or unfinished answer is followed by a notice saying so."""
    conversation = parse_one(
        tmp_path, [user(1, "q"), bot(1, content="partial", status=status, errorMessage="quota")]
    )
    last = conversation.messages[-1]
    assert (last.role, last.kind, last.text) == ("system", "notice", notice)
    assert last.request_id == "t1"


def test_a_failed_answer_without_text_is_a_notice_at_its_own_time(tmp_path: Path) -> None:
    """With nothing else to show, the failed answer's record still counts, as its notice."""
    conversation = parse_one(tmp_path, [user(1, "q"), bot(1, status="failed")])
    assert texts(conversation) == [("user", "q"), ("system", "Response failed")]
    notice = conversation.messages[1]
    assert notice.timestamp == datetime.fromtimestamp((T0 + 15_000) / 1000, UTC)
    assert not notice.timestamp_synthesized
    assert conversation.diagnostics.records_used == 2


# --- order, ids, times ---


def test_messages_follow_turn_index_with_the_prompt_first(tmp_path: Path) -> None:
    """Turn order wins over array order; a message without a turn joins its turnId or neighbour."""
    orphan = bot(2, content="joins turn 2 by its turnId")
    del orphan["turnIndex"]
    drifting = {"role": "assistant", "content": "stays after turn 1's answer"}
    conversation = parse_one(
        tmp_path,
        [
            bot(2, content="answer 2"),
            orphan,
            user(2, "question 2"),
            bot(1, content="answer 1"),
            drifting,
            user(1, "question 1"),
        ],
    )
    assert [m.text for m in conversation.messages] == [
        "question 1",
        "answer 1",
        "stays after turn 1's answer",
        "question 2",
        "answer 2",
        "joins turn 2 by its turnId",
    ]


def test_ids_are_unique_deterministic_and_differ_for_prompt_and_answer(tmp_path: Path) -> None:
    """Without own ids, prompt and answer of a turn get different ids from the turn."""
    bare = [
        {"role": "user", "content": "q", "turnIndex": 0},
        {"role": "assistant", "content": "a", "turnIndex": 0},
        {"role": "assistant", "content": "b", "turnIndex": 0},
        {"role": "user", "content": "r", "turnId": "t9", "agentMessageId": "shared"},
        {"role": "assistant", "content": "c", "turnId": "t9", "agentMessageId": "shared"},
        {"role": "user", "content": "s", "userMessageId": "u1"},
        {"role": "user", "content": "t"},
    ]
    conversation = parse_one(tmp_path, bare)
    ids = [m.id for m in conversation.messages]
    assert ids == [
        "turn-0:user",
        "turn-0:assistant",
        "turn-0:assistant#2",
        "t9:user",
        "shared",
        "u1",
        "message-6",
    ]
    workspace(tmp_path, [session(bare)], wid="ws1")
    again = parse_all(tmp_path, TraeAdapter())[SID]
    assert [m.id for m in again.messages] == ids


def test_timestamps_are_kept_in_order_and_synthesized_otherwise(tmp_path: Path) -> None:
    """A time that fits the order is kept; a missing or earlier one is the last plus 1 ms."""
    conversation = parse_one(
        tmp_path,
        [
            user(1, "q", timestamp=T0),
            bot(1, content="early", timestamp=T0 - 5_000),
            user(2, "no time", timestamp=None),
            bot(2, content="late", timestamp=T0 + 60_000),
        ],
    )
    stamps = [(m.timestamp, m.timestamp_synthesized) for m in conversation.messages]
    assert stamps == [
        (at(T0), False),
        (at(T0 + 1), True),
        (at(T0 + 2), True),
        (at(T0 + 60_000), False),
    ]


def test_times_written_as_digits_are_read_and_other_digits_are_no_time(tmp_path: Path) -> None:
    """``"1767…"`` is a time; ``"²"`` (a digit to ``isdigit``, not to ``int``) is none, no crash."""
    conversation = parse_one(
        tmp_path,
        [user(1, "q", timestamp=f" {T0 + 10_000} "), bot(1, content="a", timestamp="²")],
        createdAt="³",
    )
    stamps = [(m.timestamp, m.timestamp_synthesized) for m in conversation.messages]
    assert stamps == [(at(T0 + 10_000), False), (at(T0 + 10_001), True)]
    assert conversation.created_at == at(T0 + 10_000)


def test_a_session_without_created_at_parses_and_never_gets_now(tmp_path: Path) -> None:
    """No ``createdAt`` and no time before the first message: that message has no time."""
    workspace(
        tmp_path,
        [
            {
                "sessionId": SID,
                "messages": [user(1, "q", timestamp=None), bot(1, content="a")],
            }
        ],
    )
    conversation = parse_all(tmp_path)[SID]
    first, second = conversation.messages
    assert first.timestamp is None
    assert not first.timestamp_synthesized
    assert second.timestamp == datetime.fromtimestamp((T0 + 15_000) / 1000, UTC)
    assert conversation.created_at == second.timestamp
    assert conversation.updated_at == second.timestamp


def test_a_first_message_before_created_at_gets_created_at(tmp_path: Path) -> None:
    """A first time earlier than the session's creation is not trusted: it becomes createdAt."""
    conversation = parse_one(tmp_path, [user(1, "q", timestamp=T0 - 1)])
    (only,) = conversation.messages
    assert only.timestamp == datetime.fromtimestamp(T0 / 1000, UTC)
    assert only.timestamp_synthesized


@pytest.mark.parametrize(
    ("fields", "title"),
    [
        ({"title": "Title", "name": "Name"}, "Title"),
        ({"title": " ", "name": "Name"}, "Name"),
        ({}, "first line"),
    ],
)
def test_title_is_title_else_name_else_the_first_prompt(
    tmp_path: Path, fields: dict[str, str], title: str
) -> None:
    """The title falls back to the name, then to the first prompt's first line."""
    conversation = parse_one(tmp_path, [user(1, "\n first line \nsecond")], **fields)
    assert conversation.title == title


def test_a_long_first_prompt_is_cut_for_the_title(tmp_path: Path) -> None:
    """A title made from a prompt is at most 100 characters, "…" included, spaces folded."""
    conversation = parse_one(tmp_path, [user(1, "\t a \u00a0 b " + "x" * 300)])
    assert conversation.title == "a b " + "x" * 95 + "…"


# --- partial, empty and damaged stores ---


def test_has_more_warns_that_the_session_is_partial(tmp_path: Path) -> None:
    """``hasMore: true`` means only part of the session is cached on this machine."""
    conversation = parse_one(tmp_path, [user(1, "q")], hasMore=True, nextPageToken="79")
    assert any(
        "hasMore is true (next page token '79')" in w for w in conversation.diagnostics.warnings
    )


def test_empty_messages_of_the_only_session_come_from_the_input_history(tmp_path: Path) -> None:
    """The workspace's prompts are its only session's; blanks are skipped; answers are lost."""
    history = [{"inputText": "first"}, {"inputText": " "}, "junk", {"text": "no inputText"}]
    workspace(tmp_path, [session([], title="T")], history=history)
    conversation = parse_all(tmp_path)[SID]
    assert texts(conversation) == [("user", "first")]
    assert conversation.messages[0].id == "input-0"
    diagnostics = conversation.diagnostics
    assert (diagnostics.records_seen, diagnostics.malformed) == (4, 1)
    assert diagnostics.skipped == {"empty_input": 1}
    assert [u.where for u in diagnostics.unknown] == [f"{HISTORY}[3]"]
    assert any("not stored in the workspace database" in w for w in diagnostics.warnings)


def test_input_history_of_a_shared_workspace_goes_only_where_it_names(tmp_path: Path) -> None:
    """With several sessions, only entries naming a ``sessionId`` are given to a session."""
    history = [{"inputText": "whose?"}, {"inputText": "mine", "sessionId": "b"}]
    workspace(tmp_path, [session([], sid="a"), session([], sid="b")], history=history)
    parsed = parse_all(tmp_path)
    assert texts(parsed["a"]) == []
    assert any("1 prompt(s) that name no session" in w for w in parsed["a"].diagnostics.warnings)
    assert texts(parsed["b"]) == [("user", "mine")]


def test_the_input_history_is_part_of_an_empty_sessions_fingerprint(tmp_path: Path) -> None:
    """A new prompt in the history changes the fingerprint of the session it is given to."""
    db = workspace(tmp_path, [session([])], history=[{"inputText": "one"}])
    before = scan_all(tmp_path)[0].fingerprint
    db.unlink()
    workspace(tmp_path, [session([])], history=[{"inputText": "one"}, {"inputText": "two"}])
    assert scan_all(tmp_path)[0].fingerprint != before


def test_bad_entries_are_counted_and_kept(tmp_path: Path) -> None:
    """Non-objects are malformed, unknown roles are kept raw, empty messages are skipped."""
    conversation = parse_one(
        tmp_path,
        [
            user(1, "q"),
            "text",
            {"role": "tool", "content": "out"},
            {"content": "no role"},
            bot(1),
            user(2, "  "),
        ],
    )
    diagnostics = conversation.diagnostics
    assert diagnostics.records_seen == 6
    assert diagnostics.records_used == 1
    assert diagnostics.malformed == 1
    assert diagnostics.skipped == {"empty_assistant": 1, "empty_user": 1}
    assert [(u.type, json.loads(u.raw)) for u in diagnostics.unknown] == [
        ("tool", {"role": "tool", "content": "out"}),
        (None, {"content": "no role"}),
    ]


def test_a_damaged_store_keeps_the_sessions_before_the_damage(tmp_path: Path) -> None:
    """A cut-off value gives the sessions stored before the cut, each warned about it."""
    whole = json.dumps({"list": [session([user(1, "kept")], sid="a"), session([], sid="b")]})
    folder = tmp_path / ".config/Trae/User/workspaceStorage/w"
    write_db(folder / "state.vscdb", {STORE: whole[: whole.index('"b"') + 2]})
    (conversation,) = parse_all(tmp_path).values()
    assert texts(conversation) == [("user", "kept")]
    assert any("is damaged at byte" in w for w in conversation.diagnostics.warnings)


@pytest.mark.parametrize("value", [None, 42, "[]", '"text"', '{"list": 5}', '{"list": [1, {}]}'])
def test_a_store_without_sessions_lists_nothing(tmp_path: Path, value: object) -> None:
    """NULL, a number, or JSON without a session list give no conversation and no error."""
    folder = tmp_path / ".config/Trae/User/workspaceStorage/w"
    write_db(folder / "state.vscdb", {STORE: value})
    assert scan_all(tmp_path) == []


def test_older_chat_stores_are_read_when_they_hold_messages(tmp_path: Path) -> None:
    """Sessions with messages in ``memento/icube-ai-chat-storage-<n>`` are parsed too."""
    legacy = {"list": [session([user(1, "old")], sid="old"), session([], sid="empty")]}
    workspace(tmp_path, extra={"memento/icube-ai-chat-storage-7": legacy})
    parsed = parse_all(tmp_path)
    assert list(parsed) == ["old"]
    assert parsed["old"].meta.locator["key"] == "memento/icube-ai-chat-storage-7"


def test_a_session_gone_since_the_scan_parses_empty_with_a_warning(tmp_path: Path) -> None:
    """A meta whose session left its database gives an empty conversation, not an error."""
    workspace(tmp_path, [session([user(1, "q")])])
    adapter = TraeAdapter()
    (meta,) = scan_all(tmp_path, adapter)
    db = Path(meta.path)
    db.unlink()
    workspace(tmp_path, [session([user(1, "q")], sid="other")])
    conversation = adapter.parse(meta)
    assert conversation.messages == ()
    assert "no longer in the workspace database" in conversation.diagnostics.warnings[0]


def test_a_deleted_database_raises(tmp_path: Path) -> None:
    """A database that is gone is an unavailable container."""
    db = workspace(tmp_path, [session([user(1, "q")])])
    adapter = TraeAdapter()
    (meta,) = scan_all(tmp_path, adapter)
    db.unlink()
    with pytest.raises(SourceUnavailableError, match="no such file"):
        adapter.parse(meta)


# --- reading each store once ---


def parse_in_block(adapter: TraeAdapter, home: Path) -> dict[str, ParsedConversation]:
    """Scan and parse in one ``parsing()`` block, as ``iter_conversations`` does."""
    with adapter.parsing() as parse:
        return {meta.id: parse(meta) for meta in scan_all(home, adapter)}


def test_within_parsing_every_session_is_parsed_from_one_read_of_its_database(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What scan read in a block is parsed without reading it again, until the database changes."""
    db = workspace(tmp_path, [session([user(1, f"q{n}")], sid=f"s{n}") for n in range(4)])
    opened = count_opens(monkeypatch)
    adapter = TraeAdapter()
    with adapter.parsing() as parse:
        metas = scan_all(tmp_path, adapter)
        assert len({parse(meta).id for meta in metas}) == 4
        assert len(opened) == 1
        db.unlink()
        workspace(tmp_path, [session([user(1, "changed")], sid="s0")])
        assert texts(parse(metas[0])) == [("user", "changed")]
        assert len(opened) == 2
        assert texts(parse(metas[0])) == [("user", "changed")]
        assert len(opened) == 2


def test_iter_conversations_reads_each_database_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The public path scans inside the parsing() block, so the scan's read is the parse's too.

    The block was once entered only after the scan's first step (which had read the first
    database outside it), and every store was read twice.
    """
    for wid in ("ws1", "ws2"):
        workspace(
            tmp_path, [session([user(1, f"q{n}")], sid=f"{wid}s{n}") for n in range(3)], wid=wid
        )
    opened = count_opens(monkeypatch)
    conversations = list(chatparse.iter_conversations(host(tmp_path), sources=["trae"]))
    assert sorted(c.id for c in conversations) == sorted(
        f"{wid}s{n}" for wid in ("ws1", "ws2") for n in range(3)
    )
    assert sorted(db.parent.name for db in opened) == ["ws1", "ws2"]


def test_outside_parsing_each_parse_reads_its_database(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without a block nothing is kept between calls: each parse reads the database it names."""
    workspace(tmp_path, [session([user(1, f"q{n}")], sid=f"s{n}") for n in range(3)])
    opened = count_opens(monkeypatch)
    adapter = TraeAdapter()
    metas = scan_all(tmp_path, adapter)
    assert [texts(adapter.parse(meta)) for meta in metas] == [[("user", f"q{n}")] for n in range(3)]
    assert len(opened) == 4


def test_a_block_keeps_recent_databases_up_to_its_size(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Older databases are dropped past the byte budget; the latest one is always kept."""
    for wid in ("ws1", "ws2", "ws3"):
        workspace(tmp_path, [session([user(1, "q" * 2000)], sid=wid)], wid=wid)
    opened = count_opens(monkeypatch)
    adapter = TraeAdapter()
    for budget, read_again in ((7000, ["ws1"]), (0, ["ws2", "ws1"])):  # two of three; one
        monkeypatch.setattr(block, "CACHED_BYTES", budget)
        opened.clear()
        with adapter.parsing() as parse:
            for meta in sorted(scan_all(tmp_path, adapter), key=lambda m: m.id, reverse=True):
                parse(meta)  # the latest first: ws3 is kept, then the ones before it
        assert [db.parent.name for db in opened[3:]] == read_again


def track_sessions(monkeypatch: pytest.MonkeyPatch) -> list[weakref.ref[Session]]:
    """Weak references to every session parsed from now on."""
    made: list[weakref.ref[Session]] = []
    read = Session.read

    def tracked(session_id: str, value: dict[str, Any]) -> Session:
        parsed = read(session_id, value)
        made.append(weakref.ref(parsed))
        return parsed

    monkeypatch.setattr(Session, "read", staticmethod(tracked))
    return made


def still_held(made: list[weakref.ref[Session]]) -> list[str]:
    gc.collect()
    return [session.session_id for ref in made if (session := ref()) is not None]


def test_nothing_is_held_once_the_parsing_block_ends(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The sessions a block read are let go when it ends, though its parse function is held."""
    workspace(tmp_path, [session([user(1, f"q{n}")], sid=f"s{n}") for n in range(3)])
    made = track_sessions(monkeypatch)
    adapter = TraeAdapter()
    with adapter.parsing() as parse:
        assert [parse(meta).id for meta in scan_all(tmp_path, adapter)] == ["s0", "s1", "s2"]
        assert still_held(made) == ["s0", "s1", "s2"]
    # ``parse`` is still bound here, and the adapter lives on.
    assert still_held(made) == []
    assert texts(parse(scan_all(tmp_path, adapter)[0])) == [("user", "q0")]
    assert still_held(made) == []


@pytest.mark.parametrize("stop_early", [False, True])
def test_nothing_is_held_once_iter_conversations_ends(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *, stop_early: bool
) -> None:
    """The adapter instance shared by the API keeps nothing of the sessions it parsed."""
    workspace(tmp_path, [session([user(1, f"q{n}")], sid=f"s{n}") for n in range(3)])
    made = track_sessions(monkeypatch)
    conversations = chatparse.iter_conversations(host(tmp_path), sources=["trae"])
    assert isinstance(conversations, Generator)
    if stop_early:
        assert next(conversations).id == "s0"
        conversations.close()
    else:
        assert [c.id for c in conversations] == ["s0", "s1", "s2"]
    assert made
    assert still_held(made) == []
    shared = chatparse.get_adapter("trae")
    assert isinstance(shared, TraeAdapter)
    assert shared._blocks == {}


# --- single paths ---


def test_parse_path_reads_a_workspace_database(tmp_path: Path) -> None:
    """A Trae ``state.vscdb`` handed over directly is recognised and parsed."""
    db = workspace(tmp_path, [session([user(1, "q")], title="T")])
    (conversation,) = chatparse.parse_path(db)
    assert conversation.source == "trae"
    assert conversation.project_path == "/home/ada/ws1"


def test_sniff_tells_trae_databases_from_others(tmp_path: Path) -> None:
    """Only databases holding a Trae store (or an older one) are claimed."""
    adapter = TraeAdapter()
    trae_db = workspace(tmp_path, [session([])])
    legacy = write_db(tmp_path / "legacy.vscdb", {"memento/icube-ai-chat-storage-1": {}})
    other = write_db(tmp_path / "other.vscdb", {"composer.composerData": {}})
    text = tmp_path / "note.txt"
    text.write_text("hello")
    assert adapter.sniff(trae_db) == 0.95
    assert adapter.sniff(legacy) == 0.8
    assert adapter.sniff(other) == 0.0
    assert adapter.sniff(text) == 0.0
    assert adapter.sniff(tmp_path) == 0.0


def test_scan_path_of_an_unreadable_database_raises(tmp_path: Path) -> None:
    """A database asked for by name that cannot be read is an error, not an empty list."""
    broken = tmp_path / "state.vscdb"
    broken.write_text("not a database")
    with pytest.raises(SourceUnavailableError):
        list(TraeAdapter().scan_path(broken))


# --- shapes seen less often ---


def test_system_messages_are_notices(tmp_path: Path) -> None:
    """A ``system`` message (tolerated by the format) is kept as a notice."""
    conversation = parse_one(tmp_path, [user(1, "q"), {"role": "system", "content": "Reset."}])
    last = conversation.messages[-1]
    assert (last.role, last.kind, last.text) == ("system", "notice", "Reset.")


def test_multimedia_entries_and_pasted_images_are_measured(tmp_path: Path) -> None:
    """Attachments become image references; a pasted base64 image is dropped from the text."""
    payload = "data:image/png;base64," + "iVBORw0KGgo" * 20
    conversation = parse_one(
        tmp_path,
        [
            user(
                1,
                f"see {payload}",
                multiMedia=[{"mimeType": "image/jpeg"}, {"type": "file"}, "x"],
            ),
            user(2, "as a string", multiMedia='[{"mediaType": "image/gif"}]'),
        ],
    )
    first, second = conversation.messages
    assert payload not in first.text
    assert [i.media_type for i in first.images] == ["image/png", "image/jpeg", None, None]
    assert [i.media_type for i in second.images] == ["image/gif"]


def test_messages_and_ids_in_unusual_encodings(tmp_path: Path) -> None:
    """Messages as a JSON string, a numeric session id and times as digit strings are read."""
    messages = json.dumps([user(1, "q", timestamp=str(T0 + 5))])
    workspace(tmp_path, [{"sessionId": 7, "messages": messages}])
    (conversation,) = parse_all(tmp_path).values()
    assert conversation.id == "7"
    assert texts(conversation) == [("user", "q")]
    assert conversation.messages[0].timestamp == at(T0 + 5)


def test_a_damaged_input_history_gives_the_prompts_before_the_damage(tmp_path: Path) -> None:
    """A cut-off input history still gives its complete entries, with a warning."""
    cut = '[{"inputText": "kept"}, {"inputText": "lo'
    workspace(tmp_path, [session([])], history=cut)
    conversation = parse_all(tmp_path)[SID]
    assert texts(conversation) == [("user", "kept")]
    assert any(f"{HISTORY} is damaged" in w for w in conversation.diagnostics.warnings)


def test_a_meta_made_by_hand_finds_its_session_by_id(tmp_path: Path) -> None:
    """Without a locator, the best copy of the id in the database named by ``path`` is parsed."""
    db = workspace(tmp_path, [session([user(1, "short")]), session([user(1, "a"), user(2, "b")])])
    meta = ConversationMeta(source="trae", id=SID, path=str(db), fingerprint="x")
    assert texts(TraeAdapter().parse(meta)) == [("user", "a"), ("user", "b")]


def test_unknown_records_keep_their_json(tmp_path: Path) -> None:
    """A record of an unknown role is written back as JSON, nested values included."""
    odd = {"role": "tool", "content": ["a", True, None, 1.5, {"k": "line\nbreak"}]}
    conversation = parse_one(tmp_path, [odd])
    (unknown,) = conversation.diagnostics.unknown
    assert json.loads(unknown.raw) == odd


def test_a_locator_with_nonsense_falls_back_to_the_session_id(tmp_path: Path) -> None:
    """Locator values that are not numbers are ignored rather than raising."""
    db = workspace(tmp_path, [session([user(1, "q")])])
    locator = {"db": str(db), "position": "first", "copies": "many"}
    meta = ConversationMeta(source="trae", id=SID, path=str(db), fingerprint="x", locator=locator)
    conversation = TraeAdapter().parse(meta)
    assert texts(conversation) == [("user", "q")]
    assert not any("stored" in w for w in conversation.diagnostics.warnings)


def test_the_only_sessions_blank_history_is_not_called_unattributed(tmp_path: Path) -> None:
    """When the history is the only session's but holds only blanks, no prompt is left over."""
    workspace(tmp_path, [session([])], history=[{"inputText": " "}])
    conversation = parse_all(tmp_path)[SID]
    assert conversation.messages == ()
    assert not any("name no session" in w for w in conversation.diagnostics.warnings)
    assert conversation.diagnostics.skipped == {"empty_input": 1}


def test_scan_streams_a_store_too_large_to_decode_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Above the limit, scanning holds about the value's bytes, not a decoded tree of it."""
    # Many short strings: decoded, they take ten times their JSON text.
    refs = [f"r{i}" for i in range(300)]
    sessions = [
        session([user(t, f"{n} {t}", files=refs) for t in range(8)], sid=f"s{n}")
        for n in range(100)
    ]
    db = workspace(tmp_path, sessions)
    size = db.stat().st_size
    decoded = parse_all(tmp_path)
    monkeypatch.setattr(stores, "WHOLE_VALUE_LIMIT", size // 2)
    adapter = TraeAdapter()
    source = adapter.detect(host(tmp_path))
    assert source is not None
    tracemalloc.start()
    try:
        metas = list(adapter.scan(source))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(metas) == 100
    assert peak < 4 * size
    opened = count_opens(monkeypatch)
    with adapter.parsing() as parse:
        assert list(adapter.scan(source)) == metas
        assert len(opened) == 1
        assert {meta.id: parse(meta) for meta in metas} == decoded
    assert len(opened) == 2  # nothing decoded kept by scan: parse read the store again, once


@pytest.mark.parametrize("messages", ["{broken", {"0": "x"}, 5])
def test_messages_that_are_not_an_array_are_damage_not_an_empty_session(
    tmp_path: Path, messages: object
) -> None:
    """Unreadable ``messages`` are warned about, and the input history is not used instead."""
    workspace(tmp_path, [{"sessionId": SID, "messages": messages}], history=[{"inputText": "x"}])
    conversation = parse_all(tmp_path)[SID]
    assert conversation.messages == ()
    warnings = conversation.diagnostics.warnings
    assert any("nothing could be read from it" in w for w in warnings)
    assert not any("not stored in the workspace database" in w for w in warnings)


@pytest.mark.parametrize("messages", [[], "[]", "", None])
def test_messages_stored_empty_are_an_empty_session(tmp_path: Path, messages: object) -> None:
    """An empty array (or string, or none at all) means the session was stored without messages."""
    workspace(tmp_path, [{"sessionId": SID, "messages": messages}])
    conversation = parse_all(tmp_path)[SID]
    assert any(
        "not stored in the workspace database" in w for w in conversation.diagnostics.warnings
    )


@pytest.mark.parametrize("path", ["decoded", "streamed"])
def test_invalid_utf8_in_the_store_is_replaced_whether_decoded_or_streamed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, path: str
) -> None:
    """The store's bytes reach the decoder as stored; a bad byte becomes U+FFFD, nothing is lost."""
    if path == "streamed":
        monkeypatch.setattr(stores, "WHOLE_VALUE_LIMIT", 10)
    folder = tmp_path / ".config" / "Trae" / "User" / "workspaceStorage" / "ws1"
    folder.mkdir(parents=True)
    (folder / "workspace.json").write_text(json.dumps({"folder": "file:///home/ada/ws1"}))
    store = json.dumps(
        {"list": [session([user(1, "caf\u00e9 MARK")])]}, ensure_ascii=False
    ).encode()
    store = store.replace("\u00e9 MARK".encode(), b"\xff MARK")  # a byte no UTF-8 text holds
    with closing(sqlite3.connect(folder / "state.vscdb")) as db, db:
        db.execute("CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)")
        db.execute("INSERT INTO ItemTable VALUES (?, ?)", (STORE, store))
    (prompt,) = parse_all(tmp_path)[SID].messages
    assert prompt.text == "caf\ufffd MARK"


def test_a_timestamp_of_thousands_of_digits_is_no_time(tmp_path: Path) -> None:
    """``int()`` refuses strings over 4,300 digits; such a "time" is none, not a failure."""
    workspace(tmp_path, [session([user(1, "hi", timestamp="1" * 5000), bot(1, content="yo")])])
    # Warnings are errors in this suite, so a skipped conversation would fail the test too.
    (conversation,) = chatparse.iter_conversations(host(tmp_path), sources=["trae"])
    assert [m.text for m in conversation.messages] == ["hi", "yo"]
    assert conversation.messages[0].timestamp_synthesized


def test_a_session_that_fails_to_parse_fails_alone_within_parsing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Scan parses inside ``parsing()``, but a parse error is still parse's alone.

    The other databases' conversations come, and this database's are skipped, a warning each.
    """
    workspace(tmp_path, [session([user(1, "bad")], sid="bad"), session([user(1, "x")], sid="x")])
    workspace(tmp_path, [session([user(1, "fine")], sid="fine")], wid="ws2")
    read = Session.read

    def failing(session_id: str, value: dict[str, Any]) -> Any:
        if session_id == "bad":
            raise RuntimeError("a bug in reading this session")
        return read(session_id, value)

    monkeypatch.setattr(Session, "read", staticmethod(failing))
    with pytest.warns(chatparse.ParseWarning) as warned:
        got = [c.id for c in chatparse.iter_conversations(host(tmp_path), sources=["trae"])]
    assert got == ["fine"]
    assert len(warned) == 2
    assert all("a bug in reading this session" in str(w.message) for w in warned)
