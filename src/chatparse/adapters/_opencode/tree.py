"""OpenCode's JSON tree (before v1.2): one pretty-printed JSON file per record, two layouts.

``storage`` layout (``<data>/storage/``, until v1.1; left in place by the move to SQLite)::

    session/<projectID>/<sessionID>.json
    message/<sessionID>/<messageID>.json
    part/<messageID>/<partID>.json

``project`` layout (``<data>/project/<folder>/storage/session/``, before project ids; copied,
not moved, to the ``storage`` layout by OpenCode's first JSON migration, and never copied for
the ``global`` folder)::

    info/<sessionID>.json
    message/<sessionID>/<messageID>.json
    part/<sessionID>/<messageID>/<partID>.json

Ids come from the paths, not from the files' contents, as OpenCode's own importer takes them
("earlier migrations may have moved sessions without updating the JSON"). The tree's other
folders (``project/``, ``session_diff/``, ``todo/``, ``permission/``, ``session_share/``) and
OpenCode's temporary files are not read.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from operator import attrgetter
from pathlib import Path
from typing import Final

from attrs import frozen

from chatparse.adapter import (
    dig,
    digest_fingerprint,
    passed_over,
    stat_fingerprint,
    unlistable,
)
from chatparse.adapters._opencode.content import may_hold_payload
from chatparse.adapters._opencode.records import (
    JSON,
    JSON_SUFFIX,
    Record,
    SessionHead,
    decoded,
    head_from,
    millis,
)
from chatparse.errors import SourceUnavailableError, UnavailableCause

__all__ = ["PROJECT", "STORAGE", "TREE", "Layout", "Tree"]

TREE: Final = "tree"
"""The locator key naming the root of the tree a session was listed from."""


def _entries(folder: str, *, strict: bool) -> list[os.DirEntry[str]]:
    """The entries of ``folder`` by name; a missing folder has none.

    One that cannot be listed raises when ``strict`` (a parse cannot read the conversation),
    else is passed over with a warning (a scan goes on).
    """
    try:
        with os.scandir(folder) as entries:
            return sorted(entries, key=_NAME)
    except FileNotFoundError:
        return []
    except OSError as exc:
        if strict:
            raise SourceUnavailableError(
                folder,
                f"cannot be listed ({exc.strerror or exc})",
                "Check the folder's permissions.",
                UnavailableCause.of(exc),
            ) from exc
        unlistable(folder, exc)
        return []


_NAME: Final = attrgetter("name")


def join(*parts: str) -> str:
    """``os.path.join``: paths stay text here, as a tree has tens of thousands of files to read."""
    return os.path.join(*parts)  # noqa: PTH118 -- Path objects cost more than the reads


def _is(entry: os.DirEntry[str], *, folder: bool) -> bool:
    try:
        return entry.is_dir(follow_symlinks=False) if folder else entry.is_file()
    except OSError:
        return False


def _files(folder: str, *, strict: bool) -> list[os.DirEntry[str]]:
    """The ``*.json`` files in ``folder``, by name."""
    entries = _entries(folder, strict=strict)
    return [e for e in entries if e.name.endswith(JSON_SUFFIX) and _is(e, folder=False)]


def _folders(folder: str) -> list[str]:
    return [e.path for e in _entries(folder, strict=False) if _is(e, folder=True)]


@frozen
class Layout:
    """Where one layout keeps each kind of record, under its root (paths as text)."""

    name: str
    session_files: Callable[[str], list[os.DirEntry[str]]]
    session_folders: Callable[[str], list[str]]
    message_folder: Callable[[str, str], str]
    part_folder: Callable[[str, str, str], str]


STORAGE: Final = Layout(
    name="storage",
    session_files=lambda root: [
        file for folder in _folders(join(root, "session")) for file in _files(folder, strict=False)
    ],
    session_folders=lambda root: _folders(join(root, "session")),
    message_folder=lambda root, session: join(root, "message", session),
    part_folder=lambda root, _session, message: join(root, "part", message),
)
PROJECT: Final = Layout(
    name="project",
    session_files=lambda root: _files(join(root, "info"), strict=False),
    session_folders=lambda root: [join(root, "info")],
    message_folder=lambda root, session: join(root, "message", session),
    part_folder=lambda root, session, message: join(root, "part", session, message),
)


def _read(path: str) -> tuple[bytes, str | None]:
    try:
        with open(path, "rb") as stream:  # noqa: PTH123 -- one of thousands of small files: no Path
            return stream.read(), None
    except OSError as exc:
        return b"", f"cannot be read ({exc.strerror or exc})"


class Tree:
    """The sessions of one layout of the JSON tree, under ``root``.

    ``root`` is ``<data>/storage`` for the :data:`STORAGE` layout and
    ``<data>/project/<folder>/storage/session`` for the :data:`PROJECT` layout.
    """

    kind = JSON

    def __init__(self, root: Path, layout: Layout) -> None:
        self.root, self.layout = root, layout
        self._root = str(root)
        self.label = (
            "storage" if layout is STORAGE else f"project/{root.parent.parent.name}/storage/session"
        )

    @classmethod
    def at(cls, root: str | os.PathLike[str]) -> Tree:
        """The tree rooted at ``root``, its layout told by the root's name."""
        path = Path(root)
        return cls(path, STORAGE if path.name == "storage" else PROJECT)

    def locator(self) -> dict[str, str]:
        """The tree's root: a session's path is its session file."""
        return {TREE: self._root}

    def _where(self, path: str) -> str:
        relative = os.path.relpath(path, self._root).replace(os.sep, "/")
        return f"{self.label}/{relative}"

    def _head(self, path: str) -> SessionHead:
        """The session of a session file.

        Raises:
            OSError: The file cannot be read: the session's own container.
        """
        with open(path, "rb") as stream:  # noqa: PTH123 -- a path as text
            raw = stream.read()
            stat = os.fstat(stream.fileno())
        info, problem = decoded(raw)
        file = (path, self._where(path), stat)
        name = os.path.basename(path)  # noqa: PTH119 -- a path as text
        return head_from(name[: -len(JSON_SUFFIX)], info or {}, file=file, problem=problem)

    def sessions(self) -> list[SessionHead]:
        """Every session file's session; one that cannot be read is passed over, with a warning."""
        heads: list[SessionHead] = []
        for entry in self.layout.session_files(self._root):
            try:
                heads.append(self._head(entry.path))
            except OSError as exc:
                passed_over(entry.path, f"cannot be read ({exc.strerror or exc})")
        return heads

    def session(self, session_id: str) -> SessionHead | None:
        """The session whose file is named ``session_id``, or ``None``.

        Raises:
            SourceUnavailableError: The session file is there but cannot be read.
        """
        for folder in self.layout.session_folders(self._root):
            path = join(folder, f"{session_id}{JSON_SUFFIX}")
            if not os.path.isfile(path):  # noqa: PTH113 -- a path as text
                continue
            try:
                return self._head(path)
            except OSError as exc:
                raise SourceUnavailableError(
                    path,
                    f"cannot be read ({exc.strerror or exc})",
                    "Check the file's permissions.",
                    UnavailableCause.of(exc),
                ) from exc
        return None

    def changes(self, session_id: str) -> str:
        """The names and stats of the session's message files.

        OpenCode rewrites a message's file at the end of every step (its tokens, its finish),
        so this changes whenever a step's parts are final; a part rewritten alone is not seen.
        """
        states: list[str] = []
        folder = self.layout.message_folder(self._root, session_id)
        for entry in _files(folder, strict=False):
            try:
                states += [entry.name, stat_fingerprint(entry.stat())]
            except OSError:
                states += [entry.name, "-"]
        return digest_fingerprint(*states)

    def _records(self, folder: str, owner: str, *, messages: bool) -> list[Record]:
        records: list[Record] = []
        place = self._where(folder)
        for entry in _files(folder, strict=True):
            raw, problem = _read(entry.path)
            data, problem = decoded(raw) if problem is None else (None, problem)
            created = millis(dig(data, "time", "created")) if messages else None
            records.append(
                Record(
                    id=entry.name[: -len(JSON_SUFFIX)],
                    owner=owner,
                    data=data,
                    problem=problem,
                    place=place,
                    created=created,
                    payload=may_hold_payload(raw),
                    file=entry.path,
                )
            )
        return records

    def messages(self, session_id: str) -> list[Record]:
        """The session's message files."""
        folder = self.layout.message_folder(self._root, session_id)
        return self._records(folder, session_id, messages=True)

    def parts(self, session_id: str, messages: Sequence[Record]) -> list[Record]:
        """The part files of each of the session's messages."""
        folder = self.layout.part_folder
        return [
            part
            for message in messages
            for part in self._records(
                folder(self._root, session_id, message.id), message.id, messages=False
            )
        ]

    def extras(self, _session_id: str) -> list[Record]:
        """Nothing: every record of the tree is a session, a message or a part."""
        return []

    def branch(self, _head: SessionHead) -> str | None:
        """``None``: the tree records no branch."""
        return None
