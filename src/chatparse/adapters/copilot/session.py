"""A session object (replayed, read whole or from the legacy array) turned into messages.

Each request of ``requests`` is one turn: the user message, the answer assembled from the
response parts, and a notice when the response was cancelled or failed.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any

from chatparse.adapter import (
    Ledger,
    SourceAdapter,
    UniqueIds,
    as_count,
    as_epoch,
    as_text,
    build_conversation,
    dig,
    new_image,
    new_usage,
)
from chatparse.adapters.copilot.calls import fill_from_rounds
from chatparse.adapters.copilot.drafts import MessageDraft, ToolCallDraft
from chatparse.adapters.copilot.parts import read_part
from chatparse.decoders import value as jsonvalue
from chatparse.model import ConversationMeta, ImageRef, ParsedConversation, Usage

if TYPE_CHECKING:
    from chatparse.adapters.copilot.transcript import Transcript

__all__ = ["Session"]

# ``modelState.value``: 0 pending, 1 complete, 2 cancelled, 3 failed, 4 needs input.
_CANCELLED, _FAILED = 2, 3


class Session:
    """A replayed session state turned into messages: one request at a time."""

    def __init__(self, session_id: str, ledger: Ledger) -> None:
        self.id = session_id
        self.ledger = ledger
        self.drafts: list[MessageDraft] = []
        self.ids = UniqueIds()
        self.title: str | None = None
        self.created_at: datetime | None = None
        self.updated_at: datetime | None = None
        self.producer_version: str | None = None

    def read(self, state: dict[str, Any]) -> None:
        """Read a session object (from either file shape), normalised as VS Code normalises it."""
        self.title = _custom_title(state)
        self.created_at = as_epoch(state.get("creationDate"), "ms")
        self.updated_at = as_epoch(state.get("lastMessageDate"), "ms")
        session_id = as_text(state.get("sessionId"))
        if session_id is not None:
            self.id = session_id
        requests = state.get("requests")
        if not isinstance(requests, list):
            if requests is not None:
                self.ledger.keep("requests", None, jsonvalue.encode(requests))
            return
        for index, request in enumerate(requests):
            if isinstance(request, dict):
                self.request(index, request)
            else:
                self.ledger.keep(f"requests[{index}]", None, jsonvalue.encode(request))

    def request(self, index: int, request: dict[str, Any]) -> None:
        """One turn: the user message, the answer, and a notice if it was cancelled or failed."""
        self.ledger.use()
        request_id = (
            as_text(request.get("requestId"))
            or as_text(request.get("providerRequestId"))  # sessions of early 2023
            or f"request-{index}"
        )
        user = MessageDraft(id=self.ids.take(request_id), role="user", request_id=request_id)
        user.timestamp = as_epoch(request.get("timestamp"), "ms")
        user.pieces.append(_request_text(request.get("message")))
        user.images += _attached_images(request.get("variableData"))
        self.drafts.append(user)
        version = as_text(dig(request, "agent", "extensionVersion"))
        if version is not None:  # the last request's extension wrote the session
            self.producer_version = version
        answer = self._answer(index, request, request_id, user.timestamp)
        if answer.has_content() or answer.usage is not None:
            answer.id = self.ids.take(answer.id)
            self.drafts.append(answer)
        notice = _outcome_notice(request)
        if notice is not None:
            self.drafts.append(
                MessageDraft(
                    id=self.ids.take(f"{request_id}/state"),
                    role="system",
                    kind="notice",
                    pieces=[notice],
                    timestamp=answer.timestamp if not answer.synthesized else None,
                    request_id=request_id,
                )
            )
        for stamp in (user.timestamp, answer.timestamp):
            if stamp is not None and (self.updated_at is None or stamp > self.updated_at):
                self.updated_at = stamp

    def _answer(
        self, index: int, request: dict[str, Any], request_id: str, asked: datetime | None
    ) -> MessageDraft:
        """The assistant message of a request, from its response parts and tool call rounds."""
        answer = MessageDraft(
            id=as_text(request.get("responseId")) or f"{request_id}/response",
            role="assistant",
            request_id=request_id,
            model=as_text(request.get("modelId")),
            usage=_usage(request, f"copilot:{self.id}:{request_id}"),
        )
        answer.timestamp, answer.synthesized = _answer_time(request, asked)
        response = request.get("response")
        parts = [response] if isinstance(response, str) else response
        if isinstance(parts, list):
            for number, part in enumerate(parts):
                read_part(answer, part, (index, number), self.ledger)
        elif parts is not None:
            self.ledger.keep(f"requests[{index}].response", None, jsonvalue.encode(parts))
        fill_from_rounds(answer, dig(request, "result", "metadata"), self.ledger)
        return answer

    def merge(self, transcript: Transcript) -> None:
        """Take from the transcript of the same session what the chat session copy lacks.

        The chat session copy wins: its messages are the conversation. The transcript's tool
        calls fill missing inputs, outputs and errors, matched by call id; every transcript event
        that filled something counts as used, the rest as told by the chat session.
        """
        calls = {key: call for d in transcript.drafts for call in d.calls for key in call.keys}
        filled_lines: set[int] = set()
        for draft in self.drafts:
            for call in draft.calls:
                other = _first_known(calls, call)
                if other is not None and call.fill(other):
                    filled_lines |= transcript.lines.get(id(other), set())
        self.producer_version = self.producer_version or transcript.version
        self.ledger.merge(transcript.settle(filled_lines), prefix="transcript: ")

    def conversation(self, meta: ConversationMeta, adapter: SourceAdapter) -> ParsedConversation:
        """The parsed conversation, titled by the custom title else the first prompt."""
        return build_conversation(
            adapter,
            meta,
            [draft.freeze() for draft in self.drafts],
            self.ledger,
            title=self.title,
            created_at=self.created_at,
            updated_at=self.updated_at,
            producer_version=self.producer_version,
        )


def _first_known(calls: Mapping[str, ToolCallDraft], call: ToolCallDraft) -> ToolCallDraft | None:
    """The transcript's call with one of ``call``'s ids, trying the ids in sorted order."""
    return next((calls[k] for k in sorted(call.keys) if k in calls), None)


# --- small readers of session values ---------------------------------------------------------


def _custom_title(state: Mapping[str, Any]) -> str | None:
    """The title the user or VS Code gave, as VS Code normalises the session's version."""
    version = state.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 2:
        return None  # v1: VS Code drops any customTitle
    title = state.get("computedTitle") if version == 2 else state.get("customTitle")
    return title.strip() or None if isinstance(title, str) else None


def _request_text(message: object) -> str:
    """What the user typed: ``message.text``, else the texts of its ``parts`` joined."""
    if isinstance(message, str):
        return message
    text = dig(message, "text")
    if isinstance(text, str) and text:
        return text
    parts = dig(message, "parts")
    if isinstance(parts, list):
        return "".join(
            p["text"] for p in parts if isinstance(p, dict) and isinstance(p.get("text"), str)
        )
    return ""


def _attached_images(variable_data: object) -> list[ImageRef]:
    """An :class:`ImageRef` per image attached to a request; the image data is not kept."""
    variables = dig(variable_data, "variables")
    if not isinstance(variables, list):
        return []
    return [
        new_image(media_type=as_text(v.get("mimeType")))
        for v in variables
        if isinstance(v, dict) and (v.get("kind") == "image" or v.get("isImage") is True)
    ]


def _answer_time(
    request: Mapping[str, Any], asked: datetime | None
) -> tuple[datetime | None, bool]:
    """When the answer ended, and whether that time was derived rather than recorded.

    ``modelState.completedAt``, else ``responseTimestamp``; else the request time plus
    ``result.timings.totalElapsed``, flagged as synthesized; else ``None``.
    """
    completed = as_epoch(dig(request, "modelState", "completedAt"), "ms") or as_epoch(
        request.get("responseTimestamp"), "ms"
    )
    if completed is not None:
        return completed, False
    elapsed = dig(request, "result", "timings", "totalElapsed")
    if asked is not None and isinstance(elapsed, int | float) and not isinstance(elapsed, bool):
        return as_epoch(asked.timestamp() * 1000 + elapsed, "ms"), True
    return None, False


def _usage(request: Mapping[str, Any], key: str) -> Usage | None:
    """Token counts: the request's ``promptTokens``/``completionTokens``, else ``result.usage``."""
    usage = dig(request, "result", "usage")
    prompt = as_count(request.get("promptTokens"))
    completion = as_count(request.get("completionTokens"))
    if prompt is None:
        prompt = as_count(dig(usage, "promptTokens"))
    if completion is None:
        completion = as_count(dig(usage, "completionTokens"))
    if prompt is None and completion is None:
        return None
    return new_usage(input_tokens=prompt, output_tokens=completion, dedup_key=key)


def _outcome_notice(request: Mapping[str, Any]) -> str | None:
    """A notice for a response that was cancelled or failed, with the error when recorded."""
    state = dig(request, "modelState", "value")
    error = as_text(dig(request, "result", "errorDetails", "message")) or as_text(
        dig(request, "responseErrorDetails", "message")  # sessions of early 2023
    )
    if state == _FAILED or (error is not None and state != _CANCELLED):
        return f"Response failed: {error}" if error else "Response failed"
    if state == _CANCELLED or request.get("isCanceled") is True:
        return "Response cancelled"
    return None
