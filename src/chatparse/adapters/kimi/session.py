"""One Kimi session into a conversation, in either layout, with its sub-agents.

Usage is recorded per step (one model call): Kimi CLI's ``StatusUpdate.token_usage``, Kimi
Code's ``step.end`` usage (repeated by ``usage.record``). ``input_other`` is the uncached
input, so the input as chatparse counts it is ``input_other + input_cache_read +
input_cache_creation``; the cache parts are the last two; reasoning is not told apart. The
``dedup_key`` is ``kimi:<provider message id>``. A sub-agent's calls are its own (its parent's
steps do not include them), so its usage counts too.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

from chatparse.adapter import (
    Ledger,
    SourceAdapter,
    as_datetime,
    as_nonempty_text,
    build_conversation,
    dig,
    is_file,
    require_file,
    title_from,
)
from chatparse.adapters.kimi.cli import read_context, read_wire
from chatparse.adapters.kimi.code import read_oplog
from chatparse.adapters.kimi.locate import STATE, WIRE, Session, session_meta
from chatparse.adapters.kimi.parts import Transcript
from chatparse.decoders.value import Invalid, decode
from chatparse.model import ConversationMeta, ParsedConversation

__all__ = ["read_session"]

_JSON_LIMIT: Final = 4 * 1024 * 1024  # state.json and kimi.json are small settings files
_LOCAL: Final = "local"
"""The ``kaos`` of a work dir on this machine: its hash folder has no prefix."""


def _read_json(path: Path, ledger: Ledger | None) -> dict[str, Any]:
    """A small JSON object file; ``{}`` when absent or damaged (said in ``ledger``, if given)."""
    if not is_file(path):
        return {}
    try:
        with path.open("rb") as stream:
            value = decode(stream.read(_JSON_LIMIT))
    except OSError as exc:
        value = Invalid(f"cannot be read ({exc.strerror or exc})")
    if isinstance(value, dict):
        if ledger is not None:
            ledger.use()
        return value
    if ledger is not None:
        reason = value.reason if isinstance(value, Invalid) else "not a JSON object"
        ledger.bad(path.name, reason)
    return {}


def _work_dir(home: Path, hash_folder: str) -> str | None:
    """The work dir whose sessions are in ``hash_folder``, as ``kimi.json`` lists them."""
    for entry in dig(_read_json(home / "kimi.json", None), "work_dirs") or ():
        path, kaos = as_nonempty_text(dig(entry, "path")), dig(entry, "kaos") or _LOCAL
        if path is None:
            continue
        digest = hashlib.md5(path.encode("utf-8"), usedforsecurity=False).hexdigest()
        if hash_folder in (digest, f"{kaos}_{digest}"):
            return path
    return None


def _subagents(
    adapter: SourceAdapter, meta: ConversationMeta, folder: Path
) -> list[ParsedConversation]:
    found = Session(meta.locator["layout"], folder.name, Path(meta.path), folder).subagents
    home = Path(meta.locator["home"])
    children = []
    for log in found:
        child = session_meta(
            adapter.name, Session(meta.locator["layout"], log.parent.name, log, None), home
        )
        if child is not None:
            children.append(_READERS[child.locator["layout"]](adapter, child, None))
    return children


def _read_cli(
    adapter: SourceAdapter, meta: ConversationMeta, folder: Path | None
) -> ParsedConversation:
    main = require_file(meta.path, "session")
    transcript: Transcript
    if main.name == WIRE:
        transcript, _version = read_wire(main)
    else:
        transcript = read_context(main)
    ledger = Ledger()
    state = _read_json(folder / STATE, ledger) if folder is not None else {}
    ledger.merge(transcript.ledger, f"{main.name}: ")
    hash_folder = (folder or main).parent.name
    return build_conversation(
        adapter,
        meta,
        [draft.freeze() for draft in transcript.drafts],
        ledger,
        title=title_from(as_nonempty_text(state.get("custom_title"))),
        project_path=_work_dir(Path(meta.locator["home"]), hash_folder)
        if folder or main.suffix
        else None,
        subagents=_subagents(adapter, meta, folder) if folder is not None else (),
    )


def _read_code(
    adapter: SourceAdapter, meta: ConversationMeta, folder: Path | None
) -> ParsedConversation:
    main = require_file(meta.path, "session")
    log = read_oplog(main, f"{main.parents[2].name}:{main.parent.name}")
    ledger = Ledger()
    state = _read_json(folder / STATE, ledger) if folder is not None else {}
    ledger.merge(log.transcript.ledger, f"{main.parent.name}/{main.name}: ")
    title = as_nonempty_text(state.get("customTitle")) or as_nonempty_text(state.get("title"))
    return build_conversation(
        adapter,
        meta,
        [draft.freeze() for draft in log.transcript.drafts],
        ledger,
        title=title_from(title),
        project_path=as_nonempty_text(state.get("workDir")) or log.cwd,
        created_at=as_datetime(state.get("createdAt")),
        updated_at=as_datetime(state.get("updatedAt")),
        subagents=_subagents(adapter, meta, folder) if folder is not None else (),
    )


_Reader = Callable[[SourceAdapter, ConversationMeta, "Path | None"], ParsedConversation]
_READERS: Final[dict[str, _Reader]] = {"kimi-cli": _read_cli, "kimi-code": _read_code}


def session_folder(meta: ConversationMeta) -> Path | None:
    """The session folder of a top-level session's meta; ``None`` for a flat context file."""
    main = Path(meta.path)
    if meta.locator.get("layout") == "kimi-code":
        return main.parent.parent.parent
    return main.parent if main.name in (WIRE, "context.jsonl") else None


def read_session(adapter: SourceAdapter, meta: ConversationMeta) -> ParsedConversation:
    """The conversation of a session ``scan`` listed."""
    reader = _READERS.get(meta.locator.get("layout", ""), _read_cli)
    return reader(adapter, meta, session_folder(meta))
