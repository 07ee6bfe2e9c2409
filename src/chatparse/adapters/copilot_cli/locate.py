r"""Where GitHub Copilot CLI keeps its sessions, in each layout it has used, and what scan says.

The Copilot home is ``$COPILOT_HOME`` (used as given; ``~`` expanded), else ``<home>/.copilot``
on every platform (``%USERPROFILE%\\.copilot`` on Windows). Sessions, newest layout first:

* ``session-state/<session id>/events.jsonl`` (current), with ``workspace.yaml`` beside it
  (``id, cwd, name, user_named, created_at, updated_at``);
* ``session-state/<session id>.jsonl`` (the first releases of the event log, 0.0.342 on);
* ``history-session-state/<session id>.json`` (up to 0.0.341: one JSON document per session;
  Copilot migrates one to the event log when it is resumed).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import suppress
from pathlib import Path
from typing import Final, NamedTuple

from chatparse.adapter import (
    as_datetime,
    file_meta,
    is_dir,
    is_file,
    list_folder,
    stat_fingerprint,
    title_from,
)
from chatparse.host import Host
from chatparse.model import ConversationMeta

__all__ = [
    "HOME_ENV",
    "LAYOUTS",
    "Found",
    "copilot_home",
    "found_in",
    "meta_of",
    "read_workspace",
]

HOME_ENV: Final = "COPILOT_HOME"
"""Moves the whole Copilot home (``--config-dir`` did so before it was deprecated)."""
SESSION_STATE: Final = "session-state"
LEGACY_STATE: Final = "history-session-state"
EVENTS: Final = "events.jsonl"
WORKSPACE: Final = "workspace.yaml"
LAYOUTS: Final = ("events", "flat", "legacy")
"""The layouts, in the order a copy of one session wins."""
_WORKSPACE_LIMIT: Final = 64 * 1024


def copilot_home(host: Host) -> Path:
    """``$COPILOT_HOME`` when set, else ``<home>/.copilot``."""
    configured = host.getenv(HOME_ENV)
    return host.expand(configured) if configured else host.home / ".copilot"


class Found(NamedTuple):
    """A session's file in one layout."""

    session_id: str
    path: Path
    layout: str


def found_in(home: Path) -> Iterator[Found]:
    """Every session file under a Copilot home, in any layout."""
    for entry in list_folder(home / SESSION_STATE):
        path = Path(entry.path)
        if entry.name.endswith(".jsonl") and is_file(path):
            yield Found(entry.name.removesuffix(".jsonl"), path, "flat")
        elif is_file(path / EVENTS):
            yield Found(entry.name, path / EVENTS, "events")
    for entry in list_folder(home / LEGACY_STATE):
        path = Path(entry.path)
        if entry.name.endswith(".json") and is_file(path):
            yield Found(entry.name.removesuffix(".json"), path, "legacy")


def read_workspace(folder: Path) -> dict[str, str]:
    """The top-level ``key: value`` scalars of a session's ``workspace.yaml``.

    The file is flat YAML written by Copilot; only plain and quoted scalars on one line are
    read (the keys chatparse uses are such), nested or multi-line values are passed over.
    """
    path = folder / WORKSPACE
    if not is_file(path):
        return {}
    try:
        with path.open("rb") as stream:
            text = stream.read(_WORKSPACE_LIMIT).decode("utf-8", errors="replace")
    except OSError:
        return {}
    found: dict[str, str] = {}
    for line in text.splitlines():
        if not line or line[0].isspace() or line.startswith(("#", "-")):
            continue
        key, colon, value = line.partition(":")
        value = value.strip()
        if colon and value and not value.startswith(("|", ">", "[", "{", "&", "*")):
            if len(value) > 1 and value[0] == value[-1] and value[0] in "'\"":
                value = value[1:-1]
            found[key.strip()] = value
    return found


def meta_of(source: str, found: Found) -> ConversationMeta | None:
    """The meta of one session file, with its workspace's title, cwd and times when it has one.

    The fingerprint joins the event log's and the ``workspace.yaml``'s size and time.
    """
    try:
        info = found.path.stat()
    except OSError:
        return None
    stamps = [stat_fingerprint(info)]
    workspace: dict[str, str] = {}
    locator = {"layout": found.layout}
    if found.layout == "events":
        workspace = read_workspace(found.path.parent)
        with suppress(OSError):  # no workspace.yaml: the log alone
            stamps.append(stat_fingerprint((found.path.parent / WORKSPACE).stat()))
    return file_meta(
        source,
        found.session_id,
        found.path,
        info,
        fingerprint="+".join(stamps),
        title=title_from(workspace.get("name")),
        project_path=workspace.get("cwd"),
        created_at=as_datetime(workspace.get("created_at")),
        updated_at=as_datetime(workspace.get("updated_at")),
        locator=locator,
    )


def sessions_root_exists(home: Path) -> bool:
    """Whether the home has a session folder of either layout."""
    return is_dir(home / SESSION_STATE) or is_dir(home / LEGACY_STATE)
