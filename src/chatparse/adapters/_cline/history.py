"""``api_conversation_history.json``: what was sent to the model, joined with the UI log's requests.

The file is a JSON array of Anthropic messages ``{role, content}``, plus what each fork adds:
Cline's ``modelInfo`` and ``metrics`` (late 2025), Roo Code's ``ts``, ``isSummary`` (a
condensed context's summary), ``isTruncationMarker``, ``condenseParent`` /
``truncationParent`` (messages the summary or marker hides from the model, kept here as they
are: the file keeps them, and so do we) and OpenAI reasoning items stored as their own
elements ``{type: "reasoning", summary, encrypted_content}`` (their summary becomes the next
answer's thinking).

Each request of the UI log (:class:`~chatparse.adapters._cline.ui.Request`) is paired with the
assistant message that answers it: by ``conversationHistoryIndex`` (the first assistant message
after the index the request was sent at) when every request records one, else by position.
The answer takes the request's usage, and its time when the message records none; a user
message without a time takes that of the request that sent it, the first prompt that of the
log's first row (the prompt's own row). A request no answer is found for (cancelled, failed)
is counted as skipped.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from typing import Any, Final

from chatparse.adapter import as_epoch, as_nonempty_text, dig
from chatparse.adapters._cline.build import Builder
from chatparse.adapters._cline.content import read_content
from chatparse.adapters._cline.files import Element
from chatparse.adapters._cline.ui import Request
from chatparse.model import MessageKind

__all__ = ["Models", "read_history"]

_ROLES: Final = frozenset({"user", "assistant"})

Models = Sequence[tuple[datetime, str]]
"""The model in use from each time on (``task_metadata.json``'s ``model_usage``), in order."""


def _model_at(models: Models, when: datetime | None) -> str | None:
    if not models:
        return None
    if when is None:
        return models[-1][1]
    current = None
    for since, model in models:
        if since <= when:
            current = model
    return current or models[0][1]


def _pair(elements: Sequence[Element], requests: Sequence[Request]) -> dict[int, Request]:
    """The request each assistant message (by array index) answers."""
    answers = [index for index, message in elements if message.get("role") == "assistant"]
    if requests and all(request.history_index is not None for request in requests):
        paired: dict[int, Request] = {}
        for request in requests:
            after = request.history_index if request.history_index is not None else -1
            found = next((i for i in answers if i > after and i not in paired), None)
            if found is not None:
                paired[found] = request
        return paired
    return dict(zip(answers, requests, strict=False))


def _senders(elements: Sequence[Element], paired: dict[int, Request]) -> dict[int, Request]:
    """The request that sent each user message: the one its next answer answers."""
    senders: dict[int, Request] = {}
    waiting: list[int] = []
    for index, message in elements:
        if message.get("role") == "user":
            waiting.append(index)
        elif index in paired:
            senders |= dict.fromkeys(waiting, paired[index])
            waiting = []
    return senders


def _kind(message: dict[str, Any]) -> MessageKind:
    if message.get("isSummary") is True:
        return "compaction_summary"
    if message.get("isTruncationMarker") is True:
        return "notice"
    return "message"


def read_history(
    elements: Sequence[Element],
    requests: Sequence[Request],
    builder: Builder,
    *,
    first_time: datetime | None,
    models: Models,
) -> None:
    """The API history's messages into ``builder``, with the requests' usage and times."""
    paired = _pair(elements, requests)
    senders = _senders(elements, paired)
    unanswered = len(requests) - len(paired)
    builder.ledger.use(len(paired))
    if unanswered:
        builder.ledger.skip("request without an answer", unanswered)
    thinking: list[str] = []
    for position, (index, message) in enumerate(elements):
        role = message.get("role")
        if not isinstance(role, str) or role not in _ROLES:  # a list would not even hash
            if message.get("type") == "reasoning":
                thinking += read_content([message], "assistant").thinking
                builder.ledger.use()
            else:
                kind = as_nonempty_text(role) or as_nonempty_text(message.get("type"))
                builder.ledger.keep(
                    f"api_conversation_history.json item {index}", kind, json.dumps(message)
                )
            continue
        parts = read_content(message.get("content"), role)
        builder.unknown_blocks(f"api_conversation_history.json item {index}", parts)
        own_time = as_epoch(message.get("ts"), "ms")
        if role == "user":
            sender = senders.get(index)
            when = (
                own_time
                or (first_time if position == 0 else None)
                or (sender.timestamp if sender else None)
            )
            key = as_nonempty_text(message.get("id")) or f"api-{index}"
            builder.user_turn(key, parts, kind=_kind(message), timestamp=when)
        else:
            request = paired.get(index)
            when = own_time or (request.timestamp if request else None)
            model = (
                as_nonempty_text(dig(message, "modelInfo", "modelId"))
                or (request.model if request else None)
                or _model_at(models, when)
            )
            draft = builder.answer_turn(
                as_nonempty_text(message.get("id")) or f"api-{index}",
                parts,
                kind=_kind(message),
                timestamp=when,
                model=model,
                thinking=thinking,
            )
            thinking = []
            if request is not None:
                builder.give_usage(draft, request.usage)
        builder.ledger.use()
