"""From one OpenCode message, once its parts are read, to chatparse messages.

An OpenCode message becomes one :class:`~chatparse.model.Message` with its own id, plus:

- a ``notice`` message (id ``<message id>/injected``) holding the text OpenCode added to it
  (``synthetic`` and ``ignored`` parts); a user message holding nothing else *is* that notice;
- for an assistant message that ended in an error (``error: {name, data: {message}}``), a
  ``system`` ``notice`` (id ``<message id>/error``) saying so.

An assistant message with ``summary: true`` is a ``compaction_summary``; one of the
``legacy`` provider (a task Kilo 7.x migrated from 4.x-5.x) has no model. Times are the message's
``time.created`` (epoch ms), else its row's ``time_created``. ``parentID`` (the prompt an answer
replies to) is not a tree: OpenCode writes one assistant message per step, and several answer one
prompt in turn, so messages are a plain list (``parent_id`` is ``None``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any, Final

from chatparse.adapter import UniqueIds, as_epoch, as_nonempty_text, dig, new_message
from chatparse.adapters._opencode.parts import Body, Draft
from chatparse.adapters._opencode.usage import Counting, message_usage
from chatparse.model import Message

__all__ = ["MIGRATED_PROVIDER", "ROLES", "finish"]

MIGRATED_PROVIDER: Final = "legacy"
"""The ``providerID`` (and ``modelID``) Kilo 7.x writes on the messages it migrated from a
4.x-5.x task, which records no model: such a message has no model."""


def _joined(texts: list[str]) -> str:
    return texts[0] if len(texts) == 1 else "\n\n".join(texts)


def _injected(draft: Draft, ids: UniqueIds, when: datetime | None, *, own_id: bool) -> Message:
    body = draft.injected
    ident = draft.record.id if own_id else f"{draft.record.id}/injected"
    return new_message(
        id=ids.take(ident),
        role="user" if draft.info.get("role") == "user" else "assistant",
        text=_joined(body.texts),
        images=body.images,
        timestamp=when,
        is_sidechain=draft.reverted,
        kind="notice",
    )


def _user(
    draft: Draft, ids: UniqueIds, when: datetime | None, _counting: Counting
) -> list[Message]:
    main = draft.main
    if draft.injected.texts and not (main.texts or main.images or draft.kind != "message"):
        return [_injected(draft, ids, when, own_id=True)]
    message = new_message(
        id=ids.take(draft.record.id),
        role="user",
        text=_joined(main.texts) if main.texts else "",
        images=main.images,
        timestamp=when,
        is_sidechain=draft.reverted,
        kind=draft.kind,
    )
    if not draft.injected.texts:
        return [message]
    return [message, _injected(draft, ids, when, own_id=False)]


def _error_text(error: object) -> str | None:
    if not isinstance(error, dict):
        return None
    name = as_nonempty_text(error.get("name")) or "Error"
    detail = as_nonempty_text(dig(error, "data", "message"))
    return f"{name}: {detail}" if detail else name


def _model(info: Mapping[str, Any]) -> str | None:
    """The message's ``modelID``, unless it is the placeholder of Kilo's migrated tasks."""
    if info.get("providerID") == MIGRATED_PROVIDER:
        return None
    return as_nonempty_text(info.get("modelID"))


def _assistant(
    draft: Draft, ids: UniqueIds, when: datetime | None, counting: Counting
) -> list[Message]:
    info = draft.info
    main: Body = draft.main
    messages = [
        new_message(
            id=ids.take(draft.record.id),
            role="assistant",
            text=_joined(main.texts) if main.texts else "",
            thinking=_joined(draft.thinking) if draft.thinking else None,
            tool_calls=[call.freeze() for call in draft.calls],
            images=main.images,
            timestamp=when,
            model=_model(info),
            usage=message_usage(info, draft.steps, apart=counting.apart, source=counting.source),
            is_sidechain=draft.reverted,
            kind="compaction_summary" if info.get("summary") is True else "message",
        )
    ]
    if draft.injected.texts:
        messages.append(_injected(draft, ids, when, own_id=False))
    error = _error_text(info.get("error"))
    if error is not None:
        messages.append(
            new_message(
                id=ids.take(f"{draft.record.id}/error"),
                role="system",
                text=error,
                timestamp=when,
                is_sidechain=draft.reverted,
                kind="notice",
            )
        )
    return messages


_FINISH: Final[
    dict[str, Callable[[Draft, UniqueIds, datetime | None, Counting], list[Message]]]
] = {
    "user": _user,
    "assistant": _assistant,
}

ROLES: Final = frozenset(_FINISH)
"""The message roles OpenCode writes; a message of any other role is kept raw."""


def finish(draft: Draft, ids: UniqueIds, counting: Counting) -> list[Message]:
    """The messages one OpenCode message (its parts read) becomes; ``counting`` reads its usage."""
    when = as_epoch(draft.record.created, "ms")
    return _FINISH[str(draft.info.get("role"))](draft, ids, when, counting)
