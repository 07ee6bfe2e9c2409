"""What an assistant entry holds besides its ``content``: the task Trae worked through.

``agentTaskContent`` = ``{"proposal", "proposalReasoningContent", "guideline": {"thought",
"planItems": [{"toolName", "thought", "reasoningContent"}...]}}``, sometimes as a JSON string.
The answer is ``content``, else the proposal, else the ``thought`` of the ``finish`` plan step,
else the guideline's ``thought``; the other plan steps are tool calls.
"""

from __future__ import annotations

from typing import Any, Final

from chatparse.adapter import Ledger, as_text, new_tool_call
from chatparse.adapters.trae.content import clean, content_of
from chatparse.adapters.trae.jsontext import (
    NotJSON,
    json_array,
    json_object,
    json_value,
    lenient_string,
    nonblank,
)
from chatparse.model import ImageRef, ToolCall

__all__ = ["FINISH_TOOL", "Answer", "answer_of", "model_of", "status_notice", "task_content"]

FINISH_TOOL: Final = "finish"
# Where a plan step keeps its arguments and result; not documented, so taken when present.
_STEP_INPUT_KEYS: Final = ("params", "toolParams", "input", "arguments", "args")
_STEP_OUTPUT_KEYS: Final = ("result", "toolResult", "output")
_STEP_ID_KEYS: Final = ("toolCallId", "id")
_MODEL_KEYS: Final = ("display_model_name", "model_name", "modelName", "config_name", "name")
_ERROR_KEYS: Final = ("errorMessage", "error_message", "errorMsg", "error")

_DONE: Final = frozenset({"completed", "complete", "success", "succeeded", "done", "finished"})
_FAILED: Final = ("failed", "fail", "error", "errored")
_CANCELLED: Final = ("cancelled", "canceled", "cancel", "aborted", "stopped", "interrupted")
_NOTICE_OF_STATUS: Final = {
    **dict.fromkeys(_FAILED, "Response failed"),
    **dict.fromkeys(_CANCELLED, "Response cancelled"),
}
"""The notice for a status (lower-cased) that says an answer did not complete."""

Answer = tuple[str, tuple[ImageRef, ...], str | None, list[ToolCall]]
"""An answer's text, images, reasoning and tool calls."""


def answer_of(entry: dict[str, Any], task: dict[str, Any]) -> Answer:
    """The answer an assistant entry gives, with ``task`` its ``agentTaskContent``.

    The reasoning is ``proposalReasoningContent``, then each plan step's ``reasoningContent``
    and, but for the ``finish`` step, its ``thought``; each other step that names a tool is a
    tool call.
    """
    text, images = clean(content_of(entry))
    guideline = json_object(task.get("guideline"))
    guideline = guideline if isinstance(guideline, dict) else {}
    thinking = [task.get("proposalReasoningContent")]  # what is not a string is dropped below
    tool_calls: list[ToolCall] = []
    finish_thought: str | None = None
    for step in json_array(guideline.get("planItems")):
        if not isinstance(step, dict):
            continue
        thinking.append(step.get("reasoningContent"))
        tool = as_text(step.get("toolName"))
        if tool == FINISH_TOOL:
            finish_thought = finish_thought or nonblank(step.get("thought"))
            continue
        thinking.append(step.get("thought"))
        if tool:
            tool_calls.append(_tool_call(tool, step))
    if not text:
        answer = (
            nonblank(task.get("proposal"))
            or finish_thought
            or nonblank(guideline.get("thought"))
            or ""
        )
        text, images = clean(answer)
    parts = [kept for part in thinking if isinstance(part, str) and (kept := part.strip())]
    return text, images, "\n\n".join(parts) or None, tool_calls


def task_content(position: int, entry: dict[str, Any], ledger: Ledger) -> dict[str, Any]:
    """``agentTaskContent`` as an object (empty when missing); damage is warned about.

    A damaged one still gives its proposal when that can be picked out of the text. ``meta``
    is checked here too: it is read by nothing, but its damage is worth a warning.
    """
    task = json_object(entry.get("agentTaskContent"))
    if isinstance(task, NotJSON):
        proposal = lenient_string(task.text, "proposal")
        recovered = "its proposal was recovered from the text" if proposal else "it was ignored"
        ledger.warn(f"messages[{position}]: agentTaskContent is not valid JSON; {recovered}")
        task = {"proposal": proposal} if proposal else None
    meta = entry.get("meta")
    if isinstance(meta, str) and isinstance(json_object(meta), NotJSON):
        ledger.warn(f"messages[{position}]: meta is not valid JSON; it was ignored")
    return task or {}


def _tool_call(name: str, step: dict[str, Any]) -> ToolCall:
    """A plan step that ran a tool; its arguments and result when the step records them."""
    arguments = _first(step, _STEP_INPUT_KEYS)
    if isinstance(arguments, str):
        decoded = json_value(arguments)
        arguments = arguments if isinstance(decoded, NotJSON) else decoded
    output = _first_text(step, _STEP_OUTPUT_KEYS, empty=True)
    call_id = _first_text(step, _STEP_ID_KEYS, empty=False)
    return new_tool_call(id=call_id, name=name, input=arguments, output=output)


# Loops, not ``next()`` over generators, and no predicate callables: they run for every plan
# step of every answer.
def _first(record: dict[str, Any], keys: tuple[str, ...]) -> Any:
    """The value of the first of ``keys`` that ``record`` holds (not null)."""
    if record.keys().isdisjoint(keys):  # as usual: one C call instead of a lookup per key
        return None
    for key in keys:
        value = record.get(key)
        if value is not None:
            return value
    return None


def _first_text(record: dict[str, Any], keys: tuple[str, ...], *, empty: bool) -> str | None:
    """The first string among ``keys`` in ``record``; an empty one counts only with ``empty``."""
    if record.keys().isdisjoint(keys):  # as usual: one C call instead of a lookup per key
        return None
    for key in keys:
        value = record.get(key)
        if isinstance(value, str) and (empty or value):
            return value
    return None


def status_notice(entry: dict[str, Any]) -> str | None:
    """A notice for an answer that failed or was cancelled, with the error when recorded."""
    status = as_text(entry.get("status"))
    if status is None or status in _DONE:  # "completed", as usual
        return None
    lowered = status.lower()
    if lowered in _DONE:
        return None
    error = next((e for k in _ERROR_KEYS if (e := nonblank(entry.get(k)))), None)
    detail = f": {error}" if error else ""
    return _NOTICE_OF_STATUS.get(lowered, f"Response status {status!r}") + detail


def model_of(info: object) -> str | None:
    """The model an answer names in its ``modelInfo`` (an object, or one in a JSON string)."""
    info = json_object(info)
    if not isinstance(info, dict):
        return None
    for key in _MODEL_KEYS:
        if model := nonblank(info.get(key)):
            return model
    return None
