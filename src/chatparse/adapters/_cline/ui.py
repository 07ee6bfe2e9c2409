r"""``ui_messages.json``: the UI event log of a task, read for its requests or as the conversation.

Each row is a ``ClineMessage`` ``{ts, type: "say" | "ask", say | ask, text, images, partial,
conversationHistoryIndex, modelInfo, ...}``; many ``text`` fields hold JSON. Rows with
``partial: true`` are streaming states: one followed by a row of the same kind is superseded
by it (skipped), the last one stands.

Joined with the API history (:mod:`~chatparse.adapters._cline.history`), only the
``api_req_started`` rows are read, as :class:`Request` objects (each request's time, usage and
model); the other rows repeat the API history for the screen and are skipped. Without an API
history (it is missing, or unreadable), the log itself is the conversation
(:func:`read_log`): the prompt (``task``, or Roo's first ``text``), ``user_feedback``,
answers (``text``, ``completion_result``, ``followup``), ``reasoning``, tools (``tool``,
``command`` with ``command_output``, ``use_mcp_server`` with ``mcp_server_response``,
``browser_action`` with ``browser_action_result``), errors as notices, and one assistant
message per ``api_req_started`` carrying that request's usage.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any, Final

from attrs import define, field, frozen

from chatparse.adapter import (
    MessageDraft,
    as_epoch,
    as_nonempty_text,
    as_text,
    dig,
    drop_payloads,
    strip_images,
    strip_payloads,
)
from chatparse.adapters._cline.build import Builder
from chatparse.adapters._cline.files import Element
from chatparse.adapters._cline.usage import request_usage
from chatparse.model import ImageRef, Usage

__all__ = ["REQUEST", "Request", "decoded", "read_log", "read_requests", "row_kind", "row_time"]

REQUEST: Final = "api_req_started"

_SKIPPED: Final = {
    "api_req_finished": "request bookkeeping",
    "api_req_retried": "request bookkeeping",
    "api_req_retry_delayed": "request bookkeeping",
    "api_req_rate_limit_wait": "request bookkeeping",
    "api_req_deleted": "request bookkeeping",
    "deleted_api_reqs": "request bookkeeping",
    "error_retry": "request bookkeeping",
    "checkpoint_created": "checkpoint",
    "checkpoint_saved": "checkpoint",
    "task_progress": "progress checklist",
    "user_edit_todos": "progress checklist",
    "info": "UI notice",
    "shell_integration_warning": "UI notice",
    "too_many_tools_warning": "UI notice",
    "hook": "hook",
    "hook_output": "hook",
    "hook_status": "hook",
    "resume_task": "resume prompt",
    "resume_completed_task": "resume prompt",
    "auto_approval_max_req_reached": "approval prompt",
    "browser_action_launch": "UI notice",
    "mcp_server_request_started": "UI notice",
    "load_mcp_documentation": "UI notice",
    "generate_explanation": "UI notice",
    "image": "image shown",
    "codebase_search_result": "search shown",
    "sliding_window_truncation": "context truncated",
}
"""Rows of the log that are no part of the conversation, by their ``say`` / ``ask`` value."""

_NOTICES: Final = frozenset(
    {
        "error",
        "diff_error",
        "clineignore_error",
        "rooignore_error",
        "mistake_limit_reached",
        "api_req_failed",
        "condense_context_error",
        "subtask_result",
        "new_task",
        "report_bug",
        "condense",
        "summarize_task",
    }
)
"""Rows shown as the tool's own notices."""

_PAIRED_RESULTS: Final = {
    "command_output": "execute_command",
    "mcp_server_response": "use_mcp_tool",
    "browser_action_result": "browser_action",
}


@frozen
class Request:
    """One API request, from its ``api_req_started`` row."""

    timestamp: datetime | None
    usage: Usage | None
    history_index: int | None
    """The row's ``conversationHistoryIndex``: the API history's last index when it was sent."""
    model: str | None


def row_kind(row: dict[str, Any]) -> str | None:
    """The row's ``say`` or ``ask`` value."""
    return as_nonempty_text(row.get("ask" if row.get("type") == "ask" else "say"))


def row_time(row: dict[str, Any]) -> datetime | None:
    """The row's ``ts`` (epoch milliseconds)."""
    return as_epoch(row.get("ts"), "ms")


def decoded(row: dict[str, Any]) -> dict[str, Any]:
    """The row's ``text`` decoded as a JSON object; empty when it is not one."""
    text = as_text(row.get("text"))
    if not text or not text.lstrip().startswith("{"):
        return {}
    try:
        value = json.loads(text)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _superseded(rows: Sequence[Element], at: int) -> bool:
    row = rows[at][1]
    if row.get("partial") is not True or at + 1 >= len(rows):
        return False
    following = rows[at + 1][1]
    return following.get("type") == row.get("type") and row_kind(following) == row_kind(row)


def _history_index(value: object) -> int | None:
    """A ``conversationHistoryIndex``: -1 before the first message was added."""
    return value if type(value) is int and value >= -1 else None


def _request(row: dict[str, Any], key: str, builder: Builder) -> Request:
    info = decoded(row)
    return Request(
        timestamp=row_time(row),
        usage=request_usage(info, key, builder.problems),
        history_index=_history_index(row.get("conversationHistoryIndex")),
        model=as_nonempty_text(dig(row, "modelInfo", "modelId")),
    )


def read_requests(
    rows: Sequence[Element], builder: Builder, usage_key: Callable[[Element], str]
) -> list[Request]:
    """The requests of the log; every other row is skipped (the API history holds it)."""
    requests: list[Request] = []
    for element in rows:
        kind = row_kind(element[1])
        if kind == REQUEST:
            requests.append(_request(element[1], usage_key(element), builder))
        elif kind in _SKIPPED:
            builder.ledger.skip(_SKIPPED[kind])
        elif kind in _ROWS:
            builder.ledger.skip("shown from the API history")
        else:
            _keep(builder, element)
    return requests


def _keep(builder: Builder, element: Element) -> None:
    index, row = element
    builder.ledger.keep(f"ui_messages.json item {index}", row_kind(row), json.dumps(row))


@define
class _Log:
    """The state of reading the log as the conversation."""

    builder: Builder
    usage_key: Callable[[Element], str]
    answer: MessageDraft | None = None
    """The assistant message the latest request started, until a person speaks."""
    prompted: bool = False
    thinking: list[str] = field(factory=list)
    """Reasoning shown before any answer was open: the next answer's."""

    def images(self, row: dict[str, Any]) -> list[ImageRef]:
        found: list[ImageRef] = []
        for uri in row.get("images") or ():
            if isinstance(uri, str):
                found += strip_images(uri)[1]
        return found

    def assistant(self, element: Element) -> MessageDraft:
        """The open answer, or a new assistant message when it already has text."""
        index, row = element
        if self.answer is None or self.answer.text:
            self.answer = self.builder.add("assistant", f"ui-{index}", timestamp=row_time(row))
        if self.thinking:
            self.answer.thinking = "\n\n".join(filter(None, (self.answer.thinking, *self.thinking)))
            self.thinking = []
        return self.answer

    def user(self, element: Element, text: str) -> None:
        index, row = element
        cleaned, inline = strip_images(text)
        self.builder.add(
            "user",
            f"ui-{index}",
            text=cleaned.strip(),
            images=[*inline, *self.images(row)],
            timestamp=row_time(row),
        )
        self.answer, self.prompted = None, True

    def say_text(self, element: Element, text: str) -> None:
        if not self.prompted:
            self.user(element, text)
            return
        draft = self.assistant(element)
        draft.text = strip_payloads(text)[0].strip()
        if draft.timestamp is None:
            draft.timestamp = row_time(element[1])

    def request(self, element: Element) -> None:
        index, row = element
        request = _request(row, self.usage_key(element), self.builder)
        self.answer = self.builder.add(
            "assistant", f"ui-{index}", timestamp=request.timestamp, model=request.model
        )
        self.builder.give_usage(self.answer, request.usage)
        if self.thinking:
            self.answer.thinking, self.thinking = "\n\n".join(self.thinking), []

    def reasoning(self, text: str) -> None:
        """Reasoning for the open answer, or for the next one when none is open."""
        if self.answer is None:
            self.thinking.append(text)
        else:
            self.answer.thinking = "\n\n".join(filter(None, (self.answer.thinking, text)))

    def tool(self, element: Element, name: str, arguments: object) -> None:
        self.builder.call(self.assistant_for_call(element), None, name, drop_payloads(arguments)[0])

    def assistant_for_call(self, element: Element) -> MessageDraft:
        if self.answer is None:
            return self.assistant(element)
        return self.answer

    def notice(self, element: Element, text: str) -> None:
        index, row = element
        self.builder.add("system", f"ui-{index}", kind="notice", text=text, timestamp=row_time(row))


def _text(row: dict[str, Any]) -> str:
    return strip_payloads(as_text(row.get("text")) or "")[0]


_Handler = Callable[[_Log, Element, str, dict[str, Any]], bool]
"""Reads one row (its text, and its text decoded as JSON); ``False`` when it was skipped."""


def _prompt(log: _Log, element: Element, text: str, _info: dict[str, Any]) -> bool:
    log.user(element, text)
    return True


def _said(log: _Log, element: Element, text: str, _info: dict[str, Any]) -> bool:
    log.say_text(element, text)
    return True


def _answer(log: _Log, element: Element, text: str, info: dict[str, Any]) -> bool:
    answer = as_text(info.get("question")) or as_text(info.get("response")) or text
    if not answer.strip():
        log.builder.ledger.skip("empty prompt for approval")
        return False
    log.say_text(element, answer)
    return True


def _reasoning(log: _Log, element: Element, text: str, _info: dict[str, Any]) -> bool:
    log.reasoning(as_text(element[1].get("reasoning")) or text)
    return True


def _request_row(log: _Log, element: Element, _text: str, _info: dict[str, Any]) -> bool:
    log.request(element)
    return True


def _tool(name: str | None) -> _Handler:
    def read(log: _Log, element: Element, text: str, info: dict[str, Any]) -> bool:
        tool = name or as_nonempty_text(info.get("tool")) or "tool"
        log.tool(element, tool, {"command": text} if name == "execute_command" else info or text)
        return True

    return read


def _result(name: str) -> _Handler:
    def read(log: _Log, element: Element, text: str, _info: dict[str, Any]) -> bool:
        if not log.builder.answer(None, name, text):
            log.builder.add(
                "user",
                f"ui-{element[0]}",
                kind="tool_result",
                text=text,
                timestamp=row_time(element[1]),
            )
        return True

    return read


def _condensed(log: _Log, element: Element, text: str, _info: dict[str, Any]) -> bool:
    summary = as_text(dig(element[1], "contextCondense", "summary")) or text
    log.builder.add(
        "assistant",
        f"ui-{element[0]}",
        kind="compaction_summary",
        text=summary,
        timestamp=row_time(element[1]),
    )
    return True


def _notice(log: _Log, element: Element, text: str, _info: dict[str, Any]) -> bool:
    log.notice(element, text or row_kind(element[1]) or "")
    return True


_ROWS: Final[dict[str, _Handler]] = {
    "task": _prompt,
    "user_feedback": _prompt,
    "user_feedback_diff": _prompt,
    "text": _said,
    "completion_result": _answer,
    "followup": _answer,
    "plan_mode_respond": _answer,
    "act_mode_respond": _answer,
    "reasoning": _reasoning,
    REQUEST: _request_row,
    "tool": _tool(None),
    "command": _tool("execute_command"),
    "use_mcp_server": _tool("use_mcp_tool"),
    "browser_action": _tool("browser_action"),
    "condense_context": _condensed,
    **{kind: _result(name) for kind, name in _PAIRED_RESULTS.items()},
    **dict.fromkeys(_NOTICES, _notice),
}


def _read_row(log: _Log, element: Element) -> None:
    row = element[1]
    kind = row_kind(row)
    handler = _ROWS.get(kind) if kind is not None else None
    if handler is not None:
        if handler(log, element, _text(row), decoded(row)):
            log.builder.ledger.use()
    elif kind in _SKIPPED:
        log.builder.ledger.skip(_SKIPPED[kind])
    else:
        _keep(log.builder, element)


def read_log(
    rows: Sequence[Element], builder: Builder, usage_key: Callable[[Element], str]
) -> None:
    """The log as the conversation, into ``builder``."""
    log = _Log(builder, usage_key)
    for at, element in enumerate(rows):
        if _superseded(rows, at):
            builder.ledger.skip("streaming fragment")
        else:
            _read_row(log, element)
