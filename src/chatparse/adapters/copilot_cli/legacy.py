"""The legacy session document, ``history-session-state/<id>.json`` (Copilot CLI to 0.0.341).

One JSON object ``{sessionId, startTime, chatMessages: [...], timeline: [...]}``, streamed key
by key. ``chatMessages`` are the conversation as the model saw it, OpenAI chat messages
(``role`` ``user``, ``assistant`` with ``tool_calls[].function``, ``tool`` with
``tool_call_id``, ``system``); each is one record. ``timeline`` entries are what the terminal
showed (tool runs, notices, retold from the messages) and are skipped, each one record. The
document's own fields are one record. No message has a time, and the document has no usage.

Older tool messages may name no ``tool_call_id`` (and their calls no ``id``): such a result
answers, by position, the earliest unanswered call of the answers before it.
"""

from __future__ import annotations

from contextlib import closing
from pathlib import Path
from typing import Any

from chatparse.adapter import as_datetime, as_nonempty_text, as_text, dig, strip_images
from chatparse.adapters.copilot_cli.drafts import Session
from chatparse.decoders import bigjson
from chatparse.decoders.value import encode

__all__ = ["read_legacy"]


def _text(content: object) -> str | None:
    """A message's text: a string, the texts of a list of parts, ``""`` for none."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(filter(None, (as_text(dig(part, "text")) for part in content)))
    return "" if content is None else None


def _answer_by_position(session: Session, output: str) -> bool:
    for call in session.tools.calls:
        if call.id is None and not call.answered:
            call.answer(output)
            return True
    return False


def _message(session: Session, record: dict[str, Any], where: str) -> bool:
    role, text = record.get("role"), _text(record.get("content"))
    if text is None or role not in ("user", "assistant", "tool", "system"):
        return False
    cleaned, images = strip_images(text)
    ident = where.replace("[", "-").replace("]", "")
    if role == "tool":
        call_id = as_nonempty_text(record.get("tool_call_id"))
        answered = (
            session.tools.answer(call_id, cleaned) is not None
            if call_id is not None
            else _answer_by_position(session, cleaned)
        )
        if not answered:
            session.add(ident, "user", "tool_result", text=cleaned, images=list(images))
        return True
    if role == "assistant":
        calls = [c for r in record.get("tool_calls") or () if (c := session.call(r)) is not None]
        session.add(ident, "assistant", "message", text=cleaned, images=list(images), calls=calls)
        return True
    if role == "user":
        session.add(ident, "user", "message", text=cleaned, images=list(images))
    else:
        session.add(ident, "system", "notice", text=cleaned, images=list(images))
    return True


def read_legacy(path: Path, session: Session) -> Session:
    """Read a legacy session document at ``path`` into ``session``."""
    ledger = session.ledger
    with closing(bigjson.iter_kvitems(path, "")) as items:
        for item in items:
            if isinstance(item, bigjson.Malformed):
                ledger.bad("document", item.reason)  # what was read before the damage stays
                return session
            key, value = str(item.key), item.value
            if key == "chatMessages" and isinstance(value, list):
                for index, record in enumerate(value):
                    _record(session, record, f"chatMessages[{index}]")
            elif key == "timeline" and isinstance(value, list) and value:
                ledger.skip("timeline entry (told by the messages)", len(value))
            elif key == "startTime":
                session.started = as_datetime(value)
    ledger.use()  # the document's own fields
    return session


def _record(session: Session, record: object, where: str) -> None:
    if isinstance(record, dict) and _message(session, record, where):
        session.ledger.use()
    else:
        session.ledger.keep(where, as_text(dig(record, "role")), encode(record))
