"""Where Qwen Code keeps its sessions.

The runtime folder is ``$QWEN_RUNTIME_DIR``; Qwen Code's own folder is ``$QWEN_HOME``, else
``~/.qwen`` (Linux, macOS and Windows alike). Both are read when they differ, since the runtime
folder moves only the sessions of the runs that set it. Sessions are
``projects/<sanitized cwd>/chats/<session id>.jsonl``, where every character of the project's
path but ``[A-Za-z0-9]`` became ``-`` (so the folder name does not give the path back: it is
read from the records). Sub-agent transcripts are reported (by third parties) at
``projects/<sanitized cwd>/subagents/<session id>/*.jsonl``.

Not read: ``usage_record.jsonl`` (per-session totals, which the telemetry in each session
reproduces), ``projects/*/meta.json``, ``tmp/`` (prompt logs, ``/chat save`` checkpoints and
shell history of early releases), settings.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from chatparse.host import Host

__all__ = ["HOME_ENV", "RUNTIME_ENV", "is_session_name", "qwen_bases", "qwen_home"]

RUNTIME_ENV: Final = "QWEN_RUNTIME_DIR"
"""Moves the runtime folder, where the sessions are written."""
HOME_ENV: Final = "QWEN_HOME"
"""Moves Qwen Code's own folder (``~/.qwen``)."""


def qwen_home(host: Host) -> Path:
    """``$QWEN_HOME``, else ``~/.qwen``."""
    configured = host.getenv(HOME_ENV)
    return host.expand(configured) if configured else host.home / ".qwen"


def qwen_bases(host: Host) -> list[Path]:
    """The folders whose ``projects/`` may hold sessions: the runtime folder first."""
    runtime = host.getenv(RUNTIME_ENV)
    bases = [host.expand(runtime)] if runtime else []
    home = qwen_home(host)
    return bases if home in bases else [*bases, home]


def is_session_name(name: str) -> bool:
    """A session file: ``<session id>.jsonl``."""
    return name.endswith(".jsonl") and not name.startswith(".")
