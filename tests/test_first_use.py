"""What a first use of built-in adapters imports: no package metadata, no ijson until needed.

Structural checks, each in a fresh interpreter; the time a first use takes is measured by the
benchmarks (docs/benchmarks.md), never here.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import chatparse

DEMO_HOME = Path(chatparse.__file__).parent / "_demo" / "home"

# Runs ``USE`` in a fresh interpreter and prints the modules it imported as a JSON list.
CHILD = """
import json, sys
before = set(sys.modules)
import chatparse
from chatparse import Host
host = Host(home={home!r}, env={{}}, platform="linux")
{use}
print(json.dumps(sorted(set(sys.modules) - before)))
"""


def imported_by(use: str) -> set[str]:
    """The modules a fresh interpreter imports to run ``use`` (after ``import chatparse``)."""
    code = CHILD.format(home=str(DEMO_HOME), use=use)
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    modules: list[str] = json.loads(out)
    return set(modules)


@pytest.mark.parametrize(
    "use",
    [
        'chatparse.get_adapter("claude-code")',
        'chatparse.detect(host, sources="codex")',
        (
            'metas = list(chatparse.scan(host, sources=["claude-code", "codex"]))\n'
            "assert metas\n"
            "for meta in metas:\n"
            "    assert chatparse.parse(meta).messages"
        ),
        'assert list(chatparse.iter_conversations(host, sources=["claude-code"]))',
    ],
    ids=["get_adapter", "detect", "scan-parse", "iter_conversations"],
)
def test_builtins_by_name_read_no_metadata(use: str) -> None:
    """Built-ins asked for by name are found without importlib.metadata or any entry point."""
    imported = imported_by(use)
    assert "chatparse.adapters.claude_code" in imported or "chatparse.adapters.codex" in imported
    assert "importlib.metadata" not in imported


def test_listing_every_adapter_still_reads_plugins() -> None:
    """adapter_names() reads the entry points (and so lists installed plugins)."""
    imported = imported_by("assert 'claude-code' in chatparse.adapter_names()")
    assert "importlib.metadata" in imported


def test_stream_decoder_loads_ijson_on_first_document() -> None:
    """Importing the stream decoder leaves ijson unloaded; reading a document loads it."""
    imported = imported_by("import chatparse.decoders.bigjson")
    assert "chatparse.decoders.bigjson" in imported
    assert "ijson" not in imported
    imported = imported_by(
        "from chatparse.decoders import bigjson\n"
        "assert [item.value for item in bigjson.iter_items(b'[1, 2]', 'item')] == [1, 2]"
    )
    assert "ijson" in imported
