"""Where Gemini CLI keeps its sessions, and what a file's name and head say of it.

``$GEMINI_CLI_HOME`` replaces the home folder (not the ``.gemini`` part): the base is
``$GEMINI_CLI_HOME/.gemini``, else ``~/.gemini``, the same on Linux, macOS and Windows. Sessions
are ``tmp/<project>/chats/session-<UTC minutes>-<first 8 of the id>.json`` (legacy) or
``.jsonl``; a sub-agent's are ``tmp/<project>/chats/<parent session id>/<id>.jsonl`` (v0.37+).
``<project>`` is the SHA-256 of the project folder (to v0.28) or a readable slug (v0.29+) that
``projects.json`` maps and whose ``.project_root`` names the folder.

Nothing else under ``~/.gemini`` is read: not Google Antigravity's ``antigravity/`` folders,
which share the base, not settings, credentials, ``history/`` (checkpoint git repositories),
``logs.json`` (prompt recall), ``checkpoint-*.json`` (``/chat save`` snapshots) or
``tool-outputs/``.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Final

from attrs import frozen

from chatparse.adapter import as_nonempty_text, dig
from chatparse.decoders import jsonl
from chatparse.decoders.value import Invalid, decode
from chatparse.host import Host

__all__ = [
    "HOME_ENV",
    "Head",
    "gemini_dir",
    "is_session_name",
    "is_subagent_name",
    "project_paths",
    "project_root",
    "read_head",
]

HOME_ENV: Final = "GEMINI_CLI_HOME"
"""Replaces the home folder that ``.gemini`` is looked for in."""

_HEAD_BYTES: Final = 4096  # a legacy document starts with its id and start time
_SMALL_FILE: Final = 1 << 20  # .project_root and projects.json: read only when this small
_QUOTED: Final = r'"((?:[^"\\]|\\.)*)"'
_FIELDS: Final = {
    name: re.compile(rf'"{name}"\s*:\s*{_QUOTED}') for name in ("sessionId", "startTime")
}


def gemini_dir(host: Host) -> Path:
    """``$GEMINI_CLI_HOME/.gemini``, else ``~/.gemini``."""
    configured = host.getenv(HOME_ENV)
    return (host.expand(configured) if configured else host.home) / ".gemini"


def is_session_name(name: str) -> bool:
    """A main session file: ``session-*.json`` or ``session-*.jsonl``."""
    return name.startswith("session-") and name.endswith((".json", ".jsonl"))


def is_subagent_name(name: str) -> bool:
    """A sub-agent's session file: ``<id>.json`` or ``<id>.jsonl``."""
    return name.endswith((".json", ".jsonl")) and not name.startswith(".")


@frozen
class Head:
    """What the start of a session file says: its session id and start time, when it says."""

    id: str | None = None
    started: str | None = None


def _read_small(path: Path, limit: int) -> bytes | None:
    try:
        with path.open("rb") as stream:
            return stream.read(limit)
    except OSError:
        return None


def read_head(path: Path) -> Head:
    """The id and start time from the first line (log) or first bytes (legacy document)."""
    if path.suffix == ".jsonl":
        first = jsonl.read_first_line(path)
        value = first.value if isinstance(first, jsonl.Line) else None
        if isinstance(value, dict) and "$set" not in value:
            return Head(
                as_nonempty_text(value.get("sessionId")), as_nonempty_text(value.get("startTime"))
            )
    raw = _read_small(path, _HEAD_BYTES)
    text = raw.decode("utf-8", "replace") if raw else ""
    found = {name: pattern.search(text) for name, pattern in _FIELDS.items()}
    values = {
        name: decode(f'"{match.group(1)}"') if match else None for name, match in found.items()
    }
    return Head(*(as_nonempty_text(None if isinstance(v, Invalid) else v) for v in values.values()))


def project_paths(base: Path) -> dict[str, str]:
    """Project folder name -> the project's path, from ``projects.json``.

    The file maps each path to its slug (v0.29+); a folder named by the SHA-256 of a path it
    lists (to v0.28) is matched by hash.
    """
    raw = _read_small(base / "projects.json", _SMALL_FILE)
    value = decode(raw) if raw else None
    listed = dig(value, "projects")
    found: dict[str, str] = {}
    for path, slug in listed.items() if isinstance(listed, dict) else ():
        if isinstance(path, str) and path:
            found.setdefault(
                hashlib.sha256(path.encode("utf-8", "surrogatepass")).hexdigest(), path
            )
            if isinstance(slug, str) and slug:
                found[slug] = path
    return found


def project_root(folder: Path, known: dict[str, str]) -> str | None:
    """The project a temp folder belongs to: its ``.project_root``, else ``projects.json``."""
    raw = _read_small(folder / ".project_root", _SMALL_FILE)
    root = raw.decode("utf-8", "replace").strip() if raw else ""
    if root:
        return root
    return known.get(folder.name)
