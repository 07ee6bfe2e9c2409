"""The Qwen Code adapter: conformance cases, and the rules the cases do not show one by one."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

import chatparse
from chatparse.adapters.qwen_code import QwenCodeAdapter
from chatparse.host import Host
from chatparse.model import ParsedConversation
from chatparse.testing import AdapterConformance, check_conversation

REPO = Path(__file__).resolve().parents[2]
SESSION = "5e55e55e-0000-4000-8000-000000000001"


class TestQwenCodeConformance(AdapterConformance):
    adapter = "qwen-code"
    fixtures = REPO / "fixtures"

    def make_adapter(self) -> chatparse.SourceAdapter:
        return QwenCodeAdapter()


# --- helpers ---


class Records:
    """Records of one session, each under the one written before it unless said otherwise."""

    def __init__(self) -> None:
        self.lines: list[dict[str, Any]] = []

    def add(self, kind: str, *, parent: str | None = "", **fields: Any) -> str:
        uuid = f"r{len(self.lines) + 1:02d}"
        above = (self.lines[-1]["uuid"] if self.lines else None) if parent == "" else parent
        stamp = f"2026-08-01T09:00:{len(self.lines):02d}Z"
        record = {"uuid": uuid, "parentUuid": above, "sessionId": SESSION, "timestamp": stamp}
        self.lines.append(record | {"type": kind, "cwd": "/w", "version": "0.21.6"} | fields)
        return uuid

    def user(self, text: str, **fields: Any) -> str:
        return self.add("user", message={"role": "user", "parts": [{"text": text}]}, **fields)

    def answer(self, text: str, usage: dict[str, int] | None = None, **fields: Any) -> str:
        if usage:
            fields["usageMetadata"] = usage
        message = {"role": "model", "parts": [{"text": text}]}
        return self.add("assistant", message=message, model="m", **fields)

    def response(self, ident: str, inp: int, out: int, **event: Any) -> str:
        counts = {
            "input_token_count": inp,
            "output_token_count": out,
            "total_token_count": inp + out,
        }
        ui = {"event.name": "qwen-code.api_response", "response_id": ident, "model": "m"}
        payload = {"uiEvent": ui | counts | event}
        return self.add("system", subtype="ui_telemetry", systemPayload=payload)

    def write(self, path: Path) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(json.dumps(r) + "\n" for r in self.lines), encoding="utf-8")
        return path


def chats(home: Path, base: str = ".qwen") -> Path:
    return home / base / "projects" / "-w" / "chats"


def parse_file(path: Path) -> ParsedConversation:
    adapter = QwenCodeAdapter()
    (meta,) = adapter.scan_path(path)
    conversation = adapter.parse(meta)
    assert check_conversation(conversation) == []
    return conversation


def parse(records: Records, tmp_path: Path) -> ParsedConversation:
    return parse_file(records.write(chats(tmp_path) / f"{SESSION}.jsonl"))


def usages(conversation: ParsedConversation) -> list[tuple[str, int | None, int | None]]:
    return [
        (m.id, m.usage.input_tokens, m.usage.output_tokens)
        for m in conversation.messages
        if m.usage is not None
    ]


# --- usage from the telemetry ---


def test_an_answer_whose_counts_disagree_does_not_claim_the_response(tmp_path: Path) -> None:
    """A response is an answer's usage only when the answer's own counts agree with it."""
    records = Records()
    records.user("q")
    tel = records.response("c1", 100, 10)
    records.answer("a", usage={"promptTokenCount": 500, "candidatesTokenCount": 50})
    records.user("next")
    conversation = parse(records, tmp_path)
    assert usages(conversation) == [(tel, 100, 10), ("r03", 500, 50)]


def test_a_cached_part_larger_than_the_prompt_is_left_out_with_a_warning(tmp_path: Path) -> None:
    """Damaged counters, in the telemetry or in an answer's own, are named, not kept."""
    records = Records()
    records.user("q")
    records.response("c1", 100, 10, cached_content_token_count=400)
    records.answer("a")
    records.user("again")
    damaged = {"promptTokenCount": 20, "candidatesTokenCount": 5, "cachedContentTokenCount": 30}
    records.answer("b", usage=damaged)
    conversation = parse(records, tmp_path)
    assert [m.usage.cache_read_tokens for m in conversation.messages if m.usage] == [None, None]
    assert usages(conversation) == [("r03", 100, 10), ("r05", 20, 5)]
    assert sorted(conversation.diagnostics.warnings) == [
        "line 2: cache reads and writes (400) exceed input_tokens (100); left out",
        "line 5: cache reads and writes (30) exceed input_tokens (20); left out",
    ]
    # A response still waiting for its answer makes nothing yet, and says nothing yet.
    records.response("c2", 10, 1, cached_content_token_count=99)
    waiting = parse(records, tmp_path)
    assert waiting.diagnostics.warnings == conversation.diagnostics.warnings


def test_the_last_response_waits_for_its_answer(tmp_path: Path) -> None:
    """A response at the end of the file makes no message; its answer, once written, claims it."""
    records = Records()
    records.user("q")
    records.response("c1", 100, 10)
    path = records.write(chats(tmp_path) / f"{SESSION}.jsonl")
    early = parse_file(path)
    assert [m.id for m in early.messages] == ["r01"]
    assert early.diagnostics.skipped == {"response without its answer yet": 1}
    records.answer("a")
    later = parse_file(records.write(path))
    assert usages(later) == [("r03", 100, 10)]
    assert {m.id for m in early.messages} <= {m.id for m in later.messages}


def test_a_response_a_new_prompt_passed_by_is_a_message_of_its_own(tmp_path: Path) -> None:
    """A retried, unrecorded reply keeps its usage as an assistant message with no text."""
    records = Records()
    records.user("q")
    lost = records.response("c1", 100, 30, thoughts_token_count=30)
    records.user("again")
    conversation = parse(records, tmp_path)
    (message,) = [m for m in conversation.messages if m.role == "assistant"]
    assert (message.id, message.text, message.model, message.is_sidechain) == (lost, "", "m", False)
    assert usages(conversation) == [(lost, 100, 30)]


def test_a_branch_copy_of_a_response_counts_once_across_sessions(tmp_path: Path) -> None:
    """/branch copies records verbatim: the usage dedup key is the same in both files."""
    records = Records()
    records.user("q")
    records.response("c1", 100, 10)
    records.answer("a")
    original = parse_file(records.write(chats(tmp_path) / f"{SESSION}.jsonl"))
    copy = parse_file(records.write(chats(tmp_path) / "5e55e55e-copy.jsonl"))
    (row,) = chatparse.usage_report([original, copy], by="source")
    assert (row.input_tokens, row.output_tokens, row.responses) == (100, 10, 1)


# --- what a record becomes ---


def test_hook_context_is_dropped_from_a_prompt_without_display_text(tmp_path: Path) -> None:
    """The injected <qwen:user-prompt-submit-context> part is not the person's prompt."""
    records = Records()
    hook = "<qwen:user-prompt-submit-context>\nrule\n</qwen:user-prompt-submit-context>"
    parts = [{"text": "Fix it"}, {"text": hook}]
    records.add("user", message={"role": "user", "parts": parts})
    (message,) = parse(records, tmp_path).messages
    assert message.text == "Fix it"


def test_a_gemini_api_answer_adds_its_thoughts_to_the_output(tmp_path: Path) -> None:
    """With Gemini auth the candidates exclude the thoughts; the total says so."""
    records = Records()
    records.user("q")
    counts = {"promptTokenCount": 90, "candidatesTokenCount": 10, "thoughtsTokenCount": 5}
    records.answer("a", usage=counts | {"totalTokenCount": 105})
    (_, answer) = parse(records, tmp_path).messages
    assert answer.usage is not None
    assert (answer.usage.output_tokens, answer.usage.reasoning_tokens) == (15, 5)


def test_a_sub_agent_record_inline_is_a_side_chain(tmp_path: Path) -> None:
    """Records marked isSidechain (a sub-agent's) stay in the session, marked."""
    records = Records()
    records.user("q")
    records.answer("from the agent", isSidechain=True, agentId="explore-1")
    (_, answer) = parse(records, tmp_path).messages
    assert answer.is_sidechain


# --- where it looks ---


def test_qwen_home_moves_its_folder_and_the_runtime_folder_adds_one(tmp_path: Path) -> None:
    """QWEN_HOME replaces ~/.qwen; QWEN_RUNTIME_DIR is read too; the same folder counts once."""
    for base in ("alt", "rt"):
        Records().write(chats(tmp_path, base) / f"{base}.jsonl")
    env = {"QWEN_HOME": str(tmp_path / "alt"), "QWEN_RUNTIME_DIR": str(tmp_path / "rt")}
    found = QwenCodeAdapter().detect(Host(home=tmp_path, env=env, platform="linux"))
    assert found is not None
    assert found.roots == (str(tmp_path / "rt" / "projects"), str(tmp_path / "alt" / "projects"))
    same = {"QWEN_HOME": str(tmp_path / "alt"), "QWEN_RUNTIME_DIR": str(tmp_path / "alt")}
    found = QwenCodeAdapter().detect(Host(home=tmp_path, env=same, platform="linux"))
    assert found is not None
    assert found.roots == (str(tmp_path / "alt" / "projects"),)


def test_explain_names_the_variables_and_folders(tmp_path: Path) -> None:
    """Doctor says which variables are set and what each folder holds."""
    records = Records()
    records.user("q")
    records.write(chats(tmp_path) / f"{SESSION}.jsonl")
    lines = list(QwenCodeAdapter().explain(Host(home=tmp_path, env={}, platform="linux")))
    assert lines[:2] == ["QWEN_RUNTIME_DIR is not set", "QWEN_HOME is not set"]
    assert f"{tmp_path / '.qwen' / 'projects'}: 1 session file(s) in 1 project folder(s)" in lines


def write_lines(path: Path, lines: Iterable[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


@pytest.mark.parametrize(
    ("first", "mine"),
    [
        (
            {
                "uuid": "a",
                "parentUuid": None,
                "sessionId": "s",
                "type": "user",
                "message": {"role": "user", "parts": [{"text": "x"}]},
            },
            True,
        ),
        (
            {
                "uuid": "a",
                "parentUuid": "b",
                "sessionId": "s",
                "type": "system",
                "subtype": "ui_telemetry",
                "systemPayload": {},
            },
            True,
        ),
        # Claude Code writes the same envelope with Anthropic content, not Gemini parts.
        (
            {
                "uuid": "a",
                "parentUuid": None,
                "sessionId": "s",
                "type": "user",
                "message": {"role": "user", "content": "x"},
            },
            False,
        ),
        ({"sessionId": "s", "projectHash": "h", "startTime": "2026-01-01T00:00:00Z"}, False),
        (
            {
                "uuid": "a",
                "parentUuid": None,
                "sessionId": "s",
                "type": ["user"],
                "systemPayload": {},
            },
            False,
        ),
    ],
)
def test_sniff_reads_the_envelope_and_the_content(
    tmp_path: Path,
    first: dict[str, Any],
    mine: bool,  # noqa: FBT001 -- a parametrized expectation
) -> None:
    """A Qwen Code record has the uuid tree envelope and Gemini API parts (or a system payload)."""
    score = QwenCodeAdapter().sniff(write_lines(tmp_path / "x.jsonl", [first]))
    assert (score > 0.5) is mine
