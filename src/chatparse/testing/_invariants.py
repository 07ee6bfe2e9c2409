"""Invariants every parsed conversation must satisfy, whatever the adapter and the input."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any, Final

from chatparse.adapter.payloads import BASE64_LIMIT, looks_like_base64
from chatparse.errors import ModelError
from chatparse.model import ParsedConversation
from chatparse.serialize import deep_enough, from_dict, json_text, to_dict

__all__ = ["BASE64_LIMIT", "check_conversation", "looks_like_base64"]

_EXAMPLES: Final = 5


def _strings(value: Any, path: str) -> Iterator[tuple[str, str]]:
    """Every string in ``value`` (dict keys too) with its path, in document order.

    A stack, not recursion: a tool input may be nested as deep as the decoders accept (1,024).
    """
    pending: list[tuple[Any, str]] = [(value, path)]
    while pending:
        value, path = pending.pop()
        if isinstance(value, str):
            yield path, value
        elif isinstance(value, dict):
            inner: list[tuple[Any, str]] = []
            for key, item in value.items():
                if isinstance(key, str):
                    inner.append((key, f"{path}.<key {key[:40]!r}>"))
                inner.append((item, f"{path}.{key}"))
            pending.extend(reversed(inner))
        elif isinstance(value, list | tuple):
            pending.extend(
                (item, f"{path}[{index}]") for index, item in reversed(list(enumerate(value)))
            )


def _well_formed(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _limited(problems: list[str]) -> list[str]:
    if len(problems) <= _EXAMPLES:
        return problems
    return [*problems[:_EXAMPLES], f"... and {len(problems) - _EXAMPLES} more like these"]


def check_conversation(conversation: ParsedConversation, *, label: str = "") -> list[str]:
    """Every invariant a single parsed conversation breaks, one message each.

    Checks, for the conversation and each of its sub-agents: ``to_dict(c)`` is plain JSON data
    and ``from_dict(to_dict(c)) == c``;
    every string (keys included) is well-formed Unicode; no base64 payload longer than
    :data:`BASE64_LIMIT` characters survives, in any field (tool inputs and results, unknown
    records' ``raw`` text included); message ids are unique; :attr:`Diagnostics.balanced`
    holds; every usage has the one meaning (cache reads and writes are parts of
    ``input_tokens``, reasoning a part of ``output_tokens``); no user turn (a user message of
    kind ``"message"``) is made only of tool results.

    Args:
        conversation: What an adapter's ``parse`` returned.
        label: Prefixed to every message, such as ``"[toy/basic] "``.

    Returns:
        An empty list when every invariant holds.

    .. versionadded:: 0.1
    """
    return _check(conversation, f"{label}conversation {conversation.id!r}")


def _check_strings(data: dict[str, Any], who: str) -> list[str]:
    problems: list[str] = []
    broken: list[str] = []
    payloads: list[str] = []
    try:
        json_text(data)
    except (TypeError, ValueError) as exc:
        problems.append(f"{who}: to_dict(c) is not plain JSON data: {exc}")
    own = {key: value for key, value in data.items() if key != "subagents"}  # checked below
    for path, text in _strings(own, "$"):
        if not _well_formed(text):
            broken.append(f"{who}: {path} is not well-formed Unicode (a lone surrogate)")
        elif looks_like_base64(text):
            payloads.append(
                f"{who}: {path} holds a base64-looking payload over {BASE64_LIMIT} characters"
            )
    return problems + _limited(broken) + _limited(payloads)


def _check(conversation: ParsedConversation, who: str) -> list[str]:
    problems: list[str] = []
    data = to_dict(conversation)
    try:
        again = from_dict(ParsedConversation, data)
    except ModelError as exc:
        problems.append(f"{who}: from_dict(to_dict(c)) fails: {exc}")
    else:
        if deep_enough(lambda: again != conversation):
            problems.append(
                f"{who}: from_dict(to_dict(c)) != c; some value does not survive serialization "
                "(a tuple or datetime inside ToolCall.input, a NaN, a subclass of str?)"
            )
    problems += _check_strings(data, who)
    counts = Counter(message.id for message in conversation.messages)
    duplicates = sorted(message_id for message_id, count in counts.items() if count > 1)
    if duplicates:
        shown = ", ".join(repr(d) for d in duplicates[:_EXAMPLES])
        problems.append(f"{who}: message ids are not unique: {shown} appear more than once")
    diagnostics = conversation.diagnostics
    if not diagnostics.balanced:
        accounted = (
            diagnostics.records_used
            + diagnostics.malformed
            + sum(diagnostics.skipped.values())
            + len(diagnostics.unknown)
        )
        problems.append(
            f"{who}: diagnostics do not balance: records_seen={diagnostics.records_seen} but "
            f"used {diagnostics.records_used} + malformed {diagnostics.malformed} + skipped "
            f"{sum(diagnostics.skipped.values())} + unknown {len(diagnostics.unknown)} = "
            f"{accounted}"
        )
    problems += _limited(list(_usage_problems(conversation, who)))
    problems += _limited(list(_tool_result_turns(conversation, who)))
    for subagent in conversation.subagents:
        problems += _check(subagent, f"{who} > subagent {subagent.id!r}")
    return problems


def _usage_problems(conversation: ParsedConversation, who: str) -> Iterator[str]:
    """Usage that breaks the one meaning: cached tokens are part of input, reasoning of output."""
    for message in conversation.messages:
        usage = message.usage
        if usage is None:
            continue
        where = f"{who}: message {message.id!r}"
        cached = (usage.cache_read_tokens or 0) + (usage.cache_write_tokens or 0)
        if usage.input_tokens is not None and cached > usage.input_tokens:
            yield (
                f"{where}: cache reads and writes ({cached}) exceed input_tokens "
                f"({usage.input_tokens}); input_tokens must count every prompt token, cached ones "
                "included (docs/model.md, Usage)"
            )
        reasoning, output = usage.reasoning_tokens, usage.output_tokens
        if reasoning is not None and output is not None and reasoning > output:
            yield (
                f"{where}: reasoning_tokens ({reasoning}) exceed output_tokens ({output}); "
                "output_tokens must count every generated token, reasoning included"
            )


def _tool_result_turns(conversation: ParsedConversation, who: str) -> Iterator[str]:
    """User turns made only of tool results: a tool's output read as something a person typed.

    A user message of kind ``"message"`` is a turn a person typed. One that carries tool calls
    (their results) and neither text nor an image is a tool result dressed as a turn: results
    belong to the calls that asked for them.
    """
    for message in conversation.messages:
        if (
            message.tool_calls
            and message.role == "user"
            and message.kind == "message"
            and not message.images
            and (not message.text or message.text.isspace())
        ):
            yield (
                f"{who}: message {message.id!r} is a user turn (kind 'message') made only of "
                f"tool results ({len(message.tool_calls)} tool call(s), no text, no image). A "
                "result goes into the ToolCall.output of the call that asked for it, or into a "
                "message of kind 'tool_result' when that call is not in the conversation"
            )
