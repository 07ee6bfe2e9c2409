r"""Where Continue keeps its sessions on a host, and what its index says about them.

Continue's home is ``$CONTINUE_GLOBAL_DIR`` when set, else ``~/.continue`` on every platform
(``%USERPROFILE%\.continue`` on Windows); the VS Code extension, the JetBrains plugin and the
``cn`` CLI share it. Sessions are ``<home>/sessions/<sessionId>.json``; ``sessions.json`` beside
them is the index Continue's history list reads (a JSON array of ``{sessionId, title,
dateCreated, workspaceDirectory, messageCount}``). The index is only a hint: it can name files
that are gone and miss files that exist, so the folder is listed and the index only adds what
the session file lacks (the creation time).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Final

from attrs import frozen

from chatparse.adapter import as_nonempty_text, files_in, is_file
from chatparse.adapters._vscode import uri_platform, uri_to_project_path
from chatparse.decoders import bigjson
from chatparse.errors import SourceUnavailableError
from chatparse.host import Host

__all__ = [
    "HOME_ENV",
    "INDEX",
    "SESSIONS",
    "IndexEntry",
    "Located",
    "clean_title",
    "home_of",
    "project_of",
    "read_index",
    "session_files",
]

HOME_ENV: Final = "CONTINUE_GLOBAL_DIR"
"""Replaces Continue's home (the default one is then not read)."""
SESSIONS: Final = "sessions"
INDEX: Final = "sessions.json"
# Titles Continue writes before it has one, and what JetBrains builds wrote for an object.
_NO_TITLES: Final = frozenset({"", "New Session", "[object Object]"})


@frozen
class Located:
    """Continue's home on a host, and why it is that one."""

    home: Path
    configured: str | None
    """The value of ``CONTINUE_GLOBAL_DIR`` when it is set."""
    ignored: bool
    """Whether that value was relative (Continue resolves it against its own working directory,
    which is not known here) and so the default home is used."""


def home_of(host: Host) -> Located:
    """Continue's home on ``host``: ``$CONTINUE_GLOBAL_DIR`` when absolute, else the default."""
    configured = host.getenv(HOME_ENV)
    default = host.home / ".continue"
    if configured is None:
        return Located(default, None, ignored=False)
    value = configured.strip()
    # Absolute by the rules of this machine, where the files are opened.
    if value.startswith("~") or Path(value).is_absolute():
        return Located(host.expand(value), configured, ignored=False)
    return Located(default, configured, ignored=True)


def _is_session_name(name: str) -> bool:
    return name.endswith(".json") and name not in (INDEX, ".json")


def session_files(home: Path) -> list[Path]:
    """The session files of a home, by name (``sessions.json`` is the index, not a session)."""
    return files_in(home / SESSIONS, _is_session_name)


def clean_title(value: object) -> str | None:
    """A stored title, unless a placeholder (``New Session``, ``[object Object]``)."""
    text = as_nonempty_text(value)
    return None if text is None or text.strip() in _NO_TITLES else text


def project_of(value: object) -> str | None:
    """A ``workspaceDirectory``: a URI in the IDEs (``file:///c%3A/...``), a path in the CLI."""
    text = as_nonempty_text(value)
    if text is None:
        return None
    if "://" not in text:
        return text
    return uri_to_project_path(text, uri_platform(text))


@frozen
class IndexEntry:
    """What ``sessions.json`` says of one session."""

    raw: Any
    title: str | None
    project_path: str | None
    created: Any


def _entry(item: object) -> tuple[str, IndexEntry] | None:
    if not isinstance(item, dict):
        return None
    # Entries with a snake_case ``session_id`` are the pre-2024 shape (Continue skips them).
    ident = as_nonempty_text(item.get("sessionId")) or as_nonempty_text(item.get("session_id"))
    if ident is None:
        return None
    created = item.get("dateCreated", item.get("date_created"))
    workspace = item.get("workspaceDirectory", item.get("workspace_directory"))
    entry = IndexEntry(item, clean_title(item.get("title")), project_of(workspace), created)
    return ident, entry


def read_index(home: Path) -> tuple[dict[str, IndexEntry], str | None]:
    """The index's entries by session id, and what was wrong with it (``None`` when sound).

    A damaged index gives the entries before the damage: it is a hint, never needed to read a
    session.
    """
    path = home / SESSIONS / INDEX
    if not is_file(path):
        return {}, None
    entries: dict[str, IndexEntry] = {}
    try:
        for item in bigjson.iter_items(path, "item"):
            if isinstance(item, bigjson.Malformed):
                return entries, f"damaged ({item.reason})"
            found = _entry(item.value)
            if found is not None:
                entries.setdefault(*found)
    except SourceUnavailableError as exc:
        return entries, f"cannot be read ({exc.reason})"
    return entries, None
