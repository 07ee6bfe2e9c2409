r"""Where Windsurf (and Devin Desktop, the same app renamed) keeps what chatparse reads or explains.

Readable: the Cascade hook transcripts, ``<home>/.windsurf/transcripts/<trajectory id>.jsonl``
(``%USERPROFILE%\.windsurf\transcripts`` on Windows), one file per Cascade conversation, written
for the ``post_cascade_response_with_transcript`` hook. Windsurf moves them with no variable of
its own.

Explained, never read: Cascade's own store under ``<home>/.codeium/windsurf/`` (``cascade/`` and
``implicit/`` hold one encrypted ``<uuid>.pb`` per conversation), and the hook configurations that
decide whether transcripts are written (user level ``.codeium/windsurf/hooks.json``, the
JetBrains plugin's ``.codeium/hooks.json``; workspace ``.windsurf/hooks.json`` files are in
projects, and the system level outside the home, so neither is looked at).
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from chatparse.adapter import file_meta, is_file, unlistable
from chatparse.host import Host
from chatparse.model import ConversationMeta

__all__ = [
    "HOOK_EVENT",
    "HOOK_FILES",
    "OPAQUE_FOLDERS",
    "codeium_dir",
    "meta_of",
    "transcript_files",
    "transcripts_dir",
]

HOOK_EVENT: Final = "post_cascade_response_with_transcript"
"""The hook event whose configuration makes Windsurf write a transcript."""
HOOK_FILES: Final = (".codeium/windsurf/hooks.json", ".codeium/hooks.json")
"""User-level hook configurations, under the home: the IDE's, then the JetBrains plugin's."""
OPAQUE_FOLDERS: Final = ("cascade", "implicit")
"""Folders of ``.codeium/windsurf`` holding one encrypted ``<uuid>.pb`` per conversation."""
SUFFIX: Final = ".jsonl"


def transcripts_dir(host: Host) -> Path:
    """``<home>/.windsurf/transcripts``, on every platform."""
    return host.home / ".windsurf" / "transcripts"


def codeium_dir(host: Host) -> Path:
    """``<home>/.codeium/windsurf``: Cascade's own (encrypted) store, on every platform."""
    return host.home / ".codeium" / "windsurf"


def transcript_files(folder: Path) -> list[Path]:
    """The ``*.jsonl`` files of ``folder`` (not links to folders, not sub-folders), by name."""
    try:
        names = sorted(entry.name for entry in folder.iterdir())
    except FileNotFoundError:
        return []
    except OSError as exc:
        unlistable(folder, exc)
        return []
    return [folder / name for name in names if name.endswith(SUFFIX) and is_file(folder / name)]


def meta_of(source: str, path: Path) -> ConversationMeta | None:
    """The meta of one transcript: its id is the file's name, the trajectory id."""
    try:
        info = path.stat()
    except OSError:
        return None  # gone since its folder was listed
    return file_meta(source, path.name.removesuffix(SUFFIX), path, info)
