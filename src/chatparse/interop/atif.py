"""Conversations as ATIF trajectories (Agent Trajectory Interchange Format v1.7, Harbor RFC 0001).

ATIF is the trajectory format of Harbor and Terminal-Bench, exchanged by evaluation and training
pipelines. :func:`to_atif` makes one trajectory per conversation: one step per message, numbered
from 1 (a response split over several records is already one :class:`~chatparse.model.Message`),
tool calls with their results on the step that made them, token counts as per-step ``metrics``
and ``final_metrics``, sub-agents embedded as ``subagent_trajectories``.

What ATIF has no field for is kept in ``extra`` (the step's, or the trajectory's
``extra.chatparse``), and ``extra.chatparse`` counts what could not be exported at all
(``not_exported``) and what was changed to fit (``adapted``). The mapping is in
``docs/interop.md``.

Needs no extra.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any, Final

from chatparse.interop.openai import tool_arguments, tool_call_ids
from chatparse.model import Message, MessageKind, ParsedConversation, Role, Usage

__all__ = ["SCHEMA_VERSION", "to_atif"]

SCHEMA_VERSION: Final = "ATIF-v1.7"
"""The ``schema_version`` every trajectory :func:`to_atif` makes declares."""

_SOURCES: Final[dict[Role, str]] = {"user": "user", "assistant": "agent", "system": "system"}
# Kinds that are system steps whatever role the source gave them: a compaction summary replaces
# the context window (the RFC's context_management convention is for system steps), an orphan
# tool result is environment feedback, not something a person typed.
_SYSTEM_KINDS: Final[frozenset[MessageKind]] = frozenset({"compaction_summary", "tool_result"})
_COMPACTION: Final = {"type": "compaction", "boundary": "replace"}
_NOT_EXPORTED: Final = ("structured_tool_results", "unknown_records")
_ADAPTED: Final = (
    "agent_fields_in_extra",
    "placeholder_steps",
    "steps_made_system",
    "tool_call_ids_made",
    "tool_inputs_wrapped",
)


def to_atif(conversation: ParsedConversation, *, main_thread: bool = False) -> dict[str, Any]:
    """The conversation as an ATIF v1.7 trajectory: a JSON-ready dict.

    Args:
        conversation: The conversation, with its sub-agents (embedded as
            ``subagent_trajectories``, each with a ``trajectory_id`` unique among its siblings).
        main_thread: Only the messages of :meth:`~chatparse.model.ParsedConversation.main_thread`
            (root to newest leaf); by default every message, side branches marked
            ``extra.is_sidechain``.

    .. versionadded:: 0.2
    """
    return _trajectory(conversation, main_thread=main_thread, embedded_as=None)


def _trajectory(
    conversation: ParsedConversation, *, main_thread: bool, embedded_as: str | None
) -> dict[str, Any]:
    counts: Counter[str] = Counter(dict.fromkeys((*_NOT_EXPORTED, *_ADAPTED), 0))
    counts["unknown_records"] = len(conversation.diagnostics.unknown)
    messages = conversation.main_thread() if main_thread else conversation.messages
    steps = [_step(number, message, counts) for number, message in enumerate(messages, start=1)]
    recorded_steps = len(steps)
    if not steps:  # Harbor's validator wants at least one step
        steps = [{"step_id": 1, "source": "system", "message": "", "extra": {"placeholder": True}}]
        counts["placeholder_steps"] = 1
    subagents = [
        _trajectory(subagent, main_thread=main_thread, embedded_as=trajectory_id)
        for subagent, trajectory_id in zip(
            conversation.subagents, _unique(s.id for s in conversation.subagents), strict=True
        )
    ]
    return _present(
        schema_version=SCHEMA_VERSION,
        # Run-scoped in v1.7: an embedded sub-agent inherits its parent's.
        session_id=conversation.id if embedded_as is None else None,
        trajectory_id=conversation.id if embedded_as is None else embedded_as,
        agent=_present(
            name=conversation.source,
            version=conversation.producer_version or "unknown",
            model_name=main_model(messages),
        ),
        steps=steps,
        notes=_notes(conversation, placeholder=not recorded_steps),
        final_metrics=_final_metrics(steps, recorded_steps),
        extra={"chatparse": _conversation_extra(conversation, counts)},
        subagent_trajectories=subagents or None,
    )


def _step(number: int, message: Message, counts: Counter[str]) -> dict[str, Any]:
    source = "system" if message.kind in _SYSTEM_KINDS else _SOURCES[message.role]
    counts["steps_made_system"] += source != _SOURCES[message.role]
    calls, results = _tool_calls(message, counts)
    agent_fields = _present(
        model_name=message.model,
        reasoning_content=message.thinking,
        tool_calls=calls or None,
        observation={"results": results} if results else None,
        metrics=_metrics(message.usage),
    )
    extra = _step_extra(message, source)
    if source != "agent" and agent_fields:  # the validator allows them on agent steps only
        extra["agent_fields"] = agent_fields
        counts["agent_fields_in_extra"] += 1
        agent_fields = {}
    return _present(
        step_id=number,
        timestamp=_time(message.timestamp),
        source=source,
        model_name=agent_fields.get("model_name"),
        message=message.text,
        reasoning_content=agent_fields.get("reasoning_content"),
        tool_calls=agent_fields.get("tool_calls"),
        observation=agent_fields.get("observation"),
        metrics=agent_fields.get("metrics"),
        # The summary restates earlier context; the RFC asks such steps to be marked so that
        # fine-tuning sets leave them out.
        is_copied_context=True if message.kind == "compaction_summary" else None,
        extra=extra,
    )


def _tool_calls(
    message: Message, counts: Counter[str]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    calls: list[dict[str, Any]] = []
    results: list[dict[str, Any]] = []
    for call, call_id in zip(message.tool_calls, tool_call_ids(message), strict=True):
        counts["tool_call_ids_made"] += call.id is None
        counts["tool_inputs_wrapped"] += not isinstance(call.input, dict)
        counts["structured_tool_results"] += call.result is not None
        calls.append(
            {"tool_call_id": call_id, "function_name": call.name, "arguments": tool_arguments(call)}
        )
        if call.output is not None or call.is_error is not None:
            error = None if call.is_error is None else {"is_error": call.is_error}
            results.append(_present(source_call_id=call_id, content=call.output, extra=error))
    return calls, results


def _metrics(usage: Usage | None) -> dict[str, Any] | None:
    """ATIF metrics of a counted usage: its prompt tokens include cached ones, as ours do."""
    if usage is None or not usage.counted:
        return None
    return _usage_metrics(usage) or None


def _usage_metrics(usage: Usage) -> dict[str, Any]:
    extra = _present(
        cache_creation_input_tokens=usage.cache_write_tokens,
        reasoning_tokens=usage.reasoning_tokens,
    )
    return _present(
        prompt_tokens=usage.input_tokens,
        completion_tokens=usage.output_tokens,
        cached_tokens=usage.cache_read_tokens,
        extra=extra or None,
    )


def _step_extra(message: Message, source: str) -> dict[str, Any]:
    usage = message.usage
    return _present(
        message_id=message.id,
        parent_id=message.parent_id,
        role=message.role if source != _SOURCES[message.role] else None,
        kind=None if message.kind == "message" else message.kind,
        context_management=_COMPACTION if message.kind == "compaction_summary" else None,
        is_sidechain=message.is_sidechain or None,
        timestamp_synthesized=message.timestamp_synthesized or None,
        request_id=message.request_id,
        images=[
            _present(media_type=image.media_type, byte_size=image.byte_size)
            for image in message.images
        ]
        or None,
        usage_dedup_key=None if usage is None else usage.dedup_key,
        # A copy of a response counted elsewhere: outside `metrics`, so that the step metrics
        # add up to `final_metrics` and to chatparse's own totals.
        uncounted_metrics=None if usage is None or usage.counted else _usage_metrics(usage),
    )


def _final_metrics(steps: Sequence[dict[str, Any]], recorded_steps: int) -> dict[str, Any]:
    metrics = [step["metrics"] for step in steps if "metrics" in step]
    extras = [m["extra"] for m in metrics if "extra" in m]
    totals = _present(
        total_cache_creation_input_tokens=_total(extras, "cache_creation_input_tokens"),
        total_reasoning_tokens=_total(extras, "reasoning_tokens"),
    )
    return _present(
        total_prompt_tokens=_total(metrics, "prompt_tokens"),
        total_completion_tokens=_total(metrics, "completion_tokens"),
        total_cached_tokens=_total(metrics, "cached_tokens"),
        total_steps=recorded_steps,
        extra=totals or None,
    )


def _total(rows: Iterable[dict[str, Any]], key: str) -> int | None:
    values = [row[key] for row in rows if key in row]
    return sum(values) if values else None


def _conversation_extra(conversation: ParsedConversation, counts: Counter[str]) -> dict[str, Any]:
    diagnostics = conversation.diagnostics
    return {
        "source": conversation.source,
        "conversation_id": conversation.id,
        "title": conversation.title,
        "project_path": conversation.project_path,
        "git_branch": conversation.git_branch,
        "created_at": _time(conversation.created_at),
        "updated_at": _time(conversation.updated_at),
        "parser_version": conversation.parser_version,
        "producer_version": conversation.producer_version,
        "diagnostics": {
            "records_seen": diagnostics.records_seen,
            "records_used": diagnostics.records_used,
            "malformed": diagnostics.malformed,
            "skipped": dict(diagnostics.skipped),
            "unknown": len(diagnostics.unknown),
            "warnings": list(diagnostics.warnings),
        },
        "not_exported": {name: counts[name] for name in _NOT_EXPORTED},
        "adapted": {name: counts[name] for name in _ADAPTED},
    }


def _notes(conversation: ParsedConversation, *, placeholder: bool) -> str:
    notes = (
        f"Exported by chatparse from a {conversation.source} conversation. extra.chatparse "
        "counts what ATIF could not hold (not_exported) and what was changed to fit it (adapted)."
    )
    if placeholder:
        notes += (
            " The source recorded no messages: the one step is a placeholder, so"
            " final_metrics.total_steps is 0."
        )
    return notes


def main_model(messages: Iterable[Message]) -> str | None:
    """The model that wrote most of the assistant messages (the first seen on a tie)."""
    models = Counter(m.model for m in messages if m.role == "assistant" and m.model is not None)
    return models.most_common(1)[0][0] if models else None


def _unique(ids: Iterable[str]) -> list[str]:
    """The ids, a repeated one made unique as ``id#2``, ``id#3``... (ATIF requires it)."""
    used: set[str] = set()
    out: list[str] = []
    for value in ids:
        candidate, number = value, 1
        while candidate in used:
            number += 1
            candidate = f"{value}#{number}"
        used.add(candidate)
        out.append(candidate)
    return out


def _time(value: datetime | None) -> str | None:
    # Model datetimes are UTC already.
    return None if value is None else value.isoformat().replace("+00:00", "Z")


def _present(**fields: Any) -> dict[str, Any]:
    """The fields that are not ``None``, in the order given: ATIF leaves absent fields out."""
    return {name: value for name, value in fields.items() if value is not None}
