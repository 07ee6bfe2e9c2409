"""The interactive session store's lines: ``session_start``, then one ``message`` per line.

* ``session_start``: ``{id, title, sessionTitle, owner, version, cwd, ...}``: the session's own
  fields, one record.
* ``message``: ``{id, parentId, timestamp, message: {role, content: [blocks]}}``, Anthropic-style
  blocks: ``text``, ``thinking``, ``image``, ``tool_use {id, name, input}`` and ``tool_result
  {tool_use_id, content, is_error}``. Results sit in user lines and go into their calls; a user
  line of results only is no turn of its own. A message of another role is kept raw. Droid
  injects ``<system-reminder>`` elements into user text: they are removed (a line of nothing
  else is skipped as a reminder). ``parentId`` chains each line to the one before (the first
  names the session); it becomes ``parent_id`` where the parent line made a message.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from chatparse.adapter import (
    as_datetime,
    as_nonempty_text,
    dig,
)
from chatparse.adapters._anthropic.blocks import Blocks, sort_blocks
from chatparse.adapters.factory_droid.session import Session, output_text
from chatparse.decoders.text import strip_tags

__all__ = ["STORE_READERS"]

_INJECTED: Final = ("system-reminder",)
"""Elements Droid writes into user text for the model, not typed by the user."""


def _session_start(session: Session, record: dict[str, Any], _line: int) -> str | None:
    session.title = as_nonempty_text(record.get("sessionTitle")) or as_nonempty_text(
        record.get("title")
    )
    session.cwd = as_nonempty_text(record.get("cwd"))
    session.version = as_nonempty_text(record.get("version"))
    return None


def _answer_results(session: Session, blocks: Blocks, wanted: str, fields: dict[str, Any]) -> None:
    for block in blocks.results:
        output, result = output_text(block.get("content"))
        is_error = block.get("is_error") if isinstance(block.get("is_error"), bool) else None
        ident = as_nonempty_text(block.get("tool_use_id"))
        if session.tools.answer(ident, output, is_error=is_error, result=result) is None:
            session.add(wanted, "user", "tool_result", text=output or "", **fields)


def _message(session: Session, record: dict[str, Any], line: int) -> str | None:
    message = record.get("message")
    role = dig(message, "role")  # user or assistant: lines.py keeps any other raw
    blocks = sort_blocks(dig(message, "content"))
    line_id = as_nonempty_text(record.get("id"))
    parent = as_nonempty_text(record.get("parentId"))
    wanted = line_id or f"line-{line}"
    timed: dict[str, Any] = {"timestamp": as_datetime(record.get("timestamp")), "parent": parent}
    _answer_results(session, blocks, wanted, timed)
    blocks.warn_odd(session.ledger, f"line {line}")
    if role == "assistant":
        draft = session.add(
            wanted,
            "assistant",
            line_id=line_id,
            text=blocks.text(),
            thinking=blocks.reasoning(),
            images=blocks.images,
            **timed,
        )
        blocks.make_calls(draft, session.tools)
        return None
    typed = [text for text in (strip_tags(t, _INJECTED).strip() for t in blocks.texts) if text]
    if typed or blocks.images:
        session.add(
            wanted, "user", line_id=line_id, text="\n\n".join(typed), images=blocks.images, **timed
        )
    elif line_id is not None:
        session.aliases[line_id] = session.stand_in(parent)
    if not (typed or blocks.images or blocks.results):
        return "system reminder" if blocks.texts else "user message without content"
    return None


STORE_READERS: Final[dict[str, Callable[[Session, dict[str, Any], int], str | None]]] = {
    "session_start": _session_start,
    "message": _message,
}
"""The readers of the store's line types; each returns ``None`` when its line was used, else
why it was skipped."""
