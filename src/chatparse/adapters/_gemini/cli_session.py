"""One Gemini CLI session file, from its records to the parsed conversation.

The container is chosen by the file: a ``.json`` file is the legacy document; a ``.jsonl``
file is the replay log, unless no line of it is a JSON object (a legacy document saved under the
new name), which Gemini CLI then reads as a document too.

The project folder is not in the file, only its SHA-256 (``projectHash``). The scan finds it
beside the file (``.project_root``, ``projects.json``); failing that, it is taken from the
``Workspace Directories`` the injected ``<session_context>`` lists (the one whose hash matches,
else the first), or from the header's ``directories`` whose hash matches.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Final

from chatparse.adapter import (
    Ledger,
    SourceAdapter,
    as_datetime,
    as_nonempty_text,
    build_conversation,
    title_from,
)
from chatparse.adapters._gemini.cli_log import Replay, read_document, read_log
from chatparse.adapters._gemini.cli_messages import Messages, build_messages
from chatparse.adapters._gemini.drafts import Links, freeze_all
from chatparse.errors import SourceUnavailableError
from chatparse.model import ConversationMeta, ParsedConversation

__all__ = ["read_session", "session_conversation"]

# "- **Workspace Directories:**" then one "  - <dir>" line per folder (current writer), or the
# older "I'm currently working in the directory: <dir>".
_WORKSPACE_LIST: Final = re.compile(r"Workspace Directories:\**\s*\n((?:[ \t]*- .*(?:\n|$))+)")
_WORKING_IN: Final = re.compile(r"working in the directory: *(\S.*)")


def _read_file(path: Path, replay: Replay) -> None:
    """Read one file into ``replay``, whichever container it is."""
    if path.suffix == ".json":
        read_document(path, replay)
        return
    read_log(path, replay)
    ledger, known = replay.ledger, len(replay.copies)
    if ledger.seen and ledger.malformed == ledger.seen:  # no line was an object: a document?
        replay.ledger = Ledger()
        read_document(path, replay)
        if not (replay.ledger.used or len(replay.copies) > known):
            replay.ledger = ledger  # not a document either: its lines stay malformed


def read_session(path: Path, copies: Sequence[Path] = ()) -> Replay:
    """The replayed records of a session file, after those of its other ``copies``.

    A legacy document resumed by v0.39+ got a log beside it that repeats its messages and goes
    on: the copies are read first (documents first), the file last, so that every message is
    there once and the log's later copies win. A copy that cannot be read any more is named in
    a warning.
    """
    replay = Replay(tree=path.suffix != ".json")
    account = Ledger()
    for file in [*sorted(copies, key=lambda p: (p.suffix != ".json", str(p))), path]:
        replay.ledger = Ledger()
        try:
            _read_file(file, replay)
        except SourceUnavailableError as exc:
            if file is path:
                raise
            account.warn(f"{file.name}: not read ({exc.reason})")
            continue
        account.merge(replay.ledger, f"{file.name}: " if copies else "")
    replay.ledger = account
    return replay


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _workspace_dirs(messages: Messages) -> Iterator[str]:
    """The folders the injected session context names, in its order."""
    for draft in messages.drafts:
        if draft.kind != "notice" or draft.role != "user":
            continue
        text = "\n".join(draft.texts)
        listed = _WORKSPACE_LIST.search(text)
        if listed is not None:
            for line in listed.group(1).splitlines():
                folder = line.strip().removeprefix("- ").strip()
                if folder:
                    yield folder
        working = _WORKING_IN.search(text)
        if working is not None:
            yield working.group(1).strip()


def _project(replay: Replay, messages: Messages) -> str | None:
    """The project folder, as far as the file itself tells it."""
    wanted = as_nonempty_text(replay.header.get("projectHash"))
    listed = list(_workspace_dirs(messages))
    directories = replay.header.get("directories")
    extra = [d for d in directories if isinstance(d, str)] if isinstance(directories, list) else []
    matching = [folder for folder in [*listed, *extra] if _sha256(folder) == wanted]
    return next(iter(matching or listed), None)


def _warnings(messages: Messages, cut: int) -> Iterable[str]:
    if messages.odd:
        kinds = ", ".join(sorted(messages.odd))
        count = sum(messages.odd.values())
        yield f"{count} content part(s) of unknown kind were not read ({kinds})"
    if cut:
        yield f"{cut} message(s) had parents in a loop; the link closing each loop was cut"


def _record_parent(replay: Replay, record_of: dict[str, str], message: str) -> str | None:
    """The record a message hangs from: its own record's parent, or the record it was made from.

    A result that answered no call is a message made from the record holding it.
    """
    record = record_of[message]
    return replay.parents.get(record) if message == record else record


def session_conversation(
    adapter: SourceAdapter,
    meta: ConversationMeta,
    replay: Replay,
    subagents: Iterable[ParsedConversation] = (),
) -> ParsedConversation:
    """The conversation a replayed session file holds."""
    messages = build_messages(replay)
    drafts = messages.drafts
    if replay.tree:
        record_of = messages.record_of
        links = Links(replay.parents, {r: d for d, r in record_of.items() if d == r})
        parents = {
            d.id: links.parent(d.id, _record_parent(replay, record_of, d.id)) for d in drafts
        }
        leaf = links.above(replay.line[-1]) if replay.line else None
        frozen, cut = freeze_all(drafts, parents, leaf)
    else:
        frozen, cut = freeze_all(drafts, None, None)
    for warning in _warnings(messages, cut):
        replay.ledger.warn(warning)
    header = replay.header
    return build_conversation(
        adapter,
        meta,
        frozen,
        replay.ledger,
        title=title_from(as_nonempty_text(header.get("summary"))),
        project_path=meta.project_path or _project(replay, messages),
        created_at=as_datetime(header.get("startTime")),
        updated_at=as_datetime(header.get("lastUpdated")),
        subagents=subagents,
    )
