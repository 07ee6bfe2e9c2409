"""Rebuild ``src/chatparse/_demo/home``, the sample home behind ``chatparse --demo``.

The demo is made from our own conformance fixtures, one Linux case per built-in source, merged
into one home with every SQLite text form turned into a real database. Run it after changing a
listed case: ``python tools/build_demo.py``. A test checks the result still yields a
conversation for every built-in source.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from chatparse.testing import load_cases, materialize

ROOT = Path(__file__).resolve().parent.parent
DEMO_HOME = ROOT / "src" / "chatparse" / "_demo" / "home"

# One readable, Linux-laid-out case per built-in source.
DEMO_CASES = {
    "aider": "fixtures/aider/project-in-the-home-no-configuration",
    "amp": "fixtures/amp/typical-thread",
    "antigravity": "fixtures/antigravity/cli-full-transcript-and-history",
    "claude-code": "fixtures/claude-code/tool-pairing",
    "cline": "fixtures/cline/typical-native-tools",
    "codex": "fixtures/codex/modern-rollout",
    "continue": "fixtures/continue/ide-sessions-with-index",
    "copilot": "fixtures/copilot/parts-references-and-tools",
    "copilot-cli": "fixtures/copilot-cli/current-events-and-workspace",
    "crush": "fixtures/crush/crush-in-home-shell-and-millis",
    "cursor": "fixtures/cursor/heads-and-global-bubbles",
    "cursor-cli": "fixtures/cursor-cli/chat-store-wins-over-transcript",
    "factory-droid": "fixtures/factory-droid/typical-session",
    "gemini-cli": "fixtures/gemini-cli/replay-log",
    "goose": "fixtures/goose/sessions-db-thinking-tools-subagent",
    "grok-build": "fixtures/grok-build/typical-session-with-subagent",
    "hermes": "fixtures/hermes/state-db-compression-chain-and-subagent",
    "kilo-code": "fixtures/kilo-code/typical-globalstate-index",
    "kimi": "fixtures/kimi/cli-typical-session-with-subagent",
    "kiro": "fixtures/kiro/cli-database-v2-and-v1",
    "mistral-vibe": "fixtures/mistral-vibe/typical-2x-session-with-subagent",
    "oh-my-pi": "fixtures/oh-my-pi/title-slot-and-subagents",
    "openclaw": "fixtures/openclaw/gateway-session",
    "opencode": "fixtures/opencode/sqlite-tools-usage-subagent",
    "openhands": "fixtures/openhands/typical-session-with-usage",
    "pi": "fixtures/pi/v3-tools-and-usage",
    "qwen-code": "fixtures/qwen-code/telemetry-usage",
    "roo-code": "fixtures/roo-code/typical-history-item-condense",
    "trae": "fixtures/trae/blob-answer-fallbacks",
    "windsurf": "fixtures/windsurf/typical-hook-transcript",
    "zed": "fixtures/zed/current-threads-tools-usage-subagent",
}


def build(target: Path = DEMO_HOME) -> list[str]:
    """Write the demo home to ``target``; return the cases it was built from."""
    used: list[str] = []
    with tempfile.TemporaryDirectory() as scratch:
        home = Path(scratch) / "home"
        home.mkdir()
        for folder in DEMO_CASES.values():
            [case] = load_cases(ROOT / folder)
            if case.problem or case.platform != "linux":
                msg = f"{folder}: not a usable Linux case ({case.problem or case.platform})"
                raise SystemExit(msg)
            shutil.copytree(case.home_dir, home, dirs_exist_ok=True)
            used.append(case.name)
        (home / ".keep").unlink(missing_ok=True)
        with materialize(home):
            pass  # leaving the block closes any writer, so every row is in the main file
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(home, target)
    return used


if __name__ == "__main__":
    for name in build():
        print(f"demo: {name}")
