"""Serialization: exact round trips, the JSON form, strict reading, and the shipped schema."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from importlib.resources import files
from typing import Any
from unittest import mock

import jsonschema
import pytest
from hypothesis import given, settings

import chatparse
from chatparse import _jsonschema, model, serialize
from chatparse.decoders import jsonl
from chatparse.errors import ModelError

from strategies import any_model_object, conversations

VALIDATOR = jsonschema.Draft202012Validator(
    _jsonschema.json_schema(), format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER
)


BACKENDS = ["json"] if serialize._orjson is None else ["orjson", "json"]
"""The JSON writers to_json can use here: orjson when it is installed, and the standard library."""


@contextmanager
def writing_with(backend: str) -> Iterator[None]:
    """to_json writes through ``backend``: ``"json"`` blocks orjson as if it were not installed."""
    blocked = serialize._orjson if backend == "orjson" else None
    with mock.patch.object(serialize, "_orjson", blocked):
        yield


def assert_round_trip(obj: Any) -> None:
    cls = type(obj)
    data = chatparse.to_dict(obj)
    assert chatparse.from_dict(cls, data) == obj
    for backend in BACKENDS:
        with writing_with(backend):
            assert chatparse.from_json(cls, chatparse.to_json(obj)) == obj, backend
    assert json.loads(json.dumps(data)) == data  # plain JSON types only


@settings(max_examples=1000, deadline=None)
@given(conversations)
def test_conversation_round_trip_is_exact(conversation: model.ParsedConversation) -> None:
    """A thousand conversations (nested sub-agents, any Unicode, None everywhere) round-trip."""
    assert_round_trip(conversation)


@settings(max_examples=300, deadline=None)
@given(any_model_object)
def test_every_model_object_round_trips(obj: Any) -> None:
    """from_dict(to_dict(x)) == x and from_json(to_json(x)) == x for every model class."""
    assert_round_trip(obj)


@settings(max_examples=200, deadline=None)
@given(conversations)
def test_serialized_conversations_match_the_schema(conversation: model.ParsedConversation) -> None:
    """Every serialized conversation validates against the generated JSON Schema."""
    VALIDATOR.validate(chatparse.to_dict(conversation))


@settings(max_examples=300, deadline=None)
@given(any_model_object)
def test_to_json_writes_the_values_of_to_dict(obj: Any) -> None:
    """Whichever backend writes it, and however indented, to_json holds to_dict's JSON values."""
    data = chatparse.to_dict(obj)
    for backend in BACKENDS:
        with writing_with(backend):
            for indent in (None, 2, 4):
                text = chatparse.to_json(obj, indent=indent)
                assert json.loads(text) == data, (backend, indent)
                assert serialize.json_bytes(obj, indent=indent) == text.encode()


@settings(max_examples=300, deadline=None)
@given(any_model_object)
def test_without_orjson_the_text_is_as_to_dict_makes_it(obj: Any) -> None:
    """The standard library writes what it wrote from to_dict's output, byte for byte."""
    with writing_with("json"):
        for indent in (None, 2):
            expected = serialize.json_text(chatparse.to_dict(obj), indent=indent)
            assert chatparse.to_json(obj, indent=indent) == expected


@pytest.mark.skipif(serialize._orjson is None, reason="orjson is not installed")
def test_orjson_writes_no_spaces_and_its_own_floats() -> None:
    """The bytes orjson writes differ only in spacing (without indent) and in some floats."""
    call = model.ToolCall(id="c", name="x", input={"ratio": 2.5e-07, "n": [1, 2]})
    message = model.Message(id="m", role="assistant", text="héllo", tool_calls=(call,))
    for obj in (_sample(), message):
        data = chatparse.to_dict(obj)
        compact = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
        indented = serialize.json_text(data, indent=2)
        if obj is message:
            compact, indented = (t.replace("2.5e-07", "2.5e-7") for t in (compact, indented))
        assert chatparse.to_json(obj) == compact
        assert chatparse.to_json(obj, indent=2) == indented


@pytest.mark.parametrize("backend", BACKENDS)
def test_values_orjson_refuses_are_written_by_json(backend: str) -> None:
    """Deeper than orjson writes, an integer beyond 64 bits, a key that is not text: all JSON."""
    deep: list[Any] = []
    for _ in range(300):
        deep = [deep]
    value = {"deep": deep, "big": 2**70, "keys": {1: "one"}}
    call = model.ToolCall(id="c", name="x", input=value)
    with writing_with(backend):
        text = chatparse.to_json(call)
    assert text == serialize.json_text(chatparse.to_dict(call))
    assert json.loads(text)["input"]["big"] == 2**70


def _sample() -> model.ParsedConversation:
    meta = model.ConversationMeta(source="codex", id="c1", path="/h/s.jsonl", fingerprint="1:2")
    return model.ParsedConversation(
        source="codex",
        id="c1",
        meta=meta,
        parser_version="1",
        created_at=datetime(2025, 3, 1, 12, 30, 5, 123000, tzinfo=UTC),
        messages=(
            model.Message(id="a", role="user", text="hi"),
            model.Message(id="b", role="assistant", parent_id="a", text="hello"),
        ),
    )


def test_dict_form_is_ordered_and_versioned() -> None:
    """schema_version comes first, then fields in declaration order; datetimes end in Z."""
    data = chatparse.to_dict(_sample())
    assert list(data)[:4] == ["schema_version", "source", "id", "meta"]
    assert data["schema_version"] == chatparse.SCHEMA_VERSION
    assert data["created_at"] == "2025-03-01T12:30:05.123000Z"
    assert list(data["messages"][0]) == [field.name for field in model.Message.__attrs_attrs__]


def test_json_keeps_unicode_readable() -> None:
    """to_json writes UTF-8 text, not ASCII escapes."""
    conversation = _sample()
    text = chatparse.to_json(model.Message(id="x", role="user", text="héllo 世界"))
    assert "héllo 世界" in text
    assert (
        chatparse.from_json(model.ParsedConversation, chatparse.to_json(conversation).encode())
        == conversation
    )


def test_deepest_decodable_tool_input_round_trips() -> None:
    """A tool input nested as deep as the decoders accept serializes and reads back.

    Found by fuzzing a Codex rollout: cattrs walked the value level by level and raised
    RecursionError at a few hundred levels; Python 3.11's json does at about a thousand.
    """
    deep: list[Any] = []
    for _ in range(jsonl.MAX_DEPTH - 1):
        deep = [deep]
    call = model.ToolCall(id="c", name="shell", input=deep, result={"deep": deep})
    message = model.Message(id="m", role="assistant", tool_calls=(call,))
    text = chatparse.to_json(message)
    assert "[" * jsonl.MAX_DEPTH + "]" * jsonl.MAX_DEPTH in text
    # Compared as text: == on two separate lists this deep recurses too, on Python 3.11.
    again = chatparse.from_dict(model.Message, chatparse.to_dict(message))
    assert chatparse.to_json(again) == text
    assert chatparse.to_json(chatparse.from_json(model.Message, text)) == text


def test_a_tool_input_that_contains_itself_is_refused_not_copied_forever() -> None:
    """Decoded JSON has no cycles, but a plugin's value might; to_dict must not loop on it."""
    loop: list[Any] = []
    loop.append(loop)
    message = model.Message(
        id="m", role="assistant", tool_calls=(model.ToolCall(id="c", name="x", input=loop),)
    )
    with pytest.raises(ValueError, match="containing itself"):
        chatparse.to_dict(message)
    for backend in BACKENDS:
        with writing_with(backend), pytest.raises(ValueError, match="containing itself"):
            chatparse.to_json(message)


def test_a_plugins_non_json_values_in_a_tool_input_are_unstructured() -> None:
    """A datetime or a model object inside ``input`` becomes JSON data, as before the copy loop."""
    when = datetime(2025, 1, 2, tzinfo=UTC)
    call = model.ToolCall(
        id="c", name="x", input={"when": when, "usage": model.Usage()}, result=when
    )
    data = chatparse.to_dict(call)
    assert data["input"]["when"] == data["result"] == "2025-01-02T00:00:00Z"
    assert data["input"]["usage"]["counted"] is True
    for backend in BACKENDS:
        with writing_with(backend):
            assert json.loads(chatparse.to_json(call)) == data, backend


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_value_without_a_json_form_is_refused_as_before(backend: str) -> None:
    """A set in a tool input cannot be written: the same TypeError with either backend."""
    call = model.ToolCall(id="c", name="x", input={"tags": {"a"}})
    with writing_with(backend), pytest.raises(TypeError, match="set is not JSON serializable"):
        chatparse.to_json(call)


def test_bad_field_error_names_its_path() -> None:
    """A wrong value deep inside is reported with its JSON path."""
    data = chatparse.to_dict(_sample())
    data["messages"][1]["role"] = "robot"
    data["meta"]["size"] = "big"
    with pytest.raises(ModelError) as info:
        chatparse.from_dict(model.ParsedConversation, data)
    assert any(line.endswith("@ $.messages[1].role") for line in info.value.errors)
    assert any(line.endswith("@ $.meta.size") for line in info.value.errors)
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize(
    ("change", "path"),
    [
        (lambda d: d.pop("id"), "@ $.id"),
        (lambda d: d.update(extra=1), "@ $"),
        (lambda d: d["messages"][0].update(is_sidechain="yes"), "@ $.messages[0].is_sidechain"),
        (
            lambda d: d["messages"][0].update(timestamp="2025-01-01T00:00:00"),
            "@ $.messages[0].timestamp",
        ),
        (lambda d: d["meta"].update(size=True), "@ $.meta.size"),
        (lambda d: d["messages"][0].update(kind="chatter"), "@ $.messages[0].kind"),
        (lambda d: d.update(messages={}), "@ $.messages"),
    ],
)
def test_strict_reading(change: Any, path: str) -> None:
    """Missing fields, unknown fields, coercible-but-wrong types and naive datetimes are refused."""
    data = chatparse.to_dict(_sample())
    change(data)
    with pytest.raises(ModelError) as info:
        chatparse.from_dict(model.ParsedConversation, data)
    assert any(line.endswith(path) for line in info.value.errors), info.value.errors


def test_other_schema_version_is_refused() -> None:
    """Data from another schema version is refused with advice, not misread."""
    data = chatparse.to_dict(_sample())
    data["schema_version"] = 99
    with pytest.raises(ModelError, match="schema version 99"):
        chatparse.from_dict(model.ParsedConversation, data)


def test_not_json_and_not_an_object() -> None:
    """Text that is not JSON, and JSON that is not an object, raise ModelError."""
    with pytest.raises(ModelError, match="not JSON"):
        chatparse.from_json(model.Message, "{")
    with pytest.raises(ModelError, match="expected an object"):
        chatparse.from_dict(model.Message, [])  # type: ignore[call-overload]  # the point of the test


def test_only_model_objects() -> None:
    """to_dict, to_json and from_dict refuse types that are not part of the model."""
    with pytest.raises(TypeError):
        chatparse.to_dict({"a": 1})
    with pytest.raises(TypeError, match="to_json takes a chatparse model object, got dict"):
        chatparse.to_json({"a": 1})
    with pytest.raises(TypeError):
        chatparse.from_dict(dict, {})


def test_shipped_schema_is_current() -> None:
    """The schema file in the package equals a fresh generation from the model."""
    shipped = files("chatparse").joinpath("parsed-conversation.schema.json").read_text("utf-8")
    assert shipped == _jsonschema.render(), (
        "the shipped JSON Schema is stale; regenerate it with: nox -s schema"
    )


def test_schema_rejects_wrong_output() -> None:
    """The schema is strict enough to catch a wrong type and an unknown field."""
    data = chatparse.to_dict(_sample())
    data["messages"][0]["role"] = "robot"
    assert not VALIDATOR.is_valid(data)
    data = chatparse.to_dict(_sample())
    data["surprise"] = True
    assert not VALIDATOR.is_valid(data)


def test_a_conversation_reads_back_without_naming_its_class() -> None:
    """from_json(text) and from_dict(data) read a ParsedConversation; (cls, x) still works."""
    conversation = _sample()
    assert chatparse.from_json(chatparse.to_json(conversation)) == conversation
    assert chatparse.from_json(chatparse.to_json(conversation).encode()) == conversation
    assert chatparse.from_dict(chatparse.to_dict(conversation)) == conversation
    message = conversation.messages[0]
    assert chatparse.from_json(model.Message, chatparse.to_json(message)) == message
    assert chatparse.from_dict(cls=model.Message, data=chatparse.to_dict(message)) == message


def test_a_class_without_data_is_a_clear_type_error() -> None:
    """from_json(cls) alone is a mistake, not an attempt to read the class as JSON."""
    with pytest.raises(TypeError, match=r"from_json\(Message\) needs the data"):
        chatparse.from_json(model.Message)  # type: ignore[call-overload]  # the point of the test
    with pytest.raises(ModelError, match="expected an object"):
        chatparse.from_dict([])  # type: ignore[call-overload]  # the point of the test


WITHOUT_ORJSON = """
import sys
sys.modules["orjson"] = None  # any `import orjson` now raises ImportError
from chatparse import model, serialize
call = model.ToolCall(id="c", name="x", input={"n": [1, 2.5]})
assert serialize._orjson is None
assert serialize.to_json(call) == serialize.json_text(serialize.to_dict(call))
assert serialize.from_json(model.ToolCall, serialize.json_bytes(call)) == call
print("ok")
"""


def test_without_orjson_installed_serialization_works() -> None:
    """With orjson not importable, the module imports and writes through the standard library."""
    result = subprocess.run(
        [sys.executable, "-c", WITHOUT_ORJSON], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "ok"
