"""The Codex CLI adapter: conformance cases, the real corpus, and the rules one by one."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

import chatparse
from chatparse.adapters import codex
from chatparse.adapters.codex import CodexAdapter
from chatparse.adapters.codex.usage import TokenLedger
from chatparse.errors import SourceUnavailableError
from chatparse.model import ParsedConversation
from chatparse.testing import AdapterConformance, check_conversation

REPO = Path(__file__).resolve().parents[2]
CORPUS = REPO.parent / "shared" / "corpus" / "codex"
THREAD = "019b7c2e-4a10-7d3e-9b21-6f0c8e1d2aff"


class TestCodexConformance(AdapterConformance):
    adapter = "codex"
    fixtures = REPO / "fixtures"


# --- helpers ---


def envelope(second: float, kind: str, payload: dict[str, Any]) -> dict[str, Any]:
    stamp = f"2026-01-02T10:00:{second:06.3f}Z"
    return {"timestamp": stamp, "type": kind, "payload": payload}


def meta_line(thread: str = THREAD, **extra: Any) -> dict[str, Any]:
    payload = {"id": thread, "timestamp": "2026-01-02T10:00:00Z", "cwd": "/p", "cli_version": "1"}
    return envelope(0, "session_meta", payload | extra)


def event(second: float, **payload: Any) -> dict[str, Any]:
    return envelope(second, "event_msg", payload)


def item(second: float, **payload: Any) -> dict[str, Any]:
    return envelope(second, "response_item", payload)


def said(role: str, text: str) -> dict[str, Any]:
    part = "output_text" if role == "assistant" else "input_text"
    return {"type": "message", "role": role, "content": [{"type": part, "text": text}]}


def totals(input_tokens: int, output_tokens: int) -> dict[str, Any]:
    usage = {
        "input_tokens": input_tokens,
        "cached_input_tokens": 0,
        "output_tokens": output_tokens,
        "total_tokens": input_tokens + output_tokens,
    }
    return {"type": "token_count", "info": {"total_token_usage": usage}}


def write(path: Path, records: Iterable[object]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def rollout(home: Path, records: Iterable[object], thread: str = THREAD) -> Path:
    name = f"rollout-2026-01-02T10-00-00-{thread}.jsonl"
    return write(home / ".codex" / "sessions" / "2026" / "01" / "02" / name, records)


def parse_file(path: Path) -> ParsedConversation:
    adapter = CodexAdapter()
    (meta,) = adapter.scan_path(path)
    conversation = adapter.parse(meta)
    assert check_conversation(conversation) == []
    return conversation


def host(home: Path, **env: str) -> chatparse.Host:
    return chatparse.Host(home=home, env=env, platform="linux")


# --- the real corpus ---


def corpus_files() -> list[Path]:
    if not CORPUS.is_dir():
        return []
    return sorted(p for p in CORPUS.rglob("*") if p.suffix in (".jsonl", ".json"))


@pytest.mark.skipif(not CORPUS.is_dir(), reason="../shared/corpus/codex is not checked out here")
@pytest.mark.parametrize("path", corpus_files(), ids=lambda p: p.name[:60])
def test_every_corpus_file_parses_with_balanced_diagnostics(path: Path) -> None:
    """Every file of the real corpus parses without an exception and accounts for every line."""
    conversation = parse_file(path)
    diagnostics = conversation.diagnostics
    assert diagnostics.balanced
    assert diagnostics.records_seen == sum(
        1 for line in path.read_bytes().splitlines() if line.strip()
    )


def corpus_file(fragment: str) -> Path:
    found = [p for p in corpus_files() if fragment in p.name]
    if not found:
        pytest.skip(f"corpus file *{fragment}* is not here")
    return found[0]


def last_total(path: Path) -> dict[str, int]:
    found: dict[str, int] = {}
    with path.open(encoding="utf-8") as lines:
        for line in lines:
            total = json.loads(line).get("payload", {}).get("info") or {}
            found = total.get("total_token_usage") or found
    return found


@pytest.mark.parametrize("fragment", ["019c8a59", "019c8bfe", "019c8a70", "session-01"])
def test_corpus_usage_adds_up_to_the_final_cumulative_total(fragment: str) -> None:
    """Counted usage sums to the file's last total_token_usage: re-emitted totals are not added."""
    path = corpus_file(fragment)
    usage = parse_file(path).usage_total()
    expected = last_total(path)
    assert usage.input_tokens == expected["input_tokens"]
    assert usage.output_tokens == expected["output_tokens"]
    assert usage.cache_read_tokens == expected["cached_input_tokens"]


def test_corpus_long_session_dedups_answers_and_pairs_every_tool_output() -> None:
    """The long real session shows each answer once and pairs all 365 tool outputs."""
    conversation = parse_file(corpus_file("019c8a59"))
    texts = [m.text for m in conversation.messages if m.role == "assistant" and m.text]
    calls = [c for m in conversation.messages for c in m.tool_calls]
    assert len(texts) == 255  # 255 agent_message events, each also a response_item
    assert sum(1 for c in calls if c.output is not None) == 316 + 49
    assert [m.kind for m in conversation.messages].count("compaction_summary") == 1
    skipped = conversation.diagnostics.skipped
    assert skipped["event_msg/token_count: total unchanged (re-emitted)"] == 286


def test_corpus_canonical_fixture_keeps_the_unknown_record_raw() -> None:
    """An unknown top-level type is kept with its exact line text."""
    path = corpus_file("11111111-1111-4111")
    (unknown,) = parse_file(path).diagnostics.unknown
    assert unknown.type == "future_synthetic_record"
    assert unknown.raw == path.read_text(encoding="utf-8").splitlines()[int(unknown.where[5:]) - 1]


# --- parsing rules ---


def test_prompt_and_answer_copies_are_paired_in_either_order(tmp_path: Path) -> None:
    """Copies of a prompt and of an answer become one message each, whatever order and spacing."""
    path = rollout(
        tmp_path,
        [
            meta_line(),
            item(1, **said("user", "hi\n")),
            event(1, type="user_message", message="hi"),
            item(2, **said("assistant", "first answer ")),
            event(2, type="agent_message", message="first answer"),
            event(3, type="user_message", message="again"),
            item(3, **said("user", "again")),
            event(4, type="agent_message", message="second answer"),
            item(4, **said("assistant", "second  answer")),
        ],
    )
    messages = parse_file(path).messages
    assert [(m.role, m.text) for m in messages] == [
        ("user", "hi"),
        ("assistant", "first answer"),
        ("user", "again"),
        ("assistant", "second answer"),
    ]


def test_a_second_unpaired_answer_starts_a_new_message(tmp_path: Path) -> None:
    """Two answers in one turn without event copies stay two messages (pairing is not equality)."""
    path = rollout(
        tmp_path,
        [
            meta_line(),
            item(1, **said("user", "q")),
            item(2, **said("assistant", "a")),
            item(3, **said("assistant", "a")),
        ],
    )
    assert [m.text for m in parse_file(path).messages] == ["q", "a", "a"]


def test_reasoning_summary_becomes_thinking_once(tmp_path: Path) -> None:
    """A reasoning summary written as item and event is the answer's thinking, once."""
    summary = {"type": "summary_text", "text": "Looking around"}
    path = rollout(
        tmp_path,
        [
            meta_line(),
            event(1, type="user_message", message="q"),
            item(2, type="reasoning", summary=[summary], encrypted_content="opaque"),
            event(2, type="agent_reasoning", text="Looking around"),
            event(3, type="agent_message", message="done"),
        ],
    )
    answer = parse_file(path).messages[-1]
    assert (answer.text, answer.thinking) == ("done", "Looking around")
    assert "opaque" not in json.dumps(chatparse.to_dict(answer))


def test_re_emitted_token_counts_are_not_counted_twice(tmp_path: Path) -> None:
    """A token_count repeating the previous total adds nothing; growth is the response's usage."""
    path = rollout(
        tmp_path,
        [
            meta_line(),
            event(1, type="user_message", message="q"),
            event(2, type="agent_message", message="a"),
            event(3, **totals(100, 10)),
            event(4, **totals(100, 10)),
            event(5, type="user_message", message="q2"),
            event(6, type="agent_message", message="b"),
            event(7, **totals(250, 30)),
            event(8, **totals(250, 30)),
        ],
    )
    conversation = parse_file(path)
    usages = [m.usage for m in conversation.messages if m.usage is not None]
    assert [(u.input_tokens, u.output_tokens) for u in usages] == [(100, 10), (150, 20)]
    assert conversation.usage_total().input_tokens == 250


def test_ledger_takes_a_shrinking_total_as_a_restart() -> None:
    """After a total shrinks (a fork's own counter), the new total is taken whole."""
    ledger = TokenLedger()
    first = ledger.usage(totals(1800, 300), THREAD, counted=True)
    again = ledger.usage(totals(1800, 300), THREAD, counted=True)
    restart = ledger.usage(totals(100, 20), THREAD, counted=True)
    assert not isinstance(first, str)
    assert first.input_tokens == 1800
    assert isinstance(again, str)
    assert "unchanged" in again
    assert not isinstance(restart, str)
    assert restart.input_tokens == 100


def test_ledger_gives_no_growth_for_a_count_the_previous_total_lacked() -> None:
    """A total missing its cached count (damage) does not make the next one's cache all new."""
    ledger = TokenLedger()
    damaged = totals(5000, 40)
    del damaged["info"]["total_token_usage"]["cached_input_tokens"]
    ledger.usage(damaged, THREAD, counted=True)
    grown = totals(10400, 90)
    grown["info"]["total_token_usage"]["cached_input_tokens"] = 6000
    usage = ledger.usage(grown, THREAD, counted=True)
    assert not isinstance(usage, str)
    assert (usage.input_tokens, usage.cache_read_tokens, usage.output_tokens) == (5400, None, 50)


def test_ledger_drops_a_part_larger_than_its_whole_and_says_so() -> None:
    """Cached input above input, or reasoning above output, is damage: not kept, and said."""
    event = totals(100, 10)
    counts = event["info"]["total_token_usage"]
    counts |= {"cached_input_tokens": 500, "reasoning_output_tokens": 11}
    ledger = TokenLedger()
    usage = ledger.usage(event, THREAD, counted=True)
    assert not isinstance(usage, str)
    assert (usage.input_tokens, usage.cache_read_tokens) == (100, None)
    assert (usage.output_tokens, usage.reasoning_tokens) == (10, None)
    assert ledger.problems == [
        "cache reads and writes (500) exceed input_tokens (100); left out",
        "reasoning_tokens (11) exceed output_tokens (10); left out",
    ]


def test_ledger_skips_rate_limit_only_events() -> None:
    """A token_count with ``info: null`` carries no usage."""
    reason = TokenLedger().usage({"type": "token_count", "info": None}, THREAD, counted=True)
    assert isinstance(reason, str)
    assert "rate limits" in reason


def test_fork_counts_only_its_own_usage(tmp_path: Path) -> None:
    """A fork's replayed parent history is marked and its usage is not counted again."""
    parent = "019b7c2e-4a10-7d3e-9b21-6f0c8e1d2a00"
    replayed = [
        envelope(0.002, "event_msg", {"type": "user_message", "message": "parent q"}),
        envelope(0.003, "event_msg", {"type": "agent_message", "message": "parent a"}),
        envelope(0.004, "event_msg", totals(1000, 100)),
    ]
    path = rollout(
        tmp_path,
        [
            meta_line(forked_from_id=parent),
            envelope(0.001, "session_meta", {"id": parent}),
            *replayed,
            event(30, type="user_message", message="own q"),
            event(31, type="agent_message", message="own a"),
            event(32, **totals(1200, 150)),
        ],
    )
    conversation = parse_file(path)
    assert [(m.text, m.is_sidechain) for m in conversation.messages] == [
        ("parent q", True),
        ("parent a", True),
        ("own q", False),
        ("own a", False),
    ]
    assert conversation.messages[1].usage is not None
    assert conversation.messages[1].usage.counted is False
    assert conversation.messages[1].usage.dedup_key == f"codex:{parent}:1100"
    assert conversation.usage_total().input_tokens == 200
    assert conversation.title == "own q"


@pytest.mark.parametrize(
    ("output", "expected"),
    [
        (json.dumps({"output": "ok\n", "metadata": {"exit_code": 0}}), ("ok", False)),
        (json.dumps({"output": "boom", "metadata": {"exit_code": 2}}), ("boom", True)),
        ("plain text", ("plain text", None)),
        (
            [{"type": "input_text", "text": "a"}, {"type": "input_text", "text": "b"}],
            ("a\nb", None),
        ),
        ({"type": "input_text", "text": "one item"}, ("one item", None)),
        ('{"metadata": broken', ('{"metadata": broken', None)),
    ],
)
def test_tool_output_shapes(output: object, expected: tuple[str, bool | None]) -> None:
    """Tool output is read from each of its shapes; a non-zero exit code is an error."""
    assert codex.tool_output(output) == expected


def test_tool_output_drops_image_payloads() -> None:
    """An image in a tool output becomes a placeholder; its base64 data is not kept."""
    data = "iVBORw0KGgo" * 20
    text, _ = codex.tool_output(
        [{"type": "input_image", "image_url": f"data:image/png;base64,{data}"}]
    )
    assert text is not None
    assert data not in text
    assert text.startswith("[image: image/png, ")


def test_ide_wrapper_is_cut_to_the_request() -> None:
    """The IDE extension's context before '## My request for Codex:' is dropped."""
    wrapped = (
        "# Context from my IDE setup:\n\n## Active file: a.py\n\n## My request for Codex:\nfix it\n"
    )
    assert codex.typed_request(wrapped) == "fix it"
    assert codex.typed_request("no wrapper here") == "no wrapper here"


@pytest.mark.parametrize(
    ("text", "injected"),
    [
        ("<environment_context>\n<cwd>/p</cwd>\n</environment_context>", True),
        ("# AGENTS.md instructions for /p\n\n<INSTRUCTIONS>x</INSTRUCTIONS>", True),
        ("<user_instructions>be brief</user_instructions>", True),
        ("Explain <environment_context> to me", False),
    ],
)
def test_injected_context_is_recognised(text: str, *, injected: bool) -> None:
    """Harness context is told apart from a prompt that merely mentions its tags."""
    assert codex.is_injected(text) is injected


def redacted_session(context: list[str]) -> list[dict[str, Any]]:
    """Two typed prompts, each echoed by an event; untagged ``context`` before each, unechoed."""
    unechoed = [item(1, **said("user", text)) for text in context]
    return [
        meta_line(),
        *unechoed,
        item(2, **said("user", "[REDACTED_TEXT len=86]")),
        event(2, type="user_message", message="[REDACTED_MESSAGE len=86]"),
        item(3, **said("assistant", "done")),
        *unechoed,  # re-injected, identical, after a resume
        item(5, **said("user", "[REDACTED_TEXT len=41]")),
        event(5, type="user_message", message="[REDACTED_MESSAGE len=41]"),
    ]


def test_unechoed_user_items_are_context_where_prompts_are_echoed(tmp_path: Path) -> None:
    """Without their tags (redacted), injected items are told by having no user_message echo."""
    context = ["[REDACTED_TEXT len=3017]", "[REDACTED_TEXT len=108]"]
    conversation = parse_file(rollout(tmp_path, redacted_session(context)))
    prompts = [m.text for m in conversation.messages if m.role == "user"]
    assert prompts == ["[REDACTED_MESSAGE len=86]", "[REDACTED_MESSAGE len=41]"]
    assert conversation.title == "[REDACTED_MESSAGE len=86]"
    skipped = conversation.diagnostics.skipped
    assert skipped["response_item/message: injected context"] == 2 * len(context)


def test_a_rollback_counts_only_typed_turns_past_untagged_context(tmp_path: Path) -> None:
    """Context known by its missing echo is no turn: undoing two turns undoes two prompts."""
    context = "[REDACTED_TEXT len=3017]"
    records = [
        *redacted_session([context]),
        item(6, **said("assistant", "second answer")),
        item(7, **said("user", context)),  # resumed again
        item(7, **said("user", "[REDACTED_TEXT len=12]")),
        event(7, type="user_message", message="third"),
        event(8, type="thread_rolled_back", num_turns=2),
    ]
    messages = parse_file(rollout(tmp_path, records)).messages
    undone = [m.is_sidechain for m in messages if m.role == "user"]
    assert undone == [False, True, True]


def test_without_echoes_only_the_tags_tell_context(tmp_path: Path) -> None:
    """A rollout with no user_message events keeps every untagged user item as a prompt."""
    records = [
        meta_line(),
        item(1, **said("user", "<environment_context><cwd>/p</cwd></environment_context>")),
        item(1, **said("user", "[REDACTED_TEXT len=108]")),
        item(2, **said("user", "typed")),
        item(3, **said("assistant", "done")),
    ]
    prompts = [m.text for m in parse_file(rollout(tmp_path, records)).messages if m.role == "user"]
    assert prompts == ["[REDACTED_TEXT len=108]", "typed"]


def test_unpaired_and_unanswered_calls(tmp_path: Path) -> None:
    """A call keeps ``output=None`` without an answer; an output without its call is kept apart."""
    path = rollout(
        tmp_path,
        [
            meta_line(),
            event(1, type="user_message", message="q"),
            item(
                2, type="function_call", name="shell", arguments='{"command": ["ls"]}', call_id="c1"
            ),
            item(3, type="function_call_output", call_id="c9", output="stray"),
        ],
    )
    messages = parse_file(path).messages
    call = messages[1].tool_calls[0]
    assert (call.name, call.input, call.output) == ("shell", {"command": ["ls"]}, None)
    assert (messages[2].kind, messages[2].text) == ("tool_result", "stray")


def test_two_calls_with_one_id_each_get_an_output(tmp_path: Path) -> None:
    """Outputs go to the earliest unanswered call with their id; a third one is a replay."""
    call = {"type": "function_call", "name": "shell", "arguments": "{}", "call_id": "c1"}
    path = rollout(
        tmp_path,
        [
            meta_line(),
            event(1, type="user_message", message="q"),
            item(2, **call),
            item(3, type="function_call_output", call_id="c1", output="first"),
            item(4, **call),
            item(5, type="function_call_output", call_id="c1", output="second"),
            item(6, type="function_call_output", call_id="c1", output="third"),
        ],
    )
    conversation = parse_file(path)
    outputs = [c.output for m in conversation.messages for c in m.tool_calls]
    assert outputs == ["first", "second"]
    assert conversation.diagnostics.skipped["response_item: tool output repeated"] == 1


@pytest.mark.parametrize(
    ("stamp", "expected"),
    [
        ("2025-05-01T10:00:00Z", datetime(2025, 5, 1, 10, tzinfo=UTC)),
        ("2025-05-01T12:00:00+02:00", datetime(2025, 5, 1, 10, tzinfo=UTC)),
        (1746093600, datetime(2025, 5, 1, 10, tzinfo=UTC)),
        ("1746093600", datetime(2025, 5, 1, 10, tzinfo=UTC)),
        ("2025-05-01T10:00:00", None),
        (0, None),
        (-5, None),
    ],
)
def test_times_are_rfc3339_or_unix_seconds_and_never_guessed(
    tmp_path: Path, stamp: object, expected: datetime | None
) -> None:
    """A time without a zone, or an epoch at or before 1970, is no time rather than a guess."""
    path = tmp_path / "rollout-2025-05-01.jsonl"
    write(path, [{"id": THREAD, "timestamp": stamp}, said("user", "q")])
    assert parse_file(path).created_at == expected


def test_title_is_the_first_line_with_text_folded_and_cut(tmp_path: Path) -> None:
    """The first request's first line with text becomes the title: spaces folded, cut at 100."""
    long = "word " * 40
    path = rollout(
        tmp_path,
        [meta_line(), event(1, type="user_message", message=f"\n   fix\tthe   bug \n{long}")],
    )
    assert parse_file(path).title == "fix the bug"
    other = rollout(tmp_path, [meta_line(), event(1, type="user_message", message=long)], "t2")
    title = parse_file(other).title
    assert title is not None
    assert len(title) == 100
    assert title.endswith("word…")


def test_ids_stay_the_same_when_the_rollout_grows(tmp_path: Path) -> None:
    """Appending a turn (a resume) leaves the ids of earlier messages unchanged."""
    records = [
        meta_line(),
        event(1, type="user_message", message="q"),
        event(2, type="agent_message", message="a"),
    ]
    path = rollout(tmp_path, records)
    before = [m.id for m in parse_file(path).messages]
    rollout(tmp_path, [*records, event(9, type="user_message", message="more")])
    after = [m.id for m in parse_file(path).messages]
    assert after[: len(before)] == before
    assert len(after) == len(before) + 1


def test_typescript_document_survives_truncation_and_keeps_unknown_items(tmp_path: Path) -> None:
    """A cut-off TypeScript .json rollout keeps the items before the damage, unknown ones raw."""
    hologram = {"type": "hologram", "note": 'say "hi"\n', "n": [1, 2.5, True, None]}
    document: dict[str, Any] = {
        "session": {"id": THREAD, "timestamp": "2025-04-20T18:22:05Z", "instructions": ""},
        "items": [
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "q"}]},
            hologram,
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "a"}],
            },
        ],
    }
    text = json.dumps(document)
    path = tmp_path / f"rollout-2025-04-20-{THREAD}.json"
    path.write_text(text[: text.rindex('"a"')], encoding="utf-8")
    conversation = parse_file(path)
    assert [m.text for m in conversation.messages] == ["q"]
    (unknown,) = conversation.diagnostics.unknown
    assert json.loads(unknown.raw) == hologram
    assert conversation.diagnostics.malformed == 1
    assert conversation.created_at is not None


# --- finding the files ---


def test_detect_follows_codex_home(tmp_path: Path) -> None:
    """CODEX_HOME (``~`` expanded against the host) replaces ~/.codex."""
    (tmp_path / "elsewhere" / "sessions").mkdir(parents=True)
    (tmp_path / ".codex" / "sessions").mkdir(parents=True)
    found = CodexAdapter().detect(host(tmp_path, CODEX_HOME="~/elsewhere"))
    assert found is not None
    assert found.roots == (str(tmp_path / "elsewhere" / "sessions"),)
    assert CodexAdapter().detect(host(tmp_path / "nowhere")) is None


def test_scan_reads_the_session_index_afresh(tmp_path: Path) -> None:
    """A rename written to session_index.jsonl shows in the next scan (nothing is cached)."""
    rollout(tmp_path, [meta_line(), event(1, type="user_message", message="q")])
    index = tmp_path / ".codex" / codex.SESSION_INDEX
    adapter = CodexAdapter()
    found = adapter.detect(host(tmp_path))
    assert found is not None
    write(index, [{"id": THREAD, "thread_name": "old"}])
    assert [m.title for m in adapter.scan(found)] == ["old"]
    write(index, [{"id": THREAD, "thread_name": "old"}, {"id": THREAD, "thread_name": "new"}])
    assert [m.title for m in adapter.scan(found)] == ["new"]


def test_active_copy_wins_over_a_newer_archived_one(tmp_path: Path) -> None:
    """The sessions/ copy of a thread is listed even when its archived copy is newer."""
    active = rollout(tmp_path, [meta_line()])
    archived = tmp_path / ".codex" / codex.ARCHIVED / active.name
    write(archived, [meta_line()])
    os.utime(active, (1_000_000, 1_000_000))
    adapter = CodexAdapter()
    found = adapter.detect(host(tmp_path))
    assert found is not None
    assert [m.path for m in adapter.scan(found)] == [str(active)]


def test_scan_falls_back_to_the_file_name_for_the_id(tmp_path: Path) -> None:
    """A rollout whose first line is torn is still listed, under the uuid in its name."""
    path = tmp_path / ".codex" / "sessions" / f"rollout-2026-01-02T10-00-00-{THREAD}.jsonl"
    path.parent.mkdir(parents=True)
    path.write_bytes(b'{"timestamp": "2026-01-02T1')
    (meta,) = CodexAdapter().scan_path(path)
    assert meta.id == THREAD
    assert CodexAdapter().parse(meta).diagnostics.malformed == 1


def test_parse_path_sniffs_a_rollout(tmp_path: Path) -> None:
    """chatparse.parse_path recognises a rollout file and parses it with this adapter."""
    path = rollout(tmp_path, [meta_line(), event(1, type="user_message", message="q")])
    (conversation,) = chatparse.parse_path(path, source="codex")
    assert conversation.id == THREAD
    assert CodexAdapter().sniff(path) > 0.9
    assert CodexAdapter().sniff(write(tmp_path / "other.jsonl", [{"type": "summary"}])) == 0.0


def test_parse_of_a_vanished_file_raises(tmp_path: Path) -> None:
    """A rollout removed after the scan is an unavailable source, not an empty conversation."""
    path = rollout(tmp_path, [meta_line()])
    (meta,) = CodexAdapter().scan_path(path)
    path.unlink()
    with pytest.raises(SourceUnavailableError):
        CodexAdapter().parse(meta)


def test_explain_says_where_it_looks(tmp_path: Path) -> None:
    """The doctor's explanation names CODEX_HOME, the folders and how many rollouts they hold."""
    rollout(tmp_path, [meta_line()])
    lines = list(CodexAdapter().explain(host(tmp_path)))
    assert lines[0] == "CODEX_HOME is not set: using ~/.codex"
    assert f"{tmp_path / '.codex' / 'sessions'}: 1 rollout file(s)" in lines
    assert f"{tmp_path / '.codex' / 'archived_sessions'}: missing" in lines
    assert isinstance(CodexAdapter(), chatparse.adapter.Explainer)


def test_prompt_images_that_are_not_lists_hold_no_image(tmp_path: Path) -> None:
    """``images: 1`` (a damaged line, found by fuzzing) used to raise and lose the whole file."""
    path = rollout(
        tmp_path,
        [
            meta_line(),
            event(1, type="user_message", message="hi", images=1, local_images=["/a.png"]),
        ],
    )
    (message,) = parse_file(path).messages
    assert (message.text, len(message.images)) == ("hi", 1)


@pytest.mark.parametrize("bad", [-30, 2.5, False, "30", 10**13])
def test_a_count_that_is_no_count_is_left_out_and_said(tmp_path: Path, bad: object) -> None:
    """Negative, fractional, boolean, text or absurd: no count, a warning, totals unharmed."""
    damaged = totals(250, 30)
    damaged["info"]["total_token_usage"]["output_tokens"] = bad
    path = rollout(
        tmp_path,
        [
            meta_line(),
            event(1, type="user_message", message="q"),
            event(2, type="agent_message", message="a"),
            event(3, **totals(100, 10)),
            event(5, type="user_message", message="q2"),
            event(6, type="agent_message", message="b"),
            event(7, **damaged),
        ],
    )
    conversation = parse_file(path)
    assert conversation.usage_total().output_tokens == 10
    assert conversation.usage_total().input_tokens == 250
    [warning] = [w for w in conversation.diagnostics.warnings if "not a token count" in w]
    assert f"output_tokens {bad!r}" in warning
