"""Every byte-prefix of every JSON Lines and JSON fixture parses; messages never disappear."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Final

import pytest

from chatparse.model import ParsedConversation
from chatparse.testing import Case
from robustness._support import ADAPTERS, FUZZ_ENV, case_home, cases_of, check_all, run_adapter

_SAMPLES: Final = 8  # line boundaries and as many other cuts per file, by default


def _is_aider_log(name: str) -> bool:
    return name.endswith((".aider.chat.history.md", ".aider.input.history"))


def _files() -> Iterator[tuple[Case, str]]:
    for adapter in ADAPTERS:
        for case in cases_of(adapter):
            for path in sorted(case.home_dir.rglob("*")):
                if path.is_file() and (
                    path.suffix in {".jsonl", ".json"} or _is_aider_log(path.name)
                ):
                    yield case, path.relative_to(case.home_dir).as_posix()


FILES: Final = list(_files())


def prefix_lengths(raw: bytes) -> list[int]:
    """The prefix lengths to try: every one under the fuzz budget, else a deterministic sample.

    The sample is a spread of line boundaries, the byte before some of them, and evenly spaced
    cuts inside lines.
    """
    if os.environ.get(FUZZ_ENV, "").strip():
        return list(range(len(raw) + 1))
    boundaries = [index + 1 for index, byte in enumerate(raw) if byte == ord("\n")]
    step = max(1, len(boundaries) // _SAMPLES)
    cuts = {0, len(raw), *boundaries[::step]}
    # Cuts inside lines, and just before a newline (a line complete but for its newline).
    cuts.update(len(raw) * k // _SAMPLES + 1 for k in range(_SAMPLES))
    cuts.update(boundary - 1 for boundary in boundaries[step // 2 :: step])
    return sorted(cut for cut in cuts if 0 <= cut <= len(raw))


def message_ids(conversations: list[ParsedConversation]) -> dict[str, set[str]]:
    """Message ids by conversation id, sub-agents included as conversations of their own.

    A sub-agent whose parent session is cut off is listed on its own; once the parent's line
    naming it is back, it is nested again. Either way its messages are there.
    """
    found: dict[str, set[str]] = {}

    def add(conversation: ParsedConversation) -> None:
        found.setdefault(conversation.id, set()).update(m.id for m in conversation.messages)
        for subagent in conversation.subagents:
            add(subagent)

    for conversation in conversations:
        add(conversation)
    return found


# Formats whose later records remove messages on purpose: there, only the messages still in the
# whole file's parse must never disappear.
_CLINE_UI_FIRST: Final = {
    "cline": (
        "damage-torn-malformed-unknown",
        "typical-native-tools",
        "xml-tools-globalstate-index",
    ),
    "roo-code": (
        "damage-torn-malformed-unknown",
        "globalstate-index-xml-windows",
        "orchestrator-subtasks-openai",
        "typical-history-item-condense",
    ),
    "kilo-code": (
        "both-layouts-migrated-tasks",
        "subtask-remote-server",
        "typical-globalstate-index",
    ),
}
"""Cline-family cases whose task is read from its UI log until its API history holds a message:
the UI log's message ids give way to the API history's as the prefix grows."""

REMOVES_BY_DESIGN: Final = {
    **{
        f"{adapter}/{case}": "a task is read from its UI log until its API history holds a message"
        for adapter, cases in _CLINE_UI_FIRST.items()
        for case in cases
    },
    # Every event is a file of its own: a torn action file leaves the results that answer it
    # without a call, kept as messages of their own until the action file is whole again.
    "openhands/damage-torn-malformed-unknown": "a torn action orphans its results",
    "openhands/older-sdk-layout-windows-env-roots": "a torn action orphans its results",
    "openhands/typical-session-with-usage": "a torn action orphans its results",
    "copilot/log-set-delete-and-reset": "the log's delete and reset entries drop requests",
    # A user item is a prompt until the rollout shows it echoes typed prompts and this one was
    # never echoed: then it was injected context all along (docs/sources/codex.md).
    "codex/redacted-context": "context is told from prompts by the echoes that come after it",
}


@pytest.mark.parametrize(
    ("case", "relative"), FILES, ids=[f"{case.name}:{rel}" for case, rel in FILES]
)
def test_every_prefix_parses_and_messages_only_appear(case: Case, relative: str) -> None:
    """Each prefix parses within the invariants; no message of a whole-line prefix vanishes."""
    with (
        tempfile.TemporaryDirectory(prefix="chatparse-trunc-") as tmp,
        case_home(case, Path(tmp)) as home,
    ):
        path = home / relative
        full = path.read_bytes()
        stable: dict[str, set[str]] = {}
        kept = message_ids(run_adapter(case, home)) if case.name in REMOVES_BY_DESIGN else None
        for length in prefix_lengths(full):
            path.write_bytes(full[:length])
            conversations = run_adapter(case, home)
            check_all(conversations)
            seen = message_ids(conversations)
            for conversation_id, ids in stable.items():
                lost = ids - seen.get(conversation_id, set())
                if kept is not None:
                    lost &= kept.get(conversation_id, set())
                assert not lost, f"after {length} bytes, {conversation_id} lost {sorted(lost)}"
            if length == 0 or full[length - 1 : length] == b"\n":
                stable = seen
