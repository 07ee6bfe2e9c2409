"""OpenTelemetry GenAI spans: the span tree, attributes, recorded times, content, OTLP/HTTP.

Spans are caught with the SDK's InMemorySpanExporter; the OTLP test sends to a receiver on
127.0.0.1 that decodes the protobuf request with the opentelemetry-proto package.
"""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

import chatparse.interop
from chatparse.errors import ChatparseWarning, MissingExtraError
from chatparse.model import ConversationMeta, Message, ParsedConversation, ToolCall, Usage

Record = Callable[..., list[Any]]
START = datetime(2025, 5, 1, 10, 0, tzinfo=UTC)


def at(seconds: int) -> datetime:
    return START + timedelta(seconds=seconds)


def ns(time: datetime) -> int:
    return int(time.timestamp()) * 1_000_000_000


def conversation(*messages: Message, **fields: Any) -> ParsedConversation:
    identifier = fields.pop("id", "c1")
    meta = ConversationMeta(source="claude-code", id=identifier, path="/x.jsonl", fingerprint="f")
    return ParsedConversation(
        source="claude-code",
        id=identifier,
        meta=meta,
        parser_version="1",
        messages=messages,
        **fields,
    )


def session() -> ParsedConversation:
    usage = Usage(
        input_tokens=1000,
        output_tokens=300,
        cache_read_tokens=600,
        cache_write_tokens=200,
        reasoning_tokens=100,
    )
    calls = (
        ToolCall(id="t1", name="Bash", input={"command": "ls"}, output="a.py"),
        ToolCall(id="t2", name="Read", input={"path": "b"}, output="not found", is_error=True),
    )
    return conversation(
        Message(id="u1", role="user", text="list files", timestamp=at(0)),
        Message(
            id="a1",
            role="assistant",
            model="claude-opus-4-1",
            thinking="look",
            tool_calls=calls,
            usage=usage,
            timestamp=at(5),
        ),
        Message(id="a2", role="assistant", model="claude-opus-4-1", text="a.py", timestamp=at(9)),
        producer_version="2.1.0",
    )


@pytest.fixture
def record() -> Iterator[Record]:
    """Record a conversation's spans into an in-memory exporter and return them."""
    sdk = pytest.importorskip("opentelemetry.sdk.trace", reason="the otel extra is not installed")
    export = pytest.importorskip("opentelemetry.sdk.trace.export")
    memory = pytest.importorskip("opentelemetry.sdk.trace.export.in_memory_span_exporter")
    exporter = memory.InMemorySpanExporter()
    provider = sdk.TracerProvider()
    provider.add_span_processor(export.SimpleSpanProcessor(exporter))

    def spans(conversation: ParsedConversation, **options: Any) -> list[Any]:
        exporter.clear()
        chatparse.interop.to_otel_spans(conversation, provider, **options)
        return list(exporter.get_finished_spans())

    yield spans
    provider.shutdown()


def by_name(spans: list[Any]) -> dict[str, list[Any]]:
    named: dict[str, list[Any]] = {}
    for span in spans:
        named.setdefault(span.name, []).append(span)
    return named


def test_a_conversation_is_an_agent_span_over_chat_and_tool_spans(record: Record) -> None:
    """invoke_agent is the root; each response is a chat span, each call an execute_tool span."""
    spans = by_name(record(session()))
    [agent] = spans.pop("invoke_agent claude-code")
    assert agent.parent is None
    assert set(spans) == {"chat claude-opus-4-1", "execute_tool Bash", "execute_tool Read"}
    children = [span for group in spans.values() for span in group]
    assert len(children) == 4
    assert {span.parent.span_id for span in children} == {agent.context.span_id}
    assert {span.context.trace_id for span in children} == {agent.context.trace_id}
    assert agent.attributes["gen_ai.operation.name"] == "invoke_agent"
    assert agent.attributes["gen_ai.conversation.id"] == "c1"
    assert agent.attributes["gen_ai.agent.name"] == "claude-code"
    assert agent.attributes["gen_ai.agent.version"] == "2.1.0"
    assert agent.attributes["gen_ai.provider.name"] == "anthropic"


def test_chat_spans_carry_the_usage_with_cached_input_included(record: Record) -> None:
    """input_tokens includes cached tokens; cache reads, writes and reasoning have their own."""
    first, second = by_name(record(session()))["chat claude-opus-4-1"]
    assert first.attributes["gen_ai.usage.input_tokens"] == 1000
    assert first.attributes["gen_ai.usage.output_tokens"] == 300
    assert first.attributes["gen_ai.usage.cache_read.input_tokens"] == 600
    assert first.attributes["gen_ai.usage.cache_creation.input_tokens"] == 200
    assert first.attributes["gen_ai.usage.reasoning.output_tokens"] == 100
    assert first.attributes["gen_ai.request.model"] == "claude-opus-4-1"
    assert not any(name.startswith("gen_ai.usage.") for name in second.attributes)


def test_a_copy_of_a_response_counted_elsewhere_carries_no_usage(record: Record) -> None:
    """Backends sum usage over spans: a duplicate copy must not add to it."""
    copy = Usage(input_tokens=5, output_tokens=1, counted=False)
    spans = record(conversation(Message(id="a", role="assistant", usage=copy, timestamp=at(0))))
    [chat] = by_name(spans)["chat"]
    assert not any(name.startswith("gen_ai.usage.") for name in chat.attributes)


def test_span_times_come_from_the_record(record: Record) -> None:
    """A chat span runs from the message before it to its own time; a tool call is an instant."""
    spans = by_name(record(session()))
    first, second = spans["chat claude-opus-4-1"]
    assert (first.start_time, first.end_time) == (ns(at(0)), ns(at(5)))
    assert (second.start_time, second.end_time) == (ns(at(5)), ns(at(9)))
    [bash] = spans["execute_tool Bash"]
    assert bash.start_time == bash.end_time == ns(at(5))
    [agent] = spans["invoke_agent claude-code"]
    assert (agent.start_time, agent.end_time) == (ns(at(0)), ns(at(9)))
    assert agent.attributes["chatparse.times.borrowed"] == 0


def test_a_message_without_a_time_borrows_the_previous_one_and_is_counted(record: Record) -> None:
    """No clock time is ever used: the missing time is the one before it, and counted."""
    spans = record(
        conversation(
            Message(id="u", role="user", timestamp=at(3)),
            Message(id="a", role="assistant", model="gpt-5"),
        )
    )
    named = by_name(spans)
    [chat] = named["chat gpt-5"]
    assert chat.start_time == chat.end_time == ns(at(3))
    assert chat.attributes["gen_ai.provider.name"] == "openai"
    [agent] = named["invoke_agent claude-code"]
    assert agent.attributes["chatparse.times.borrowed"] == 1


def test_a_conversation_without_any_time_makes_no_span_and_warns(record: Record) -> None:
    """Nothing to place the spans at: no span, and a warning that says so."""
    with pytest.warns(ChatparseWarning, match="records no time at all"):
        spans = record(conversation(Message(id="u", role="user", text="hi")))
    assert spans == []


def test_subagents_are_child_agent_trees_and_borrow_the_parent_start(record: Record) -> None:
    """A sub-agent's invoke_agent hangs under its parent's; without times it takes its start."""
    child = conversation(Message(id="g", role="assistant", model="m"), id="agent-1")
    parent = conversation(
        Message(id="u", role="user", timestamp=at(2)),
        Message(id="a", role="assistant", model="m", timestamp=at(4)),
        subagents=(child,),
    )
    agents = {span.attributes["gen_ai.conversation.id"]: span for span in record(parent)}
    assert agents["agent-1"].name == "invoke_agent claude-code"
    assert agents["agent-1"].parent.span_id == agents["c1"].context.span_id
    assert agents["agent-1"].start_time == ns(at(2))
    assert agents["agent-1"].attributes["gen_ai.provider.name"] == "claude-code"


def test_content_is_recorded_only_when_asked(record: Record) -> None:
    """Without content=True no text, reasoning, tool input or output is in any span."""
    content_keys = {
        "gen_ai.input.messages",
        "gen_ai.output.messages",
        "gen_ai.tool.call.arguments",
        "gen_ai.tool.call.result",
    }
    for span in record(session()):
        assert not content_keys & set(span.attributes), span.name
        assert span.status.description is None
    spans = by_name(record(session(), content=True))
    first, second = spans["chat claude-opus-4-1"]
    assert json.loads(first.attributes["gen_ai.input.messages"]) == [
        {"role": "user", "parts": [{"type": "text", "content": "list files"}]}
    ]
    [output] = json.loads(first.attributes["gen_ai.output.messages"])
    assert output["finish_reason"] == "tool_call"
    assert output["parts"][0] == {"type": "reasoning", "content": "look"}
    assert output["parts"][1]["type"] == "tool_call"
    read = json.loads(second.attributes["gen_ai.input.messages"])
    assert read == [
        {"role": "tool", "parts": [{"type": "tool_call_response", "id": "t1", "response": "a.py"}]},
        {
            "role": "tool",
            "parts": [{"type": "tool_call_response", "id": "t2", "response": "not found"}],
        },
    ]
    [bash] = spans["execute_tool Bash"]
    assert json.loads(bash.attributes["gen_ai.tool.call.arguments"]) == {"command": "ls"}
    assert bash.attributes["gen_ai.tool.call.result"] == "a.py"


def test_a_failed_tool_call_has_an_error_type_and_status(record: Record) -> None:
    """error.type is the conventions' fallback; the status is ERROR, its text only with content."""
    [read] = by_name(record(session()))["execute_tool Read"]
    assert read.attributes["error.type"] == "_OTHER"
    assert read.attributes["gen_ai.tool.call.id"] == "t2"
    assert read.status.status_code.name == "ERROR"
    [read] = by_name(record(session(), content=True))["execute_tool Read"]
    assert read.status.description == "not found"
    assert "gen_ai.tool.call.result" not in read.attributes


def test_messages_after_the_last_response_are_counted(record: Record) -> None:
    """A prompt nobody answered is in no chat span's input: the agent span counts it."""
    spans = record(
        conversation(
            Message(id="a", role="assistant", timestamp=at(0)),
            Message(id="u", role="user", text="and then?", timestamp=at(1)),
        )
    )
    [agent] = by_name(spans)["invoke_agent claude-code"]
    assert agent.attributes["chatparse.messages.after_last_response"] == 1


class _Receiver(BaseHTTPRequestHandler):
    requests: list[Any]
    status = 200

    def do_POST(self) -> None:
        service = pytest.importorskip("opentelemetry.proto.collector.trace.v1.trace_service_pb2")
        body = self.rfile.read(int(self.headers["Content-Length"]))
        request = service.ExportTraceServiceRequest()
        request.ParseFromString(body)
        self.requests.append((self.path, self.headers.get("Authorization"), request))
        reply = service.ExportTraceServiceResponse().SerializeToString()
        self.send_response(self.status)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)

    def log_message(self, *_args: object) -> None:
        """Keep the test output quiet."""


@pytest.fixture
def receiver() -> Iterator[tuple[str, type[_Receiver]]]:
    """An OTLP/HTTP receiver on 127.0.0.1 that keeps every decoded request."""
    pytest.importorskip("opentelemetry.proto", reason="the otel extra is not installed")
    pytest.importorskip("opentelemetry.exporter.otlp.proto.http")
    handler = type("Handler", (_Receiver,), {"requests": [], "status": 200})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", handler
    server.shutdown()
    server.server_close()
    thread.join()


def test_send_otlp_posts_the_spans_to_the_endpoint(receiver: tuple[str, type[_Receiver]]) -> None:
    """The official exporter sends protobuf to /v1/traces, with the headers given."""
    url, handler = receiver
    sent = chatparse.interop.send_otlp(
        [session(), session()], url, headers={"Authorization": "Bearer t0ken"}
    )
    assert sent == 10  # per conversation: invoke_agent, two chat spans, two tool spans
    assert {(path, token) for path, token, _ in handler.requests} == {
        ("/v1/traces", "Bearer t0ken")
    }
    spans = [
        span
        for _, _, request in handler.requests
        for resource in request.resource_spans
        for scope in resource.scope_spans
        for span in scope.spans
    ]
    assert len(spans) == 10
    chat = next(span for span in spans if span.name == "chat claude-opus-4-1")
    attributes = {a.key: a.value for a in chat.attributes}
    assert attributes["gen_ai.usage.input_tokens"].int_value == 1000
    assert chat.start_time_unix_nano == ns(at(0))
    assert chat.end_time_unix_nano == ns(at(5))
    scope = handler.requests[0][2].resource_spans[0].scope_spans[0]
    assert scope.schema_url == "https://opentelemetry.io/schemas/1.41.0"


def test_send_otlp_raises_when_the_endpoint_refuses(receiver: tuple[str, type[_Receiver]]) -> None:
    """A refused request is an error, not a silent loss."""
    url, handler = receiver
    handler.status = 400
    with pytest.raises(ConnectionError, match="did not take"):
        chatparse.interop.send_otlp([session()], f"{url}/v1/traces", timeout=5)


def test_send_otlp_wants_an_http_url() -> None:
    """A URL that is not http(s) is refused before anything is sent."""
    pytest.importorskip("opentelemetry.exporter.otlp.proto.http", reason="no otel extra")
    with pytest.raises(ValueError, match="http"):
        chatparse.interop.send_otlp([], "localhost:4318")


def test_a_missing_otel_extra_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the extra, the OTel exports say which extra to install; the others still work."""
    for module in ("opentelemetry.trace", "opentelemetry.exporter.otlp.proto.http.trace_exporter"):
        monkeypatch.setitem(sys.modules, module, None)  # what import finds when it is not installed
    for name in ("to_otel_spans", "send_otlp"):
        with pytest.raises(MissingExtraError) as caught:
            chatparse.interop.__getattr__(name)
        assert caught.value.extra == "otel"
    assert callable(chatparse.interop.__getattr__("to_atif"))
    assert callable(chatparse.interop.__getattr__("to_openai_messages"))


def test_the_command_line_sends_the_demo_home_with_its_content(
    receiver: tuple[str, type[_Receiver]], capsys: pytest.CaptureFixture[str]
) -> None:
    """``chatparse export --format otel --endpoint URL --content``: every span sent, with text."""
    from chatparse import cli  # noqa: PLC0415 -- the command line, tested here with its receiver

    url, handler = receiver
    code = cli.main(["--demo", "export", "--format", "otel", "--endpoint", url, "--content"])
    out = capsys.readouterr().out
    assert code == 0
    spans = [
        span
        for _, _, request in handler.requests
        for resource in request.resource_spans
        for scope in resource.scope_spans
        for span in scope.spans
    ]
    assert out.strip() == f"sent {len(spans)} spans to {url}"
    assert {span.name.split()[0] for span in spans} >= {"invoke_agent", "chat"}
    contents = [
        attribute.value.string_value
        for span in spans
        for attribute in span.attributes
        if attribute.key in {"gen_ai.input.messages", "gen_ai.output.messages"}
    ]
    assert contents  # --content puts the messages in the spans
