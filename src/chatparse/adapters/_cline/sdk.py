"""Cline 4.x ("SDK bundle") sessions: ``<sessions>/<id>/<id>.json`` and ``<id>.messages.json``.

The manifest ``<id>.json`` (``version: 1``, snake_case: ``session_id``, ``started_at``,
``cwd``, ``workspace_root``, ``model``, ``metadata.title``, ``metadata.fork``) describes the
session; the transcript ``<id>.messages.json`` (``{version: 1, agent, sessionId, messages,
system_prompt}``) holds it. A message is ``{id, role, ts, content, modelInfo {id, provider},
metrics, metadata}``; blocks are Anthropic-shaped (``text``, ``thinking``, ``tool_use``,
``tool_result`` on user messages, ``image``, ``file``). Only the last assistant message of a
turn carries ``metrics`` (:mod:`~chatparse.adapters._cline.usage`). A message whose
``metadata.kind`` is ``compaction`` or ``compaction_summary`` is a compaction summary.

``<id>.compaction.json`` has the same envelope: the compacted context. Its messages that the
transcript also has (by id) are skipped; the others (the summaries) are added after the
transcript's. Every other ``<name>.messages.json`` in the folder is a sub-agent's transcript,
read into ``subagents``. ``hooks.jsonl`` is telemetry, and the system prompt is not a
message; neither is read. The index ``db/sessions.db`` is not read: the folders are listed.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, Final

from chatparse.adapter import (
    SourceAdapter,
    as_datetime,
    as_epoch,
    as_nonempty_text,
    build_conversation,
    dig,
    file_meta,
    is_file,
    title_from,
)
from chatparse.adapters._cline.build import Builder
from chatparse.adapters._cline.content import read_content
from chatparse.adapters._cline.files import Element, read_array, read_document
from chatparse.adapters._cline.locate import folders_in
from chatparse.adapters._cline.usage import metrics_usage
from chatparse.errors import SourceUnavailableError, UnavailableCause
from chatparse.model import ConversationMeta, MessageKind, ParsedConversation

__all__ = ["MESSAGES", "SESSION_FORMAT", "read_session", "session_meta", "session_metas"]

MESSAGES: Final = ".messages.json"
COMPACTION: Final = ".compaction.json"
SESSION_FORMAT: Final = "sdk-session"
"""``locator["format"]`` of a Cline 4.x session."""
_SUMMARIES: Final = frozenset({"compaction", "compaction_summary"})


def _manifest(folder: Path) -> Mapping[str, Any]:
    manifest = read_document(folder / f"{folder.name}.json")
    return manifest if isinstance(manifest, dict) else {}


def session_meta(source: str, folder: Path) -> ConversationMeta | None:
    """The meta of one session folder, or ``None`` when it holds no transcript."""
    transcript = folder / f"{folder.name}{MESSAGES}"
    try:
        stat = transcript.stat()
    except OSError:
        return None
    manifest = _manifest(folder)
    metadata = manifest.get("metadata")
    fork = dig(metadata, "fork", "forkedFromSessionId")
    locator = {"format": SESSION_FORMAT}
    if isinstance(fork, str) and fork:
        locator["forked_from"] = fork
    return file_meta(
        source,
        as_nonempty_text(manifest.get("session_id")) or folder.name,
        transcript,
        stat,
        title=title_from(as_nonempty_text(dig(metadata, "title"))),
        project_path=as_nonempty_text(manifest.get("cwd"))
        or as_nonempty_text(manifest.get("workspace_root")),
        created_at=as_datetime(manifest.get("started_at")),
        locator=locator,
    )


def session_metas(source: str, sessions: Path) -> Iterator[ConversationMeta]:
    """One meta per session folder of ``sessions`` that holds its transcript."""
    for folder in folders_in(sessions):
        meta = session_meta(source, folder)
        if meta is not None:
            yield meta


def _kind(message: Mapping[str, Any]) -> MessageKind:
    return "compaction_summary" if dig(message, "metadata", "kind") in _SUMMARIES else "message"


def _read_message(builder: Builder, element: Element, session: str, where: str) -> None:
    index, message = element
    role = message.get("role")
    if role not in ("user", "assistant"):
        builder.ledger.keep(f"{where} message {index}", as_nonempty_text(role), json.dumps(message))
        return
    parts = read_content(message.get("content"), role)
    builder.unknown_blocks(f"{where} message {index}", parts)
    ident = as_nonempty_text(message.get("id"))
    key = ident or f"{where}-{index}"
    when = as_epoch(message.get("ts"), "ms") or as_epoch(
        dig(message, "metadata", "generatedAt"), "ms"
    )
    builder.ledger.use()
    if role == "user":
        builder.user_turn(key, parts, kind=_kind(message), timestamp=when)
        return
    draft = builder.answer_turn(
        key,
        parts,
        kind=_kind(message),
        timestamp=when,
        model=as_nonempty_text(dig(message, "modelInfo", "id")),
    )
    # Message ids are random and copied verbatim into a fork: a response counts once.
    usage_key = f"cline:{ident}" if ident else f"cline:{session}:{key}"
    usage = metrics_usage(message.get("metrics"), usage_key, builder.problems)
    builder.give_usage(draft, usage)


def _read_transcript(
    builder: Builder, path: Path, session: str, seen: set[str] | None = None
) -> set[str]:
    """The messages of one transcript file into ``builder``; their ids.

    With ``seen``, a message whose id is in it is skipped (a copy kept by the compaction).
    """
    ids: set[str] = set()
    for element in read_array(path, builder.ledger, path.name, "messages.item"):
        ident = as_nonempty_text(element[1].get("id"))
        if seen is not None and ident in seen:
            builder.ledger.skip("copy kept by the compaction")
            continue
        if ident is not None:
            ids.add(ident)
        _read_message(builder, element, session, path.name)
    return ids


def _conversation(
    adapter: SourceAdapter, meta: ConversationMeta, path: Path, subagents: list[ParsedConversation]
) -> ParsedConversation:
    builder = Builder()
    seen = _read_transcript(builder, path, meta.id)
    compaction = path.with_name(path.name.removesuffix(MESSAGES) + COMPACTION)
    if is_file(compaction):
        _read_transcript(builder, compaction, meta.id, seen)
    return build_conversation(
        adapter, meta, builder.messages(), builder.ledger, subagents=subagents
    )


def read_session(adapter: SourceAdapter, meta: ConversationMeta) -> ParsedConversation:
    """The session a meta names, with its sub-agents.

    Raises:
        SourceUnavailableError: The transcript is gone.
    """
    path = Path(meta.path)
    if not is_file(path):
        raise SourceUnavailableError(
            meta.path, "the session's transcript is gone", "Scan again.", UnavailableCause.MISSING
        )
    subagents = []
    for other in sorted(path.parent.glob(f"*{MESSAGES}")):
        if other == path:
            continue
        stat = other.stat()
        agent = other.name.removesuffix(MESSAGES)
        sub_meta = file_meta(
            adapter.name,
            f"{meta.id}__{agent}",
            other,
            stat,
            locator={"format": SESSION_FORMAT, "parent_session": meta.id, "agent": agent},
        )
        subagents.append(_conversation(adapter, sub_meta, other, []))
    return _conversation(adapter, meta, path, subagents)
