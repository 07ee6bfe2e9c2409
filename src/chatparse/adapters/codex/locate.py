"""Where Codex keeps its rollouts, and what a scan learns from the first line of one."""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import Any, Final

from attrs import Factory, frozen

from chatparse.adapter import as_text, as_time, dig, is_file, walk_files
from chatparse.decoders import jsonl
from chatparse.errors import SourceUnavailableError
from chatparse.host import Host

__all__ = [
    "ARCHIVED",
    "SESSIONS",
    "SESSION_INDEX",
    "Header",
    "codex_home",
    "id_from_name",
    "is_bare_meta",
    "parent_of",
    "read_header",
    "read_session_index",
    "rollout_files",
    "thread_origin",
]

SESSIONS: Final = "sessions"
ARCHIVED: Final = "archived_sessions"
SESSION_INDEX: Final = "session_index.jsonl"

_UUID: Final = re.compile(
    r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
)


def codex_home(host: Host) -> Path:
    """``$CODEX_HOME`` (with ``~`` expanded against the host), else ``~/.codex``."""
    configured = host.getenv("CODEX_HOME")
    return host.expand(configured) if configured else host.home / ".codex"


def read_session_index(path: Path) -> dict[str, str]:
    """Thread names from ``session_index.jsonl``: the last line for an id wins.

    Read afresh on every call, so a rename made since the last scan shows up.
    """
    names: dict[str, str] = {}
    if not is_file(path):
        return names
    for record in jsonl.iter_lines(path):
        value = record.value if isinstance(record, jsonl.Line) else None
        if isinstance(value, dict):
            thread_id, name = value.get("id"), value.get("thread_name")
            if isinstance(thread_id, str) and isinstance(name, str) and name.strip():
                names[thread_id] = name.strip()
    return names


def rollout_files(root: Path) -> list[Path]:
    """Every rollout under ``root``: JSON Lines of any name, TypeScript ``rollout-*.json``."""
    return walk_files(root, _is_rollout_name)


def _is_rollout_name(name: str) -> bool:
    return name.endswith(".jsonl") or (name.startswith("rollout-") and name.endswith(".json"))


def id_from_name(path: Path) -> str:
    """The thread id a rollout's name gives: its last UUID, else the whole stem."""
    found = _UUID.findall(path.stem)
    return found[-1].lower() if found else path.stem


def is_bare_meta(value: Mapping[str, Any]) -> bool:
    """Whether a first line is the bare session meta of an early-Rust rollout."""
    return "payload" not in value and "type" not in value and isinstance(value.get("id"), str)


@frozen
class Header:
    """What the first line of a rollout says about its thread."""

    id: str | None = None
    cwd: str | None = None
    created_at: datetime | None = None
    locator: Mapping[str, str] = Factory(dict)


def read_header(path: Path) -> Header:
    """The thread's header from the first line of a JSON Lines rollout; empty if it has none."""
    try:
        first = jsonl.read_first_line(path)
    except SourceUnavailableError:
        return Header()
    value = first.value if isinstance(first, jsonl.Line) else None
    if not isinstance(value, dict):
        return Header()
    if value.get("type") == "session_meta" and isinstance(value.get("payload"), dict):
        meta = value["payload"]
        created = as_time(meta.get("timestamp"), "s") or as_time(value.get("timestamp"), "s")
    elif is_bare_meta(value):
        meta, created = value, as_time(value.get("timestamp"), "s")
    else:
        return Header()
    return Header(
        id=as_text(meta.get("id")),
        cwd=as_text(meta.get("cwd")),
        created_at=created,
        locator=thread_origin(meta),
    )


def thread_origin(meta: Mapping[str, Any]) -> dict[str, str]:
    """Where a thread came from, kept in ``ConversationMeta.locator``.

    ``originator`` (``codex_cli_rs``, ``codex-tui``, ``codex_exec``, ``Codex Desktop``, ...),
    ``source`` (``cli``, ``vscode``, ``exec``, ``mcp``, or ``subagent:<kind>``), and for forks
    and sub-agents ``forked_from_id`` and ``parent_thread_id``.
    """
    origin: dict[str, str] = {}
    for key in ("originator", "model_provider", "forked_from_id", "parent_thread_id"):
        if isinstance(meta.get(key), str):
            origin[key] = meta[key]
    source = meta.get("source")
    if isinstance(source, str):
        origin["source"] = source
    elif isinstance(source, dict) and isinstance(source.get("subagent"), (dict, str)):
        kind = source["subagent"]
        origin["source"] = f"subagent:{kind if isinstance(kind, str) else next(iter(kind), '')}"
    parent = parent_of(meta)
    if parent is not None:
        origin.setdefault("parent_thread_id", parent)
    return origin


def parent_of(meta: Mapping[str, Any]) -> str | None:
    """The thread a fork or sub-agent was started from, when the meta names one."""
    for key in ("forked_from_id", "parent_thread_id"):
        if isinstance(meta.get(key), str):
            return str(meta[key])
    spawn = dig(meta, "source", "subagent", "thread_spawn")
    if isinstance(spawn, dict) and isinstance(spawn.get("parent_thread_id"), str):
        return str(spawn["parent_thread_id"])
    return None
