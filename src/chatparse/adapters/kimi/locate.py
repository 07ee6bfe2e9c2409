"""Where Kimi CLI and Kimi Code keep their sessions, and what a scan says of each.

* Kimi CLI: ``$KIMI_SHARE_DIR``, else ``<home>/.kimi``; sessions in
  ``sessions/<md5 of the work dir>/<session id>/`` (``wire.jsonl``, ``context.jsonl``,
  ``state.json``), or, before 2025-11-28, a flat ``sessions/<md5>/<session id>.jsonl`` context.
  ``kimi.json`` maps work dirs to their hash folders.
* Kimi Code: ``$KIMI_CODE_HOME``, else ``<home>/.kimi-code``; sessions in
  ``sessions/wd_<slug>_<hash>/<session id>/`` (``state.json`` and
  ``agents/<agent id>/wire.jsonl``). Kimi Desktop runs Kimi Code with its home at
  ``<config home>/kimi-desktop/daimon-share/daimon/runtime/kimi-code/home``.

The same on Linux, macOS and Windows (the desktop's config home aside).
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Final

from chatparse.adapter import (
    file_stat,
    folders_in,
    is_dir,
    is_file,
    list_folder,
    new_meta,
    stat_fingerprint,
)
from chatparse.host import Host
from chatparse.model import ConversationMeta

__all__ = [
    "CLI_ENV",
    "CODE_ENV",
    "CODE_WIRE",
    "CONTEXT",
    "STATE",
    "WIRE",
    "Session",
    "homes",
    "session_meta",
    "sessions",
]

CLI_ENV: Final = "KIMI_SHARE_DIR"
"""Moves Kimi CLI's whole share folder (``~/.kimi``)."""
CODE_ENV: Final = "KIMI_CODE_HOME"
"""Moves Kimi Code's whole home (``~/.kimi-code``)."""
WIRE: Final = "wire.jsonl"
CONTEXT: Final = "context.jsonl"
STATE: Final = "state.json"
CODE_WIRE: Final = Path("agents", "main", WIRE)
_DESKTOP: Final = Path("kimi-desktop", "daimon-share", "daimon", "runtime", "kimi-code", "home")


def homes(host: Host) -> list[tuple[str, Path]]:
    """``(what, folder)`` of every home looked at: Kimi CLI's, Kimi Code's, Kimi Desktop's."""
    cli, code = host.getenv(CLI_ENV), host.getenv(CODE_ENV)
    return [
        ("Kimi CLI", host.expand(cli) if cli else host.home / ".kimi"),
        ("Kimi Code", host.expand(code) if code else host.home / ".kimi-code"),
        ("Kimi Desktop", host.config_home() / _DESKTOP),
    ]


class Session:
    """A session found by a scan: its layout, id and files."""

    __slots__ = ("folder", "ident", "layout", "main", "subagents")

    def __init__(self, layout: str, ident: str, main: Path, folder: Path | None) -> None:
        self.layout = layout
        """``"kimi-cli"`` or ``"kimi-code"``."""
        self.ident = ident
        self.main = main
        """The file read for its messages."""
        self.folder = folder
        """The session folder (``None`` for a flat Kimi CLI context file)."""
        self.subagents = _subagent_logs(layout, folder) if folder is not None else []


def _subagent_logs(layout: str, folder: Path) -> list[Path]:
    """The logs of the sub-agents a session started, by agent id."""
    if layout == "kimi-code":
        return [
            p / WIRE
            for p in folders_in(folder / "agents")
            if p.name != "main" and is_file(p / WIRE)
        ]
    found = []
    for agent in folders_in(folder / "subagents"):
        log = agent / WIRE if is_file(agent / WIRE) else agent / CONTEXT
        if is_file(log):
            found.append(log)
    return found


def _is_folder(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir(follow_symlinks=False)
    except OSError:
        return False


def _session(folder: Path) -> Session | None:
    if is_file(folder / CODE_WIRE):
        return Session("kimi-code", folder.name, folder / CODE_WIRE, folder)
    for name in (WIRE, CONTEXT):
        if is_file(folder / name):
            return Session("kimi-cli", folder.name, folder / name, folder)
    return None


def sessions(home: Path) -> Iterator[Session]:
    """Every session under ``home/sessions``, in either layout."""
    for project in folders_in(home / "sessions"):
        for entry in list_folder(project):
            path = Path(entry.path)
            if _is_folder(entry):
                found = _session(path)
                if found is not None:
                    yield found
            elif entry.name.endswith(".jsonl") and not is_dir(project / path.stem):
                yield Session("kimi-cli", path.stem, path, None)


def _watched(session: Session) -> Sequence[Path]:
    files = [session.main, *session.subagents]
    if session.folder is not None:
        files += [session.folder / STATE, session.folder / WIRE, session.folder / CONTEXT]
    return sorted(set(files))


def session_meta(source: str, session: Session, home: Path) -> ConversationMeta | None:
    """The meta of ``session`` (found under ``home``); ``None`` when its files are gone."""
    stats = {path: info for path in _watched(session) if (info := file_stat(path)) is not None}
    if session.main not in stats:
        return None
    base = session.folder or session.main.parent
    return new_meta(
        source=source,
        id=session.ident,
        path=str(session.main),
        fingerprint="+".join(
            f"{path.relative_to(base).as_posix()}={stat_fingerprint(info)}"
            for path, info in stats.items()
        ),
        size=sum(info.st_size for info in stats.values()),
        mtime=datetime.fromtimestamp(max(info.st_mtime for info in stats.values()), UTC),
        locator={"layout": session.layout, "home": str(home)},
    )
