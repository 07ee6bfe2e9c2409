"""How each kind of message (``message.role`` of a ``message`` entry) becomes a model message.

``user``
    a ``user`` message (the source's gateway wrapper removed);
``assistant``
    an ``assistant`` message: text, thinking, tool calls, usage, model; a failed request with
    nothing in it is a ``notice`` holding its ``errorMessage``;
``toolResult``
    paired into its call by ``toolCallId`` (an orphan becomes a ``tool_result`` message);
``bashExecution``, ``pythonExecution``
    what the person ran (``!cmd``): a ``command``, and its ``command_output``;
``custom``, ``hookMessage``
    an extension's message sent to the model: a ``user`` ``notice``;
``fileMention``
    files put into the context with ``@``: a ``user`` ``notice`` naming them;
``developer``, ``system``
    a ``system`` ``notice``;
``branchSummary``, ``compactionSummary``
    a ``system`` ``compaction_summary``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final, TypeAlias

from chatparse.adapter import as_nonempty_text, as_text
from chatparse.adapters._pi.content import read_blocks, result_text, scrub, single_text
from chatparse.adapters._pi.reading import UNKNOWN, Bad, Outcome, Reading
from chatparse.adapters._pi.usage import FAILED_STOPS, dedup_key, response_usage
from chatparse.model import ImageRef, MessageKind

__all__ = ["ROLES", "read_message", "summary"]

RoleReader: TypeAlias = Callable[[Reading, dict[str, Any]], Outcome]


def read_message(reading: Reading, entry: dict[str, Any]) -> Outcome:
    """A ``message`` entry, by its message's role."""
    message = entry.get("message")
    if type(message) is not dict:
        return Bad("a message entry without a message object")
    reading.message_time = message.get("timestamp")
    role = message.get("role")
    read = ROLES.get(role) if type(role) is str else None
    return UNKNOWN if read is None else read(reading, message)


def user(reading: Reading, message: dict[str, Any]) -> Outcome:
    """What the person typed."""
    content = message.get("content")
    single = single_text(content)
    if single is not None:
        reading.add("user", "message", reading.dialect.prompt_text(single))
        return None
    found = read_blocks(content)
    if found.odd:
        _odd(reading, found.odd)
    reading.add("user", "message", reading.dialect.prompt_text(found.text()), images=found.images)
    return None


def assistant(reading: Reading, message: dict[str, Any]) -> Outcome:
    """One response: its text, reasoning, tool calls and usage."""
    get = message.get
    found = read_blocks(get("content"))
    if found.odd:
        _odd(reading, found.odd)
    dialect = reading.dialect
    model = as_text(get("model"))
    if dialect.injected and (as_text(get("provider")), model) in dialect.injected:
        reading.add("system", "notice", found.text(), images=found.images)
        return None
    text = dialect.answer_text(found.text()) if found.texts else ""
    thinking = "\n\n".join(found.thinking) if found.thinking else None
    kind: MessageKind = "message"
    if not (text or thinking or found.calls) and as_text(get("stopReason")) in FAILED_STOPS:
        kind, text = "notice", as_nonempty_text(get("errorMessage")) or ""
    usage = response_usage(message, dedup_key(dialect.source, message, reading.time_text))
    request = as_nonempty_text(get("responseId"))
    if not found.calls:
        reading.add(
            "assistant",
            kind,
            text,
            thinking=thinking,
            images=found.images,
            model=model,
            usage=usage,
            request_id=request,
        )
        return None
    draft = reading.add_answerable(
        text, thinking=thinking, images=found.images, model=model, usage=usage, request_id=request
    )
    for block in found.calls:
        images: list[ImageRef] = []
        arguments = scrub(block.get("arguments"), images)
        call = reading.tools.call(
            as_nonempty_text(block.get("id")), as_text(block.get("name")) or "", arguments
        )
        draft.calls.append(call)
        draft.images += images
        reading.callers[id(call)] = draft
    return None


def tool_result(reading: Reading, message: dict[str, Any]) -> Outcome:
    """A tool's answer, paired into its call; an answer to no call is kept as a message."""
    output, images = result_text(message.get("content"))
    details = scrub(message.get("details"), images) if "details" in message else None
    is_error = message.get("isError")
    repeated = reading.tools.repeated
    call = reading.tools.answer(
        as_nonempty_text(message.get("toolCallId")),
        output,
        is_error=is_error if isinstance(is_error, bool) else None,
        result=details,
    )
    if call is None:
        reading.add("user", "tool_result", output, images=images)
        return None
    if reading.tools.repeated > repeated:
        return "toolResult: repeated result (the first stays)"
    if images:
        reading.callers[id(call)].images += images
    return None


def _execution(field: str) -> RoleReader:
    """The reader of a command the person ran in the TUI, whose source is in ``field``."""

    def read(reading: Reading, message: dict[str, Any]) -> Outcome:
        command = as_text(message.get(field)) or ""
        reading.add("user", "command", f"!{command}" if field == "command" else command)
        output, images = result_text(message.get("output"))
        code = message.get("exitCode")
        if type(code) is int and code != 0:
            output = f"{output}\n[exit code {code}]" if output else f"[exit code {code}]"
        if message.get("cancelled") is True:
            output = f"{output}\n[cancelled]" if output else "[cancelled]"
        reading.add("user", "command_output", output, suffix=":output", images=images)
        return None

    return read


def injected(reading: Reading, message: dict[str, Any]) -> Outcome:
    """An extension's message sent to the model as if the person wrote it."""
    found = read_blocks(message.get("content"))
    reading.add("user", "notice", found.text(), images=found.images)
    return None


def instructions(reading: Reading, message: dict[str, Any]) -> Outcome:
    """Instructions written into the conversation by the tool rather than by a participant."""
    found = read_blocks(message.get("content"))
    reading.add("system", "notice", found.text(), images=found.images)
    return None


def summary(reading: Reading, record: dict[str, Any]) -> Outcome:
    """A summary that stands for earlier history: a ``compaction`` or ``branch_summary`` entry.

    As a message role, only built in memory by Pi; read all the same if another writer keeps it.
    """
    reading.add("system", "compaction_summary", as_text(record.get("summary")) or "")
    return None


def file_mention(reading: Reading, message: dict[str, Any]) -> Outcome:
    """Files put into the context with ``@path``: named; their contents are copies of the files."""
    files = message.get("files")
    paths = [
        path
        for item in (files if isinstance(files, list) else [])
        if isinstance(item, dict) and (path := as_nonempty_text(item.get("path")))
    ]
    reading.add("user", "notice", "\n".join(f"@{path}" for path in paths))
    return None


def _odd(reading: Reading, kinds: list[str]) -> None:
    for kind in kinds:
        reading.ledger.warn_once(f"content blocks of unknown type {kind!r} were left out")


ROLES: Final[Mapping[str, RoleReader]] = {
    "user": user,
    "assistant": assistant,
    "toolResult": tool_result,
    "bashExecution": _execution("command"),
    "pythonExecution": _execution("code"),
    "custom": injected,
    "hookMessage": injected,
    "fileMention": file_mention,
    "developer": instructions,
    "system": instructions,
    "branchSummary": summary,
    "compactionSummary": summary,
}
"""The reader of each ``message.role``; a role not in it is kept raw."""
