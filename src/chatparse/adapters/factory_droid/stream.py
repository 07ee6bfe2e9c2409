"""The ``droid exec --output-format stream-json`` dialect: one event per line, flat.

Every line is ``{type, session_id, timestamp, ...}``; Droid prints them to its output, so such a
file exists only where a user redirected it (``parse_path`` reads one; a copy saved among the
sessions is read too). Types:

* ``system``: the run's ``model`` and ``cwd``;
* ``message``: ``{role, text}``, a prompt or an answer;
* ``tool_call``: ``{toolCallId, toolName, parameters}``, a call of the answer it follows (or of
  an answer of its own, when a prompt came last);
* ``tool_result``: ``{toolCallId, value, isError}``, paired to its call by id (without
  ``isError``, a ``value.exitCode`` other than 0 says it failed);
* ``completion``: ``{finalText}``, the run's final answer (skipped when the last answer already
  said it);
* ``error``: ``{message}``, kept as a notice.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from chatparse.adapter import (
    MessageDraft,
    as_datetime,
    as_nonempty_text,
    as_text,
    dig,
    drop_payloads,
)
from chatparse.adapters.factory_droid.session import Session, output_text

__all__ = ["STREAM_READERS", "stream_message"]


def _time(record: dict[str, Any]) -> dict[str, Any]:
    return {"timestamp": as_datetime(record.get("timestamp"))}


def _system(session: Session, record: dict[str, Any], _line: int) -> str | None:
    session.cwd = session.cwd or as_nonempty_text(record.get("cwd"))
    session.model = session.model or as_nonempty_text(record.get("model"))
    return None


def stream_message(session: Session, record: dict[str, Any], line: int) -> str | None:
    """A ``message`` line of the stream dialect: a prompt or an answer."""
    role = record.get("role")  # user or assistant: lines.py keeps any other raw
    text = as_text(record.get("text"))
    if text is None:
        return "message without text"
    wanted = as_nonempty_text(record.get("id")) or f"line-{line}"
    session.add(wanted, "user" if role == "user" else "assistant", text=text, **_time(record))
    return None


def _answer_for_calls(session: Session, record: dict[str, Any], line: int) -> MessageDraft:
    last = session.last("assistant")
    if last is not None:
        return last
    return session.add(f"line-{line}", "assistant", **_time(record))


def _tool_call(session: Session, record: dict[str, Any], line: int) -> str | None:
    name = as_nonempty_text(record.get("toolName")) or "unknown"
    ident = as_nonempty_text(record.get("toolCallId")) or as_nonempty_text(record.get("id"))
    arguments, _images = drop_payloads(record.get("parameters"))  # what the model wrote
    _answer_for_calls(session, record, line).calls.append(
        session.tools.call(ident, name, arguments)
    )
    return None


def _tool_result(session: Session, record: dict[str, Any], line: int) -> str | None:
    output, result = output_text(record.get("value"))
    ident = as_nonempty_text(record.get("toolCallId")) or as_nonempty_text(record.get("id"))
    flag, exit_code = record.get("isError"), dig(record, "value", "exitCode")
    is_error = (
        flag if isinstance(flag, bool) else exit_code != 0 if type(exit_code) is int else None
    )
    if session.tools.answer(ident, output, is_error=is_error, result=result) is None:
        session.add(f"line-{line}", "user", "tool_result", text=output or "", **_time(record))
    return None


def _completion(session: Session, record: dict[str, Any], line: int) -> str | None:
    final = as_text(record.get("finalText"))
    if final is None:
        return "completion without final text"
    last = session.last("assistant")
    if last is not None and last.text == final:
        return "completion (its final text is the last answer's)"
    session.add(f"line-{line}", "assistant", text=final, **_time(record))
    return None


def _error(session: Session, record: dict[str, Any], line: int) -> str | None:
    text = as_text(record.get("message")) or as_text(record.get("text")) or ""
    session.add(f"line-{line}", "system", "notice", text=text, **_time(record))
    return None


STREAM_READERS: Final[dict[str, Callable[[Session, dict[str, Any], int], str | None]]] = {
    "system": _system,
    "tool_call": _tool_call,
    "tool_result": _tool_result,
    "completion": _completion,
    "error": _error,
}
"""The readers of the stream dialect's line types other than ``message`` (which both dialects
have, told apart by shape); each returns ``None`` when its line was used, else why not."""
