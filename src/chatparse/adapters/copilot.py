"""GitHub Copilot Chat in VS Code: the chat sessions VS Code stores, replayed as VS Code does.

Where they are, under the ``User`` directory of ``Code``, ``Code - Insiders`` and ``VSCodium``
(and ``~/.vscode-server/data/User``, ``~/.vscode-server-insiders/data/User`` on remote hosts):

* ``workspaceStorage/<workspace id>/chatSessions/<session id>.jsonl`` or ``.json``: the sessions
  of a folder window; the folder's ``workspace.json`` names the project as a URI. The older
  ``workspaceStorage/no-workspace/chatSessions/`` holds empty-window sessions without one.
* ``globalStorage/emptyWindowChatSessions/<session id>.jsonl`` or ``.json``: empty windows.
* ``{workspaceStorage/<id>,globalStorage}/GitHub.copilot-chat/transcripts/<session id>.jsonl``:
  Copilot Chat's own event stream of a session (newer releases).

The ``chat.ChatSessionStore.index`` key in ``state.vscdb`` is not read: VS Code trims it to 400
sessions without deleting their files, so the folders are the truth.

The two shapes of a chat session file:

* **``.jsonl``, a mutation log** (VS Code 1.109 on): each line is ``{"kind", "k"?, "v"?, "i"?}``.
  Kind 0 sets the whole session state, 1 sets the value at path ``k``, 2 truncates the array at
  ``k`` to ``i`` items (when ``i`` is given) and appends the items of ``v``, 3 deletes the value
  at ``k``. The session is the state after every line is replayed; reading only the first line
  loses every turn added after it (see :func:`replay_log`).
* **``.json``, a document** (before 1.109): the same session object, whole. Its ``version`` says
  how to read the title: none (v1) has no custom title, v2 keeps it in ``computedTitle``, v3 in
  ``customTitle``. When both ``<id>.json`` and ``<id>.jsonl`` exist, the ``.jsonl`` wins, as in
  VS Code, and the ``.json`` is not read.

A session holds ``requests``; each is one turn. The request's ``message`` is the user message
and its ``response`` array of parts is the assistant message: markdown parts (objects with a
``value`` and no ``kind``) are its text, ``inlineReference`` parts are written into that text as
the file or symbol name in backticks (the model wrote `` `name` ``; VS Code turned it into a
link), ``thinking`` parts are its thinking, and ``toolInvocationSerialized`` parts (with the
``prepareToolInvocation`` that announced them) are its tool calls. ``result.metadata.
toolCallRounds`` holds the arguments the model sent; they fill tool inputs the parts lack.

A **record** is one line of a log (``.jsonl``), one request and one response part of the replayed
session (both shapes), and one event of a transcript. Each is used, skipped as known noise,
malformed, or kept raw as unknown: see ``docs/sources/copilot.md``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator, Mapping
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath
from typing import Any, Final, TypeAlias, cast

from attrs import define, field

from chatparse.adapters import _build
from chatparse.adapters._fields import as_count, as_text, dig
from chatparse.adapters._ledger import Ledger
from chatparse.adapters._paths import is_dir, is_file, passed_over
from chatparse.adapters._vscode import (
    GLOBAL_DB,
    WORKSPACE_DB,
    existing_user_dirs,
    workspace_dirs,
    workspace_project_path,
)
from chatparse.decoders import bigjson, jsonl, sqlite
from chatparse.decoders import value as jsonvalue
from chatparse.decoders.text import strip_data_uri_images
from chatparse.errors import SourceUnavailableError
from chatparse.host import Host
from chatparse.model import (
    ConversationMeta,
    ImageRef,
    Message,
    MessageKind,
    ParsedConversation,
    Role,
    SourceInfo,
    ToolCall,
    UnknownRecord,
    Usage,
)

__all__ = ["CopilotAdapter"]

# --- where the files are ---------------------------------------------------------------------

PRODUCTS: Final = ("Code", "Code - Insiders", "VSCodium")
SERVER_DIRS: Final = (".vscode-server", ".vscode-server-insiders")
CHAT_SESSIONS: Final = "chatSessions"
EMPTY_WINDOW: Final = Path("globalStorage") / "emptyWindowChatSessions"
TRANSCRIPTS: Final = Path("GitHub.copilot-chat") / "transcripts"
_SESSION_SUFFIXES: Final = (".jsonl", ".json")
TRANSCRIPT_FORMAT: Final = "transcript"
"""``locator["format"]`` of a conversation read from a transcript alone."""
LEGACY_KEY: Final = "interactive.sessions"
"""The ``ItemTable`` key of the sessions saved before file storage: an array, newest first."""
LEGACY_FORMAT: Final = "interactive.sessions"
"""``locator["format"]`` of a conversation read from :data:`LEGACY_KEY`."""

# --- what the records say --------------------------------------------------------------------

# Log entry kinds (VS Code's objectMutationLog).
INITIAL, SET, PUSH, DELETE = 0, 1, 2, 3

# ``modelState.value``: 0 pending, 1 complete, 2 cancelled, 3 failed, 4 needs input.
_CANCELLED, _FAILED = 2, 3

# Response parts whose text is shown as a paragraph of its own in the answer.
NOTICE_PARTS: Final = frozenset(
    {
        "progressMessage",
        "progressTaskSerialized",
        "warning",
        "info",
        "systemNotification",
        "confirmation",
        "elicitationSerialized",
        "command",
    }
)
# Response parts that are edits or UI bookkeeping: nothing to read.
SKIPPED_PARTS: Final = frozenset(
    {
        "textEditGroup",
        "notebookEditGroup",
        "codeblockUri",
        "undoStop",
        "multiDiffData",
        "workspaceEdit",
        "externalEdit",
        "mcpServersStarting",
        "clearToPreviousToolInvocation",
        "extensions",
        "pullRequest",
        "questionCarousel",
        "planReview",
        "hook",
        "autoModeResolution",
        "disabledClaudeHooks",
        "treeData",
    }
)
# Response parts that continue the running text (markdown has no kind).
_RUNNING_TEXT: Final = frozenset({None, "markdownContent", "markdownVuln", "inlineReference"})
# Transcript events that mark turn boundaries only.
SKIPPED_EVENTS: Final = frozenset({"assistant.turn_start", "assistant.turn_end"})

# VS Code's own tools that run inside another tool's edit; the model never called them, so they
# have no entry in ``toolCallRounds``.
_INTERNAL_TOOL_SUFFIX: Final = "_internal"
# Copilot suffixes the model's call id with ``__vscode-<n>`` in toolCallRounds.
_ROUND_ID_SEPARATOR: Final = "__vscode-"

_TITLE_LENGTH: Final = 200


# --- the adapter -----------------------------------------------------------------------------


class CopilotAdapter:
    """Reads GitHub Copilot Chat sessions from VS Code, Insiders, VSCodium and remote servers.

    .. versionadded:: 0.1
    """

    name = "copilot"
    display_name = "GitHub Copilot Chat"
    parser_version = "1"
    scan_reads_content: Final = ("*/workspace.json", "*/state.vscdb")
    """``scan`` reads each workspace folder's ``workspace.json`` (for the project path) and looks
    up one key in each ``state.vscdb`` (for sessions saved before file storage); the session
    files themselves are listed by name and stat only."""

    def detect(self, host: Host) -> SourceInfo | None:
        """Find the ``User`` directories that hold a chat session folder or legacy sessions.

        The databases are only opened for a ``User`` directory without any session folder.
        """
        roots = tuple(
            str(user)
            for user in existing_user_dirs(host, PRODUCTS, server_dirs=SERVER_DIRS)
            if any(_session_folders(user)) or any(_has_legacy(db) for db, _ in _databases(user))
        )
        if not roots:
            return None
        return SourceInfo(source=self.name, display_name=self.display_name, roots=roots)

    def explain(self, host: Host) -> Iterator[str]:
        """Where the adapter looks on ``host``, for ``chatparse doctor``."""
        found = existing_user_dirs(host, PRODUCTS, server_dirs=SERVER_DIRS)
        candidates = [host.vscode_user_dir(product) for product in PRODUCTS]
        candidates += [host.home / name / "data" / "User" for name in SERVER_DIRS]
        for user in candidates:
            if user not in found:
                yield f"{user}: missing"
                continue
            folders = list(_session_folders(user))
            files = sum(
                len(list(folder.sessions.glob("*.json*"))) if folder.sessions.is_dir() else 0
                for folder, _workspace in folders
            )
            legacy = sum(1 for db, _workspace in _databases(user) if _has_legacy(db))
            yield (
                f"{user}: {len(folders)} session folder(s) with {files} session file(s); "
                f"{legacy} database(s) with sessions saved before file storage"
            )

    def scan(self, source: SourceInfo) -> Iterator[ConversationMeta]:
        """List every session once, by stat: a ``.jsonl`` over a ``.json``, a transcript merged.

        A session id found under two roots (Code and Insiders, say) is listed once: the most
        recently modified copy wins.
        """
        chosen: dict[str, ConversationMeta] = {}
        for root in map(Path, source.roots):
            for meta in self._metas(root):
                known = chosen.get(meta.id)
                if known is None or _newer(meta, known):
                    chosen[meta.id] = meta
        legacy: dict[str, ConversationMeta] = {}
        for root in map(Path, source.roots):
            for meta in self._legacy_metas(root):
                if meta.id not in chosen:  # migrated to a file, which VS Code reads instead
                    legacy.setdefault(meta.id, meta)
        chosen |= legacy
        for session_id in sorted(chosen):
            yield chosen[session_id]

    def _legacy_metas(self, user_dir: Path) -> Iterator[ConversationMeta]:
        """One meta per session of each ``interactive.sessions`` array under ``user_dir``."""
        for db, workspace in _databases(user_dir):
            project = workspace_project_path(workspace) if workspace is not None else None
            try:
                sessions = list(_legacy_sessions(db))
            except SourceUnavailableError as exc:
                passed_over(db, exc.reason)
                continue
            for index, session in sessions:
                meta = _file_meta(self.name, _legacy_id(db, index, session), db, project)
                if meta is None:
                    continue
                digest = hashlib.sha256(jsonvalue.encode(session).encode("utf-8", "replace"))
                yield _build.conversation_meta(
                    source=meta.source,
                    id=meta.id,
                    path=meta.path,
                    fingerprint=digest.hexdigest()[:32],
                    size=meta.size,
                    mtime=meta.mtime,
                    project_path=project,
                    locator={"format": LEGACY_FORMAT, "index": str(index)},
                )

    def _metas(self, user_dir: Path) -> Iterator[ConversationMeta]:
        for folder, workspace in _session_folders(user_dir):
            project = workspace_project_path(workspace) if workspace is not None else None
            yield from self._folder_metas(folder, project)

    def _folder_metas(self, folder: _Folder, project: str | None) -> Iterator[ConversationMeta]:
        sessions = _files_by_id(folder.sessions, _SESSION_SUFFIXES)
        transcripts = _files_by_id(folder.transcripts, (".jsonl",))
        for session_id in sorted(sessions.keys() | transcripts.keys()):
            copies = sessions.get(session_id, {})
            transcript = transcripts.get(session_id, {}).get(".jsonl")
            main = copies.get(".jsonl") or copies.get(".json") or transcript
            if main is None:
                continue
            meta = _file_meta(self.name, session_id, main, project)
            if meta is None:
                continue
            extra: dict[str, str] = {}
            if main == transcript:
                extra["format"] = TRANSCRIPT_FORMAT
            if main.suffix == ".jsonl" and ".json" in copies:
                extra["superseded_json"] = str(copies[".json"])
            if transcript is not None and transcript != main:
                extra["transcript"] = str(transcript)
            yield _with_extra(meta, extra)

    def sniff(self, path: Path) -> float:
        """How sure we are that ``path`` is a Copilot chat session or transcript."""
        if not path.is_file() or path.suffix not in _SESSION_SUFFIXES:
            return 0.0
        parent = path.parent.name
        head = _head(path)
        if path.suffix == ".jsonl" and head.startswith((b'{"kind":0', b'{"kind": 0')):
            return 0.95 if parent in (CHAT_SESSIONS, EMPTY_WINDOW.name) else 0.8
        if path.suffix == ".jsonl" and b'"session.start"' in head:
            # Copilot CLI's events.jsonl streams share the event shape: not ours, unless named so.
            return 0.95 if parent == TRANSCRIPTS.name else 0.5
        if path.suffix == ".json" and b'"requests"' in head:
            return 0.9 if parent in (CHAT_SESSIONS, EMPTY_WINDOW.name) else 0.5
        return 0.3 if parent in (CHAT_SESSIONS, EMPTY_WINDOW.name) else 0.0

    def scan_path(self, path: Path) -> Iterator[ConversationMeta]:
        """The one session in a session or transcript file, with its project when it has one."""
        workspace = path.parent.parent
        if path.parent.name == TRANSCRIPTS.name:
            workspace = path.parent.parent.parent
        project = workspace_project_path(workspace)
        meta = _file_meta(self.name, path.stem, path, project)
        if meta is None:
            return
        in_transcripts = path.parent.name == TRANSCRIPTS.name
        if path.suffix == ".jsonl" and (in_transcripts or b'"session.start"' in _head(path)):
            yield _with_extra(meta, {"format": TRANSCRIPT_FORMAT})
            return
        transcript = workspace / TRANSCRIPTS / f"{path.stem}.jsonl"
        yield _with_extra(meta, {"transcript": str(transcript)} if transcript.is_file() else {})

    def parse(self, meta: ConversationMeta) -> ParsedConversation:
        """Parse one session: replay or read its file, and merge its transcript when it has one."""
        path = Path(meta.path)
        if not path.is_file():
            raise SourceUnavailableError(
                meta.path, "no such file", "Scan again: the session was moved or deleted."
            )
        ledger = Ledger()
        if meta.locator.get("format") == TRANSCRIPT_FORMAT:
            return read_transcript(path, ledger).conversation(meta, self, ledger)
        if meta.locator.get("format") == LEGACY_FORMAT:
            session = _Session(meta.id, ledger)
            session.read(_legacy_session(path, meta))
            return session.conversation(meta, self)
        state = replay_log(path, ledger) if path.suffix == ".jsonl" else read_document(path, ledger)
        session = _Session(meta.id, ledger)
        if state is not None:
            session.read(state)
        transcript_path = meta.locator.get("transcript")
        if transcript_path and Path(transcript_path).is_file():
            session.merge(read_transcript(Path(transcript_path), Ledger()))
        return session.conversation(meta, self)


# --- finding the files -------------------------------------------------------------------------


@define
class _Folder:
    """One place sessions live: a chat session folder and its transcript folder."""

    sessions: Path
    transcripts: Path


def _session_folders(user_dir: Path) -> Iterator[tuple[_Folder, Path | None]]:
    """Each existing session folder under ``user_dir``, with its workspace folder if it has one."""
    for workspace in workspace_dirs(user_dir):
        folder = _Folder(workspace / CHAT_SESSIONS, workspace / TRANSCRIPTS)
        if is_dir(folder.sessions) or is_dir(folder.transcripts):
            yield folder, workspace
    folder = _Folder(user_dir / EMPTY_WINDOW, user_dir / "globalStorage" / TRANSCRIPTS)
    if is_dir(folder.sessions) or is_dir(folder.transcripts):
        yield folder, None


def _databases(user_dir: Path) -> Iterator[tuple[Path, Path | None]]:
    """Each ``state.vscdb`` under ``user_dir``, with its workspace folder (``None``: global)."""
    for workspace in workspace_dirs(user_dir):
        if is_file(workspace / WORKSPACE_DB):
            yield workspace / WORKSPACE_DB, workspace
    if is_file(user_dir / GLOBAL_DB):
        yield user_dir / GLOBAL_DB, None


def _legacy_value(db: Path) -> str | None:
    """The ``interactive.sessions`` value of a database, or ``None`` (no table, no key).

    Raises:
        SourceUnavailableError: Not a database, or locked past the retries.
    """
    with sqlite.open_snapshot(db) as snapshot:
        if "ItemTable" not in snapshot.tables():
            return None
        row = snapshot.get("ItemTable", LEGACY_KEY)
    value = row.values[0] if row is not None else None
    return value if isinstance(value, str) else None


def _has_legacy(db: Path) -> bool:
    """For ``detect`` and ``doctor``: an unreadable database has none (``scan`` says why)."""
    try:
        return _legacy_value(db) is not None
    except SourceUnavailableError:
        return False


def _legacy_sessions(db: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """The sessions of a database's ``interactive.sessions`` array, with their positions."""
    value = _legacy_value(db)
    if value is None:
        return
    sessions = jsonvalue.decode(value)
    if not isinstance(sessions, list):
        return
    for index, session in enumerate(sessions):
        if isinstance(session, dict):
            yield index, session


def _legacy_id(db: Path, index: int, session: Mapping[str, Any]) -> str:
    """The session's ``sessionId``, else one made from its database folder and position."""
    return as_text(session.get("sessionId")) or f"{db.parent.name}-interactive-{index}"


def _legacy_session(db: Path, meta: ConversationMeta) -> dict[str, Any]:
    """The session ``meta`` names in the ``interactive.sessions`` array of ``db``."""
    wanted = meta.locator.get("index")
    found = [(i, s) for i, s in _legacy_sessions(db) if _legacy_id(db, i, s) == meta.id]
    for index, session in found:
        if str(index) == wanted or len(found) == 1:
            return session
    raise SourceUnavailableError(
        str(db), f"no session {meta.id} under {LEGACY_KEY}", "Scan again: it was migrated."
    )


def _files_by_id(folder: Path, suffixes: tuple[str, ...]) -> dict[str, dict[str, Path]]:
    found: dict[str, dict[str, Path]] = {}
    if not folder.is_dir():
        return found
    for child in sorted(folder.iterdir()):
        if child.suffix in suffixes and child.is_file():
            found.setdefault(child.stem, {})[child.suffix] = child
    return found


def _file_meta(
    source: str, session_id: str, path: Path, project: str | None
) -> ConversationMeta | None:
    try:
        info = path.stat()
    except OSError:
        return None  # deleted between listing and stat
    return _build.conversation_meta(
        source=source,
        id=session_id,
        path=str(path),
        fingerprint=f"{info.st_size}:{info.st_mtime_ns}",
        size=info.st_size,
        mtime=datetime.fromtimestamp(info.st_mtime, UTC),
        project_path=project,
    )


def _with_extra(meta: ConversationMeta, extra: Mapping[str, str]) -> ConversationMeta:
    """``meta`` with the other files of the session in its locator and in its fingerprint."""
    if not extra:
        return meta
    stamps = [meta.fingerprint]
    transcript = extra.get("transcript")
    if transcript is not None:
        try:
            info = Path(transcript).stat()
        except OSError:
            extra = {k: v for k, v in extra.items() if k != "transcript"}
        else:
            stamps.append(f"{info.st_size}:{info.st_mtime_ns}")
    return _build.conversation_meta(
        source=meta.source,
        id=meta.id,
        path=meta.path,
        fingerprint="+".join(stamps),
        size=meta.size,
        mtime=meta.mtime,
        project_path=meta.project_path,
        locator=extra,
    )


def _newer(meta: ConversationMeta, than: ConversationMeta) -> bool:
    mine = meta.mtime.timestamp() if meta.mtime is not None else 0.0
    theirs = than.mtime.timestamp() if than.mtime is not None else 0.0
    return (mine, meta.path) > (theirs, than.path)


def _head(path: Path, size: int = 4096) -> bytes:
    try:
        with path.open("rb") as stream:
            return stream.read(size).removeprefix(b"\xef\xbb\xbf").lstrip()
    except OSError:
        return b""


# --- accounting ------------------------------------------------------------------------------


# --- the mutation log --------------------------------------------------------------------------

_MISSING: Final = object()
_NO_OP: Final = "empty path, ignored as VS Code ignores it"
_BAD_PATH: Final = "path is not a list of keys and indices"
_NO_PARENT: Final = "the path's parent does not exist"
_LONGEST_GAP: Final = 10_000
"""The most holes a Set past an array's end may open. JavaScript's arrays are sparse, so the
editor pays nothing for them; a list holds one ``None`` each, and a damaged index such as
3,000,000,000 would ask for gigabytes. Real logs set at most one past the end."""


def replay_log(path: Path, ledger: Ledger) -> dict[str, Any] | None:
    """Replay a ``.jsonl`` session log line by line, as VS Code does; return the final state.

    Each line is one record. Where VS Code would refuse the whole file we keep what came before:

    * A line that is not valid JSON, not an object, or torn off mid-write stops the replay there
      (``malformed``); the lines after it are counted, not applied. The state so far is kept.
    * An entry before any kind-0 entry, or whose path's parent does not exist, is skipped with a
      warning; the replay goes on.
    * An entry of an unknown kind is kept raw as unknown; the replay goes on.

    Memory is the session state plus one line: a log of any length that rewrites one response
    many times costs no more than the response.
    """
    state: dict[str, Any] | None = None
    applied = 0  # counted in bulk: this loop runs once per line of logs of any length
    unknown_spans: list[tuple[str, str | None, int, int]] = []
    line_type = jsonl.Line  # looked up once: this loop runs once per line
    records = jsonl.iter_lines(path)
    for record in records:
        entry = record.value if type(record) is line_type else None
        if type(entry) is not dict:
            reason = record.reason if isinstance(record, jsonl.Malformed) else "not an object"
            ledger.bad()
            ledger.warnings.append(
                f"line {record.line_no}: {reason}; the log was replayed up to the line before"
            )
            for _after in records:  # counted, not applied
                ledger.skip("log entry after a malformed line")
            break
        kind = entry.get("kind")
        if state is None or type(kind) is not int or kind not in _EDITS:
            state = _replay_start(
                state, _kind(kind), cast("jsonl.Line", record), ledger, unknown_spans
            )
            continue
        problem = _apply(state, kind, entry)
        if problem is None:
            applied += 1
        elif problem is _NO_OP:
            ledger.skip(f"log entry: {problem}")
        else:
            ledger.skip(f"log entry: {problem}")
            ledger.warnings.append(f"line {record.line_no}: {problem}; entry skipped")
    ledger.seen += applied
    ledger.used += applied
    for (where, kind_name, _start, _end), raw in zip(
        unknown_spans,
        jsonl.read_spans(path, [(start, end) for *_, start, end in unknown_spans]),
        strict=True,
    ):
        ledger.keep(where, kind_name, raw)
    return state


def _replay_start(
    state: dict[str, Any] | None,
    kind: int | None,
    record: jsonl.Line,
    ledger: Ledger,
    unknown: list[tuple[str, str | None, int, int]],
) -> dict[str, Any] | None:
    """An entry that is not an edit of an existing state: an Initial, an early or unknown one."""
    where = f"line {record.line_no}"
    if kind == INITIAL:
        if isinstance(record.value.get("v"), dict):
            ledger.use()
            return dict(record.value["v"])
        unknown.append((where, "kind 0 without an object", *_span(record)))
    elif kind not in (SET, PUSH, DELETE):
        unknown.append((where, f"kind {record.value.get('kind')}", *_span(record)))
    else:
        ledger.skip("log entry before the initial state")
        ledger.warnings.append(f"{where}: a kind {kind} entry before any kind 0; skipped")
    return state


def _kind(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _span(record: jsonl.Line) -> tuple[int, int]:
    return record.offset, record.end_offset


def _part_where(at: tuple[int, int]) -> str:
    """Where a response part is, from its request's and its own index."""
    return f"requests[{at[0]}].response[{at[1]}]"


def _unique_id(taken: set[str], wanted: str) -> str:
    """``wanted``, or ``wanted#2``, ``#3``… when taken: message ids must be unique; remember it."""
    ident, n = wanted, 1
    while ident in taken:
        n += 1
        ident = f"{wanted}#{n}"
    taken.add(ident)
    return ident


def _apply(state: dict[str, Any], kind: int, entry: dict[str, Any]) -> str | None:
    """Apply one Set, Push or Delete entry to ``state`` in place; say why not, if it cannot.

    Keys are object keys (strings) and array indices (integers); the walk to the parent of the
    last key never creates anything, as VS Code's does not.
    """
    keys = entry.get("k")
    if type(keys) is not list:
        return _BAD_PATH
    if not keys:
        # VS Code ignores a Set or Delete of the root; a Push needs an array to push to.
        return _NO_OP if kind != PUSH else "push without a path"
    parent: Any = state
    for key in keys[:-1]:
        # Python's own indexing takes the steps of almost every path, an object's key
        # (``requests``) and an array's index (``0``), at the least cost per line; ``_child``
        # decides whatever it refuses or would read differently from JavaScript (a number as
        # an object's key, ``-1``, ``true``). Indexing a string only leads to a string, which
        # is not a parent either way.
        try:
            if type(key) is str or (type(key) is int and key >= 0):
                parent = parent[key]
            else:
                parent = _child(parent, key)
        except (LookupError, TypeError):
            parent = _child(parent, key)
        if parent is _MISSING:
            return _NO_PARENT
    last = keys[-1]
    if type(parent) is not dict and type(parent) is not list:
        return _NO_PARENT
    if type(last) is not str and type(last) is not int:
        return _BAD_PATH
    return _EDITS[kind](parent, last, entry)


def _child(node: Any, key: object) -> Any:
    """``node[key]``, or ``_MISSING`` when there is no such key or index (or it is not one)."""
    kind = type(key)
    if type(node) is dict and (kind is str or kind is int):
        return node.get(key if kind is str else str(key), _MISSING)
    if type(node) is list and kind is int and 0 <= key < len(node):  # type: ignore[operator]
        return node[key]  # type: ignore[call-overload]
    return _MISSING


def _assign(parent: dict[str, Any] | list[Any], key: str | int, value: Any) -> str | None:
    if isinstance(parent, dict):
        parent[str(key)] = value
        return None
    if not isinstance(key, int) or key < 0:
        return "an array index that is not a number"
    if key < len(parent):
        parent[key] = value
    elif key - len(parent) > _LONGEST_GAP:
        return "an array index far past the array's end"
    else:  # JavaScript arrays grow on assignment; the gap holds undefined, saved as null
        parent.extend([None] * (key - len(parent)))
        parent.append(value)
    return None


def _assign_value(
    parent: dict[str, Any] | list[Any], key: str | int, entry: dict[str, Any]
) -> str | None:
    return _assign(parent, key, entry.get("v"))


def _delete(
    parent: dict[str, Any] | list[Any], key: str | int, _entry: dict[str, Any]
) -> str | None:
    if isinstance(parent, dict):
        parent.pop(str(key), None)
    elif isinstance(key, int) and 0 <= key < len(parent):
        parent[key] = None  # ``delete array[i]`` leaves a hole
    return None


def _push(parent: dict[str, Any] | list[Any], key: str | int, entry: dict[str, Any]) -> str | None:
    # An object's key (a response's ``response``) is the commonest place: looked up inline.
    items = parent.get(key) if type(key) is str and type(parent) is dict else _child(parent, key)
    fresh = items is _MISSING or items is None
    if fresh:
        items = []
    elif type(items) is not list:
        return "push onto a value that is not an array"
    values = entry.get("v")
    if values is not None and type(values) is not list:
        return "push of a value that is not an array"
    truncate = entry.get("i")
    # One slice assignment truncates to ``i`` items (when given) and appends ``v``.
    items[truncate if type(truncate) is int and truncate >= 0 else len(items) :] = values or ()
    return _assign(parent, key, items) if fresh else None


_Edit: TypeAlias = Callable[[dict[str, Any] | list[Any], str | int, dict[str, Any]], str | None]

# What each kind of edit does to the parent of its path's last key.
_EDITS: Final[dict[int, _Edit]] = {SET: _assign_value, PUSH: _push, DELETE: _delete}


# --- the JSON document ---------------------------------------------------------------------------


def read_document(path: Path, ledger: Ledger) -> dict[str, Any] | None:
    """Read a ``.json`` session document, streamed key by key; damage ends it (``malformed``)."""
    state: dict[str, Any] = {}
    for item in bigjson.iter_kvitems(path, ""):
        if isinstance(item, bigjson.Malformed):
            ledger.bad()
            ledger.warnings.append(f"document damaged near byte {item.offset}: {item.reason}")
            break
        state[str(item.key)] = item.value
    return state or None


# --- one session -------------------------------------------------------------------------------


@define
class _Call:
    """A tool call being assembled from the parts, rounds and transcript that tell of it."""

    id: str | None
    name: str
    input: Any = None
    output: str | None = None
    is_error: bool | None = None
    keys: set[str] = field(factory=set)
    announced: bool = False  # told of by a prepareToolInvocation
    invoked: bool = False  # told of by a toolInvocationSerialized

    def tool_call(self) -> ToolCall:
        output = _clean(self.output)[0] if self.output is not None else None
        return _build.tool_call(
            id=self.id, name=self.name, input=self.input, output=output, is_error=self.is_error
        )

    def fill(self, other: _Call) -> bool:
        """Take what ``other`` knows and this call lacks; return whether anything was taken."""
        took = False
        if self.input is None and other.input is not None:
            self.input, took = other.input, True
        if self.output is None and other.output is not None:
            self.output, took = other.output, True
        if self.is_error is None and other.is_error is not None:
            self.is_error, took = other.is_error, True
        self.keys |= other.keys
        return took


@define
class _Draft:
    """A message being assembled."""

    id: str
    role: Role
    kind: MessageKind = "message"
    pieces: list[str] = field(factory=list)
    thinking: list[str] = field(factory=list)
    calls: list[_Call] = field(factory=list)
    images: list[ImageRef] = field(factory=list)
    timestamp: datetime | None = None
    synthesized: bool = False
    model: str | None = None
    usage: Usage | None = None
    request_id: str | None = None
    broken: bool = False  # a part that is not text came after the last text

    def write(self, markdown: str) -> None:
        """Add a markdown chunk: it continues the text, unless a block part came between."""
        follows_text = self.pieces and not self.pieces[-1].endswith("\n")
        if self.broken and follows_text and not markdown.startswith("\n"):
            self.pieces.append("\n\n")
        self.broken = False
        self.pieces.append(markdown)

    def paragraph(self, text: str) -> None:
        """Add text that stands apart from what comes before it."""
        if text:
            if self.pieces and not self.pieces[-1].endswith("\n"):
                self.pieces.append("\n\n")
            self.pieces.append(text)

    def has_content(self) -> bool:
        return bool(self.thinking or self.calls) or any(map(str.strip, self.pieces))

    def message(self) -> Message:
        text, payloads = _clean("".join(self.pieces).strip())
        images = self.images
        if payloads:  # inline base64 images taken out of the text: measured, not kept
            images = images + [
                _build.image(media_type=p.media_type, byte_size=p.byte_size) for p in payloads
            ]
        return _build.message(
            id=self.id,
            role=self.role,
            kind=self.kind,
            text=text,
            thinking="\n\n".join(self.thinking) if self.thinking else None,
            tool_calls=[call.tool_call() for call in self.calls] if self.calls else (),
            images=images,
            timestamp=self.timestamp,
            timestamp_synthesized=self.synthesized,
            model=self.model,
            usage=self.usage,
            request_id=self.request_id,
        )


class _Session:
    """A replayed session state turned into messages: one request at a time."""

    def __init__(self, session_id: str, ledger: Ledger) -> None:
        self.id = session_id
        self.ledger = ledger
        self.drafts: list[_Draft] = []
        self.ids: set[str] = set()
        self.title: str | None = None
        self.first_prompt: str | None = None
        self.created_at: datetime | None = None
        self.updated_at: datetime | None = None
        self.producer_version: str | None = None

    def read(self, state: dict[str, Any]) -> None:
        """Read a session object (from either file shape), normalised as VS Code normalises it."""
        self.title = _custom_title(state)
        self.created_at = _ms(state.get("creationDate"))
        self.updated_at = _ms(state.get("lastMessageDate"))
        session_id = as_text(state.get("sessionId"))
        if session_id is not None:
            self.id = session_id
        requests = state.get("requests")
        if not isinstance(requests, list):
            if requests is not None:
                self.ledger.keep("requests", None, jsonvalue.encode(requests))
            return
        for index, request in enumerate(requests):
            if isinstance(request, dict):
                self.request(index, request)
            else:
                self.ledger.keep(f"requests[{index}]", None, jsonvalue.encode(request))

    def request(self, index: int, request: dict[str, Any]) -> None:
        """One turn: the user message, the answer, and a notice if it was cancelled or failed."""
        self.ledger.use()
        request_id = (
            as_text(request.get("requestId"))
            or as_text(request.get("providerRequestId"))  # sessions of early 2023
            or f"request-{index}"
        )
        user = _Draft(id=_unique_id(self.ids, request_id), role="user", request_id=request_id)
        user.timestamp = _ms(request.get("timestamp"))
        prompt = _request_text(request.get("message"))
        user.pieces.append(prompt)
        user.images += _attached_images(request.get("variableData"))
        if self.first_prompt is None and prompt.strip():
            self.first_prompt = prompt
        self.drafts.append(user)
        self._version(request)

        answer_id = as_text(request.get("responseId")) or f"{request_id}/response"
        answer = _Draft(id=answer_id, role="assistant", request_id=request_id)
        answer.model = as_text(request.get("modelId"))
        answer.timestamp, answer.synthesized = _answer_time(request, user.timestamp)
        answer.usage = _usage(request, f"copilot:{self.id}:{request_id}")
        response = request.get("response")
        parts = [response] if isinstance(response, str) else response
        if isinstance(parts, list):
            for number, part in enumerate(parts):
                self.part(answer, part, (index, number))
        elif parts is not None:
            self.ledger.keep(f"requests[{index}].response", None, jsonvalue.encode(parts))
        _fill_from_rounds(answer, dig(request, "result", "metadata"), self.ledger.warnings)
        if answer.has_content() or answer.usage is not None:
            answer.id = _unique_id(self.ids, answer.id)
            self.drafts.append(answer)
        notice = _outcome_notice(request)
        if notice is not None:
            self.drafts.append(
                _Draft(
                    id=_unique_id(self.ids, f"{request_id}/state"),
                    role="system",
                    kind="notice",
                    pieces=[notice],
                    timestamp=answer.timestamp if not answer.synthesized else None,
                    request_id=request_id,
                )
            )
        for stamp in (user.timestamp, answer.timestamp):
            if stamp is not None and (self.updated_at is None or stamp > self.updated_at):
                self.updated_at = stamp

    def _version(self, request: dict[str, Any]) -> None:
        version = as_text(dig(request, "agent", "extensionVersion"))
        if version is not None:
            self.producer_version = version

    def part(self, answer: _Draft, part: object, at: tuple[int, int]) -> None:
        """One response part: text, thinking, a tool call, a notice, noise, or unknown.

        ``at`` is the request's and the part's index; the ``where`` of an unknown part is written
        from it only when one is kept, not for every part.
        """
        if isinstance(part, str):  # very old sessions: bare markdown
            answer.write(part)
            self.ledger.use()
            return
        if part is None:  # a slot emptied by a Delete
            self.ledger.skip("response part: empty slot")
            return
        if not isinstance(part, dict):
            self.ledger.keep(_part_where(at), None, jsonvalue.encode(part))
            return
        kind = part.get("kind")
        if kind not in _RUNNING_TEXT:
            answer.broken = True  # a block (tool call, edit, notice) ends the running text
        if kind is None:
            if isinstance(part.get("value"), str):  # a markdown string: VS Code writes no kind
                answer.write(part["value"])
                self.ledger.use()
            elif "uri" in part or "label" in part:  # file-tree data, the other kindless shape
                self.ledger.skip("response part: file tree")
            else:
                self.ledger.keep(_part_where(at), None, jsonvalue.encode(part))
            return
        kind_name = kind if isinstance(kind, str) else str(kind)
        read = _PARTS.get(kind_name)
        if read is not None and read(answer, part):
            self.ledger.use()
        elif kind_name in SKIPPED_PARTS:
            self.ledger.skip(f"response part: {kind_name}")
        else:
            self.ledger.keep(_part_where(at), kind_name, jsonvalue.encode(part))

    def merge(self, transcript: _Transcript) -> None:
        """Take from the transcript of the same session what the chat session copy lacks.

        The chat session copy wins: its messages are the conversation. The transcript's tool
        calls fill missing inputs, outputs and errors, matched by call id; every transcript event
        that filled something counts as used, the rest as told by the chat session.
        """
        calls = {key: call for d in transcript.drafts for call in d.calls for key in call.keys}
        filled_lines: set[int] = set()
        for draft in self.drafts:
            for call in draft.calls:
                other = next((calls[k] for k in sorted(call.keys) if k in calls), None)
                if other is not None and call.fill(other):
                    filled_lines |= transcript.lines.get(id(other), set())
        self.producer_version = self.producer_version or transcript.version
        ledger = transcript.ledger
        told = ledger.used - len(filled_lines)
        self.ledger.seen += ledger.seen
        self.ledger.used += len(filled_lines)
        self.ledger.malformed += ledger.malformed
        if told:
            self.ledger.skipped["transcript event told by the chat session"] += told
        self.ledger.skipped.update(ledger.skipped)
        self.ledger.unknown += [
            UnknownRecord(where=f"transcript {u.where}", type=u.type, raw=u.raw)
            for u in ledger.unknown
        ]
        self.ledger.warnings += [f"transcript: {w}" for w in ledger.warnings]

    def conversation(self, meta: ConversationMeta, adapter: CopilotAdapter) -> ParsedConversation:
        return ParsedConversation(
            source=adapter.name,
            id=meta.id,
            meta=meta,
            parser_version=adapter.parser_version,
            title=self.title or _title(self.first_prompt),
            project_path=meta.project_path,
            created_at=self.created_at,
            updated_at=self.updated_at,
            producer_version=self.producer_version,
            messages=[draft.message() for draft in self.drafts],
            diagnostics=self.ledger.diagnostics(),
        )


# --- response parts ------------------------------------------------------------------------------


def _markdown_content(answer: _Draft, part: dict[str, Any]) -> bool:
    text = _markdown(part.get("content"))
    if text is None:
        return False
    answer.write(text)
    return True


def _inline_reference(answer: _Draft, part: dict[str, Any]) -> bool:
    name = _reference_name(part)
    if name is None:
        return False
    answer.pieces.append(f"`{name}`")
    return True


def _thinking(answer: _Draft, part: dict[str, Any]) -> bool:
    value = part.get("value")
    if isinstance(value, list):
        value = "".join(v for v in value if isinstance(v, str))
    if not isinstance(value, str):
        return False
    if value.strip():
        answer.thinking.append(value.strip())
    return True


def _notice_part(answer: _Draft, part: dict[str, Any]) -> bool:
    kind = part.get("kind")
    if kind in ("confirmation", "elicitationSerialized"):
        texts = [_markdown(part.get("title")), _markdown(part.get("message"))]
        text = "\n".join(t for t in texts if t)
    elif kind == "command":
        text = as_text(dig(part, "command", "title")) or ""
    else:
        text = _markdown(part.get("content")) or ""
    if not text:
        return False
    answer.paragraph(f"Warning: {text}" if kind == "warning" else text)
    answer.pieces.append("\n\n")
    return True


def _prepare_tool(answer: _Draft, part: dict[str, Any]) -> bool:
    """``prepareToolInvocation`` announces a call; the invocation that follows completes it."""
    name = as_text(part.get("toolName"))
    if name is None:
        return False
    answer.calls.append(_Call(id=None, name=name, announced=True))
    return True


def _tool_invocation(answer: _Draft, part: dict[str, Any]) -> bool:
    name = as_text(part.get("toolId"))
    if name is None:
        return False
    call = next((c for c in answer.calls if c.announced and not c.invoked and c.name == name), None)
    if call is None:
        call = _Call(id=None, name=name)
        answer.calls.append(call)
    call.invoked = True
    call.id = as_text(part.get("toolCallId"))
    if call.id is not None:
        call.keys.add(call.id)
    _read_result_details(call, part.get("resultDetails"))
    _read_tool_specific(call, part.get("toolSpecificData"))
    return True


def _read_result_details(call: _Call, details: object) -> None:
    if isinstance(details, dict):
        raw_input = details.get("input")
        call.input = _decoded_or_text(raw_input) if isinstance(raw_input, str) else raw_input
        call.output = _output_text(details.get("output"))
        if isinstance(details.get("isError"), bool):
            call.is_error = details["isError"]
    elif isinstance(details, list):  # a list of URIs or locations the tool found
        found = [
            _uri_path(d.get("uri") if "uri" in d else d) for d in details if isinstance(d, dict)
        ]
        call.output = "\n".join(p for p in found if p) or None


def _read_tool_specific(call: _Call, data: object) -> None:
    if not isinstance(data, dict):
        return
    if data.get("kind") == "terminal":
        line = data.get("commandLine")
        command = None
        if isinstance(line, dict):
            command = next(
                (
                    line[k]
                    for k in ("userEdited", "toolEdited", "original")
                    if isinstance(line.get(k), str)
                ),
                None,
            )
        if call.input is None and command is not None:
            call.input = {"command": command}
        exit_code = dig(data, "terminalCommandState", "exitCode")
        if isinstance(exit_code, int) and not isinstance(exit_code, bool) and call.is_error is None:
            call.is_error = exit_code != 0
        if call.output is None:
            call.output = as_text(dig(data, "terminalCommandOutput", "text"))
    elif data.get("kind") == "input" and call.input is None:
        call.input = data.get("rawInput")


_PARTS: Final = {
    "markdownContent": _markdown_content,
    "markdownVuln": _markdown_content,
    "inlineReference": _inline_reference,
    "thinking": _thinking,
    "prepareToolInvocation": _prepare_tool,
    "toolInvocationSerialized": _tool_invocation,
    "toolInvocation": _tool_invocation,
    **dict.fromkeys(NOTICE_PARTS, _notice_part),
}


def _fill_from_rounds(answer: _Draft, metadata: object, warnings: list[str]) -> None:
    """Fill tool inputs (and outputs) from ``result.metadata.toolCallRounds``.

    The rounds list what the model sent: ``{name, arguments, id}`` per call, with results in
    ``toolCallResults`` under the same id. A part and a round call are the same call when their
    ids match (the round id may carry a ``__vscode-<n>`` suffix); otherwise, when the remaining
    parts (VS Code's ``*_internal`` tools left out) and round calls are as many, in order. A
    response whose parts name no tool at all takes its calls from the rounds.
    """
    sent = _round_calls(metadata)
    if not sent:
        return
    if not answer.calls:
        answer.calls = sent
        return
    unpaired: list[_Call] = []
    for call in answer.calls:
        match = next((s for s in sent if s.keys & call.keys), None)
        if match is not None:
            call.fill(match)
            sent.remove(match)
        elif call.invoked and not call.name.endswith(_INTERNAL_TOOL_SUFFIX):
            unpaired.append(call)
    if len(unpaired) == len(sent):
        for call, match in zip(unpaired, sent, strict=True):
            call.fill(match)
    elif sent:
        warnings.append(
            f"request {answer.request_id}: {len(unpaired)} tool call(s) could not be paired "
            f"with {len(sent)} in toolCallRounds; their inputs are left empty"
        )


def _round_calls(metadata: object) -> list[_Call]:
    """The calls the model sent, in order, from every round of ``toolCallRounds``."""
    rounds = dig(metadata, "toolCallRounds")
    results = dig(metadata, "toolCallResults")
    sent: list[_Call] = []
    for round_ in rounds if isinstance(rounds, list) else ():
        for raw in dig(round_, "toolCalls") or ():
            name, ident = as_text(dig(raw, "name")), as_text(dig(raw, "id"))
            if name is None:
                continue
            arguments = dig(raw, "arguments")
            call = _Call(id=ident, name=name)
            call.input = _decoded_or_text(arguments) if isinstance(arguments, str) else arguments
            if ident is not None:
                call.keys = {ident, ident.split(_ROUND_ID_SEPARATOR)[0]}
                call.output = _result_text(dig(results, ident))
            sent.append(call)
    return sent


# --- transcripts ------------------------------------------------------------------------------


class _Transcript:
    """Copilot Chat's event stream of one session, read event by event."""

    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger
        self.drafts: list[_Draft] = []
        self.calls: dict[str, _Call] = {}
        self.lines: dict[int, set[int]] = {}  # id(call) -> the lines that told of it
        self.version: str | None = None
        self.session_id: str | None = None
        self.started: datetime | None = None
        self.first_prompt: str | None = None
        self.ids: set[str] = set()

    def event(self, event: dict[str, Any], line_no: int) -> bool:
        """Read one event; return whether it was known (used or skipped)."""
        kind, data = event.get("type"), event.get("data")
        # ``isinstance`` first: a list or object as the type is unhashable and crashed the lookup.
        if isinstance(kind, str) and kind in SKIPPED_EVENTS:
            self.ledger.skip(f"transcript event: {kind}")
            return True
        read = _EVENTS.get(kind) if isinstance(kind, str) else None
        if read is None or not isinstance(data, dict):
            return False
        stamp = _iso(event.get("timestamp"))
        ident = as_text(event.get("id")) or f"L{line_no}"
        if not read(self, data, _Where(ident, line_no, stamp)):
            return False
        self.ledger.use()
        return True

    def session_start(self, data: dict[str, Any], at: _Where) -> bool:
        self.session_id = as_text(data.get("sessionId"))
        self.version = as_text(data.get("copilotVersion"))
        self.started = _iso(data.get("startTime")) or at.timestamp
        return True

    def user_message(self, data: dict[str, Any], at: _Where) -> bool:
        content = data.get("content")
        if not isinstance(content, str):
            return False
        draft = _Draft(id=_unique_id(self.ids, at.id), role="user", timestamp=at.timestamp)
        draft.pieces.append(content)
        self.drafts.append(draft)
        if self.first_prompt is None and content.strip():
            self.first_prompt = content
        return True

    def assistant_message(self, data: dict[str, Any], at: _Where) -> bool:
        draft = _Draft(id=_unique_id(self.ids, at.id), role="assistant", timestamp=at.timestamp)
        draft.pieces.append(as_text(data.get("content")) or "")
        for request in data.get("toolRequests") or ():
            call = self._call(request, at.line_no)
            if call is not None:
                draft.calls.append(call)
        self.drafts.append(draft)
        return True

    def tool_started(self, data: dict[str, Any], at: _Where) -> bool:
        call = self._known_call(data, at)
        if call is not None and call.input is None:
            call.input = data.get("arguments")
        return call is not None

    def tool_completed(self, data: dict[str, Any], at: _Where) -> bool:
        call = self._known_call(data, at)
        if call is None:
            return False
        if isinstance(data.get("success"), bool):
            call.is_error = not data["success"]
        call.output = call.output or _result_text(data.get("result"))
        return True

    def _known_call(self, data: dict[str, Any], at: _Where) -> _Call | None:
        call = self.calls.get(as_text(data.get("toolCallId")) or "")
        if call is not None:
            self.lines.setdefault(id(call), set()).add(at.line_no)
        return call

    def _call(self, request: object, line_no: int) -> _Call | None:
        name, ident = as_text(dig(request, "name")), as_text(dig(request, "toolCallId"))
        if name is None:
            return None
        arguments = dig(request, "arguments")
        call = _Call(id=ident, name=name)
        call.input = _decoded_or_text(arguments) if isinstance(arguments, str) else arguments
        if ident is not None:
            call.keys.add(ident)
            self.calls[ident] = call
        self.lines[id(call)] = {line_no}
        return call

    def conversation(
        self, meta: ConversationMeta, adapter: CopilotAdapter, ledger: Ledger
    ) -> ParsedConversation:
        stamps = [d.timestamp for d in self.drafts if d.timestamp is not None]
        return ParsedConversation(
            source=adapter.name,
            id=meta.id,
            meta=meta,
            parser_version=adapter.parser_version,
            title=_title(self.first_prompt),
            project_path=meta.project_path,
            created_at=self.started,
            updated_at=max(stamps) if stamps else None,
            producer_version=self.version,
            messages=[draft.message() for draft in self.drafts],
            diagnostics=ledger.diagnostics(),
        )


@define
class _Where:
    """Where a transcript event is: its id, line and time."""

    id: str
    line_no: int
    timestamp: datetime | None


_EVENTS: Final[dict[str, Callable[[_Transcript, dict[str, Any], _Where], bool]]] = {
    "session.start": _Transcript.session_start,
    "user.message": _Transcript.user_message,
    "assistant.message": _Transcript.assistant_message,
    "tool.execution_start": _Transcript.tool_started,
    "tool.execution_complete": _Transcript.tool_completed,
}


def read_transcript(path: Path, ledger: Ledger) -> _Transcript:
    """Read a ``transcripts/<id>.jsonl`` event stream; a bad line is malformed and skipped."""
    transcript = _Transcript(ledger)
    unknown: list[tuple[str, str | None, int, int]] = []
    for record in jsonl.iter_lines(path):
        if isinstance(record, jsonl.Malformed) or not isinstance(record.value, dict):
            ledger.bad()
            continue
        if not transcript.event(record.value, record.line_no):
            kind = record.value.get("type")
            unknown.append((f"line {record.line_no}", as_text(kind), *_span(record)))
    for (where, kind, _start, _end), raw in zip(
        unknown, jsonl.read_spans(path, [(start, end) for *_, start, end in unknown]), strict=True
    ):
        ledger.keep(where, kind, raw)
    return transcript


# --- small readers of session values -----------------------------------------------------------


def _custom_title(state: Mapping[str, Any]) -> str | None:
    """The title the user or VS Code gave, as VS Code normalises the session's version."""
    version = state.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 2:
        return None  # v1: VS Code drops any customTitle
    title = state.get("computedTitle") if version == 2 else state.get("customTitle")
    return title.strip() or None if isinstance(title, str) else None


def _title(prompt: str | None) -> str | None:
    """The first line of the first request, as VS Code titles an untitled session."""
    if not prompt or not prompt.strip():
        return None
    line = prompt.strip().splitlines()[0].strip()
    return line if len(line) <= _TITLE_LENGTH else line[: _TITLE_LENGTH - 1].rstrip() + "…"


def _request_text(message: object) -> str:
    """What the user typed: ``message.text``, else the texts of its ``parts`` joined."""
    if isinstance(message, str):
        return message
    text = dig(message, "text")
    if isinstance(text, str) and text:
        return text
    parts = dig(message, "parts")
    if isinstance(parts, list):
        return "".join(
            p["text"] for p in parts if isinstance(p, dict) and isinstance(p.get("text"), str)
        )
    return ""


def _attached_images(variable_data: object) -> list[ImageRef]:
    """An :class:`ImageRef` per image attached to a request; the image data is not kept."""
    variables = dig(variable_data, "variables")
    if not isinstance(variables, list):
        return []
    return [
        _build.image(media_type=as_text(v.get("mimeType")))
        for v in variables
        if isinstance(v, dict) and (v.get("kind") == "image" or v.get("isImage") is True)
    ]


def _answer_time(
    request: Mapping[str, Any], asked: datetime | None
) -> tuple[datetime | None, bool]:
    """When the answer ended, and whether that time was derived rather than recorded.

    ``modelState.completedAt``, else ``responseTimestamp``; else the request time plus
    ``result.timings.totalElapsed``, flagged as synthesized; else ``None``.
    """
    completed = _ms(dig(request, "modelState", "completedAt")) or _ms(
        request.get("responseTimestamp")
    )
    if completed is not None:
        return completed, False
    elapsed = dig(request, "result", "timings", "totalElapsed")
    if asked is not None and isinstance(elapsed, (int, float)) and not isinstance(elapsed, bool):
        return _ms(asked.timestamp() * 1000 + elapsed), True
    return None, False


def _usage(request: Mapping[str, Any], key: str) -> Usage | None:
    """Token counts: the request's ``promptTokens``/``completionTokens``, else ``result.usage``."""
    usage = dig(request, "result", "usage")
    prompt = as_count(request.get("promptTokens"))
    completion = as_count(request.get("completionTokens"))
    if prompt is None:
        prompt = as_count(dig(usage, "promptTokens"))
    if completion is None:
        completion = as_count(dig(usage, "completionTokens"))
    if prompt is None and completion is None:
        return None
    return _build.usage(input_tokens=prompt, output_tokens=completion, dedup_key=key)


def _outcome_notice(request: Mapping[str, Any]) -> str | None:
    """A notice for a response that was cancelled or failed, with the error when recorded."""
    state = dig(request, "modelState", "value")
    error = as_text(dig(request, "result", "errorDetails", "message")) or as_text(
        dig(request, "responseErrorDetails", "message")  # sessions of early 2023
    )
    if state == _FAILED or (error is not None and state != _CANCELLED):
        return f"Response failed: {error}" if error else "Response failed"
    if state == _CANCELLED or request.get("isCanceled") is True:
        return "Response cancelled"
    return None


def _reference_name(part: Mapping[str, Any]) -> str | None:
    """The file or symbol an ``inlineReference`` names, as VS Code shows it."""
    name = as_text(part.get("name"))
    if name:
        return name
    target = part.get("inlineReference")
    if isinstance(target, dict):
        if isinstance(target.get("name"), str) and "location" in target:  # a symbol
            return str(target["name"])
        path = _uri_path(target.get("uri") if "uri" in target else target)
        if path:
            return PurePosixPath(path.replace("\\", "/")).name or path
    return None


def _uri_path(uri: object) -> str | None:
    """The path of a serialized URI (``{"$mid": 1, "path", "fsPath", "external", ...}``)."""
    if isinstance(uri, str):
        return uri
    if isinstance(uri, dict):
        for key in ("fsPath", "path", "external"):
            if isinstance(uri.get(key), str) and uri[key]:
                return str(uri[key])
    return None


def _markdown(value: object) -> str | None:
    """A string, or the ``value`` of a markdown-string object."""
    if isinstance(value, str):
        return value
    inner = dig(value, "value")
    return inner if isinstance(inner, str) else None


def _output_text(output: object) -> str | None:
    """The text of a tool's ``resultDetails.output``: a string, or text items' values."""
    if isinstance(output, str):
        return output
    if not isinstance(output, list):
        return None
    texts = [
        item["value"]
        for item in output
        if isinstance(item, dict)
        and isinstance(item.get("value"), str)
        and item.get("isText", True)
    ]
    return "\n".join(texts) if texts else None


def _result_text(result: object) -> str | None:
    """The text of a tool result from ``toolCallResults`` or a transcript event.

    Copilot stores results as ``{"content": [...]}`` whose items are text parts (``value``
    strings) or rendered prompt trees (``value.node``), whose text leaves are joined here.
    """
    if isinstance(result, str):
        return result
    content = dig(result, "content")
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return None
    pieces: list[str] = []
    for item in content:
        value = dig(item, "value")
        if isinstance(value, str):
            pieces.append(value)
        elif isinstance(dig(value, "node"), dict):
            pieces.append(_tree_text(dig(value, "node")))
        elif isinstance(dig(item, "text"), str):
            pieces.append(str(dig(item, "text")))
    text = "".join(pieces)
    return text or None


def _tree_text(root: object) -> str:
    """The text leaves of a rendered prompt tree, in order, iteratively (trees can be deep)."""
    pieces: list[str] = []
    stack = [root]
    while stack:
        node = stack.pop()
        if not isinstance(node, dict):
            continue
        text = node.get("text")
        if isinstance(text, str):
            if node.get("lineBreakBefore") is True and pieces and not pieces[-1].endswith("\n"):
                pieces.append("\n")
            pieces.append(text)
        children = node.get("children")
        if isinstance(children, list):
            stack.extend(reversed(children))
    return "".join(pieces)


def _clean(text: str) -> tuple[str, tuple[Any, ...]]:
    """``text`` with inline base64 images taken out (measured, not kept)."""
    return strip_data_uri_images(text)


def _decoded_or_text(text: str) -> Any:
    """Tool arguments sent as JSON text, decoded; the text itself when it is not JSON."""
    if not text.strip():
        return None
    decoded = jsonvalue.decode(text)
    return text if isinstance(decoded, jsonvalue.Invalid) else decoded


def _ms(value: object) -> datetime | None:
    """Epoch milliseconds as an aware UTC datetime; ``None`` for anything else."""
    if not isinstance(value, (int, float)) or isinstance(value, bool) or value <= 0:
        return None
    try:
        return datetime.fromtimestamp(value / 1000, UTC)
    except (OverflowError, OSError, ValueError):
        return None


def _iso(value: object) -> datetime | None:
    """An ISO 8601 string with a zone as an aware UTC datetime; ``None`` for anything else."""
    if not isinstance(value, str):
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        return None
    return parsed.astimezone(UTC) if parsed.tzinfo is not None else None
