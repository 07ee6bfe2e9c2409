# ruff: noqa: INP001 -- a module beside the scripts run by `nox -s bench`, not part of a package
"""Seeded generators of the benchmark inputs of ``bench_targets.py``.

Every generator writes a fake home directory laid out as the tool writes it, and is
deterministic: the same ``scale`` and seed give byte-identical files. Nothing here is committed;
``bench_targets.py`` generates into an ignored ``bench-results/`` cache (or a temporary
directory) and reuses what it finds there.

Shapes follow the fixtures in ``fixtures/<adapter>/`` and the adapters' documentation in
``docs/sources/``; sizes follow what real histories hold (mostly short messages, some tool output
of tens of kB, a few images).
"""

from __future__ import annotations

import base64
import json
import random
import sqlite3
import sys
from collections.abc import Callable, Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

SEED = 20261130
"""The one seed every generator derives its own from."""

_WORDS = (
    "the", "a", "model", "tool", "file", "read", "edit", "diff", "test", "pass", "code", "def",
    "return", "self", "import", "class", "value", "error", "cart", "total", "discount", "fix",
    "line", "function", "branch", "merge", "commit", "é", "naïve", "日本語", "->", "==", "()",
    "{}", "[x]", '"quoted"', "path/to/file.py", "\n", "\n", "\t", "    ",
)  # fmt: skip

T0 = 1767348000000
"""2026-01-02T10:00:00Z in epoch milliseconds."""

Info = dict[str, Any]
Writer = Callable[[Path, float], Info]


def _rng(name: str) -> random.Random:
    return random.Random(f"{SEED}:{name}")  # noqa: S311 -- reproducible test data, not cryptography


class Text:
    """Fast deterministic text: slices of one seeded corpus of about 2 MB."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.corpus = " ".join(rng.choice(_WORDS) for _ in range(400_000))

    def __call__(self, chars: int) -> str:
        """Return ``chars`` characters (at most the corpus's length) from a random offset."""
        chars = min(chars, len(self.corpus) - 1)
        start = self.rng.randrange(len(self.corpus) - chars)
        return self.corpus[start : start + chars]

    def sized(self) -> str:
        """Text of a typical message: mostly short, sometimes long, rarely very long."""
        roll = self.rng.random()
        return self(
            self.rng.randint(40, 400)
            if roll < 0.6
            else self.rng.randint(400, 4000)
            if roll < 0.95
            else self.rng.randint(4000, 20000)
        )


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _iso(ms: int) -> str:
    seconds, millis = divmod(ms, 1000)
    minutes, second = divmod(seconds, 60)
    hours, minute = divmod(minutes, 60)
    days, hour = divmod(hours, 24)
    # Day 2 of January 2026 plus whole days; enough for a benchmark spanning a few weeks.
    day = 1 + days - 20454
    return f"2026-01-{day:02d}T{hour:02d}:{minute:02d}:{second:02d}.{millis:03d}Z"


def _uuid(rng: random.Random) -> str:
    h = f"{rng.getrandbits(128):032x}"
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-8{h[17:20]}-{h[20:32]}"


# ------------------------------------------------------------------------------------------------
# Claude Code: one large session, and a tree of many small ones


CLAUDE_SESSION = "5b3c1f2e-0000-4000-8000-00000000be9c"
CLAUDE_PROJECT = "-home-bench-project"
CLAUDE_CWD = "/home/bench/project"


class _ClaudeSession:
    """Writes the lines of one Claude Code session, as version 2.1 writes them."""

    def __init__(self, rng: random.Random, text: Text, session_id: str) -> None:
        self.rng, self.text, self.session_id = rng, text, session_id
        self.clock = T0
        self.parent: str | None = None
        self.counter = 0
        self.lines: list[str] = []

    def _tick(self, ms: int = 700) -> str:
        self.clock += self.rng.randint(1, ms)
        return _iso(self.clock)

    def _uuid(self) -> str:
        self.counter += 1
        return (
            f"{self.counter:08x}-{self.session_id[9:13]}-4000-8000-{self.rng.getrandbits(48):012x}"
        )

    def _base(self, kind: str) -> dict[str, Any]:
        uuid = self._uuid()
        line = {
            "parentUuid": self.parent,
            "isSidechain": False,
            "userType": "external",
            "cwd": CLAUDE_CWD,
            "sessionId": self.session_id,
            "version": "2.1.42",
            "gitBranch": "main",
            "slug": "brave-sorting-otter",
            "uuid": uuid,
            "timestamp": self._tick(),
            "type": kind,
        }
        self.parent = uuid
        return line

    def emit(self, line: dict[str, Any] | str) -> None:
        self.lines.append(line if isinstance(line, str) else _dumps(line))

    def noise(self) -> None:
        """One of the bookkeeping lines Claude Code writes between messages."""
        roll = self.rng.random()
        if roll < 0.3:
            line = self._base("progress")
            line["data"] = {
                "type": "hook_progress",
                "hookEvent": "PostToolUse",
                "hookName": "PostToolUse:Bash",
                "command": "true",
            }
            line["toolUseID"] = line["parentToolUseID"] = f"toolu_{self.counter:06d}"
            self.emit(line)
        elif roll < 0.5:
            line = self._base("system")
            line.update({"subtype": "turn_duration", "durationMs": self.rng.randint(900, 90000)})
            self.emit(line)
        elif roll < 0.6:
            line = self._base("system")
            line.update(
                {
                    "subtype": "stop_hook_summary",
                    "hookCount": 1,
                    "hookInfos": [],
                    "hookErrors": [],
                    "preventedContinuation": False,
                    "stopReason": "",
                    "hasOutput": False,
                    "level": "suggestion",
                }
            )
            self.emit(line)
        elif roll < 0.7:
            line = self._base("attachment")
            line["attachment"] = {"type": "hook_success", "content": self.text(200)}
            self.emit(line)
        elif roll < 0.8:
            self.emit(
                {
                    "type": "queue-operation",
                    "operation": "enqueue",
                    "timestamp": self._tick(),
                    "sessionId": self.session_id,
                    "content": self.text(80),
                }
            )
        elif roll < 0.9:
            self.emit(
                {
                    "type": "permission-mode",
                    "permissionMode": "acceptEdits",
                    "sessionId": self.session_id,
                }
            )
        else:
            self.emit(
                {
                    "type": "ai-title",
                    "aiTitle": self.text(40).strip(),
                    "sessionId": self.session_id,
                }
            )

    def prompt(self) -> None:
        """A typed prompt, sometimes with a pasted screenshot, after a file-history snapshot."""
        self.emit(
            {
                "type": "file-history-snapshot",
                "messageId": f"snap-{self.counter}",
                "snapshot": {
                    "messageId": f"snap-{self.counter}",
                    "trackedFileBackups": {},
                    "timestamp": _iso(self.clock),
                },
                "isSnapshotUpdate": False,
            }
        )
        line = self._base("user")
        words = self.text(self.rng.randint(30, 600))
        content: Any = words
        if self.rng.random() < 0.03:
            data = base64.b64encode(self.rng.randbytes(self.rng.randint(8_000, 60_000))).decode()
            content = [
                {
                    "type": "image",
                    "source": {"type": "base64", "media_type": "image/png", "data": data},
                },
                {"type": "text", "text": words},
            ]
        line["message"] = {"role": "user", "content": content}
        self.emit(line)

    def response(self, calls: int) -> list[str]:
        """A streamed response: one line per block, sharing message id, request id and usage."""
        message_id = f"msg_{self.rng.getrandbits(80):020x}"
        request_id = f"req_{self.rng.getrandbits(80):020x}"
        blocks: list[dict[str, Any]] = []
        if self.rng.random() < 0.6:
            blocks.append(
                {
                    "type": "thinking",
                    "thinking": self.text(self.rng.randint(100, 3000)),
                    "signature": base64.b64encode(self.rng.randbytes(240)).decode(),
                }
            )
        blocks.append({"type": "text", "text": "\n\n"})
        blocks.append({"type": "text", "text": self.text.sized()})
        ids = []
        for _ in range(calls):
            tool_id = f"toolu_{self.rng.getrandbits(96):024x}"
            ids.append(tool_id)
            name = self.rng.choice(("Bash", "Read", "Edit", "Grep"))
            arguments: dict[str, Any] = (
                {"command": self.text(60), "description": self.text(30)}
                if name == "Bash"
                else {"file_path": f"{CLAUDE_CWD}/src/mod{self.counter % 97}.py"}
            )
            if name == "Edit":
                arguments |= {"old_string": self.text(300), "new_string": self.text(320)}
            blocks.append({"type": "tool_use", "id": tool_id, "name": name, "input": arguments})
        usage = {
            "input_tokens": self.rng.randint(1, 50),
            "cache_creation_input_tokens": self.rng.randint(0, 5000),
            "cache_read_input_tokens": self.rng.randint(0, 150_000),
            "output_tokens": self.rng.randint(10, 4000),
            "service_tier": "standard",
        }
        for index, block in enumerate(blocks):
            line = self._base("assistant")
            last = index == len(blocks) - 1
            line["message"] = {
                "model": "claude-opus-4-1",
                "id": message_id,
                "type": "message",
                "role": "assistant",
                "content": [block],
                "stop_reason": "tool_use" if last and calls else None,
                "stop_sequence": None,
                # Older versions wrote a partial output_tokens on the first lines.
                "usage": usage if last else {**usage, "output_tokens": 2},
            }
            line["requestId"] = request_id
            self.emit(line)
        return ids

    def results(self, ids: list[str]) -> None:
        """The tool results: long outputs, sometimes as text blocks, sometimes errors."""
        for tool_id in ids:
            if self.rng.random() < 0.25:
                self.noise()
            line = self._base("user")
            output = self.text(
                self.rng.randint(200, 4000)
                if self.rng.random() < 0.7
                else self.rng.randint(4000, 60_000)
            )
            content: Any = output
            if self.rng.random() < 0.1:
                content = [{"type": "text", "text": output}, {"type": "text", "text": "done"}]
            result: dict[str, Any] = {
                "tool_use_id": tool_id,
                "type": "tool_result",
                "content": content,
            }
            if self.rng.random() < 0.05:
                result["is_error"] = True
            line["message"] = {"role": "user", "content": [result]}
            line["toolUseResult"] = {
                "stdout": output[:2000],
                "stderr": "",
                "interrupted": False,
                "isImage": False,
            }
            self.emit(line)

    def turn(self) -> None:
        """A prompt, one to four responses with tool calls, and the noise around them."""
        self.prompt()
        for step in range(self.rng.randint(1, 4)):
            calls = 0 if step and self.rng.random() < 0.3 else self.rng.randint(0, 3)
            ids = self.response(calls)
            self.results(ids)
            if not ids:
                break
        for _ in range(self.rng.randint(0, 3)):
            self.noise()
        self.emit(
            {
                "type": "last-prompt",
                "lastPrompt": self.text(60),
                "sessionId": self.session_id,
                "leafUuid": self.parent,
            }
        )

    def malformed(self) -> None:
        """A line that is not a JSON object: torn, not JSON, or an array."""
        self.emit(
            self.rng.choice(
                (
                    '{"parentUuid":"x","type":"assistant","message":{"content":[{"type":"te',
                    "not json at all",
                    "[1, 2, 3]",
                    '{"no_type": true}',
                )
            )
        )


def _claude_session_path(home: Path, session_id: str, project: str = CLAUDE_PROJECT) -> Path:
    return home / ".claude" / "projects" / project / f"{session_id}.jsonl"


def write_claude_code(home: Path, scale: float) -> Info:
    """One Claude Code session of about ``200 MB * scale``."""
    target = int(200_000_000 * scale)
    rng = _rng("claude-code")
    session = _ClaudeSession(rng, Text(rng), CLAUDE_SESSION)
    path = _claude_session_path(home, CLAUDE_SESSION)
    path.parent.mkdir(parents=True, exist_ok=True)
    size = lines = malformed = turns = 0
    with path.open("w", encoding="utf-8", newline="\n") as stream:
        while size < target:
            session.turn()
            turns += 1
            if turns % 1000 == 3:  # a few: 1 per 1,000 turns (about 4 MB), one in any file
                session.malformed()
                malformed += 1
            chunk = "".join(line + "\n" for line in session.lines)
            stream.write(chunk)
            size += len(chunk.encode())
            lines += len(session.lines)
            session.lines.clear()
    return {
        "path": str(path),
        "bytes": path.stat().st_size,
        "lines": lines,
        "turns": turns,
        "malformed": malformed,
    }


def write_claude_code_huge(home: Path, scale: float) -> Info:
    """One Claude Code session of about ``400 MB * scale``: the streaming row's input."""
    return write_claude_code(home, 2 * scale)


def write_claude_tree(home: Path, scale: float) -> Info:
    """``10,000 * scale`` small sessions in 200 project folders, a few with sub-agents."""
    rng = _rng("claude-tree")
    text = Text(rng)
    count = max(1, int(10_000 * scale))
    root = home / ".claude" / "projects"
    total = 0
    for index in range(count):
        project = f"-home-bench-repo{index % 200:03d}"
        session_id = _uuid(rng)
        session = _ClaudeSession(rng, text, session_id)
        session.prompt()
        session.response(0)
        session.noise()
        path = root / project / f"{session_id}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        body = "".join(line + "\n" for line in session.lines)
        path.write_text(body, encoding="utf-8")
        total += len(body)
        if index % 50 == 7:  # a sub-agent in the 2.1 layout, with its sidecar
            agent = root / project / session_id / "subagents" / f"agent-a{index:06x}.jsonl"
            agent.parent.mkdir(parents=True)
            agent.write_text(body, encoding="utf-8")
            agent.with_suffix(".meta.json").write_text(
                _dumps({"agentType": "general-purpose", "description": "look around"}),
                encoding="utf-8",
            )
    return {"path": str(root), "files": count, "bytes": total}


def _write_session(path: Path, session: _ClaudeSession, target: int) -> int:
    """Turns of ``session`` into ``path`` until it holds ``target`` bytes; returns the size."""
    path.parent.mkdir(parents=True, exist_ok=True)
    size = 0
    with path.open("w", encoding="utf-8", newline="\n") as stream:
        while size < target:
            session.turn()
            chunk = "".join(line + "\n" for line in session.lines)
            stream.write(chunk)
            size += len(chunk.encode())
            session.lines.clear()
    return size


def write_claude_home(home: Path, scale: float) -> Info:
    """A developer's home: ``2,000 * scale`` sessions of about 100 kB and three of 20 MB * scale."""
    rng = _rng("claude-home")
    text = Text(rng)
    count = max(1, int(2_000 * scale))
    total = 0
    for index in range(count):
        session_id = _uuid(rng)
        path = _claude_session_path(home, session_id, f"-home-dev-repo{index % 40:02d}")
        total += _write_session(path, _ClaudeSession(rng, text, session_id), 100_000)
    for _ in range(3):
        session_id = _uuid(rng)
        path = _claude_session_path(home, session_id, "-home-dev-monorepo")
        total += _write_session(path, _ClaudeSession(rng, text, session_id), int(20e6 * scale))
    return {"path": str(home / ".claude" / "projects"), "files": count + 3, "bytes": total}


# ------------------------------------------------------------------------------------------------
# Codex

CODEX_THREAD = "019b7c2e-4a10-7d3e-9b21-6f0c8e1dbe9c"


def write_codex(home: Path, scale: float) -> Info:
    """One Codex rollout of about ``100 MB * scale``: answers written twice, token counts, calls."""
    target = int(100_000_000 * scale)
    rng = _rng("codex")
    text = Text(rng)
    folder = home / ".codex" / "sessions" / "2026" / "01" / "02"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"rollout-2026-01-02T10-00-00-{CODEX_THREAD}.jsonl"
    clock = T0

    def line(kind: str, payload: dict[str, Any]) -> str:
        nonlocal clock
        clock += rng.randint(1, 900)
        return _dumps({"timestamp": _iso(clock), "type": kind, "payload": payload}) + "\n"

    totals = dict.fromkeys(
        ("input_tokens", "cached_input_tokens", "output_tokens", "reasoning_output_tokens"), 0
    )

    def token_count() -> str:
        last = {
            "input_tokens": rng.randint(5000, 90000),
            "cached_input_tokens": rng.randint(0, 5000),
            "output_tokens": rng.randint(10, 3000),
            "reasoning_output_tokens": rng.randint(0, 500),
        }
        for key, value in last.items():
            totals[key] += value
        info = {
            "total_token_usage": {
                **totals,
                "total_tokens": totals["input_tokens"] + totals["output_tokens"],
            },
            "last_token_usage": {
                **last,
                "total_tokens": last["input_tokens"] + last["output_tokens"],
            },
            "model_context_window": 258400,
        }
        limits = {"primary": {"used_percent": 4.0, "window_minutes": 300, "resets_at": 1767323045}}
        return line("event_msg", {"type": "token_count", "info": info, "rate_limits": limits})

    size = lines = 0
    with path.open("w", encoding="utf-8", newline="\n") as stream:
        head = line(
            "session_meta",
            {
                "id": CODEX_THREAD,
                "timestamp": _iso(clock),
                "cwd": "/home/bench/project",
                "originator": "codex_cli_rs",
                "cli_version": "0.77.0",
                "instructions": None,
                "source": "cli",
                "model_provider": "openai",
            },
        )
        stream.write(head)
        size, lines = len(head), 1
        turn = 0
        while size < target:
            turn += 1
            prompt = text(rng.randint(30, 800))
            out = [
                line("event_msg", {"type": "task_started", "turn_id": f"t{turn}"}),
                line(
                    "turn_context",
                    {
                        "cwd": "/home/bench/project",
                        "approval_policy": "on-request",
                        "sandbox_policy": {"type": "workspace-write", "network_access": False},
                        "model": "gpt-5-codex",
                        "effort": "medium",
                        "summary": "auto",
                    },
                ),
                line(
                    "response_item",
                    {
                        "type": "message",
                        "role": "user",
                        "content": [{"type": "input_text", "text": prompt}],
                    },
                ),
                line(
                    "event_msg",
                    {
                        "type": "user_message",
                        "message": prompt,
                        "images": [],
                        "local_images": [],
                        "text_elements": [],
                    },
                ),
            ]
            for _ in range(rng.randint(0, 4)):
                thought = text(rng.randint(100, 1500))
                call_id = f"call_{rng.getrandbits(96):024x}"
                command = ["bash", "-lc", text(rng.randint(10, 120))]
                output = text(rng.randint(200, 3000) if rng.random() < 0.7 else 30000)
                out += [
                    line("event_msg", {"type": "agent_reasoning", "text": thought}),
                    line(
                        "response_item",
                        {
                            "type": "reasoning",
                            "summary": [{"type": "summary_text", "text": thought}],
                            "content": None,
                            "encrypted_content": base64.b64encode(rng.randbytes(600)).decode(),
                        },
                    ),
                    line(
                        "response_item",
                        {
                            "type": "function_call",
                            "name": "shell",
                            "arguments": _dumps({"command": command, "workdir": "/home/bench"}),
                            "call_id": call_id,
                        },
                    ),
                    token_count(),
                    line(
                        "response_item",
                        {
                            "type": "function_call_output",
                            "call_id": call_id,
                            "output": _dumps(
                                {
                                    "output": output,
                                    "metadata": {"exit_code": 0, "duration_seconds": 0.1},
                                }
                            ),
                        },
                    ),
                ]
            answer = text.sized()
            out += [
                line("event_msg", {"type": "agent_message", "message": answer}),
                line(
                    "response_item",
                    {
                        "type": "message",
                        "role": "assistant",
                        "content": [{"type": "output_text", "text": answer}],
                    },
                ),
                token_count(),
                line(
                    "event_msg",
                    {"type": "task_complete", "turn_id": f"t{turn}", "last_agent_message": None},
                ),
            ]
            chunk = "".join(out)
            stream.write(chunk)
            size += len(chunk.encode())
            lines += len(out)
    return {"path": str(path), "bytes": path.stat().st_size, "lines": lines, "turns": turn}


# ------------------------------------------------------------------------------------------------
# Cursor

_VSCDB = "CREATE TABLE {} (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)"


def _cursor_bubble(rng: random.Random, text: Text, bubble_id: str, index: int) -> dict[str, Any]:
    kind = 1 if index % 2 == 0 else 2
    bubble: dict[str, Any] = {
        "_v": 3,
        "type": kind,
        "bubbleId": bubble_id,
        "createdAt": _iso(T0 + index * 1000),
        "text": text.sized() if kind == 2 else text(rng.randint(20, 600)),
        "richText": "",
        "relevantFiles": [],
        "codeBlocks": [],
        "images": [],
        "tokenCount": {"inputTokens": rng.randint(0, 9000), "outputTokens": rng.randint(0, 900)},
        "timingInfo": {"clientStartTime": T0 + index * 1000},
        "context": {"selections": [], "fileSelections": []},
    }
    if kind == 2 and rng.random() < 0.3:
        bubble["thinking"] = {"text": text(rng.randint(100, 1500)), "signature": "c2ln"}
    if kind == 2 and rng.random() < 0.35:
        bubble["text"] = ""
        bubble["toolFormerData"] = {
            "tool": 7,
            "name": "read_file_v2",
            "toolCallId": f"toolu_{bubble_id}",
            "status": "completed",
            "params": _dumps({"targetFile": "src/a.py"}),
            "result": _dumps({"contents": text(rng.randint(200, 8000))}),
        }
    return bubble


def write_cursor(home: Path, scale: float) -> Info:
    """A Cursor store: ``1,000 * scale`` composers of 100 bubbles, listed by 50 workspaces."""
    rng = _rng("cursor")
    text = Text(rng)
    composers = max(1, int(1000 * scale))
    user = home / ".config" / "Cursor" / "User"
    global_db = user / "globalStorage" / "state.vscdb"
    global_db.parent.mkdir(parents=True, exist_ok=True)
    heads: dict[int, list[dict[str, Any]]] = {}
    bubbles = 0
    with closing(sqlite3.connect(global_db)) as connection:
        connection.execute(_VSCDB.format("ItemTable"))
        connection.execute(_VSCDB.format("cursorDiskKV"))
        connection.execute("BEGIN")
        for number in range(composers):
            composer_id = _uuid(rng)
            ids = [f"{rng.getrandbits(64):016x}-{i:03d}" for i in range(100)]
            document = {
                "_v": 10,
                "composerId": composer_id,
                "name": text(40).strip(),
                "createdAt": T0 + number * 60000,
                "lastUpdatedAt": T0 + number * 60000 + 100000,
                "unifiedMode": "agent",
                "status": "completed",
                "fullConversationHeadersOnly": [
                    {"bubbleId": b, "type": 1 + i % 2} for i, b in enumerate(ids)
                ],
            }
            connection.execute(
                "INSERT INTO cursorDiskKV VALUES (?, ?)",
                (f"composerData:{composer_id}", _dumps(document)),
            )
            rows = [
                (f"bubbleId:{composer_id}:{b}", _dumps(_cursor_bubble(rng, text, b, i)))
                for i, b in enumerate(ids)
            ]
            connection.executemany("INSERT INTO cursorDiskKV VALUES (?, ?)", rows)
            bubbles += len(rows)
            heads.setdefault(number % 50, []).append(
                {
                    "type": "head",
                    "composerId": composer_id,
                    "name": document["name"],
                    "createdAt": document["createdAt"],
                    "lastUpdatedAt": document["lastUpdatedAt"],
                    "unifiedMode": "agent",
                }
            )
        connection.execute("COMMIT")
    for number, entries in heads.items():
        folder = user / "workspaceStorage" / f"{number:032x}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "workspace.json").write_text(
            _dumps({"folder": f"file:///home/bench/repo{number}"}), encoding="utf-8"
        )
        with closing(sqlite3.connect(folder / "state.vscdb")) as connection, connection:
            connection.execute(_VSCDB.format("ItemTable"))
            value = {
                "allComposers": entries,
                "selectedComposerIds": [entries[0]["composerId"]],
                "composerDataVersion": 1,
            }
            connection.execute(
                "INSERT INTO ItemTable VALUES (?, ?)", ("composer.composerData", _dumps(value))
            )
    return {
        "path": str(user),
        "bytes": global_db.stat().st_size,
        "composers": composers,
        "bubbles": bubbles,
        "workspaces": len(heads),
    }


# ------------------------------------------------------------------------------------------------
# Trae (after the Trae adapter's own benchmark)

TRAE_KEY = "memento/icube-ai-agent-storage"


def _trae_session(rng: random.Random, text: Text, index: int) -> dict[str, Any]:
    session_id = f"{index:024x}"
    messages: list[dict[str, Any]] = []
    for turn in range(1, 7):
        turn_id = f"{session_id}-{turn}"
        prompt = text(rng.randint(30, 600))
        messages.append(
            {
                "role": "user",
                "content": prompt,
                "parsedQuery": prompt,
                "sessionId": session_id,
                "turnIndex": turn,
                "turnId": turn_id,
                "agentMessageId": f"{turn_id}-a",
                "userMessageId": None,
                "timestamp": T0 + turn * 1000,
                "isHistory": True,
                "multiMedia": "",
            }
        )
        messages.append(
            {
                "role": "assistant",
                "content": "",
                "status": "completed",
                "sessionId": session_id,
                "turnIndex": turn,
                "turnId": turn_id,
                "agentMessageId": f"{turn_id}-a",
                "timestamp": T0 + turn * 1000 + 500,
                "modelInfo": {"config_name": "builder", "display_model_name": "Claude-3.7-Sonnet"},
                "agentTaskContent": {
                    "proposal": text.sized(),
                    "proposalReasoningContent": text(rng.randint(100, 1500)),
                    "guideline": {
                        "thought": text(rng.randint(50, 300)),
                        "planItems": [
                            {
                                "toolName": "view_files",
                                "thought": text(60),
                                "reasoningContent": text(rng.randint(50, 500)),
                                "params": {"files": ["src/a.py"]},
                            },
                            {"toolName": "finish", "thought": text(100)},
                        ],
                    },
                },
                "meta": {"references": [], "docReferences": [], "mentionedDocs": []},
            }
        )
    return {
        "sessionId": session_id,
        "title": text(40).strip(),
        "createdAt": T0,
        "updatedAt": T0 + 9000,
        "hasMore": False,
        "messages": messages,
    }


def write_trae(home: Path, scale: float) -> Info:
    """One Trae workspace whose agent storage value holds ``1,000 * scale`` sessions."""
    rng = _rng("trae")
    text = Text(rng)
    sessions = max(1, int(1000 * scale))
    value = _dumps(
        {
            "currentSessionId": f"{0:024x}",
            "list": [_trae_session(rng, text, n) for n in range(sessions)],
        }
    ).encode()
    folder = home / ".config" / "Trae" / "User" / "workspaceStorage" / ("b" * 32)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "workspace.json").write_text(
        '{"folder": "file:///home/bench/project"}', encoding="utf-8"
    )
    db = folder / "state.vscdb"
    with closing(sqlite3.connect(db)) as connection, connection:
        connection.execute(_VSCDB.format("ItemTable"))
        connection.execute("INSERT INTO ItemTable VALUES (?, ?)", (TRAE_KEY, value))
    return {"path": str(db), "bytes": len(value), "sessions": sessions}


# ------------------------------------------------------------------------------------------------
# Copilot Chat (after the Copilot adapter's own benchmark)


def _copilot_request(rng: random.Random, text: Text, n: int) -> dict[str, Any]:
    prompt = text(rng.randint(20, 400))
    return {
        "requestId": f"request_{n:05d}",
        "timestamp": T0 + n * 60000,
        "message": {"text": prompt, "parts": [{"kind": "text", "text": prompt}]},
        "variableData": {"variables": []},
        "response": [],
        "responseId": f"response_{n:05d}",
        "modelId": "copilot/gpt-4o",
        "agent": {"id": "github.copilot.editsAgent", "extensionVersion": "0.37.1"},
    }


def _copilot_entries(rng: random.Random, text: Text, lines: int) -> Iterator[dict[str, Any]]:
    state = {"version": 3, "sessionId": "bench", "creationDate": T0, "requests": []}
    yield {"kind": 0, "v": state}
    turn, answer = -1, ""
    for _ in range(lines - 1):
        roll = rng.random()
        if turn < 0 or roll < 0.04:
            turn += 1
            answer = ""
            yield {"kind": 2, "k": ["requests"], "v": [_copilot_request(rng, text, turn)]}
        elif roll < 0.12:
            yield {"kind": 1, "k": ["inputState", "inputText"], "v": text(rng.randint(3, 60))}
        elif roll < 0.14:
            yield {"kind": 1, "k": ["requests", turn, "modelState"], "v": {"value": 1}}
        else:
            answer += text(rng.randint(10, 200))
            part = {"value": answer, "supportThemeIcons": False}
            yield {"kind": 2, "k": ["requests", turn, "response"], "v": [part], "i": 0}


def write_copilot(home: Path, scale: float) -> Info:
    """One Copilot Chat mutation log of ``10,000 * scale`` lines in a folder window's storage."""
    rng = _rng("copilot")
    text = Text(rng)
    lines = max(2, int(10_000 * scale))
    folder = home / ".config" / "Code" / "User" / "workspaceStorage" / ("c" * 32)
    (folder / "chatSessions").mkdir(parents=True, exist_ok=True)
    (folder / "workspace.json").write_text(
        '{"folder": "file:///home/bench/project"}', encoding="utf-8"
    )
    path = folder / "chatSessions" / "bench.jsonl"
    with path.open("w", encoding="utf-8", newline="\n") as stream:
        for entry in _copilot_entries(rng, text, lines):
            stream.write(_dumps(entry) + "\n")
    return {"path": str(path), "bytes": path.stat().st_size, "lines": lines}


# ------------------------------------------------------------------------------------------------
# Pi: a home of many sessions (the Pi family's JSON Lines tree)

PI_PROJECTS = 8
PI_SESSION_BYTES = 2_500_000
"""One session's size: about that of the Pi author's own session that pi-mono keeps an excerpt
of (``before-compaction.jsonl``, 2.37 MB, 1,003 lines)."""


class _PiSession:
    """Writes the lines of one Pi session, as version 3 writes them (pi-mono @83378aad)."""

    def __init__(self, rng: random.Random, text: Text, session_id: str, start_ms: int) -> None:
        self.rng, self.text, self.session_id = rng, text, session_id
        self.clock = start_ms
        self.leaf: str | None = None
        self.lines: list[str] = []
        self.size = 0

    def emit(self, entry: dict[str, Any]) -> None:
        line = _dumps(entry)
        self.lines.append(line)
        self.size += len(line.encode()) + 1

    def entry(self, kind: str, **fields: Any) -> None:
        """An entry of the tree, child of the current leaf, which it becomes."""
        self.clock += self.rng.randint(5, 4000)
        ident = f"{self.rng.getrandbits(32):08x}"
        self.emit(
            {"type": kind, "id": ident, "parentId": self.leaf, "timestamp": _iso(self.clock)}
            | fields
        )
        self.leaf = ident

    def header(self, cwd: str) -> None:
        self.emit(
            {
                "type": "session",
                "version": 3,
                "id": self.session_id,
                "timestamp": _iso(self.clock),
                "cwd": cwd,
            }
        )
        self.entry("model_change", provider="anthropic", modelId="claude-sonnet-4-5")
        self.entry("thinking_level_change", thinkingLevel="medium")

    def prompt(self) -> None:
        """A typed prompt; now and then a pasted screenshot."""
        content: list[dict[str, Any]] = [
            {"type": "text", "text": self.text(self.rng.randint(30, 600))}
        ]
        if self.rng.random() < 0.03:
            data = base64.b64encode(self.rng.randbytes(self.rng.randint(8_000, 60_000))).decode()
            content.append({"type": "image", "data": data, "mimeType": "image/png"})
        message = {"role": "user", "content": content, "timestamp": self.clock}
        self.entry("message", message=message)

    def call(self) -> dict[str, Any]:
        """A tool call block: a command, a read, a write or an edit with both texts."""
        name = self.rng.choice(("bash", "read", "edit", "write"))
        arguments: dict[str, Any] = {"path": f"src/mod{self.rng.randint(0, 96)}.ts"}
        if name == "bash":
            arguments = {"command": self.text(60)}
        elif name == "edit":
            arguments |= {"oldText": self.text(300), "newText": self.text(320)}
        call_id = f"toolu_{self.rng.getrandbits(96):024x}"
        return {"type": "toolCall", "id": call_id, "name": name, "arguments": arguments}

    def response(self, calls: int) -> list[str]:
        """One API response: thinking, text, tool calls, its own usage; the calls' ids."""
        content: list[dict[str, Any]] = []
        if self.rng.random() < 0.6:
            signature = base64.b64encode(self.rng.randbytes(240)).decode()
            thinking = self.text(self.rng.randint(100, 3000))
            content.append(
                {"type": "thinking", "thinking": thinking, "thinkingSignature": signature}
            )
        content.append({"type": "text", "text": self.text.sized()})
        content += [self.call() for _ in range(calls)]
        usage: dict[str, Any] = {
            "input": self.rng.randint(1, 50),
            "output": self.rng.randint(10, 4000),
            "cacheRead": self.rng.randint(0, 150_000),
            "cacheWrite": self.rng.randint(0, 5000),
        }
        usage["totalTokens"] = sum(usage.values())
        usage["cost"] = {"input": 0.0001, "output": 0.02, "cacheRead": 0.04, "cacheWrite": 0.01}
        message = {
            "role": "assistant",
            "content": content,
            "api": "anthropic-messages",
            "provider": "anthropic",
            "model": "claude-sonnet-4-5",
            "usage": usage,
            "stopReason": "toolUse" if calls else "stop",
            "timestamp": self.clock,
            "responseId": f"msg_{self.rng.getrandbits(80):020x}",
        }
        self.entry("message", message=message)
        return [block["id"] for block in content if block["type"] == "toolCall"]

    def results(self, ids: list[str]) -> None:
        """The results, one entry each: mostly a few kB, some more; a few errors and diffs."""
        for call_id in ids:
            long = self.rng.random() < 0.25
            output = self.text(
                self.rng.randint(3000, 15_000) if long else self.rng.randint(200, 3000)
            )
            message: dict[str, Any] = {
                "role": "toolResult",
                "toolCallId": call_id,
                "toolName": "bash",
                "content": [{"type": "text", "text": output}],
                "isError": self.rng.random() < 0.05,
                "timestamp": self.clock,
            }
            if self.rng.random() < 0.2:
                message["details"] = {"diff": self.text(600), "firstChangedLine": 12}
            self.entry("message", message=message)

    def turn(self) -> None:
        """A prompt, then one to five responses, each with its tool calls' results."""
        self.prompt()
        for step in range(self.rng.randint(1, 5)):
            calls = 0 if step and self.rng.random() < 0.3 else self.rng.randint(0, 3)
            self.results(self.response(calls))
            if not calls:
                break

    def aside(self) -> None:
        """A rarer entry: a compaction, a /tree branch and its summary, a !command, a name."""
        roll = self.rng.random()
        if roll < 0.3:
            tokens = self.rng.randint(90_000, 180_000)
            summary = self.text(2000)
            self.entry(
                "compaction", summary=summary, firstKeptEntryId=self.leaf, tokensBefore=tokens
            )
        elif roll < 0.5:
            point = self.leaf
            self.turn()
            self.leaf = point  # /tree: back to the branch point, then a summary of the branch left
            self.entry("branch_summary", fromId=point, summary=self.text(400))
        elif roll < 0.7:
            command: dict[str, Any] = {"role": "bashExecution", "command": self.text(40)}
            command |= {"output": self.text(800), "exitCode": 0, "cancelled": False}
            self.entry("message", message=command | {"truncated": False, "timestamp": self.clock})
        else:
            self.entry("session_info", name=self.text(50).strip())


def write_pi_home(home: Path, scale: float) -> Info:
    """A Pi home of about ``100 MB * scale``: 40 sessions of 2.5 MB in 8 project folders."""
    rng = _rng("pi")
    text = Text(rng)
    sessions = max(1, round(40 * scale))
    size = min(PI_SESSION_BYTES, int(100_000_000 * scale))
    root = home / ".pi" / "agent" / "sessions"
    total = lines = turns = 0
    for index in range(sessions):
        session_id = _uuid(rng)
        start = T0 + index * 3_600_000
        session = _PiSession(rng, text, session_id, start)
        session.header(f"/home/bench/repo{index % PI_PROJECTS}")
        while session.size < size:
            session.turn()
            turns += 1
            if rng.random() < 0.04:
                session.aside()
        folder = root / f"--home-bench-repo{index % PI_PROJECTS}--"
        folder.mkdir(parents=True, exist_ok=True)
        stamp = _iso(start).replace(":", "-").replace(".", "-")
        body = "".join(line + "\n" for line in session.lines)
        (folder / f"{stamp}_{session_id}.jsonl").write_text(body, encoding="utf-8", newline="\n")
        total += session.size
        lines += len(session.lines)
    return {"path": str(root), "bytes": total, "files": sessions, "lines": lines, "turns": turns}


# --- OpenCode -------------------------------------------------------------------------
# OpenCode: the SQLite store (v1.2+) and the JSON tree before it

_OC_SCHEMA = (
    (
        "CREATE TABLE project (id text PRIMARY KEY, worktree text NOT NULL, vcs text, "
        "time_created integer NOT NULL, time_updated integer NOT NULL, sandboxes text NOT NULL)"
    ),
    # The session columns of OpenCode 1.18 a reader may use; the others are usage roll-ups,
    # permissions and sharing, left at their defaults.
    (
        "CREATE TABLE session (id text PRIMARY KEY, project_id text NOT NULL, workspace_id text, "
        "parent_id text, slug text NOT NULL, directory text NOT NULL, path text, "
        "title text NOT NULL, version text NOT NULL, revert text, agent text, model text, "
        "time_created integer NOT NULL, time_updated integer NOT NULL, time_archived integer)"
    ),
    (
        "CREATE TABLE message (id text PRIMARY KEY, session_id text NOT NULL, "
        "time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL)"
    ),
    (
        "CREATE TABLE part (id text PRIMARY KEY, message_id text NOT NULL, "
        "session_id text NOT NULL, time_created integer NOT NULL, "
        "time_updated integer NOT NULL, data text NOT NULL)"
    ),
    "CREATE INDEX message_session_time_created_id_idx ON message (session_id, time_created, id)",
    "CREATE INDEX part_message_id_id_idx ON part (message_id, id)",
    "CREATE INDEX part_session_idx ON part (session_id)",
    "CREATE INDEX session_parent_idx ON session (parent_id)",
)
_OC_PROJECT = "4b0f6d2c9a1e8f7b3c5d0e2a6b8c1d3e5f7a9b0c"
_OC_CWD = "/home/bench/project"
_OC_TOOLS = ("read", "edit", "bash", "grep", "glob", "write")
_B62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def _oc_id(prefix: str, ms: int, n: int, rng: Any) -> str:
    """An OpenCode id: 12 hex digits of the time (and a counter), then 14 base62 characters."""
    tail = "".join(rng.choice(_B62) for _ in range(14))
    return f"{prefix}_{(ms * 0x1000 + n) & 0xFFFFFFFFFFFF:012x}{tail}"


def _oc_tokens(rng: Any) -> dict[str, Any]:
    fresh, output = rng.randint(50, 4000), rng.randint(20, 2000)
    reasoning, read = rng.randint(0, 600), rng.randint(0, 90_000)
    write = rng.randint(0, 3000)
    total = fresh + output + reasoning + read + write
    return {
        "total": total,
        "input": fresh,
        "output": output,
        "reasoning": reasoning,
        "cache": {"write": write, "read": read},
    }


class _OcSession:
    """The records of one OpenCode session: (message id, data) and (part id, message id, data)."""

    def __init__(self, rng: Any, text: Text, session_id: str, start: int) -> None:
        self.rng, self.text, self.session_id, self.clock = rng, text, session_id, start
        self.counter = 0
        self.messages: list[tuple[str, int, dict[str, Any]]] = []
        self.parts: list[tuple[str, str, int, dict[str, Any]]] = []

    def _id(self, prefix: str) -> str:
        self.counter += 1
        self.clock += self.rng.randint(50, 3000)
        return _oc_id(prefix, self.clock, self.counter, self.rng)

    def part(self, message: str, data: dict[str, Any]) -> None:
        self.parts.append((self._id("prt"), message, self.clock, data))

    def _output_size(self) -> int:
        """Mostly a few lines, sometimes a file, rarely a long log."""
        roll: float = self.rng.random()
        if roll < 0.7:
            return int(self.rng.randint(200, 2000))
        return int(
            self.rng.randint(2000, 10_000) if roll < 0.95 else self.rng.randint(10_000, 30_000)
        )

    def tool(self, message: str) -> None:
        name = self.rng.choice(_OC_TOOLS)
        self.part(
            message,
            {
                "type": "tool",
                "tool": name,
                "callID": f"toolu_{self.rng.getrandbits(64):016x}",
                "state": {
                    "status": "completed" if self.rng.random() < 0.93 else "error",
                    "input": {"filePath": f"{_OC_CWD}/src/a.py", "command": self.text(60)},
                    "output": self.text(self._output_size()),
                    "error": "Error: exit status 1",
                    "title": "src/a.py",
                    "metadata": {
                        "preview": self.text(self.rng.randint(50, 800)),
                        "truncated": False,
                    },
                    "time": {"start": self.clock, "end": self.clock + 40},
                },
            },
        )

    def turn(self) -> None:
        prompt = self._id("msg")
        created = self.clock
        self.messages.append(
            (
                prompt,
                created,
                {
                    "role": "user",
                    "time": {"created": created},
                    "agent": "build",
                    "model": {"providerID": "anthropic", "modelID": "claude-sonnet-4-5"},
                    "summary": {"diffs": []},
                },
            )
        )
        self.part(prompt, {"type": "text", "text": self.text(self.rng.randint(20, 600))})
        steps = self.rng.randint(1, 4)
        for step in range(steps):
            answer = self._id("msg")
            created = self.clock
            tokens = _oc_tokens(self.rng)
            last = step == steps - 1
            self.part(
                answer, {"type": "step-start", "snapshot": f"{self.rng.getrandbits(160):040x}"}
            )
            if self.rng.random() < 0.6:
                reasoning = self.text(self.rng.randint(100, 1500))
                self.part(
                    answer,
                    {
                        "type": "reasoning",
                        "text": reasoning,
                        "time": {"start": self.clock, "end": self.clock + 900},
                    },
                )
            if last:
                self.part(
                    answer,
                    {
                        "type": "text",
                        "text": self.text.sized(),
                        "time": {"start": self.clock, "end": self.clock + 900},
                    },
                )
            else:
                for _ in range(self.rng.randint(1, 3)):
                    self.tool(answer)
            self.part(
                answer,
                {
                    "type": "step-finish",
                    "reason": "stop" if last else "tool-calls",
                    "cost": 0.01,
                    "tokens": tokens,
                },
            )
            if self.rng.random() < 0.2:
                self.part(
                    answer,
                    {
                        "type": "patch",
                        "hash": f"{self.rng.getrandbits(160):040x}",
                        "files": [f"{_OC_CWD}/src/a.py"],
                    },
                )
            self.messages.append(
                (
                    answer,
                    created,
                    {
                        "parentID": prompt,
                        "role": "assistant",
                        "mode": "build",
                        "agent": "build",
                        "path": {"cwd": _OC_CWD, "root": _OC_CWD},
                        "cost": 0.01,
                        "tokens": tokens,
                        "modelID": "claude-sonnet-4-5",
                        "providerID": "anthropic",
                        "time": {"created": created, "completed": self.clock},
                        "finish": "stop" if last else "tool-calls",
                    },
                )
            )


def _oc_sessions(name: str, count: int) -> list[tuple[dict[str, Any], _OcSession]]:
    """``count`` sessions of 20 turns; every 10th has a sub-agent session of 3 turns."""
    rng = _rng(name)
    text = Text(rng)
    made: list[tuple[dict[str, Any], _OcSession]] = []
    for number in range(count):
        start = T0 + number * 3_600_000
        ident = f"ses_{(~(start * 0x1000)) & 0xFFFFFFFFFFFF:012x}{number:014d}"
        session = _OcSession(rng, text, ident, start)
        for _ in range(20):
            session.turn()
        info = {
            "id": ident,
            "title": text(40).strip() or "bench",
            "parentID": None,
            "time": {"created": start, "updated": session.clock},
        }
        made.append((info, session))
        if number % 10 == 0:
            child = _OcSession(rng, text, f"{ident[:-1]}c", start + 1000)
            for _ in range(3):
                child.turn()
            made.append(
                (
                    {
                        "id": child.session_id,
                        "title": "explore (@explore subagent)",
                        "parentID": ident,
                        "time": {"created": start + 1000, "updated": child.clock},
                    },
                    child,
                )
            )
    return made


def write_opencode_db(home: Path, scale: float) -> Info:
    """``opencode.db`` holding ``600 * scale`` sessions (and their sub-agents) of 20 turns."""
    data = home / ".local" / "share" / "opencode"
    data.mkdir(parents=True, exist_ok=True)
    db = data / "opencode.db"
    counts = {"sessions": 0, "messages": 0, "parts": 0}
    with closing(sqlite3.connect(db)) as connection:
        connection.execute("PRAGMA journal_mode=WAL")
        for statement in _OC_SCHEMA:
            connection.execute(statement)
        connection.execute("BEGIN")
        connection.execute(
            "INSERT INTO project VALUES (?, ?, 'git', ?, ?, '[]')", (_OC_PROJECT, _OC_CWD, T0, T0)
        )
        for info, session in _oc_sessions("opencode-db", max(1, int(600 * scale))):
            connection.execute(
                "INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, "
                "time_created, time_updated) VALUES (?, ?, ?, 'bench', ?, ?, '1.18.13', ?, ?)",
                (
                    info["id"],
                    _OC_PROJECT,
                    info["parentID"],
                    _OC_CWD,
                    info["title"],
                    info["time"]["created"],
                    info["time"]["updated"],
                ),
            )
            connection.executemany(
                "INSERT INTO message VALUES (?, ?, ?, ?, ?)",
                [(m, session.session_id, t, t + 5, _dumps(d)) for m, t, d in session.messages],
            )
            connection.executemany(
                "INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)",
                [(p, m, session.session_id, t, t + 5, _dumps(d)) for p, m, t, d in session.parts],
            )
            counts["sessions"] += 1
            counts["messages"] += len(session.messages)
            counts["parts"] += len(session.parts)
        connection.execute("COMMIT")
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        connection.execute("PRAGMA journal_mode=DELETE")  # leave it as a closed OpenCode does
    return {"path": str(db), "bytes": db.stat().st_size, **counts}


def _oc_write(path: Path, value: Any) -> int:
    text = _dumps_pretty(value)
    path.write_text(text, encoding="utf-8")
    return len(text.encode())


def _dumps_pretty(value: Any) -> str:
    import json  # noqa: PLC0415 -- bench_inputs imports it at the top already

    return json.dumps(value, ensure_ascii=False, indent=2)


def write_opencode_tree(home: Path, scale: float) -> Info:
    """The JSON tree of v1.1 holding ``150 * scale`` sessions (and their sub-agents)."""
    storage = home / ".local" / "share" / "opencode" / "storage"
    counts = {"sessions": 0, "messages": 0, "parts": 0, "bytes": 0}
    for info, session in _oc_sessions("opencode-tree", max(1, int(150 * scale))):
        sid = session.session_id
        folder = storage / "session" / _OC_PROJECT
        folder.mkdir(parents=True, exist_ok=True)
        record = {**info, "version": "1.1.36", "projectID": _OC_PROJECT, "directory": _OC_CWD}
        counts["bytes"] += _oc_write(folder / f"{sid}.json", record)
        (storage / "message" / sid).mkdir(parents=True, exist_ok=True)
        for message, _, data in session.messages:
            body = {"id": message, "sessionID": sid, **data}
            counts["bytes"] += _oc_write(storage / "message" / sid / f"{message}.json", body)
        made: set[str] = set()
        for part, message, _, data in session.parts:
            if message not in made:
                (storage / "part" / message).mkdir(parents=True, exist_ok=True)
                made.add(message)
            body = {"id": part, "sessionID": sid, "messageID": message, **data}
            counts["bytes"] += _oc_write(storage / "part" / message / f"{part}.json", body)
        counts["sessions"] += 1
        counts["messages"] += len(session.messages)
        counts["parts"] += len(session.parts)
    return {"path": str(storage), **counts}


WRITERS: dict[str, Writer] = {
    "claude-code": write_claude_code,
    "claude-code-huge": write_claude_code_huge,
    "codex": write_codex,
    "cursor": write_cursor,
    "trae": write_trae,
    "copilot": write_copilot,
    "claude-tree": write_claude_tree,
    "claude-home": write_claude_home,
    "pi-home": write_pi_home,
    "opencode-db": write_opencode_db,
    "opencode-tree": write_opencode_tree,
}
"""Each input's generator, by the input's name in the results."""

GENERATOR_VERSION = 2
"""Bump when a generator's output changes, so that cached inputs are regenerated."""


def main(argv: list[str]) -> int:
    """``python bench_inputs.py NAME SCALE FOLDER``: write ``FOLDER/home``; print its info."""
    name, scale, folder = argv
    info = WRITERS[name](Path(folder) / "home", float(scale))
    sys.stdout.write(json.dumps(info) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
