"""One Continue session file, from its records to the parsed conversation.

Records: the document's own fields (``sessionId``, ``title``, ``workspaceDirectory``, ``mode``,
``chatModelTitle``, ``usage``) are one record, and each item of ``history`` is one. A document
cut short (Continue writes in place, without a temporary file) gives the items before the
damage and one malformed record.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from chatparse.adapter import SourceAdapter, build_conversation, require_file
from chatparse.adapters.continue_dev.locate import clean_title, project_of
from chatparse.adapters.continue_dev.messages import Reading, read_item
from chatparse.adapters.continue_dev.usage import message_usage
from chatparse.decoders import bigjson
from chatparse.model import ConversationMeta, ParsedConversation

__all__ = ["read_conversation", "read_session"]


def _salvage(reading: Reading, path: Path) -> None:
    """The history items of a damaged document that come before the damage."""
    for item in bigjson.iter_items(path, "history.item"):
        if isinstance(item, bigjson.Malformed):
            return
        read_item(reading, item.value, int(item.key))


def read_session(path: Path, session: str) -> tuple[Reading, dict[str, Any]]:
    """The items of a session document, read, and its other fields."""
    reading = Reading(session=session)
    header: dict[str, Any] = {}
    history = False
    for item in list(bigjson.iter_kvitems(path, "")):
        if isinstance(item, bigjson.Malformed):
            if not history:
                _salvage(reading, path)
            reading.ledger.bad("document", f"cut short or damaged ({item.reason})")
            break
        if item.key == "history" and isinstance(item.value, list):
            history = True
            for index, record in enumerate(item.value):
                read_item(reading, record, index)
        else:
            header[str(item.key)] = item.value
    if header:
        reading.ledger.use()  # the document's own fields
    elif not reading.ledger.seen:
        reading.ledger.bad("document", "not a session object")
    return reading, header


def _session_usage(reading: Reading, header: dict[str, Any]) -> None:
    """The session's totals, on its last answer, when no answer has a usage of its own."""
    if any(draft.usage is not None for draft in reading.drafts):
        return  # the totals add up the answers' usage: counting both would count twice
    problems: list[str] = []
    usage = message_usage(header.get("usage"), f"continue:{reading.session}", problems)
    for problem in problems:
        reading.ledger.warn(f"session usage: {problem}")
    if usage is None:
        return
    answers = [draft for draft in reading.drafts if draft.role == "assistant"]
    if answers:
        answers[-1].usage = usage
    else:
        reading.ledger.warn("session usage recorded, but no answer to carry it")


def read_conversation(adapter: SourceAdapter, meta: ConversationMeta) -> ParsedConversation:
    """The conversation in the session file ``meta`` names."""
    path = require_file(meta.path, "session")
    reading, header = read_session(path, meta.id)
    _session_usage(reading, header)
    if reading.odd_parts:
        kinds = ", ".join(sorted(reading.odd_parts))
        reading.ledger.warn(f"content parts of unknown kind were not read ({kinds})")
    return build_conversation(
        adapter,
        meta,
        [draft.freeze() for draft in reading.drafts],
        reading.ledger,
        title=clean_title(header.get("title")),
        project_path=project_of(header.get("workspaceDirectory")),
    )
