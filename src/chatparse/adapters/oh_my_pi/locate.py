"""Where Oh My Pi keeps its sessions: the agent folder, named profiles and XDG data folders."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Final

from chatparse.adapter import is_dir
from chatparse.adapters._pi import folders_in, jsonl_files
from chatparse.host import Host

__all__ = [
    "AGENT_DIR_ENVS",
    "CONFIG_DIR_ENV",
    "XDG_PLATFORMS",
    "agent_override",
    "config_root",
    "every_subagent_file",
    "session_files",
    "session_roots",
    "subagent_files",
]

CONFIG_DIR_ENV: Final = "PI_CONFIG_DIR"
"""Renames ``.omp`` (a name under the home)."""
AGENT_DIR_ENVS: Final = ("PI_CODING_AGENT_DIR", "OMP_CODING_AGENT_DIR")
"""Move the default agent folder: the current name, then early 2026 builds' one."""
XDG_PLATFORMS: Final = frozenset({"linux", "darwin"})
"""Where ``$XDG_DATA_HOME/omp`` takes the sessions over, once ``omp config migrate`` made it."""


def config_root(host: Host) -> Path:
    """``~/.omp``, or ``~/$PI_CONFIG_DIR`` (always under the home, as Node's ``path.join``)."""
    name = host.getenv(CONFIG_DIR_ENV) or ".omp"
    return host.home / name.lstrip("/\\")


def agent_override(host: Host) -> tuple[str, str] | None:
    """The variable that moves the default agent folder, and its value, when one is set."""
    for variable in AGENT_DIR_ENVS:
        value = host.getenv(variable)
        if value:
            return variable, value
    return None


def session_roots(host: Host) -> list[Path]:
    """Every ``sessions/`` folder Oh My Pi may have written, most current first.

    The default profile's (``<agent dir>/sessions``, or ``$XDG_DATA_HOME/omp/sessions`` when
    that folder's ``omp`` exists), then each named profile's (``~/.omp/profiles/<name>/agent``,
    and its XDG twin).
    """
    root = config_root(host)
    override = agent_override(host)
    roots: list[Path] = []
    xdg = host.getenv("XDG_DATA_HOME") if host.platform in XDG_PLATFORMS else None
    app = Path(xdg) / "omp" if xdg else None
    if override is not None:
        roots.append(host.expand(override[1]) / "sessions")
    else:
        if app is not None and is_dir(app):
            roots.append(app / "sessions")
        roots.append(root / "agent" / "sessions")
    roots += [profile / "agent" / "sessions" for profile in _profiles(root)]
    if app is not None:
        roots += [profile / "sessions" for profile in _profiles(app)]
    return roots


def _profiles(root: Path) -> list[Path]:
    folder = root / "profiles"
    return folders_in(folder) if is_dir(folder) else []


def session_files(root: Path) -> Iterator[Path]:
    """The sessions of a root: each project folder's files, and sub-agents left without one.

    A sub-agent's file is ``<project folder>/<parent's name>/<agent>.jsonl``; it is read with its
    parent. A sub-agent folder whose parent file is gone is listed on its own.
    """
    for folder in folders_in(root):
        files = jsonl_files(folder)
        yield from files
        parents = {path.name.removesuffix(".jsonl") for path in files}
        for sub in folders_in(folder):
            if sub.name not in parents:
                yield from jsonl_files(sub)


def subagent_files(session: Path) -> list[Path]:
    """The sub-agents a session started: ``<its folder>/<its name>/*.jsonl``."""
    folder = session.with_suffix("")
    return jsonl_files(folder) if is_dir(folder) else []


def every_subagent_file(session: Path) -> Iterable[Path]:
    """The sub-agents of a session and theirs, at any depth (what its fingerprint watches)."""
    for path in subagent_files(session):
        yield path
        yield from every_subagent_file(path)
