"""Where Grok Build keeps its sessions, and what a scan says of each.

``$GROK_HOME`` (used as given when not empty), else ``<home>/.grok``, the same on Linux, macOS
and Windows. Each session is a folder ``<grok home>/sessions/<encoded cwd>/<session id>/``. The
encoded cwd is the URL-encoding of the working directory when that fits in 255 bytes, else
``<slug>-<hash>`` with a ``.cwd`` file beside the sessions holding the real path.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Sequence
from contextlib import closing
from datetime import UTC, datetime
from pathlib import Path
from typing import Final
from urllib.parse import unquote

from chatparse.adapter import (
    as_datetime,
    as_nonempty_text,
    dig,
    file_stat,
    folders_in,
    is_file,
    new_meta,
    stat_fingerprint,
    title_from,
)
from chatparse.decoders import bigjson
from chatparse.host import Host
from chatparse.model import ConversationMeta

__all__ = [
    "FILES",
    "HOME_ENV",
    "Summary",
    "decode_cwd",
    "grok_home",
    "read_summary",
    "session_dirs",
    "session_meta",
]

HOME_ENV: Final = "GROK_HOME"
"""Moves the whole ``.grok`` folder, sessions included."""

SUMMARY: Final = "summary.json"
CHAT_HISTORY: Final = "chat_history.jsonl"
UPDATES: Final = "updates.jsonl"
FILES: Final = (SUMMARY, CHAT_HISTORY, UPDATES)
"""The files of a session folder that are read; a folder with none of them is not a session."""

_CWD_FILE: Final = ".cwd"
_DRIVE: Final = re.compile(r"[A-Za-z]:")
_CWD_LIMIT: Final = 64 * 1024  # a path, never more


def grok_home(host: Host) -> Path:
    """``$GROK_HOME`` when set and not empty (``~`` expanded), else ``<home>/.grok``."""
    configured = host.getenv(HOME_ENV)
    return host.expand(configured) if configured else host.home / ".grok"


def session_dirs(sessions: Path) -> Iterator[Path]:
    """Every session folder under ``sessions``: ``<encoded cwd>/<id>/`` holding a known file."""
    for project in folders_in(sessions):
        for folder in folders_in(project):
            if any(is_file(folder / name) for name in FILES):
                yield folder


def decode_cwd(project: Path) -> str | None:
    """The working directory a ``sessions/<encoded cwd>`` folder is for, as Grok Build decodes it.

    The URL-decoded name when it is an absolute path (``/...``, or ``C:...``), else the text of
    the ``.cwd`` file in the folder; ``None`` when neither gives one.
    """
    decoded = unquote(project.name, errors="replace") if "%" in project.name else project.name
    if decoded.startswith("/") or _DRIVE.match(decoded):
        return decoded
    path = project / _CWD_FILE
    if not is_file(path):
        return None
    try:
        with path.open("rb") as stream:
            text = stream.read(_CWD_LIMIT).decode("utf-8", errors="replace").strip()
    except OSError:
        return None
    return text or None


class Summary:
    """What a session's ``summary.json`` says, as far as the adapter uses it."""

    __slots__ = ("fields", "malformed")

    def __init__(self, fields: dict[str, object], *, malformed: str | None = None) -> None:
        self.fields = fields
        self.malformed = malformed
        """Why the file could not be read whole; ``None`` when it could (or is absent)."""

    def text(self, *keys: str) -> str | None:
        """The text at ``keys``, when it is text and not empty."""
        return as_nonempty_text(dig(self.fields, *keys))

    @property
    def title(self) -> str | None:
        """``generated_title``, else ``session_summary``, folded by the one title rule."""
        return title_from(self.text("generated_title") or self.text("session_summary"))

    @property
    def cwd(self) -> str | None:
        """``info.cwd``: the working directory."""
        return self.text("info", "cwd")

    @property
    def created_at(self) -> datetime | None:
        """``created_at``."""
        return as_datetime(self.fields.get("created_at"))

    @property
    def updated_at(self) -> datetime | None:
        """The later of ``updated_at`` and ``last_active_at``."""
        stamps = [as_datetime(self.fields.get(k)) for k in ("updated_at", "last_active_at")]
        return max((s for s in stamps if s is not None), default=None)


# Only these keys are kept from summary.json; the rest (recaps, git remotes...) is not needed.
_SUMMARY_KEYS: Final = frozenset(
    {
        "info",
        "generated_title",
        "session_summary",
        "created_at",
        "updated_at",
        "last_active_at",
        "parent_session_id",
        "session_kind",
        "head_branch",
        "chat_format_version",
        "current_model_id",
    }
)


def read_summary(folder: Path) -> Summary | None:
    """The session's ``summary.json``, streamed key by key; ``None`` when there is none.

    A damaged file keeps the keys read before the damage.
    """
    path = folder / SUMMARY
    if not is_file(path):
        return None
    fields: dict[str, object] = {}
    try:
        with closing(bigjson.iter_kvitems(path, "")) as items:
            for item in items:
                if isinstance(item, bigjson.Malformed):
                    return Summary(fields, malformed=item.reason)
                if item.key in _SUMMARY_KEYS:
                    fields[str(item.key)] = item.value
    except OSError as exc:
        return Summary(fields, malformed=f"cannot be read ({exc.strerror or exc})")
    return Summary(fields)


def _stats(folder: Path) -> dict[str, os.stat_result]:
    return {name: info for name in FILES if (info := file_stat(folder / name)) is not None}


def session_meta(
    source: str,
    folder: Path,
    summary: Summary | None,
    locator: dict[str, str],
    *,
    watched: Sequence[str] = (),
) -> ConversationMeta | None:
    """The meta of the session in ``folder``; ``None`` when its files are gone.

    The path is the file that holds its messages (``chat_history.jsonl``, else
    ``updates.jsonl``, else ``summary.json``); size and time are its files' sum and latest; the
    fingerprint joins each file's size and time, and the ``watched`` fingerprints of its
    sub-agents, so a change to any of them is seen.
    """
    stats = _stats(folder)
    if not stats:
        return None
    main = next(name for name in (CHAT_HISTORY, UPDATES, SUMMARY) if name in stats)
    project = (summary.cwd if summary is not None else None) or decode_cwd(folder.parent)
    return new_meta(
        source=source,
        id=folder.name,
        path=str(folder / main),
        fingerprint="+".join(
            [*(f"{name}={stat_fingerprint(s)}" for name, s in stats.items()), *watched]
        ),
        size=sum(s.st_size for s in stats.values()),
        mtime=datetime.fromtimestamp(max(s.st_mtime for s in stats.values()), UTC),
        title=summary.title if summary is not None else None,
        project_path=project,
        created_at=summary.created_at if summary is not None else None,
        updated_at=summary.updated_at if summary is not None else None,
        locator=locator,
    )
