"""The Pi adapter: where Pi keeps its sessions, and how sure a file is Pi's."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Final

from chatparse.adapter import explain_variable
from chatparse.adapters._pi import PI_ENTRIES, Dialect, Head, SessionFilesAdapter, jsonl_files
from chatparse.adapters._pi.locate import folders_in
from chatparse.host import Host

__all__ = ["AGENT_DIR_ENV", "PiAdapter", "agent_dir"]

AGENT_DIR_ENV: Final = "PI_CODING_AGENT_DIR"
"""Moves Pi's agent folder (``~`` is expanded); its ``sessions/`` goes with it."""

PI: Final = Dialect(source="pi", entries=PI_ENTRIES)


def agent_dir(host: Host) -> Path:
    """``$PI_CODING_AGENT_DIR``, else ``~/.pi/agent`` (the same on every platform)."""
    configured = host.getenv(AGENT_DIR_ENV)
    return host.expand(configured) if configured else host.home / ".pi" / "agent"


class PiAdapter(SessionFilesAdapter):
    """Reads the sessions of the Pi coding agent, format versions 1 to 3.

    .. versionadded:: 0.2
    """

    name = "pi"
    display_name = "Pi"
    parser_version = "1"
    dialect = PI

    def roots(self, host: Host) -> list[Path]:
        """``<agent dir>/sessions``."""
        return [agent_dir(host) / "sessions"]

    def confidence(self, path: Path, head: Head) -> float:
        """A header without Oh My Pi's title slot; surest under ``.pi/``."""
        if head.slot or head.id is None:
            return 0.0
        return 0.9 if ".pi" in path.parts else 0.6

    def explain(self, host: Host) -> Iterator[str]:
        """Where Pi's sessions are looked for on ``host``, for ``chatparse doctor``."""
        yield explain_variable(host, AGENT_DIR_ENV, "~/.pi/agent")
        for root in self.roots(host):
            if not root.is_dir():
                yield f"{root}: missing"
                continue
            folders = folders_in(root)
            files = sum(len(jsonl_files(folder, warn=False)) for folder in folders)
            yield f"{root}: {files} session file(s) in {len(folders)} project folder(s)"
        yield "sessions kept elsewhere with --session-dir or --session are not found"
