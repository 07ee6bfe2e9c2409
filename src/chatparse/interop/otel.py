"""Conversations as OpenTelemetry GenAI spans, for observability tools (Langfuse, Phoenix, Jaeger).

:func:`to_otel_spans` replays a conversation into a tracer provider as the GenAI semantic
conventions of OpenTelemetry semantic conventions **v1.41.0** describe them
(:data:`SEMCONV_VERSION`; the GenAI conventions are still marked *Development*, and moved to
their own repository after that release): one ``invoke_agent`` span per conversation, under it a
``chat {model}`` span per model response, an ``execute_tool {name}`` span per tool call, and
each sub-agent's ``invoke_agent`` tree. :func:`send_otlp` sends them over OTLP/HTTP with the
official exporter.

Span times come from the record, never from the clock:

- a ``chat`` span runs from the time of the message before it (its input was complete then) to
  the response's own time;
- an ``execute_tool`` span is an instant at the time of the message that made the call: the model
  keeps no time for a tool's result;
- a message the source recorded no time for takes the previous message's time (the next one's,
  before the first time), and is counted on the ``invoke_agent`` span as
  ``chatparse.times.borrowed``; a conversation with no time at all takes its parent's start (a
  sub-agent) or its first sub-agent's, and one with no time anywhere in its tree makes no span,
  with a :class:`~chatparse.errors.ChatparseWarning`.

Message content (``gen_ai.input.messages``, ``gen_ai.output.messages``, tool arguments and
results) may hold secrets and is recorded only with ``content=True``. The mapping is in
``docs/interop.md``.

Needs the ``otel`` extra (``pip install 'chatparse[otel]'``).
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime, timedelta
from typing import Any, Final
from urllib.parse import urlsplit

from attrs import frozen
from opentelemetry import trace
from opentelemetry.context import Context

import chatparse
from chatparse._optional import import_extra
from chatparse.errors import ChatparseWarning
from chatparse.interop.atif import main_model
from chatparse.interop.openai import message_texts
from chatparse.model import Message, ParsedConversation, ToolCall

__all__ = ["SEMCONV_VERSION", "send_otlp", "to_otel_spans"]

SEMCONV_VERSION: Final = "1.41.0"
"""The version of the OpenTelemetry semantic conventions the spans follow."""

_SCHEMA_URL: Final = f"https://opentelemetry.io/schemas/{SEMCONV_VERSION}"
_EPOCH: Final = datetime(1970, 1, 1, tzinfo=UTC)
_BATCH: Final = 512
# Model name prefixes -> gen_ai.provider.name. A model no prefix matches reports the source's
# name, a custom value the conventions allow (tools such as Cursor serve models themselves).
_PROVIDERS: Final = {
    "claude": "anthropic",
    "codestral": "mistral_ai",
    "codex": "openai",
    "deepseek": "deepseek",
    "devstral": "mistral_ai",
    "gemini": "gcp.gemini",
    "gpt": "openai",
    "grok": "x_ai",
    "mistral": "mistral_ai",
    "o1": "openai",
    "o3": "openai",
    "o4": "openai",
}
_USAGE: Final = {
    "gen_ai.usage.input_tokens": "input_tokens",
    "gen_ai.usage.output_tokens": "output_tokens",
    "gen_ai.usage.cache_read.input_tokens": "cache_read_tokens",
    "gen_ai.usage.cache_creation.input_tokens": "cache_write_tokens",
    "gen_ai.usage.reasoning.output_tokens": "reasoning_tokens",
}


def to_otel_spans(
    conversation: ParsedConversation,
    tracer_provider: trace.TracerProvider,
    *,
    content: bool = False,
) -> None:
    """Record the conversation as spans of one new trace in ``tracer_provider``.

    Args:
        conversation: The conversation, with its sub-agents (child ``invoke_agent`` trees).
        tracer_provider: Where the spans go, such as an SDK ``TracerProvider`` with an exporter.
        content: Also record message text, reasoning, tool arguments and results, which may
            hold secrets; off by default, as the conventions ask.

    .. versionadded:: 0.2
    """
    plan = _plan(conversation, fallback=None)
    if plan is None:
        message = (
            f"{conversation.source} conversation {conversation.id} records no time at all; "
            "no span was made for it"
        )
        warnings.warn(message, ChatparseWarning, stacklevel=2)
        return
    tracer = tracer_provider.get_tracer("chatparse", chatparse.__version__, _SCHEMA_URL)
    _Recorder(tracer, content).agent(plan, Context())


def send_otlp(
    conversations: Iterable[ParsedConversation],
    endpoint: str,
    *,
    content: bool = False,
    headers: Mapping[str, str] | None = None,
    timeout: float = 10.0,
) -> int:
    """Send the conversations' spans (:func:`to_otel_spans`) to an OTLP/HTTP endpoint.

    Args:
        conversations: The conversations; each becomes one trace.
        endpoint: The collector's URL. One without a path gets the standard ``/v1/traces``
            (``http://localhost:4318`` sends to ``http://localhost:4318/v1/traces``); one with a
            path is used as it is.
        content: As for :func:`to_otel_spans`.
        headers: HTTP headers to send, such as an authorization token. The exporter's own
            ``OTEL_EXPORTER_OTLP_*`` settings apply too.
        timeout: Seconds to wait for each request, retries included.

    Returns:
        How many spans were sent. Spans are sent a conversation at a time, in requests of at
        most 512 spans, so memory holds one conversation's spans.

    Raises:
        ConnectionError: The endpoint did not take a request (after the exporter's retries).

    .. versionadded:: 0.2
    """
    url = _traces_url(endpoint)
    sdk = import_extra("opentelemetry.sdk.trace", "otel")
    export = import_extra("opentelemetry.sdk.trace.export", "otel")
    memory = import_extra("opentelemetry.sdk.trace.export.in_memory_span_exporter", "otel")
    resources = import_extra("opentelemetry.sdk.resources", "otel")
    otlp = import_extra("opentelemetry.exporter.otlp.proto.http.trace_exporter", "otel")
    collected = memory.InMemorySpanExporter()
    resource = resources.Resource.create({"service.name": "chatparse"})
    # Shut down below, not at exit: a long-lived caller may send many times.
    provider = sdk.TracerProvider(resource=resource, shutdown_on_exit=False)
    provider.add_span_processor(export.SimpleSpanProcessor(collected))
    exporter = otlp.OTLPSpanExporter(
        endpoint=url, headers=dict(headers) if headers else None, timeout=timeout
    )
    sent = 0
    try:
        for conversation in conversations:
            to_otel_spans(conversation, provider, content=content)
            spans = collected.get_finished_spans()
            collected.clear()
            for first in range(0, len(spans), _BATCH):
                batch = spans[first : first + _BATCH]
                if exporter.export(batch) is not export.SpanExportResult.SUCCESS:
                    msg = f"{url} did not take {len(batch)} spans (after {sent} were sent)"
                    raise ConnectionError(msg)
                sent += len(batch)
    finally:
        exporter.shutdown()
        provider.shutdown()
    return sent


@frozen
class _Plan:
    """A conversation's span times, worked out before any span starts."""

    conversation: ParsedConversation
    times: tuple[datetime, ...]  # one per message
    borrowed: int
    start: datetime
    end: datetime
    subagents: tuple[_Plan, ...]


def _plan(conversation: ParsedConversation, fallback: datetime | None) -> _Plan | None:
    recorded = [message.timestamp for message in conversation.messages]
    own = [t for t in (*recorded, conversation.created_at, conversation.updated_at) if t]
    subagents = tuple(
        plan
        for subagent in conversation.subagents
        if (plan := _plan(subagent, min(own) if own else fallback)) is not None
    )
    known = own or [plan.start for plan in subagents] or ([fallback] if fallback else [])
    if not known:
        return None
    times: list[datetime] = []
    current = known[0]  # the first message time, before any message with a time
    for time in recorded:
        current = time or current
        times.append(current)
    return _Plan(
        conversation=conversation,
        times=tuple(times),
        borrowed=recorded.count(None),
        start=min(known + [plan.start for plan in subagents]),
        end=max(known + [plan.end for plan in subagents]),
        subagents=subagents,
    )


@frozen
class _Recorder:
    """Makes the spans of planned conversations with one tracer."""

    tracer: trace.Tracer
    content: bool

    def agent(self, plan: _Plan, parent: Context) -> None:
        conversation = plan.conversation
        model = main_model(conversation.messages)
        attributes = {
            "gen_ai.operation.name": "invoke_agent",
            "gen_ai.provider.name": _provider(model, conversation.source),
            "gen_ai.agent.name": conversation.source,
            "gen_ai.agent.version": conversation.producer_version,
            "gen_ai.conversation.id": conversation.id,
            "gen_ai.request.model": model,
        }
        span = self.tracer.start_span(
            f"invoke_agent {conversation.source}",
            context=parent,
            kind=trace.SpanKind.INTERNAL,
            attributes=_present(attributes),
            start_time=_nanoseconds(plan.start),
        )
        inside = trace.set_span_in_context(span, Context())
        unanswered = self.messages(plan, inside)
        for subagent in plan.subagents:
            self.agent(subagent, inside)
        synthesized = sum(message.timestamp_synthesized for message in conversation.messages)
        span.set_attributes(
            {
                "chatparse.times.borrowed": plan.borrowed,
                "chatparse.times.synthesized": synthesized,
                "chatparse.messages.after_last_response": unanswered,
            }
        )
        span.end(end_time=_nanoseconds(plan.end))

    def messages(self, plan: _Plan, parent: Context) -> int:
        """The chat and tool spans; returns how many messages follow the last response."""
        previous = plan.start
        pending: list[dict[str, Any]] = []  # the next response's input, when content is kept
        unanswered = 0
        for message, time in zip(plan.conversation.messages, plan.times, strict=True):
            if message.role == "assistant" and message.kind == "message":
                self.chat(plan.conversation, message, parent, (min(previous, time), time), pending)
                pending, unanswered = [], 0
            else:
                pending += [_message(message)] if self.content else []
                unanswered += 1
            for call in message.tool_calls:
                self.tool(call, parent, time)
                if self.content and call.output is not None:
                    pending.append(_tool_response(call))
            previous = time
        return unanswered

    def chat(
        self,
        conversation: ParsedConversation,
        message: Message,
        parent: Context,
        times: tuple[datetime, datetime],
        read: list[dict[str, Any]],
    ) -> None:
        usage = message.usage if message.usage is not None and message.usage.counted else None
        attributes = {
            "gen_ai.operation.name": "chat",
            "gen_ai.provider.name": _provider(message.model, conversation.source),
            "gen_ai.conversation.id": conversation.id,
            "gen_ai.request.model": message.model,
            "gen_ai.response.model": message.model,
            # A copy of a response counted elsewhere carries no usage, so that sums are right.
            **{name: getattr(usage, field, None) for name, field in _USAGE.items()},
        }
        if self.content:
            output = {**_message(message), "finish_reason": _finish_reason(message)}
            attributes["gen_ai.input.messages"] = _json(read)
            attributes["gen_ai.output.messages"] = _json([output])
        span = self.tracer.start_span(
            f"chat {message.model}" if message.model else "chat",
            context=parent,
            kind=trace.SpanKind.CLIENT,
            attributes=_present(attributes),
            start_time=_nanoseconds(times[0]),
        )
        span.end(end_time=_nanoseconds(times[1]))

    def tool(self, call: ToolCall, parent: Context, time: datetime) -> None:
        attributes = {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": call.name,
            "gen_ai.tool.call.id": call.id,
            "error.type": "_OTHER" if call.is_error else None,
        }
        if self.content:
            attributes["gen_ai.tool.call.arguments"] = _json(call.input)
            if not call.is_error and call.output is not None:  # a success's result only
                result = call.output if call.result is None else _json(call.result)
                attributes["gen_ai.tool.call.result"] = result
        at = _nanoseconds(time)
        span = self.tracer.start_span(
            f"execute_tool {call.name}",
            context=parent,
            kind=trace.SpanKind.INTERNAL,
            attributes=_present(attributes),
            start_time=at,
        )
        if call.is_error:
            span.set_status(trace.StatusCode.ERROR, call.output if self.content else None)
        span.end(end_time=at)


def _message(message: Message) -> dict[str, Any]:
    """A message in the conventions' message schema: a role and its parts."""
    parts = [{"type": "reasoning", "content": message.thinking}] if message.thinking else []
    parts += [{"type": "text", "content": text} for text in message_texts(message)]
    parts += [
        _present({"type": "tool_call", "id": call.id, "name": call.name, "arguments": call.input})
        for call in message.tool_calls
    ]
    return {"role": message.role, "parts": parts}


def _tool_response(call: ToolCall) -> dict[str, Any]:
    part = _present({"type": "tool_call_response", "id": call.id, "response": call.output})
    return {"role": "tool", "parts": [part]}


def _finish_reason(message: Message) -> str:
    # Required by the output message schema but not recorded by any source: derived.
    return "tool_call" if message.tool_calls else "stop"


def _provider(model: str | None, source: str) -> str:
    if model is not None:
        name = model.lower().rsplit("/", 1)[-1]
        for prefix, provider in _PROVIDERS.items():
            if name.startswith(prefix):
                return provider
    return source


def _traces_url(endpoint: str) -> str:
    parts = urlsplit(endpoint)
    if parts.scheme not in {"http", "https"} or not parts.netloc:
        msg = f"the OTLP endpoint must be an http:// or https:// URL, got {endpoint!r}"
        raise ValueError(msg)
    return endpoint.rstrip("/") + "/v1/traces" if parts.path in {"", "/"} else endpoint


def _nanoseconds(time: datetime) -> int:
    # Exact: a float of seconds since 1970 cannot hold nanoseconds.
    return (time - _EPOCH) // timedelta(microseconds=1) * 1000


def _json(value: Any) -> str:
    # The SDK takes no structured attribute values; the conventions allow JSON text then.
    return json.dumps(value, ensure_ascii=False)


def _present(attributes: dict[str, Any]) -> dict[str, Any]:
    return {name: value for name, value in attributes.items() if value is not None}
