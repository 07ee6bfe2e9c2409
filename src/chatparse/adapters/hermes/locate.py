r"""Where Hermes Agent keeps its homes, and the transcript files in them.

A Hermes home is ``$HERMES_HOME`` when set, else the platform default: ``~/.hermes`` on Linux
and macOS, ``%LOCALAPPDATA%\\hermes`` (else ``~/AppData/Local/hermes``) on Windows, with
``$HERMES_DATA_DIR_SUFFIX`` appended to the folder name. Each named profile is a home of its
own, ``<home>/profiles/<name>/`` (a name starting with ``.`` is not a profile). A home holds
``state.db`` and ``sessions/``, whose ``<id>.jsonl`` (gateway transcripts) and
``session_<id>.json`` (whole-session snapshots) are named after the session id.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final, NamedTuple

from chatparse.adapter import folders_in, is_dir, is_file, list_folder
from chatparse.host import Host

__all__ = [
    "HOME_ENV",
    "STATE_DB",
    "SUFFIX_ENV",
    "Transcript",
    "default_home",
    "homes",
    "transcripts",
]

HOME_ENV: Final = "HERMES_HOME"
"""Replaces the Hermes home (the default one is then not read)."""
SUFFIX_ENV: Final = "HERMES_DATA_DIR_SUFFIX"
"""Appended to the default home's folder name (``~/.hermes-dev``)."""
STATE_DB: Final = "state.db"
SESSIONS: Final = "sessions"
SNAPSHOT_PREFIX: Final = "session_"


def default_home(host: Host) -> Path:
    """The home Hermes uses when ``HERMES_HOME`` is not set, on ``host``'s platform."""
    suffix = host.getenv(SUFFIX_ENV) or ""
    if host.platform == "win32":
        local = host.getenv("LOCALAPPDATA")
        base = Path(local) if local else host.home / "AppData" / "Local"
        return base / f"hermes{suffix}"
    return host.home / f".hermes{suffix}"


def homes(host: Host) -> list[Path]:
    """The Hermes home and each named profile's home that exist, the home first."""
    configured = host.getenv(HOME_ENV)
    home = host.expand(configured.strip()) if configured else default_home(host)
    if not is_dir(home):
        return []
    profiles = [p for p in folders_in(home / "profiles") if not p.name.startswith(".")]
    return [home, *profiles]


class Transcript(NamedTuple):
    """A transcript file: the session id its name gives, and its shape."""

    path: Path
    session_id: str
    shape: str
    """``"jsonl"`` (a gateway transcript) or ``"json"`` (a whole-session snapshot)."""


def transcript_of(path: Path) -> Transcript | None:
    """What the name of a file in ``sessions/`` says it is; ``None`` for other files."""
    name = path.name
    if name.endswith(".jsonl") and len(name) > len(".jsonl"):
        return Transcript(path, name.removesuffix(".jsonl"), "jsonl")
    if name.startswith(SNAPSHOT_PREFIX) and name.endswith(".json"):
        ident = name.removeprefix(SNAPSHOT_PREFIX).removesuffix(".json")
        return Transcript(path, ident, "json") if ident else None
    return None


def transcripts(home: Path) -> list[Transcript]:
    """The transcript files of a home's ``sessions/`` folder, by name."""
    folder = home / SESSIONS
    if not is_dir(folder):
        return []
    found = [transcript_of(Path(entry.path)) for entry in list_folder(folder)]
    return [t for t in found if t is not None and is_file(t.path)]
