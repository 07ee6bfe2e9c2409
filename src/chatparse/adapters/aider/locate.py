r"""Where Aider's files are: inside the projects, never in a home store of its own.

Aider writes ``.aider.chat.history.md`` and ``.aider.input.history`` in the git root of the
project it runs in (the working folder outside git). Nothing under the home lists those
projects, so chatparse looks where it is told, and in the home itself:

* ``$AIDER_CHAT_HISTORY_FILE`` and ``$AIDER_INPUT_HISTORY_FILE``: Aider's own variables that move
  the two files (``--chat-history-file``, ``--input-history-file``); only an absolute path (or one
  starting with ``~``) is used, since a relative one is relative to a folder we do not know;
* the folders given to :class:`~chatparse.adapters.aider.AiderAdapter`
  (``AiderAdapter(projects=[...])``), and the project folders named in chatparse's
  ``$CHATPARSE_PROJECTS`` (see :meth:`chatparse.host.Host.project_folders`);
* the home folder (Aider run in the home, or a home kept in git).

Each named folder is looked at, and each folder directly inside it, so that a folder of
projects (``~/code``) names all of them. A file found twice (a project named twice, or a
variable naming a project's own file) is read once.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Final, NamedTuple

from chatparse.adapter import folders_in, is_dir, is_file
from chatparse.host import Host

__all__ = [
    "CHAT_FILE",
    "CHAT_FILE_ENV",
    "INPUT_FILE",
    "INPUT_FILE_ENV",
    "Files",
    "found_files",
    "named_files",
    "named_folders",
]

CHAT_FILE: Final = ".aider.chat.history.md"
INPUT_FILE: Final = ".aider.input.history"
CHAT_FILE_ENV: Final = "AIDER_CHAT_HISTORY_FILE"
INPUT_FILE_ENV: Final = "AIDER_INPUT_HISTORY_FILE"


class Files(NamedTuple):
    """The Aider files of one place: its chat history and its input history, where present."""

    chat: Path | None
    inputs: Path | None


def _absolute(host: Host, text: str) -> Path | None:
    path = host.expand(text.strip())
    return path if path.is_absolute() else None


def named_folders(host: Host, projects: Iterable[str | os.PathLike[str]] = ()) -> list[Path]:
    """The folders to look in, each once: the home, ``projects``, then ``$CHATPARSE_PROJECTS``'s.

    A relative folder in ``projects`` is left out, as the host leaves out one in the variable.
    """
    given = [_absolute(host, os.fspath(p)) for p in projects]
    named = [host.home, *(path for path in given if path is not None), *host.project_folders()]
    return list(dict.fromkeys(named))


def named_files(host: Host) -> Files:
    """The files Aider's own variables name, when set to an absolute path."""
    chat, inputs = host.getenv(CHAT_FILE_ENV), host.getenv(INPUT_FILE_ENV)
    return Files(
        _absolute(host, chat) if chat else None, _absolute(host, inputs) if inputs else None
    )


def _files_of(folder: Path) -> Files | None:
    chat, inputs = folder / CHAT_FILE, folder / INPUT_FILE
    found = Files(chat if is_file(chat) else None, inputs if is_file(inputs) else None)
    return found if found.chat or found.inputs else None


def found_files(host: Host, projects: Iterable[str | os.PathLike[str]] = ()) -> Iterator[Files]:
    """Every place with Aider files, each file once: the variables' files first, then folders."""
    seen: set[Path] = set()

    def fresh(path: Path | None) -> Path | None:
        if path is None:
            return None
        key = Path(os.path.realpath(path))
        if key in seen:
            return None
        seen.add(key)
        return path

    named = named_files(host)
    chosen = Files(
        fresh(named.chat if named.chat and is_file(named.chat) else None),
        fresh(named.inputs if named.inputs and is_file(named.inputs) else None),
    )
    if chosen.chat or chosen.inputs:
        yield chosen
    for folder in named_folders(host, projects):
        if not is_dir(folder):
            continue
        for place in (folder, *folders_in(folder)):
            found = _files_of(place)
            if found is not None:
                kept = Files(fresh(found.chat), fresh(found.inputs))
                if kept.chat or kept.inputs:
                    yield kept
