"""OpenAI chat-completions messages: roles, tool calls and results, reasoning, image placeholders.

Validation with the openai package's own types, on every golden and corpus conversation, is in
test_interop_validation.py.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from chatparse.interop import to_openai_messages
from chatparse.model import ConversationMeta, ImageRef, Message, ParsedConversation, ToolCall


def conversation(*messages: Message) -> ParsedConversation:
    meta = ConversationMeta(source="codex", id="c1", path="/x.jsonl", fingerprint="f")
    return ParsedConversation(
        source="codex", id="c1", meta=meta, parser_version="1", messages=messages
    )


def test_messages_keep_roles_and_order() -> None:
    """System, user and assistant messages come out in conversation order with their text."""
    out = to_openai_messages(
        conversation(
            Message(id="s", role="system", text="Be brief."),
            Message(id="u", role="user", text="Hi"),
            Message(id="a", role="assistant", text="Hello"),
        )
    )
    assert out == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Hi"},
        {"role": "assistant", "content": "Hello"},
    ]


def test_tool_calls_have_json_arguments_and_results_follow_as_tool_messages() -> None:
    """Each call's arguments are a JSON object string; each recorded result is a tool message."""
    calls = (
        ToolCall(id="call_1", name="shell", input={"command": ["ls"]}, output="a.py"),
        ToolCall(id=None, name="apply_patch", input="*** Begin Patch", output="Done"),
        ToolCall(id="call_3", name="wait", input={}),
    )
    out = to_openai_messages(
        conversation(Message(id="m4", role="assistant", tool_calls=calls, thinking="plan"))
    )
    assistant, *results = out
    assert assistant["content"] is None  # no text beside tool calls
    assert assistant["reasoning_content"] == "plan"
    ids = [call["id"] for call in assistant["tool_calls"]]
    assert ids == ["call_1", "m4.call2", "call_3"]
    arguments = [json.loads(call["function"]["arguments"]) for call in assistant["tool_calls"]]
    assert arguments == [{"command": ["ls"]}, {"input": "*** Begin Patch"}, {}]
    assert {call["type"] for call in assistant["tool_calls"]} == {"function"}
    assert results == [
        {"role": "tool", "tool_call_id": "call_1", "content": "a.py"},
        {"role": "tool", "tool_call_id": "m4.call2", "content": "Done"},
    ]


def test_images_become_placeholders_unless_the_text_already_shows_them() -> None:
    """An image the text does not mention is added as a text part; one it shows is not doubled."""
    png = ImageRef(media_type="image/png", byte_size=70)
    out = to_openai_messages(
        conversation(
            Message(id="u1", role="user", text="Why?", images=(png,)),
            Message(id="u2", role="user", text="See [image: image/png, 70 bytes].", images=(png,)),
            Message(id="u3", role="user", images=(ImageRef(),)),
        )
    )
    contents: list[Any] = [message["content"] for message in out]
    assert contents == [
        [
            {"type": "text", "text": "Why?"},
            {"type": "text", "text": "[image: image/png, 70 bytes]"},
        ],
        "See [image: image/png, 70 bytes].",
        [{"type": "text", "text": "[image: unknown type]"}],
    ]


def test_main_thread_leaves_abandoned_branches_out() -> None:
    """With main_thread=True only the line from the root to the newest leaf is exported."""
    messages = [
        Message(id="u", role="user", text="q", timestamp=datetime(2025, 1, 1, tzinfo=UTC)),
        Message(id="old", role="assistant", parent_id="u", text="old"),
        Message(
            id="new",
            role="assistant",
            parent_id="u",
            text="new",
            timestamp=datetime(2025, 1, 2, tzinfo=UTC),
        ),
    ]
    assert [m["content"] for m in to_openai_messages(conversation(*messages))] == [
        "q",
        "old",
        "new",
    ]
    main = to_openai_messages(conversation(*messages), main_thread=True)
    assert [m["content"] for m in main] == ["q", "new"]
