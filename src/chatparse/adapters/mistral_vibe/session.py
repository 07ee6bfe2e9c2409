"""One Vibe session into a conversation: a 2.x folder, or a 1.x file.

A 2.x folder holds ``meta.json`` and ``messages.jsonl``; a 1.x file holds both in one document.

Usage is recorded per session only: ``stats.session_prompt_tokens`` and
``stats.session_completion_tokens``, cumulative over the session. They go to the session's last
answer, with ``dedup_key`` ``mistral-vibe:<session id>``. Mistral's ``prompt_tokens`` is the
whole prompt, so it is the input as chatparse counts it; the cache and reasoning parts are not
recorded.
"""

from __future__ import annotations

from collections.abc import Iterable
from contextlib import closing
from pathlib import Path
from typing import Any, Final

from chatparse.adapter import (
    Ledger,
    SourceAdapter,
    as_datetime,
    as_nonempty_text,
    as_text,
    as_token_count,
    build_conversation,
    dig,
    is_file,
    new_usage,
    require_file,
    title_from,
)
from chatparse.adapters.mistral_vibe.locate import MESSAGES, METADATA
from chatparse.adapters.mistral_vibe.messages import Transcript, read_message
from chatparse.decoders import bigjson
from chatparse.decoders.value import encode
from chatparse.model import ConversationMeta, ParsedConversation, Usage

__all__ = ["read_folder", "read_legacy"]

_METADATA_KEYS: Final = frozenset(
    {
        "session_id",
        "start_time",
        "end_time",
        "git_branch",
        "environment",
        "title",
        "stats",
        "config",
        "agent_config",
    }
)
"""What is kept of the metadata; the rest (tool schemas, the system prompt, prices) is not read."""


def _read_metadata(path: Path, prefix: str, ledger: Ledger, where: str) -> dict[str, Any]:
    """The metadata object at ``prefix`` of the JSON file at ``path``, as one record."""
    fields: dict[str, Any] = {}
    with closing(bigjson.iter_kvitems(path, prefix)) as items:
        for item in items:
            if isinstance(item, bigjson.Malformed):
                ledger.bad(where, f"cut off or damaged ({item.reason}); the keys before kept")
                return fields
            if item.key in _METADATA_KEYS:
                fields[str(item.key)] = item.value
    if fields:
        ledger.use()
    return fields


def session_usage(stats: object, session_id: str, ledger: Ledger) -> Usage | None:
    """The session's cumulative token counts; ``None`` when none were recorded (all zero)."""
    problems: list[str] = []
    prompt = as_token_count(dig(stats, "session_prompt_tokens"), problems, "prompt tokens")
    completion = as_token_count(
        dig(stats, "session_completion_tokens"), problems, "completion tokens"
    )
    for problem in problems:
        ledger.warn(f"{METADATA}: {problem}")
    if not prompt and not completion:
        return None
    return new_usage(
        input_tokens=prompt, output_tokens=completion, dedup_key=f"mistral-vibe:{session_id}"
    )


def _finish(
    adapter: SourceAdapter,
    meta: ConversationMeta,
    metadata: dict[str, Any],
    transcript: Transcript,
    subagents: Iterable[ParsedConversation] = (),
) -> ParsedConversation:
    """The conversation, its usage on its last answer."""
    ledger = transcript.ledger
    session_id = as_nonempty_text(metadata.get("session_id")) or meta.id
    usage = session_usage(metadata.get("stats"), session_id, ledger)
    answers = [d for d in transcript.drafts if d.role == "assistant"]
    if usage is not None and answers:
        answers[-1].usage = usage
    elif usage is not None:
        ledger.warn("the session's token totals have no answer to go to; not kept")
    return build_conversation(
        adapter,
        meta,
        [draft.freeze() for draft in transcript.drafts],
        ledger,
        title=title_from(as_text(metadata.get("title"))),
        project_path=as_nonempty_text(dig(metadata, "environment", "working_directory")),
        git_branch=as_nonempty_text(metadata.get("git_branch")),
        created_at=as_datetime(metadata.get("start_time")),
        updated_at=as_datetime(metadata.get("end_time")),
        subagents=subagents,
    )


def _model(metadata: dict[str, Any]) -> str | None:
    """The active model: ``config.active_model`` (2.x) or ``agent_config.active_model`` (1.x)."""
    return as_nonempty_text(dig(metadata, "config", "active_model")) or as_nonempty_text(
        dig(metadata, "agent_config", "active_model")
    )


def read_folder(
    adapter: SourceAdapter, meta: ConversationMeta, subagents: Iterable[ParsedConversation]
) -> ParsedConversation:
    """The 2.x session in the folder of ``meta.path``."""
    folder = require_file(meta.path, "session").parent
    ledger = Ledger()
    metadata: dict[str, Any] = {}
    if is_file(folder / METADATA):
        metadata = _read_metadata(folder / METADATA, "", ledger, METADATA)
    transcript = Transcript(model=_model(metadata), ledger=ledger)
    path = folder / MESSAGES
    if is_file(path):
        for line in ledger.decoded_lines(path):
            where = f"line {line.line_no}"
            if not isinstance(line.value, dict):
                ledger.bad(where, "not a JSON object")
            elif not read_message(transcript, line.value, where):
                kind = as_text(dig(line.value, "role"))
                ledger.keep_span(where, kind, path, start=line.offset, end=line.end_offset)
    return _finish(adapter, meta, metadata, transcript, subagents)


def read_legacy(adapter: SourceAdapter, meta: ConversationMeta) -> ParsedConversation:
    """The 1.x session file ``meta.path``: ``{metadata, messages}``."""
    path = require_file(meta.path, "session")
    ledger = Ledger()
    metadata = _read_metadata(path, "metadata", ledger, "metadata")
    transcript = Transcript(model=_model(metadata), ledger=ledger)
    with closing(bigjson.iter_items(path, "messages.item")) as items:
        for item in items:
            if isinstance(item, bigjson.Malformed):
                ledger.bad("messages", f"cut off or damaged ({item.reason})")
                break
            where = f"messages[{item.key}]"
            if not isinstance(item.value, dict):
                ledger.bad(where, "not a JSON object")
            elif not read_message(transcript, item.value, where):
                ledger.keep(where, as_text(dig(item.value, "role")), encode(item.value))
    return _finish(adapter, meta, metadata, transcript)
