"""Where Amp keeps its thread documents, and what a scan says of each one by stat alone.

Amp's local-first CLI wrote one document per thread, ``threads/T-<uuid>.json``, under its data
folder: ``$XDG_DATA_HOME/amp`` when that variable is set to an absolute path (Linux and macOS:
Amp follows the XDG base directories there), else ``<home>/.local/share/amp`` on every platform,
Windows included. Both folders are read when both exist; a thread found in both is read from the
copy written last (the newer modification time; on a tie, the ``$XDG_DATA_HOME`` one).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Final

from chatparse.adapter import file_meta
from chatparse.adapters._anthropic.files import Found, conversation_files
from chatparse.host import Host
from chatparse.model import ConversationMeta

__all__ = ["XDG_ENV", "Found", "found_in", "is_thread_name", "meta_of", "thread_roots"]

XDG_ENV: Final = "XDG_DATA_HOME"
"""Moves Amp's data folder (and every other XDG data folder) on Linux and macOS."""
_DATA: Final = ("amp", "threads")
_DEFAULT: Final = (".local", "share", *_DATA)
_PREFIX: Final = "T-"
_SUFFIX: Final = ".json"


def thread_roots(host: Host) -> list[Path]:
    """The ``threads`` folders Amp may have written on ``host``, the XDG one first."""
    roots: list[Path] = []
    configured = host.getenv(XDG_ENV) if host.platform != "win32" else None
    # The XDG spec says a relative value is invalid and must be ignored.
    if configured and Path(configured).is_absolute():
        roots.append(Path(configured).joinpath(*_DATA))
    default = host.home.joinpath(*_DEFAULT)
    if default not in roots:
        roots.append(default)
    return roots


def is_thread_name(name: str) -> bool:
    """Whether a file name is a thread document's: ``T-<id>.json``."""
    return (
        name.startswith(_PREFIX) and name.endswith(_SUFFIX) and len(name) > len(_PREFIX + _SUFFIX)
    )


def found_in(root: Path) -> Iterator[Found]:
    """Every thread document directly in ``root``, by name."""
    return conversation_files(root, _SUFFIX, prefix=_PREFIX)


def meta_of(source: str, found: Found) -> ConversationMeta:
    """The meta of one thread document, from its name and stat (nothing is read)."""
    return file_meta(source, found.ident, found.path, found.info)
