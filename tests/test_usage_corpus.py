"""Usage totals of real session files, against what a careful reader computes from the raw lines.

Every figure checked here is computed by a reader written for this test from the JSON lines
themselves, with ``json`` and nothing of chatparse, by the rules each tool documents:

* **Claude Code**: every assistant line carries its response's ``message.usage``, repeated on
  each line of a response split over several lines (older versions wrote a partial
  ``output_tokens`` on the first ones). A response is ``message.id`` plus ``requestId``; its
  usage is its last line's (the last non-sidechain line's, when it has one). A sidechain copy of
  a response that has a non-sidechain copy under another request id is a replay and is not
  counted. The prompt is ``input_tokens + cache_read_input_tokens +
  cache_creation_input_tokens``.
* **Codex**: ``event_msg`` ``token_count`` records carry the session's running total in
  ``info.total_token_usage`` (cached input and reasoning are parts of input and output). The
  session's usage is the last such total, or, where a total goes down (the counter restarted),
  the sum of each run's last total; a rollout that records only ``last_token_usage`` is the sum
  of those.

``PINNED`` then fixes, per file, the figures this reader gave when the test was written, so a
change in either the reader or the adapter shows. Two were checked by hand against the lines:
``-src-experiments-claude_p/94604a7b-….jsonl`` (one response: 2 + 6,198 + 13,794 = 19,994 prompt
tokens, 13,794 read from the cache, 6,198 written) and ``-experiments-ideas/03eb5929-….jsonl``
(88 output tokens, 239,606 read and 9,036 written: the "counted once" figures of the usage
issue). ccusage's own ``chat.jsonl`` fixture has no ``type`` on its lines, which Claude Code
always writes: such lines are not read as responses (0 here; ccusage counts them).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import chatparse
from chatparse import Usage

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"

pytestmark = pytest.mark.skipif(not CORPUS.is_dir(), reason=f"no corpus at {CORPUS}")

Totals = tuple[int, int, int, int]
"""input (cached included), output, cache read, cache write."""


def raw_lines(path: Path) -> Iterator[dict[str, Any]]:
    for line in path.read_bytes().splitlines():
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict):
            yield value


def count(value: object) -> int:
    return value if type(value) is int and value >= 0 else 0


def claude_reference(path: Path) -> Totals:
    copies: dict[str, list[tuple[bool, dict[str, Any]]]] = {}
    main_ids: set[str] = set()
    for record in raw_lines(path):
        message = record.get("message")
        if record.get("type") != "assistant" or not isinstance(message, dict):
            continue
        usage, api_id = message.get("usage"), message.get("id")
        if not isinstance(usage, dict) or not isinstance(api_id, str):
            continue
        request = record.get("requestId")
        key = f"{api_id}:{request}" if isinstance(request, str) else api_id
        sidechain = record.get("isSidechain") is True
        copies.setdefault(key, []).append((sidechain, usage))
        if not sidechain:
            main_ids.add(api_id)
    totals = [0, 0, 0, 0]
    for key, lines in copies.items():
        main = [usage for sidechain, usage in lines if not sidechain]
        if not main and key.split(":")[0] in main_ids:
            continue  # a side question's replay of a response counted elsewhere
        usage = (main or [usage for _s, usage in lines])[-1]
        read, write = (
            count(usage.get("cache_read_input_tokens")),
            count(usage.get("cache_creation_input_tokens")),
        )
        totals[0] += count(usage.get("input_tokens")) + read + write
        totals[1] += count(usage.get("output_tokens"))
        totals[2] += read
        totals[3] += write
    return totals[0], totals[1], totals[2], totals[3]


_CODEX_FIELDS = ("input_tokens", "output_tokens", "cached_input_tokens")


def codex_reference(path: Path) -> Totals:
    finished = [0, 0, 0]  # the totals of runs of the counter that ended with a restart
    current: list[int] | None = None
    summed = [0, 0, 0]
    for record in raw_lines(path):
        payload = record.get("payload")
        if record.get("type") != "event_msg" or not isinstance(payload, dict):
            continue
        info = payload.get("info")
        if payload.get("type") != "token_count" or not isinstance(info, dict):
            continue
        total, last = info.get("total_token_usage"), info.get("last_token_usage")
        if isinstance(total, dict):
            values = [count(total.get(name)) for name in _CODEX_FIELDS]
            if current is not None and sum(values) < sum(current):
                finished = [a + b for a, b in zip(finished, current, strict=True)]
            current = values
        elif isinstance(last, dict):
            summed = [a + count(last.get(n)) for a, n in zip(summed, _CODEX_FIELDS, strict=True)]
    if current is not None:
        summed = [a + b for a, b in zip(finished, current, strict=True)]
    return summed[0], summed[1], summed[2], 0


def ours(path: Path, source: str) -> Totals:
    [conversation] = chatparse.parse_path(path, source=source)
    usage: Usage = conversation.usage_total(include_subagents=False)
    return (
        usage.input_tokens or 0,
        usage.output_tokens or 0,
        usage.cache_read_tokens or 0,
        usage.cache_write_tokens or 0,
    )


def files_with_usage(source: str, marker: bytes) -> list[Path]:
    return sorted(
        path for path in (CORPUS / source).rglob("*.jsonl") if marker in path.read_bytes()
    )


CLAUDE_FILES = files_with_usage("claude-code", b'"usage"')
CODEX_FILES = files_with_usage("codex", b'"token_count"')

PINNED: dict[str, Totals] = {
    "claude-code/1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl": (116010, 953, 103219, 12698),
    "claude-code/agent-test-hash-123.jsonl": (100, 10, 0, 0),
    "claude-code/dag_compact_after_rewind_preserved.jsonl": (50, 25, 0, 0),
    "claude-code/edge_cases.jsonl": (488, 435, 0, 0),
    "claude-code/hook_attachments.jsonl": (10, 5, 0, 0),
    "claude-code/agent-3430b97e.jsonl": (1138, 166, 0, 1135),
    "claude-code/326189cf-5676-4237-8cde-1ce80aae4a9f.jsonl": (324842, 487, 299222, 25577),
    "claude-code/4379d1bf-ccb1-414e-a856-9791b73f3af2.jsonl": (58055, 7, 49822, 8216),
    "claude-code/5ed31c36-bca8-40fd-8d24-f1a1f0af7901.jsonl": (49115, 3, 44742, 4330),
    "claude-code/agent-3ea04571.jsonl": (1366, 146, 0, 0),
    "claude-code/03eb5929-52b3-4b13-ada3-b93ae35806b8.jsonl": (248665, 88, 239606, 9036),
    "claude-code/agent-a36efb2a1231c41e2.jsonl": (146920, 2508, 118168, 28741),
    "claude-code/agent-a4ca7529859c158c2.jsonl": (729908, 7923, 615694, 113769),
    "claude-code/agent-aef063ba534d73153.jsonl": (117738, 2373, 100730, 16998),
    "claude-code/ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl": (832157, 22901, 728660, 102189),
    "claude-code/agent-a2271d1.jsonl": (284202, 18, 236968, 42768),
    "claude-code/29ccd257-68b1-427f-ae5f-6524b7cb6f20.jsonl": (44007, 2, 36009, 7996),
    "claude-code/94604a7b-062f-4369-bdf0-da948381c3e5.jsonl": (19994, 1, 13794, 6198),
    "claude-code/sidechain.jsonl": (101667, 1037, 85688, 15953),
    "claude-code/small.jsonl": (10, 5, 0, 0),
    "claude-code/session-01.jsonl": (4108, 16, 3057, 1045),
    "claude-code/chat.jsonl": (0, 0, 0, 0),
    "codex/small.jsonl": (16341, 81, 3584, 0),
    "codex/session_with_compaction.jsonl": (85000, 42000, 30000, 0),
    "codex/session-01.jsonl": (22539, 10, 20864, 0),
    "codex/rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl": (
        33810485,
        133999,
        31621504,
        0,
    ),
    "codex/rollout-2026-02-23T13-19-38-019c8a70-dda7-7f33-98ea-f30553347322.jsonl": (
        34469,
        431,
        3456,
        0,
    ),
    "codex/rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl": (
        298373,
        1123,
        238848,
        0,
    ),
    "codex/2026-05-12T08-00-00-parent.jsonl": (1000, 200, 100, 0),
    "codex/2026-05-12T08-02-00-branch.jsonl": (1600, 450, 300, 0),
    "codex/session-alpha.jsonl": (3500, 425, 750, 0),
}


def name(path: Path) -> str:
    """``<source>/<file name>``: short, and unique in the corpus."""
    return f"{path.relative_to(CORPUS).parts[0]}/{path.name}"


@pytest.mark.parametrize("path", CLAUDE_FILES + CODEX_FILES, ids=name)
def test_the_careful_reader_gives_the_pinned_figures(path: Path) -> None:
    reference = claude_reference if name(path).startswith("claude-code/") else codex_reference
    assert reference(path) == PINNED[name(path)]


@pytest.mark.parametrize("path", CLAUDE_FILES, ids=name)
def test_claude_code_totals_match_a_careful_reader(path: Path) -> None:
    assert ours(path, "claude-code") == claude_reference(path)


@pytest.mark.parametrize("path", CODEX_FILES, ids=name)
def test_codex_totals_match_a_careful_reader(path: Path) -> None:
    assert ours(path, "codex") == codex_reference(path)


def test_the_corpus_has_files_with_usage() -> None:
    assert len(CLAUDE_FILES) >= 15
    assert len(CODEX_FILES) >= 5


def test_a_resumed_session_replaying_a_real_one_counts_once(tmp_path: Path) -> None:
    """A resume copies earlier responses into a new file: summed per file they count twice."""
    [real] = [p for p in CLAUDE_FILES if p.name.startswith("03eb5929")]
    project = tmp_path / ".claude" / "projects" / "-experiments-ideas"
    project.mkdir(parents=True)
    (project / real.name).write_bytes(real.read_bytes())
    resumed = real.read_bytes().replace(b"03eb5929-52b3-4b13-ada3-b93ae35806b8", b"1" * 36)
    (project / ("1" * 36 + ".jsonl")).write_bytes(resumed)
    conversations = list(chatparse.iter_conversations(chatparse.Host(home=tmp_path, env={})))
    assert len(conversations) == 2
    summed = sum(c.usage_total().input_tokens or 0 for c in conversations)
    [row] = chatparse.usage_report(conversations, by="source")
    assert PINNED["claude-code/03eb5929-52b3-4b13-ada3-b93ae35806b8.jsonl"] == (
        row.input_tokens,
        row.output_tokens,
        row.cache_read_tokens,
        row.cache_write_tokens,
    )
    assert summed == 2 * (row.input_tokens or 0)
