"""Write conversations to a folder so that each one is there exactly once, whatever happens.

Every file is written beside its final name and renamed over it (an atomic replace), so a reader,
or a run interrupted at any instant (Ctrl-C, ``kill``, a crash, a power cut after the rename),
sees either the old file or the new one, never part of one:

- ``json`` and ``markdown`` write one file per conversation, named after its source and id, so a
  conversation written again replaces its own file.
- ``jsonl`` keeps every conversation on one line of ``conversations.jsonl``. A run writes the new
  and changed conversations to a scratch file, then builds the next ``conversations.jsonl``
  from the current one (a changed conversation's line replaced, the others copied) and renames
  it into place; when nothing of the current one is kept (a first export), the scratch file is
  renamed into place itself. Ctrl-C or ``kill`` (SIGTERM) stops the parsing and still builds it
  from what was parsed; anything harder leaves the current file as it was.

The state file (``--state``) remembers, per conversation, the ``fingerprint`` and
``parser_version`` it was exported with, and for ``jsonl`` where its line is and the size and
modification time of the ``conversations.jsonl`` it describes. It is written after the output,
also by replacing it, so it never claims more than the output holds: a state that lags behind,
describes another folder, or describes a ``conversations.jsonl`` that has since changed or gone
costs work, never correctness. For ``jsonl`` the output itself is the record of what is in it:
without a state that matches, the lines of ``conversations.jsonl`` are read to find which
conversations it holds and as what (duplicates and torn lines left by other writers are dropped
on the next rewrite).

What a file holds for one conversation is made by :func:`render` (redacted first when asked),
apart from the writing, so that ``export --workers`` renders in the worker processes and sends
back only the bytes to write.

One export at a time may write to a folder.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import re
import secrets
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Final, Literal, Protocol

from attrs import define, field, frozen

from chatparse import _markdown
from chatparse.decoders.jsonl import Line, iter_lines
from chatparse.model import ConversationMeta, ParsedConversation
from chatparse.serialize import json_bytes

if TYPE_CHECKING:
    from chatparse.redaction import Redactor

__all__ = [
    "FORMATS",
    "JSONL_FILE",
    "Export",
    "RedactionFailedError",
    "Rendered",
    "StateFileError",
    "exporting",
    "file_name",
    "loaded_redactor",
    "open_export",
    "render",
]

Format = Literal["jsonl", "json", "markdown", "atif", "openai"]
FORMATS: Final[tuple[Format, ...]] = ("jsonl", "json", "markdown", "atif", "openai")
JSONL_FILE: Final = "conversations.jsonl"
STATE_VERSION: Final = 2
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
_TEMPORARY_SUFFIX: Final = ".chatparse-tmp"
_COPY_CHUNK: Final = 1024 * 1024
# A line of conversations.jsonl holds one whole conversation, however large; the reader's usual
# cap on a line is for files other programs write.
_ANY_LINE_LENGTH: Final = sys.maxsize

Key = tuple[str, str]
"""A conversation's (source, id)."""


def file_name(source: str, conversation_id: str, suffix: str) -> str:
    """A file name for one conversation, safe on every platform and unique per source and id.

    The readable part is the id with anything unusual replaced; the hash of the real source and
    id keeps ids that differ only in replaced characters or in case (on case-insensitive file
    systems) apart.
    """
    readable = _UNSAFE.sub("_", conversation_id).strip("._")[:80] or "conversation"
    digest = hashlib.sha256(f"{source}\0{conversation_id}".encode()).hexdigest()[:10]
    return f"{readable}-{digest}{suffix}"


class StateFileError(ValueError):
    """The state file cannot be used; the message names it and says how to start over."""

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(
            f"{path}: {reason}. To start over, delete it: the next export then writes again "
            "whatever the output folder lacks or holds in an older form"
        )


@frozen
class Entry:
    """What the export holds for one conversation."""

    fingerprint: str
    parser_version: str
    offset: int = 0
    """``jsonl``: where the conversation's line starts in ``conversations.jsonl``."""
    length: int = 0
    """``jsonl``: the line's length in bytes, newline included."""
    file: str = ""
    """``json``, ``markdown``: the conversation's file, relative to the output folder."""

    def matches(self, meta: ConversationMeta, parser_version: str) -> bool:
        """Whether this is the conversation as it is now, read by this parser."""
        return (self.fingerprint, self.parser_version) == (meta.fingerprint, parser_version)


def _key(meta: ConversationMeta | ParsedConversation) -> Key:
    return (meta.source, meta.id)


@frozen
class Rendered:
    """One conversation as its export format writes it."""

    source: str
    id: str
    body: bytes
    """The file's bytes; for ``jsonl``, the conversation's line, newline included."""


class RedactionFailedError(Exception):
    """Redaction was asked for and failed: the export must stop rather than go on without it."""


def render(fmt: Format, redactor: str | None, conversation: ParsedConversation) -> Rendered:
    """``conversation`` as ``fmt`` writes it, redacted by the named redactor first if one is given.

    A module-level function of plain arguments, so that a :func:`functools.partial` of it pickles
    and runs in a worker process.

    Raises:
        RedactionFailedError: the redactor could not be loaded here, or raised.
    """
    if redactor is not None:
        from chatparse.redaction import redact  # noqa: PLC0415 -- --redact only

        try:
            conversation = redact(conversation, loaded_redactor(redactor))
        except Exception as exc:
            what = f"{conversation.source} conversation {conversation.id}"
            msg = f"redacting {what} failed ({type(exc).__name__}: {exc})"
            raise RedactionFailedError(msg) from exc
    return Rendered(conversation.source, conversation.id, _BODIES[fmt](conversation))


@functools.lru_cache(maxsize=8)
def loaded_redactor(name: str) -> Redactor:
    """One redactor per name and process, kept: building one (compiling its rules) is not free."""
    from chatparse.redaction import get_redactor  # noqa: PLC0415 -- --redact only

    return get_redactor(name)


class Export(Protocol):
    """An export in progress: what is already there, and a way to add to it."""

    def unchanged(self, meta: ConversationMeta, parser_version: str) -> bool:
        """Whether the output holds this conversation as it is now."""
        ...

    def add(self, meta: ConversationMeta, rendered: Rendered, version: str) -> None:
        """Put one rendered conversation into the export (``jsonl``: once :meth:`commit` runs)."""
        ...

    def commit(self) -> None:
        """Make everything added part of the output, and save the state."""
        ...

    def discard(self) -> None:
        """Drop what was added and not yet committed; the output stays as it was."""
        ...


# --- writing files -------------------------------------------------------------------------


def _temporary(target: Path) -> Path:
    # Dot-first and with a suffix of its own, so that no reader globbing *.md or *.jsonl sees it.
    return target.with_name(f".{target.name}.{secrets.token_hex(4)}{_TEMPORARY_SUFFIX}")


def _sync_folder(folder: Path) -> None:
    """Make a rename in ``folder`` survive a power cut (POSIX; Windows has no such call)."""
    if sys.platform == "win32":
        return
    descriptor = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def _replace(target: Path, write: Callable[[IO[bytes]], object]) -> None:
    """Write ``target`` through ``write`` into a temporary file, then rename it into place."""
    target.parent.mkdir(parents=True, exist_ok=True)
    temporary = _temporary(target)
    try:
        with temporary.open("xb") as out:
            write(out)
            out.flush()
            os.fsync(out.fileno())
        temporary.replace(target)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    _sync_folder(target.parent)


def _remove_leftovers(folder: Path) -> None:
    """Delete temporary files that a killed run left behind (they never hold finished work)."""
    if folder.is_dir():
        for leftover in folder.glob(f".*{_TEMPORARY_SUFFIX}"):
            leftover.unlink(missing_ok=True)


def _copy_span(source: IO[bytes], out: IO[bytes], offset: int, length: int) -> None:
    """Copy one line, and end it with a newline if it was the file's unterminated last line."""
    source.seek(offset)
    last = b"\n"
    while length > 0:
        chunk = source.read(min(length, _COPY_CHUNK))
        if not chunk:
            break
        out.write(chunk)
        length -= len(chunk)
        last = chunk[-1:]
    if last != b"\n":
        out.write(b"\n")


# --- the state file ------------------------------------------------------------------------


@define
class _State:
    """The state file's content: which export it describes, and what that export holds."""

    path: Path
    out: str
    format: Format
    output: dict[str, int] | None = None
    """``jsonl``: the size and mtime (ns) of the ``conversations.jsonl`` the entries describe."""
    entries: dict[Key, Entry] = field(factory=dict)
    saved: bool = False
    """Read from the file, which describes this very export."""

    @classmethod
    def load(cls, path: Path) -> _State | None:
        """The state in ``path``; ``None`` when there is no such file."""
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise StateFileError(path, f"cannot be read ({exc.strerror or exc})") from exc
        except UnicodeDecodeError as exc:
            raise StateFileError(path, "is not a chatparse export state file") from exc
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            reason = f"is not a chatparse export state file (not JSON: {exc})"
            raise StateFileError(path, reason) from exc
        return cls._from_data(path, data)

    @classmethod
    def _from_data(cls, path: Path, data: Any) -> _State:
        if not isinstance(data, dict) or "state_version" not in data:
            raise StateFileError(path, "is not a chatparse export state file")
        if data["state_version"] != STATE_VERSION:
            version = data["state_version"]
            reason = f"was written by another chatparse version (state_version {version!r})"
            raise StateFileError(path, reason)
        try:
            entries = {
                (str(row["source"]), str(row["id"])): Entry(
                    fingerprint=str(row["fingerprint"]),
                    parser_version=str(row["parser_version"]),
                    offset=int(row.get("offset", 0)),
                    length=int(row.get("length", 0)),
                    file=str(row.get("file", "")),
                )
                for row in data["conversations"]
            }
            return cls(
                path,
                out=str(data["out"]),
                format=data["format"],
                output=data["output"],
                entries=entries,
            )
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            reason = f"is damaged ({type(exc).__name__}: {exc})"
            raise StateFileError(path, reason) from exc

    def describes(self, out: Path, fmt: Format) -> bool:
        """Whether this state is about an export of this format to this folder."""
        return (self.out, self.format) == (str(out), fmt)

    def save(self) -> None:
        """Replace the state file."""
        rows = [
            {"source": source, "id": conversation_id, **_entry_fields(entry, self.format)}
            for (source, conversation_id), entry in sorted(self.entries.items())
        ]
        data = {
            "state_version": STATE_VERSION,
            "format": self.format,
            "out": self.out,
            "output": self.output,
            "conversations": rows,
        }
        body = (json.dumps(data, ensure_ascii=False, indent=1) + "\n").encode()
        _replace(self.path, lambda out: out.write(body))


def _entry_fields(entry: Entry, fmt: Format) -> dict[str, object]:
    place: dict[str, object] = (
        {"offset": entry.offset, "length": entry.length} if fmt == "jsonl" else {"file": entry.file}
    )
    return {"fingerprint": entry.fingerprint, "parser_version": entry.parser_version, **place}


def _fresh_state(path: Path | None, out: Path, fmt: Format) -> _State | None:
    """The state to use for this export: the saved one when it describes it, else an empty one."""
    if path is None:
        return None
    saved = _State.load(path)
    if saved is not None and saved.describes(out, fmt):
        saved.saved = True
        return saved
    return _State(path, out=str(out), format=fmt)


# --- json and markdown: one file per conversation ------------------------------------------


@define
class _FileExport:
    """``json`` or ``markdown``: one file per conversation, replaced when it changes."""

    out: Path
    format: Format
    state: _State | None
    changed: bool = False

    def unchanged(self, meta: ConversationMeta, parser_version: str) -> bool:
        entry = self.state.entries.get(_key(meta)) if self.state else None
        return (
            entry is not None
            and entry.matches(meta, parser_version)
            and (self.out / entry.file).is_file()
        )

    def add(self, meta: ConversationMeta, rendered: Rendered, version: str) -> None:
        relative = Path(rendered.source) / file_name(
            rendered.source, rendered.id, _SUFFIXES[self.format]
        )
        _replace(self.out / relative, lambda out: out.write(rendered.body))
        if self.state is not None:
            self.state.entries[_key(meta)] = Entry(
                meta.fingerprint, version, file=relative.as_posix()
            )
            self.changed = True

    def commit(self) -> None:
        if self.state is not None and (self.changed or not self.state.saved):
            self.state.save()

    def discard(self) -> None:
        """Nothing to drop: each file was complete when it was renamed into place."""


def _atif(conversation: ParsedConversation) -> bytes:
    from chatparse.interop.atif import to_atif  # noqa: PLC0415 -- only this format pays

    return (json.dumps(to_atif(conversation), ensure_ascii=False, indent=2) + "\n").encode()


def _openai(conversation: ParsedConversation) -> bytes:
    from chatparse.interop.openai import to_openai_messages  # noqa: PLC0415 -- as above

    # The shape of one example of OpenAI's fine-tuning files.
    messages = {"messages": to_openai_messages(conversation)}
    return (json.dumps(messages, ensure_ascii=False, indent=2) + "\n").encode()


_BODIES: Final[dict[Format, Callable[[ParsedConversation], bytes]]] = {
    "jsonl": lambda conversation: json_bytes(conversation) + b"\n",
    "json": lambda conversation: json_bytes(conversation, indent=2) + b"\n",
    "markdown": lambda conversation: _markdown.render(conversation).encode(),
    "atif": _atif,
    "openai": _openai,
}
"""What each format writes for one conversation."""
_SUFFIXES: Final[dict[Format, str]] = {
    "json": ".json",
    "markdown": ".md",
    "atif": ".atif.json",
    "openai": ".openai.json",
}
"""The file name suffix of each format written one file per conversation."""


# --- jsonl: one line per conversation in one file ------------------------------------------


def _line_entry(record: Line) -> tuple[Key, Entry] | None:
    """The conversation a line of ``conversations.jsonl`` holds; ``None`` for a foreign line."""
    value = record.value
    try:
        key = (value["source"], value["id"])
        entry = Entry(
            fingerprint=value["meta"]["fingerprint"],
            parser_version=value["parser_version"],
            offset=record.offset,
            length=record.end_offset - record.offset,
        )
    except (KeyError, TypeError):
        return None
    strings = (*key, entry.fingerprint, entry.parser_version)
    return (key, entry) if all(isinstance(text, str) for text in strings) else None


def _index_lines(path: Path) -> tuple[dict[Key, Entry], bool]:
    """Which conversation each line of ``path`` holds (the last line of one wins).

    Also says whether the file holds anything else: a torn or foreign line, or a conversation
    twice (from an interrupted or older writer), which the next rewrite drops.
    """
    index: dict[Key, Entry] = {}
    lines = 0
    for record in iter_lines(path, max_line_bytes=_ANY_LINE_LENGTH):
        lines += 1
        found = _line_entry(record) if isinstance(record, Line) else None
        if found is not None:
            index[found[0]] = found[1]
    return index, lines != len(index)


def _identity(path: Path) -> dict[str, int] | None:
    try:
        stat = path.stat()
    except FileNotFoundError:
        return None
    return {"size": stat.st_size, "mtime_ns": stat.st_mtime_ns}


@define
class _LinesExport:
    """``jsonl``: one line per conversation in ``conversations.jsonl``, rebuilt on commit."""

    out: Path
    state: _State | None
    index: dict[Key, Entry]
    """What the current ``conversations.jsonl`` holds, and where."""
    untidy: bool
    """The current file holds lines that the next rewrite drops."""
    scratch: IO[bytes] | None = None
    added: dict[Key, Entry] = field(factory=dict)
    """Conversations parsed in this run, at their place in the scratch file."""

    @property
    def target(self) -> Path:
        return self.out / JSONL_FILE

    @classmethod
    def open(cls, out: Path, state: _State | None) -> _LinesExport:
        target = out / JSONL_FILE
        if state is not None and state.output is not None and state.output == _identity(target):
            return cls(out, state, dict(state.entries), untidy=False)
        index, untidy = _index_lines(target) if target.exists() else ({}, False)
        return cls(out, state, index, untidy=untidy)

    def unchanged(self, meta: ConversationMeta, parser_version: str) -> bool:
        entry = self.index.get(_key(meta))
        return entry is not None and entry.matches(meta, parser_version)

    def add(self, meta: ConversationMeta, rendered: Rendered, version: str) -> None:
        if self.scratch is None:
            self.out.mkdir(parents=True, exist_ok=True)
            self.scratch = _temporary(self.out / "scratch").open("w+b")
        line = rendered.body
        offset = self.scratch.tell()
        self.scratch.write(line)
        # Recorded only once written: a line cut short by an interruption is never used.
        self.added[_key(meta)] = Entry(meta.fingerprint, version, offset, len(line))

    def commit(self) -> None:
        try:
            if self.added or self.untidy:
                self._rewrite()
            self._save_state()
        finally:
            self.discard()

    def discard(self) -> None:
        if self.scratch is not None:
            self.scratch.close()
            Path(self.scratch.name).unlink(missing_ok=True)
            self.scratch = None

    def _rewrite(self) -> None:
        if self.scratch is not None:
            self.scratch.flush()
            if self._is_whole(self.scratch):
                self._rename_scratch(self.scratch)
                return
        written: dict[Key, Entry] = {}

        def write(out: IO[bytes]) -> None:
            old_order = sorted(self.index.items(), key=lambda item: item[1].offset)
            with contextlib.ExitStack() as stack:
                current = stack.enter_context(self.target.open("rb")) if old_order else None
                for key, entry in [*old_order, *self._only_added()]:
                    new = self.added.get(key)
                    source, place = (self.scratch, new) if new else (current, entry)
                    assert source is not None  # noqa: S101 -- entries come from these files
                    offset = out.tell()
                    _copy_span(source, out, place.offset, place.length)
                    written[key] = Entry(
                        place.fingerprint, place.parser_version, offset, out.tell() - offset
                    )

        _replace(self.target, write)
        self.index, self.added, self.untidy = written, {}, False

    def _is_whole(self, scratch: IO[bytes]) -> bool:
        """Whether the scratch file, as it is, is the next ``conversations.jsonl``.

        So it is when nothing of the current file is kept (a first export, or one whose file
        held nothing usable) and every line in the scratch file is one recorded: none cut short
        by an interruption, none written twice.
        """
        recorded = sum(entry.length for entry in self.added.values())
        return not self.index and scratch.tell() == recorded

    def _rename_scratch(self, scratch: IO[bytes]) -> None:
        """Make the scratch file ``conversations.jsonl`` by renaming it, rather than copying it."""
        os.fsync(scratch.fileno())
        scratch.close()  # Windows renames no open file
        self.scratch = None
        path = Path(scratch.name)
        try:
            path.replace(self.target)
        except BaseException:
            path.unlink(missing_ok=True)
            raise
        _sync_folder(self.out)
        # The lines are where they were written.
        self.index, self.added, self.untidy = self.added, {}, False

    def _only_added(self) -> list[tuple[Key, Entry]]:
        return [(key, entry) for key, entry in self.added.items() if key not in self.index]

    def _save_state(self) -> None:
        if self.state is None:
            return
        output = _identity(self.target)
        if (self.state.output, self.state.entries) == (output, self.index):
            return
        self.state.output = output
        self.state.entries = dict(self.index)
        self.state.save()


# --- choosing one --------------------------------------------------------------------------


def open_export(out: Path, fmt: Format, state_path: Path | None) -> Export:
    """Get ready to export to ``out`` in ``fmt``, reading what an earlier export left.

    Raises:
        StateFileError: ``state_path`` exists but cannot be used.
    """
    out = out.absolute()
    state = _fresh_state(state_path, out, fmt)
    _remove_leftovers(out)
    if fmt == "jsonl":
        return _LinesExport.open(out, state)
    for folder in out.iterdir() if out.is_dir() else ():
        _remove_leftovers(folder)
    return _FileExport(out, fmt, state)


@contextlib.contextmanager
def exporting(out: Path, fmt: Format, state_path: Path | None) -> Iterator[Export]:
    """:func:`open_export`, committed at the end of the block, and on an interruption.

    A ``KeyboardInterrupt`` (Ctrl-C, and SIGTERM as the command line maps it) keeps what was
    done; any other exception leaves the output as it was before the block.
    """
    export = open_export(out, fmt, state_path)
    try:
        yield export
    except KeyboardInterrupt:
        export.commit()
        raise
    except BaseException:
        export.discard()
        raise
    export.commit()
