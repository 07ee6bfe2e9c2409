r"""Where Factory Droid keeps its sessions, and what a scan says of each one by stat alone.

Sessions are under ``<home>/.factory/sessions`` on every platform (``%USERPROFILE%\.factory``
on Windows): ``<encoded cwd>/<session id>.jsonl`` (the working directory with ``/`` made ``-``:
``-Users-a-app``), and, as some 2025 installs had it, ``<session id>.jsonl`` directly in
``sessions``. Beside each is its ``<session id>.settings.json`` sidecar. Droid reads no variable
that moves the folder. A session id found twice (a session resumed from another folder) is read
from the file written last.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import suppress
from pathlib import Path
from typing import Final

from chatparse.adapter import file_meta, folders_in, stat_fingerprint
from chatparse.adapters._anthropic.files import Found, conversation_files
from chatparse.adapters.factory_droid.settings import SUFFIX
from chatparse.host import Host
from chatparse.model import ConversationMeta

__all__ = ["Found", "found_in", "meta_of", "sessions_root", "sidecar_of"]

_LOG: Final = ".jsonl"


def sessions_root(host: Host) -> Path:
    """``<home>/.factory/sessions``."""
    return host.home / ".factory" / "sessions"


def sidecar_of(log: Path) -> Path:
    """The ``.settings.json`` beside a session file."""
    return log.with_name(log.name.removesuffix(_LOG) + SUFFIX)


def found_in(root: Path) -> Iterator[Found]:
    """Every session file in ``root`` and in its working-directory folders."""
    yield from conversation_files(root, _LOG)
    for folder in folders_in(root):
        yield from conversation_files(folder, _LOG)


def meta_of(source: str, found: Found) -> ConversationMeta:
    """The meta of one session; its fingerprint joins the file's and its sidecar's stats."""
    stamps = [stat_fingerprint(found.info)]
    with suppress(OSError):  # no sidecar (yet): the file alone
        stamps.append(stat_fingerprint(sidecar_of(found.path).stat()))
    return file_meta(source, found.ident, found.path, found.info, fingerprint="+".join(stamps))
