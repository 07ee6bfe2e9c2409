"""Every export of every golden and corpus conversation validates against the format's own rules.

- ATIF: the ``atif`` package's pydantic models (an implementation of the v1.7 RFC independent of
  ours), plus Harbor's own rule that a trajectory has at least one step.
- OpenAI messages: the ``openai`` package's ``ChatCompletionMessageParam`` types, plus the API's
  rule that a tool message answers a call of the assistant message before it.
- OpenTelemetry: each span has the attributes the GenAI conventions require, lies within its
  parent, and its recorded content matches the conventions' message schemas.
"""

from __future__ import annotations

import functools
import json
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import chatparse
from chatparse import ParsedConversation
from chatparse.errors import ChatparseError, ChatparseWarning
from chatparse.interop import to_atif, to_openai_messages

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO.parent / "shared" / "corpus"
CORPORA = [CORPUS, REPO.parent / "shared" / "corpus-next"]  # the sources of the next wave too
GOLDENS = sorted(REPO.glob("fixtures/*/*/expected.json"))

# Written from the GenAI semantic conventions v1.41.0 (open-telemetry/semantic-conventions,
# docs/gen-ai/gen-ai-input-messages.json and gen-ai-output-messages.json): the part types
# chatparse records, each with the fields those schemas require.
_PART: dict[str, Any] = {
    "oneOf": [
        {
            "properties": {"type": {"enum": ["text", "reasoning"]}, "content": {"type": "string"}},
            "required": ["type", "content"],
        },
        {
            "properties": {
                "type": {"const": "tool_call"},
                "id": {"type": ["string", "null"]},
                "name": {"type": "string"},
            },
            "required": ["type", "name"],
        },
        {
            "properties": {
                "type": {"const": "tool_call_response"},
                "id": {"type": ["string", "null"]},
            },
            "required": ["type", "response"],
        },
    ]
}
_MESSAGE: dict[str, Any] = {
    "type": "object",
    "properties": {
        "role": {"enum": ["system", "user", "assistant", "tool"]},
        "parts": {"type": "array", "items": _PART},
    },
    "required": ["role", "parts"],
}
INPUT_MESSAGES: dict[str, Any] = {"type": "array", "items": _MESSAGE}
OUTPUT_MESSAGES: dict[str, Any] = {
    "type": "array",
    "items": {
        **_MESSAGE,
        "properties": {
            **_MESSAGE["properties"],
            "finish_reason": {"enum": ["stop", "length", "content_filter", "tool_call", "error"]},
        },
        "required": ["role", "parts", "finish_reason"],
    },
}


def golden_conversations(golden: Path) -> list[ParsedConversation]:
    document = json.loads(golden.read_text(encoding="utf-8"))
    return [chatparse.from_dict(conversation) for conversation in document["conversations"]]


def corpus_conversations() -> Iterator[ParsedConversation]:
    for path in sorted(p for corpus in CORPORA for p in corpus.rglob("*") if p.is_file()):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # a passed-over store is not this test's concern
                yield from chatparse.parse_path(path)
        except ChatparseError:
            continue  # not a conversation file (a licence, a README) or not readable alone


def every_conversation(conversations: list[ParsedConversation]) -> Iterator[ParsedConversation]:
    for conversation in conversations:
        yield conversation
        yield from every_conversation(list(conversation.subagents))


def check_atif(conversation: ParsedConversation) -> None:
    atif = pytest.importorskip("atif", reason="the atif models are a test-only dependency")
    for main_thread in (False, True):
        trajectory = to_atif(conversation, main_thread=main_thread)
        parsed = atif.Trajectory.model_validate(json.loads(json.dumps(trajectory)))
        assert parsed.schema_version == "ATIF-v1.7"
        documents = [parsed]
        while documents:
            document = documents.pop()
            assert document.steps, "Harbor's own validator wants at least one step"
            documents += document.subagent_trajectories or []


@functools.cache
def openai_messages() -> Any:
    """A pydantic validator of the openai package's chat message type (slow to build)."""
    pydantic = pytest.importorskip("pydantic", reason="the openai types are test-only")
    chat = pytest.importorskip("openai.types.chat", reason="the openai types are test-only")
    return pydantic.TypeAdapter(chat.ChatCompletionMessageParam)


def drain(value: Any) -> None:
    """Walk a validated value: pydantic checks an ``Iterable`` field only as it is iterated."""
    if isinstance(value, dict):
        for item in value.values():
            drain(item)
    elif not isinstance(value, str | bytes) and hasattr(value, "__iter__"):
        for item in value:
            drain(item)


def check_openai(conversation: ParsedConversation) -> None:
    adapter = openai_messages()
    for main_thread in (False, True):
        messages = to_openai_messages(conversation, main_thread=main_thread)
        for message in json.loads(json.dumps(messages)):
            drain(adapter.validate_python(message))
        answerable: set[str] = set()
        for message in messages:
            if message["role"] == "tool":
                assert message["tool_call_id"] in answerable
            else:
                answerable = {call["id"] for call in message.get("tool_calls", ())}


@functools.cache
def message_validators() -> tuple[Any, Any]:
    """Validators of recorded input and output messages (checking a schema each time is slow)."""
    jsonschema = pytest.importorskip("jsonschema")
    return jsonschema.Draft202012Validator(INPUT_MESSAGES), jsonschema.Draft202012Validator(
        OUTPUT_MESSAGES
    )


def check_otel(conversation: ParsedConversation) -> None:
    sdk = pytest.importorskip("opentelemetry.sdk.trace", reason="the otel extra is not installed")
    export = pytest.importorskip("opentelemetry.sdk.trace.export")
    memory = pytest.importorskip("opentelemetry.sdk.trace.export.in_memory_span_exporter")
    exporter = memory.InMemorySpanExporter()
    provider = sdk.TracerProvider()
    provider.add_span_processor(export.SimpleSpanProcessor(exporter))
    tree = list(every_conversation([conversation]))
    timed = any(
        time is not None
        for c in tree
        for time in (c.created_at, c.updated_at, *(m.timestamp for m in c.messages))
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        chatparse.interop.to_otel_spans(conversation, provider, content=True)
    assert [w.category for w in caught] == ([] if timed else [ChatparseWarning])
    spans = {span.context.span_id: span for span in exporter.get_finished_spans()}
    responses = sum(m.role == "assistant" and m.kind == "message" for c in tree for m in c.messages)
    calls = sum(len(m.tool_calls) for c in tree for m in c.messages)
    assert len(spans) == (len(tree) + responses + calls if timed else 0)
    for span in spans.values():
        attributes = span.attributes
        operation = attributes["gen_ai.operation.name"]
        subject = attributes.get("gen_ai.tool.name", attributes.get("gen_ai.request.model"))
        if operation == "invoke_agent":
            subject = attributes["gen_ai.agent.name"]
        assert span.name == (f"{operation} {subject}" if subject else operation)
        if operation != "execute_tool":
            assert attributes["gen_ai.provider.name"]
        assert span.start_time <= span.end_time
        if span.parent is not None:
            parent = spans[span.parent.span_id]
            assert parent.start_time <= span.start_time <= span.end_time <= parent.end_time
        if operation == "chat":
            input_messages, output_messages = message_validators()
            input_messages.validate(json.loads(attributes["gen_ai.input.messages"]))
            output_messages.validate(json.loads(attributes["gen_ai.output.messages"]))
    provider.shutdown()


@pytest.mark.parametrize("golden", GOLDENS, ids=lambda p: f"{p.parent.parent.name}/{p.parent.name}")
def test_every_export_of_every_golden_validates(golden: Path) -> None:
    """ATIF, OpenAI messages (the whole tree's) and spans of each golden conversation."""
    for conversation in golden_conversations(golden):
        check_atif(conversation)
        for each in every_conversation([conversation]):
            check_openai(each)
        check_otel(conversation)


@pytest.mark.skipif(not CORPUS.is_dir(), reason=f"no corpus at {CORPUS}")
def test_every_export_of_every_corpus_conversation_validates() -> None:
    """The same on every conversation parse_path reads from the real sample files."""
    read = 0
    for conversation in corpus_conversations():
        check_atif(conversation)
        for each in every_conversation([conversation]):
            check_openai(each)
        check_otel(conversation)
        read += 1
    assert read >= 20
