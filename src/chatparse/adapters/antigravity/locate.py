r"""Where Google Antigravity keeps its conversations, which copy wins, and its prompt history.

Everything is under ``<home>/.gemini/`` on every platform (``%USERPROFILE%\.gemini`` on
Windows), beside Gemini CLI's ``tmp/``, which is never looked at here. Three roots, one per
product generation (:data:`ROOTS`), each with ``brain/<conversation id>/``; the plaintext
transcript of a conversation is ``brain/<id>/.system_generated/logs/transcript_full.jsonl``
(preferred) or ``transcript.jsonl`` (the same steps, every tool argument JSON-encoded once
more). ``history.jsonl`` (the ``agy`` CLI's prompt history) names each conversation's
workspace. Antigravity moves none of this with a variable of its own.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Final, NamedTuple

from chatparse.adapter import (
    as_nonempty_text,
    dig,
    file_meta,
    is_dir,
    is_file,
    unlistable,
)
from chatparse.decoders.jsonl import Line, iter_lines
from chatparse.errors import SourceUnavailableError
from chatparse.host import Host
from chatparse.model import ConversationMeta

__all__ = [
    "BRAIN",
    "LAYOUTS",
    "ROOTS",
    "Found",
    "brain_folders",
    "found_in",
    "gemini_dir",
    "meta_of",
    "root_of",
    "workspace_of",
]

ROOTS: Final = ("antigravity-cli", "antigravity-ide", "antigravity")
"""The roots under ``~/.gemini``, in the order a copy of one conversation wins: the ``agy``
CLI (1.1+), the IDE 2.x, and the IDE 1.x (in 2.0 the Agent Manager)."""
BRAIN: Final = "brain"
LOGS: Final = (".system_generated", "logs")
LAYOUTS: Final = {"full": "transcript_full.jsonl", "short": "transcript.jsonl"}
"""The transcript files of a conversation, by layout, in the order one is preferred."""
HISTORY: Final = "history.jsonl"


def gemini_dir(host: Host) -> Path:
    """``<home>/.gemini``, shared with Gemini CLI."""
    return host.home / ".gemini"


class Found(NamedTuple):
    """A conversation's transcript in one root."""

    conversation_id: str
    path: Path
    layout: str
    rank: tuple[int, int]
    """Smaller wins among copies: the layout's place in :data:`LAYOUTS`, then the root's."""


def brain_folders(root: Path) -> list[Path]:
    """The conversation folders of a root's ``brain/`` (not links), by name."""
    brain = root / BRAIN
    try:
        entries = sorted(brain.iterdir())
    except FileNotFoundError:
        return []
    except OSError as exc:
        unlistable(brain, exc)
        return []
    return [path for path in entries if is_dir(path) and not path.is_symlink()]


def found_in(root: Path, root_rank: int) -> Iterator[Found]:
    """The transcript of each conversation of a root that has one."""
    for folder in brain_folders(root):
        logs = folder.joinpath(*LOGS)
        for rank, (layout, name) in enumerate(LAYOUTS.items()):
            if is_file(logs / name):
                yield Found(folder.name, logs / name, layout, (rank, root_rank))
                break


def meta_of(source: str, found: Found) -> ConversationMeta | None:
    """The meta of one transcript; ``None`` when it is gone since its folder was listed."""
    try:
        info = found.path.stat()
    except OSError:
        return None
    return file_meta(
        source, found.conversation_id, found.path, info, locator={"layout": found.layout}
    )


def root_of(transcript: Path) -> Path | None:
    """The root a transcript at ``brain/<id>/.system_generated/logs/`` is in; else ``None``."""
    parents = transcript.parents  # logs, .system_generated, <id>, brain, the root, ...
    laid_out = (
        len(parents) > len(LOGS) + 2
        and (parents[1].name, parents[0].name) == LOGS
        and parents[3].name == BRAIN
    )
    return parents[4] if laid_out else None


def workspace_of(root: Path, conversation_id: str) -> str | None:
    """The workspace ``history.jsonl`` names for the conversation (its first), if any.

    Only interactive ``agy`` sessions write it, and only from their second prompt on.
    """
    path = root / HISTORY
    if not is_file(path):
        return None
    try:
        for line in iter_lines(path):
            value = line.value if isinstance(line, Line) else None
            if dig(value, "conversationId") == conversation_id:
                workspace = as_nonempty_text(dig(value, "workspace"))
                if workspace is not None:
                    return workspace
    except SourceUnavailableError:
        return None
    return None
