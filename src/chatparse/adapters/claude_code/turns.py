"""The conversation lines: ``user``, ``assistant`` and ``system``.

One API response is written as one ``assistant`` line per content block, all sharing
``message.id`` and ``requestId``: they become one message. Prompts, commands and tool results
are ``user`` lines; results are paired with their calls, and a user line that carries only
results is not a message. Of ``system`` lines, compaction boundaries and local commands are
messages.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Final, TypeAlias

from chatparse.adapter import as_nonempty_text, drop_payloads, strip_images
from chatparse.adapters.claude_code.content import (
    block_image,
    blocks_of,
    is_result,
    read_user_text,
    result_text,
    share_text,
    typed,
)
from chatparse.adapters.claude_code.draft import Draft
from chatparse.decoders.jsonl import Line
from chatparse.model import ImageRef, MessageKind

if TYPE_CHECKING:
    from chatparse.adapters.claude_code.transcript import Transcript

__all__ = ["assistant_line", "system_line", "user_line"]

_REDACTED_THINKING: Final = "[redacted thinking]"
_SYNTHETIC_MODEL: Final = "<synthetic>"

_SYSTEM_KEPT: Final = frozenset({"compact_boundary", "local_command"})
"""``system`` subtypes that become messages; every other subtype is skipped as noise."""


# --- user lines --------------------------------------------------------------------------------


def user_line(transcript: Transcript, line: Line, record: dict[str, Any]) -> None:
    """A prompt, injected harness text, a command, or the results of tool calls."""
    message = record.get("message")
    if not isinstance(message, dict):
        transcript.keep_unknown(line, record)
        return
    blocks = blocks_of(message.get("content"))
    structured = record.get("toolUseResult")
    texts, images, orphans = _user_blocks(transcript, blocks, structured)
    if isinstance(structured, dict):
        _note_agent_spawn(transcript, structured, blocks)
    kind: MessageKind = "message"
    text = ""
    if texts or images:  # else a line of tool results only: no text to read
        kind, text = read_user_text("\n\n".join(texts), record)
        text, inline_images = strip_images(text)
        images += inline_images
    visible = bool(text or images) or kind in ("command", "command_output")
    if not visible and not orphans:
        # Only paired tool results (the calls hold them now), or only harness text.
        if texts and not any(is_result(block) for block in blocks):
            transcript.ledger.skip("harness-text-only")
        else:
            transcript.ledger.use()
        transcript.pass_through(record)
        return
    transcript.ledger.use()
    draft = transcript.new_draft(line, record, "user", "tool_result" if orphans else kind)
    draft.texts += orphans
    if visible:
        draft.texts.append(text)
        draft.images += images


def _user_blocks(
    transcript: Transcript, blocks: list[Any], structured: object = None
) -> tuple[list[str], list[ImageRef], list[str]]:
    """Sort a user line's blocks: its texts, its images, and results that found no call.

    ``structured`` is the line's ``toolUseResult``: the structured form of its one result.
    A line answers one call; should it ever hold several results, the structured form is
    given to the first, the only reading that loses nothing.
    """
    texts: list[str] = []
    images: list[ImageRef] = []
    orphans: list[str] = []
    for block in blocks:
        kind = block.get("type") if isinstance(block, dict) else None
        if kind == "tool_result":  # the most common block of user lines, so tested first
            orphan = _tool_result(transcript, block, structured)
            structured = None
            if orphan is not None:
                orphans.append(orphan)
        elif isinstance(block, str):
            texts.append(block)
        elif kind == "text" and isinstance(block.get("text"), str):
            texts.append(block["text"])
        elif kind == "image":
            images.append(block_image(block))
        else:
            transcript.odd_blocks[str(kind or type(block).__name__)] += 1
    return texts, images, orphans


def _tool_result(
    transcript: Transcript, block: Mapping[str, Any], structured: object = None
) -> str | None:
    """Pair a result with its call; return its text when there is no call to pair it with."""
    call_id = as_nonempty_text(block.get("tool_use_id"))
    output, images = result_text(block.get("content"))
    is_error = block.get("is_error")
    if not isinstance(is_error, bool):
        is_error = None
    call = transcript.calls.find(call_id) if call_id is not None else None
    if call is None:
        if structured is not None:
            # The orphan's text becomes a message; its structured form has no call to go to.
            transcript.ledger.warn(
                f"the structured result of orphan tool result {call_id} was not kept"
            )
        return output
    # A second result for one call is a replay: the first one stays. Its structured form may
    # hold the image again (a Read of a PNG): its images are those of the blocks, counted above.
    result, _ = drop_payloads(share_text(structured, output))
    answered = call.answer(output, is_error=is_error, result=result)
    if answered and images:
        transcript.callers[call].images += images
    return None


def _note_agent_spawn(
    transcript: Transcript, structured: Mapping[str, Any], blocks: list[Any]
) -> None:
    """Remember which tool call started which sub-agent (``toolUseResult.agentId``)."""
    if not isinstance(structured.get("agentId"), str):
        return
    for block in blocks:
        if isinstance(block, dict) and isinstance(block.get("tool_use_id"), str):
            transcript.agent_tool_uses[structured["agentId"]] = block["tool_use_id"]


# --- assistant lines ---------------------------------------------------------------------------


def assistant_line(
    transcript: Transcript, line: Line, record: dict[str, Any], above: str | None
) -> None:
    """One content block of a response; consecutive blocks of one response are merged.

    A line continues the message of its response (same ``message.id`` and ``requestId``)
    when it also chains to it: its nearest message above, ``above``, is that message.
    """
    message = record.get("message")
    if not isinstance(message, dict):
        transcript.keep_unknown(line, record)
        return
    api_id = as_nonempty_text(message.get("id"))
    request_id = as_nonempty_text(record.get("requestId"))
    model = as_nonempty_text(message.get("model"))
    responses = transcript.open_responses
    draft = responses.get((api_id, request_id)) if api_id is not None else None
    if draft is None or above != draft.id:
        error = record.get("isApiErrorMessage") is True
        kind: MessageKind = "notice" if model == _SYNTHETIC_MODEL or error else "message"
        draft = transcript.new_draft(line, record, "assistant", kind)
        draft.api_id, draft.request_id = api_id, request_id
        if api_id is not None:
            responses[api_id, request_id] = draft
            transcript.response_copies.setdefault(api_id, []).append(draft)
    else:
        uuid = as_nonempty_text(record.get("uuid"))
        if uuid is not None:
            transcript.up.setdefault(uuid, draft.id)
    if model != _SYNTHETIC_MODEL:
        if model is not None:
            draft.model = model
        usage = message.get("usage")
        if isinstance(usage, dict):
            draft.usage_raw = usage  # the last copy is the complete one
    transcript.ledger.use()
    for block in blocks_of(message.get("content")):
        _assistant_block(transcript, draft, block)


BlockReader: TypeAlias = Callable[["Transcript", Draft, dict[str, Any]], bool]
"""What reads one kind of block into its message; ``False`` when it does not understand it."""


def _assistant_block(transcript: Transcript, draft: Draft, block: Any) -> None:
    if isinstance(block, str):
        draft.texts.append(block)
        return
    kind = block.get("type") if isinstance(block, dict) else type(block).__name__
    # A type that is not a string (a list, an object) is no kind we know, nor hashable.
    read = _ASSISTANT_BLOCKS.get(kind) if type(kind) is str else None
    if read is None or not read(transcript, draft, block):
        transcript.odd_blocks[str(kind)] += 1


def _text_block(_transcript: Transcript, draft: Draft, block: dict[str, Any]) -> bool:
    text = block.get("text")
    if not isinstance(text, str):
        return False
    text, images = strip_images(text)
    draft.texts.append(text)
    if images:
        draft.images += images
    return True


def _thinking_block(_transcript: Transcript, draft: Draft, block: dict[str, Any]) -> bool:
    draft.think(as_nonempty_text(block.get("thinking")) or "")
    return True


def _redacted_thinking_block(_transcript: Transcript, draft: Draft, _block: object) -> bool:
    draft.think(_REDACTED_THINKING)  # encrypted by the API: marked, never decoded
    return True


def _tool_use_block(transcript: Transcript, draft: Draft, block: dict[str, Any]) -> bool:
    ident = as_nonempty_text(block.get("id"))
    arguments, _ = drop_payloads(block.get("input"))  # what the model wrote, not an image shown
    call = transcript.calls.call(ident, str(block.get("name") or ""), arguments)
    draft.calls.append(call)
    transcript.callers[call] = draft
    return True


def _image_block(_transcript: Transcript, draft: Draft, block: dict[str, Any]) -> bool:
    draft.images.append(block_image(block))
    return True


def _fallback_block(_transcript: Transcript, _draft: Draft, _block: object) -> bool:
    return True  # the model was switched mid-turn; the next model answers


_ASSISTANT_BLOCKS: Final[dict[str, BlockReader]] = {
    "text": _text_block,
    "thinking": _thinking_block,
    "redacted_thinking": _redacted_thinking_block,
    "tool_use": _tool_use_block,
    "image": _image_block,
    "fallback": _fallback_block,
}


# --- system lines ------------------------------------------------------------------------------


def system_line(transcript: Transcript, line: Line, record: dict[str, Any]) -> None:
    """Compaction boundaries and local commands are messages; other subtypes are noise."""
    subtype = as_nonempty_text(record.get("subtype"))
    content = record.get("content")
    if subtype not in _SYSTEM_KEPT or not isinstance(content, str):
        transcript.ledger.skip(typed("system", subtype))
        transcript.pass_through(record)
        return
    transcript.ledger.use()
    if subtype == "compact_boundary":
        _compact_boundary(transcript, line, record, content)
        return
    kind, text = read_user_text(content, record)
    draft = transcript.new_draft(line, record, "system", kind if kind != "message" else "notice")
    draft.texts.append(text)


def _compact_boundary(
    transcript: Transcript, line: Line, record: dict[str, Any], content: str
) -> None:
    """The notice where a compaction restarted the tree, linked to what came before it."""
    before = transcript.last_main_id
    draft = transcript.new_draft(line, record, "system", "notice")
    # The boundary starts a new root; its logical parent keeps the tree in one piece.
    # After a partial compaction that parent is a preserved message re-written *below*
    # the summary, which would close a loop: then the message read last stands in.
    logical = as_nonempty_text(record.get("logicalParentUuid"))
    if draft.raw_parent is None:
        known = logical is not None and (logical in transcript.ids or logical in transcript.up)
        draft.raw_parent = logical if known else before
    draft.texts.append(content)
