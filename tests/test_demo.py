"""The demo home behind `chatparse --demo`: current, complete, and what README command (a) shows."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from importlib.resources import files
from pathlib import Path

import pytest

import chatparse
from chatparse.registry import BUILTIN_ADAPTERS

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = Path(str(files("chatparse").joinpath("_demo", "home")))


def _builder() -> object:
    spec = importlib.util.spec_from_file_location("build_demo", ROOT / "tools" / "build_demo.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_demo_covers_every_builtin_source() -> None:
    """The demo lists at least one conversation for every built-in adapter, and each parses."""
    host = chatparse.Host(home=SHIPPED, env={}, platform="linux")
    conversations = list(chatparse.iter_conversations(host, sources=list(BUILTIN_ADAPTERS)))
    assert {c.source for c in conversations} == set(BUILTIN_ADAPTERS)
    assert all(c.messages for c in conversations)


def test_demo_is_built_from_the_current_fixtures(tmp_path: Path) -> None:
    """Rebuilding the demo from the fixtures gives the same files (databases: the same names)."""
    if not (ROOT / "fixtures").is_dir():
        pytest.skip("needs the repository's fixtures")
    rebuilt = tmp_path / "home"
    _builder().build(rebuilt)  # type: ignore[attr-defined]
    shipped = {p.relative_to(SHIPPED): p for p in SHIPPED.rglob("*") if p.is_file()}
    fresh = {p.relative_to(rebuilt): p for p in rebuilt.rglob("*") if p.is_file()}
    assert sorted(shipped) == sorted(fresh), "stale demo: run `python tools/build_demo.py`"
    for relative, path in fresh.items():
        if path.suffix != ".vscdb":
            assert shipped[relative].read_bytes() == path.read_bytes(), (
                f"stale demo file {relative}: run `python tools/build_demo.py`"
            )


def test_demo_scan_command() -> None:
    """`chatparse --demo scan --json` lists every built-in source, as README command (a) shows."""
    result = subprocess.run(
        [sys.executable, "-m", "chatparse", "--demo", "scan", "--json"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    sources = {json.loads(line)["source"] for line in result.stdout.splitlines()}
    assert sources == set(BUILTIN_ADAPTERS)
