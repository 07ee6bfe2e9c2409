"""How each kind of record is read, in three tables: top-level records, response items, events.

A reader takes the thread, the record's payload and its line number, and says what the record
came to (an :data:`~chatparse.adapters.codex.drafts.Outcome`): the message it went into, ``None``
for a record used otherwise, a skip reason, or ``UNKNOWN``. Kinds not in a table are unknown
and kept raw. One lookup per record: the skip readers are made once here, not per record.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Final, TypeAlias

from attrs import frozen

from chatparse.adapter import as_count, as_text, as_time, dig, drop_payloads
from chatparse.adapters.codex.content import (
    INJECTED_CONTEXT,
    INJECTED_EVENT_KINDS,
    content_images,
    content_texts,
    images,
    is_injected,
    tool_output,
)
from chatparse.adapters.codex.drafts import CALLS, EVENT, ITEM, REASONING, UNKNOWN, Copies, Replay
from chatparse.adapters.codex.locate import parent_of
from chatparse.decoders import value as jsonvalue

if TYPE_CHECKING:
    from chatparse.adapters.codex.drafts import Outcome
    from chatparse.adapters.codex.thread import Thread

__all__ = [
    "EVENTS",
    "ITEMS",
    "RECORDS",
    "SKIPPED_EVENTS",
    "SKIPPED_ITEMS",
    "SKIPPED_RECORDS",
    "label",
    "read_item",
    "read_unknown",
    "session_meta",
]

Reader: TypeAlias = "Callable[[Thread, dict[str, Any], int], Outcome]"

# Known records that carry nothing for the transcript, by top-level type ...
SKIPPED_RECORDS: Final = frozenset(
    {"world_state", "inter_agent_communication", "inter_agent_communication_metadata"}
)
# ... by response_item type ...
SKIPPED_ITEMS: Final = frozenset({"ghost_snapshot"})
# ... and by event_msg type: lifecycle markers, and events that repeat a response_item (the
# ``*_end`` events of tools whose call and output are response items) or the session index.
SKIPPED_EVENTS: Final = frozenset(
    {
        "task_started",
        "task_complete",
        "turn_started",
        "turn_complete",
        "context_compacted",
        "entered_review_mode",
        "exited_review_mode",
        "undo_completed",
        "agent_reasoning_raw_content",
        "agent_reasoning_section_break",
        "item_completed",
        "image_generation_end",
        "injected_message",
        "guardian_assessment",
        "web_search_end",
        "exec_command_end",
        "patch_apply_end",
        "mcp_tool_call_end",
        "view_image_tool_call",
        "collab_agent_spawn_end",
        "collab_agent_interaction_end",
        "collab_waiting_end",
        "collab_close_end",
        "collab_resume_end",
        "dynamic_tool_call_request",
        "dynamic_tool_call_response",
        "thread_settings_applied",
        "thread_goal_updated",
        "sub_agent_activity",
        "plan_update",
        "turn_diff",
        "background_event",
        "stream_error",
        "session_configured",
    }
)


def _skip(reason: str) -> Reader:
    """The reader of a kind of known noise: the record is counted as skipped for ``reason``."""
    return lambda _thread, _record, _line: reason


def read_unknown(_thread: Thread, _record: dict[str, Any], _line: int) -> Outcome:
    """The reader of every kind not listed: the record is kept raw."""
    return UNKNOWN


# --- top-level records ---------------------------------------------------------------------------


def session_meta(thread: Thread, meta: Mapping[str, Any], _line: int) -> str | None:
    """Who this thread is: the first meta of the file; later ones are a replayed parent's."""
    if thread.meta_seen:
        # A fork's copy of its parent's meta, or a later thread's: not this thread's.
        if thread.replay is not None and isinstance(meta.get("id"), str):
            thread.replay.owner = meta["id"]
        return "session_meta: not this thread's (replayed parent or later thread)"
    thread.meta_seen = True
    thread.id = as_text(meta.get("id"))
    thread.cwd = as_text(meta.get("cwd")) or thread.cwd
    thread.branch = as_text(dig(meta, "git", "branch"))
    thread.version = as_text(meta.get("cli_version"))
    thread.created_at = as_time(meta.get("timestamp"), "s") or thread.now
    parent = parent_of(meta)
    start = thread.now or thread.created_at
    if parent is not None and start is not None:
        thread.replay = Replay(owner=parent, last=start)
    return None


def turn_context(thread: Thread, context: dict[str, Any], _line: int) -> Outcome:
    """Settings of the turn: the model answering from here on, and the working folder."""
    thread.model = as_text(context.get("model")) or thread.model
    thread.cwd = thread.cwd or as_text(context.get("cwd"))
    return None


def compacted(thread: Thread, payload: dict[str, Any], line: int) -> Outcome:
    """A compaction summary, as a message of its own.

    Its ``replacement_history`` (the history the thread continues from) repeats lines already
    read earlier in the same file, so it is not read again.
    """
    return thread.compaction(as_text(payload.get("message")) or "", line)


def read_item(thread: Thread, item: dict[str, Any], line: int) -> Outcome:
    """A ``response_item``: what the model saw."""
    kind = item.get("type")
    # ``isinstance`` first: a list or object as the type is unhashable and crashed the lookup.
    read = ITEMS.get(kind, read_unknown) if isinstance(kind, str) else read_unknown
    return read(thread, item, line)


def read_event(thread: Thread, event: dict[str, Any], line: int) -> Outcome:
    """An ``event_msg``: what the person saw."""
    kind = event.get("type")
    # ``isinstance`` first, as in read_item.
    read = EVENTS.get(kind, read_unknown) if isinstance(kind, str) else read_unknown
    return read(thread, event, line)


# --- response items ------------------------------------------------------------------------------


def item_message(thread: Thread, item: dict[str, Any], line: int) -> Outcome:
    """A message item: an answer, a typed prompt, or context and instructions nobody typed."""
    role = item.get("role")
    content = item.get("content")
    if role == "assistant":
        return thread.answer(ITEM, "\n".join(content_texts(content)), line)
    if role in ("developer", "system"):
        return f"response_item/message: {role} instructions"
    if role != "user":
        return UNKNOWN
    texts = content_texts(content)
    typed = [t for t in texts if not is_injected(t)]
    if texts and not typed:
        thread.note_context(texts)
        return INJECTED_CONTEXT
    return thread.prompt(ITEM, "\n".join(typed), content_images(content), line)


def reasoning(thread: Thread, item: dict[str, Any], line: int) -> Outcome:
    """A reasoning item: its summary, else its raw text; encrypted reasoning alone is skipped."""
    summary = content_texts(item.get("summary"))
    if summary:
        return thread.thoughts(ITEM, summary, line)
    content = [t for t in content_texts(item.get("content")) if t.strip()]
    draft = thread.response(REASONING, line)
    if content:  # raw reasoning text, which has no event copy to wait for
        draft.thinking.append(Copies(text="\n\n".join(content)))
        return draft
    return "response_item/reasoning: no readable text"


def server_compaction(thread: Thread, _item: dict[str, Any], line: int) -> Outcome:
    """Compaction done by the server: where it happened is known, its summary is encrypted."""
    return thread.compaction("", line)


def agent_to_agent(thread: Thread, item: dict[str, Any], line: int) -> Outcome:
    """A message from another agent of a multi-agent thread, shown as a notice."""
    return thread.notice("\n".join(content_texts(item.get("content"))), line)


def _function_arguments(item: dict[str, Any]) -> Any:
    """A function call's arguments: decoded from their JSON text, or the text if it is not."""
    arguments = item.get("arguments")
    if isinstance(arguments, str):
        decoded = jsonvalue.decode(arguments)
        return arguments if isinstance(decoded, jsonvalue.Invalid) else decoded
    return arguments


@frozen
class _CallKind:
    """What a kind of tool call item holds."""

    tool: str | None
    """The tool's name; ``None``: the item's ``name``."""
    given: Callable[[dict[str, Any]], Any]
    """What the tool was given."""
    id_stands_in: bool = False
    """Whether the item's ``id`` stands in for a missing ``call_id``."""


_CALL_KINDS: Final = {
    "function_call": _CallKind(None, _function_arguments),
    "custom_tool_call": _CallKind(None, lambda item: item.get("input")),
    "tool_search_call": _CallKind("tool_search", lambda item: item.get("arguments")),
    "local_shell_call": _CallKind("local_shell", lambda item: item.get("action")),
    "web_search_call": _CallKind("web_search", lambda item: item.get("action"), id_stands_in=True),
    # The prompt, never the image it returned.
    "image_generation_call": _CallKind(
        "image_generation",
        lambda item: {"revised_prompt": item.get("revised_prompt")},
        id_stands_in=True,
    ),
}


def _tool_call(kind: _CallKind) -> Reader:
    """The reader of one kind of tool call."""
    tool, given, id_stands_in = kind.tool, kind.given, kind.id_stands_in

    def read(thread: Thread, item: dict[str, Any], line: int) -> Outcome:
        name = item.get("name") if tool is None else tool
        if not isinstance(name, str):
            return UNKNOWN
        call_id = as_text(item.get("call_id"))
        if id_stands_in:
            call_id = call_id or as_text(item.get("id"))
        draft = thread.response(CALLS, line)
        arguments, _images = drop_payloads(given(item))  # what the model wrote, not an image
        draft.calls.append(thread.calls.call(call_id, name, arguments))
        return draft

    return read


def tool_result(thread: Thread, item: dict[str, Any], line: int) -> Outcome:
    """A tool's output, given to its call; one whose call is not in the file is kept apart."""
    output: str | None
    failed: bool | None
    if item.get("type") == "tool_search_output":
        output, failed = _found_tools(item.get("tools")), None
    else:
        output, failed = tool_output(item.get("output"))
    call_id = as_text(item.get("call_id"))
    call = thread.calls.find(call_id) if call_id is not None else None
    if call is None:
        orphan = thread.add(line, "user", "tool_result")
        orphan.text = Copies(text=output or "")
        return orphan
    return None if call.answer(output, is_error=failed) else "response_item: tool output repeated"


def _found_tools(tools: object) -> str:
    """The names of the tools a tool search found."""
    names = [t.get("name") for t in tools if isinstance(t, dict)] if isinstance(tools, list) else []
    return ", ".join(n for n in names if isinstance(n, str))


# --- events --------------------------------------------------------------------------------------


def user_event(thread: Thread, event: dict[str, Any], line: int) -> Outcome:
    """A prompt as the person saw it, with its images; or, in older files, injected context."""
    message = event.get("message")
    if not isinstance(message, str):
        return UNKNOWN
    if event.get("kind") in INJECTED_EVENT_KINDS or is_injected(message):
        thread.note_context([message])
        return "event_msg/user_message: injected context"
    # Lists of URLs or paths; any other value (a damaged line) holds no image.
    listed = [event.get("images"), event.get("local_images")]
    urls = [url for found in listed if isinstance(found, list) for url in found]
    return thread.prompt(EVENT, message, images(urls), line)


def agent_message(thread: Thread, event: dict[str, Any], line: int) -> Outcome:
    """An answer as the person saw it."""
    message = event.get("message")
    return thread.answer(EVENT, message, line) if isinstance(message, str) else UNKNOWN


def agent_reasoning(thread: Thread, event: dict[str, Any], line: int) -> Outcome:
    """A reasoning summary as the person saw it."""
    text = event.get("text")
    return thread.thoughts(EVENT, [text], line) if isinstance(text, str) else UNKNOWN


def token_count(thread: Thread, event: dict[str, Any], line: int) -> Outcome:
    """Tokens spent: the usage of the response they follow (or skipped, when nothing new).

    It goes to the current response, else to the latest one of the turn still without usage;
    with no response to attach to, it makes a usage-only one, so spent tokens are never lost.
    """
    owner = thread.replay.owner if thread.replay is not None else (thread.id or "")
    usage = thread.tokens.usage(event, owner, counted=thread.replay is None)
    if isinstance(usage, str):
        return usage
    turn = thread.turn
    draft = turn.current
    if draft is None or draft.usage is not None:
        waiting = next((d for d in reversed(turn.responses) if d.usage is None), None)
        draft = waiting or thread.response(CALLS, line)
    draft.usage = usage
    draft.model = draft.model or as_text(dig(event, "info", "model"))
    thread.end_response()
    return draft


def turn_aborted(thread: Thread, event: dict[str, Any], line: int) -> Outcome:
    """The person stopped the turn (or it was replaced): a notice where it happened."""
    thread.end_response()
    return thread.notice(f"Turn aborted ({event.get('reason') or 'no reason given'})", line)


def rolled_back(thread: Thread, event: dict[str, Any], line: int) -> Outcome:
    """The last ``num_turns`` turns were undone."""
    return thread.roll_back(as_count(event.get("num_turns")) or 0, line)


def error(thread: Thread, event: dict[str, Any], line: int) -> Outcome:
    """An error the person was shown, as a notice."""
    message = event.get("message")
    return thread.notice(message, line) if isinstance(message, str) else UNKNOWN


def thread_renamed(thread: Thread, event: dict[str, Any], _line: int) -> Outcome:
    """A new name for the thread (the session index, read at scan, has the last one too)."""
    thread.thread_name = as_text(event.get("thread_name")) or thread.thread_name
    return None


# --- the tables ----------------------------------------------------------------------------------

RECORDS: Final[dict[str, Reader]] = {
    "session_meta": session_meta,
    "response_item": read_item,
    "event_msg": read_event,
    "turn_context": turn_context,
    "compacted": compacted,
    **{kind: _skip(kind) for kind in SKIPPED_RECORDS},
}
ITEMS: Final[dict[str, Reader]] = {
    "message": item_message,
    "reasoning": reasoning,
    **{name: _tool_call(kind) for name, kind in _CALL_KINDS.items()},
    "function_call_output": tool_result,
    "custom_tool_call_output": tool_result,
    "tool_search_output": tool_result,
    "compaction": server_compaction,
    "compaction_summary": server_compaction,
    "agent_message": agent_to_agent,
    **{kind: _skip(f"response_item/{kind}") for kind in SKIPPED_ITEMS},
}
EVENTS: Final[dict[str, Reader]] = {
    "user_message": user_event,
    "agent_message": agent_message,
    "agent_reasoning": agent_reasoning,
    "token_count": token_count,
    "turn_aborted": turn_aborted,
    "thread_rolled_back": rolled_back,
    "error": error,
    "thread_name_updated": thread_renamed,
    **{kind: _skip(f"event_msg/{kind}") for kind in SKIPPED_EVENTS},
}


def label(record: object) -> str | None:
    """An unknown record's type: ``<type>/<payload type>`` when it has both."""
    if not isinstance(record, dict):
        return None
    kind, payload = record.get("type"), record.get("payload")
    subtype = payload.get("type") if isinstance(payload, dict) else None
    if isinstance(kind, str) and isinstance(subtype, str):
        return f"{kind}/{subtype}"
    return kind if isinstance(kind, str) else None
