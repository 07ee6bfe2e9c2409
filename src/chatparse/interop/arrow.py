"""Conversations as Arrow tables: ``conversations``, ``messages``, ``tool_calls`` and ``usage``.

Columnar tables are what analytics tools read (DuckDB, polars, pandas, Spark): one row per
conversation, message, tool call or recorded usage, in fixed schemas (:data:`ARROW_SCHEMAS`), so
tables made on many machines or in many workers concatenate. The tables join on
``(source, conversation_id)`` and ``(source, conversation_id, message_id)``. Sub-agents are
flattened: each is a conversation row of its own whose ``parent_conversation_id`` names the
conversation that started it.

Text is ``large_string`` (a session can hold more than 2 GiB of text); tool inputs and structured
results are JSON text, since their shapes differ from tool to tool. Times are microsecond UTC
timestamps. Usage rows keep ``dedup_key`` and ``counted``, so the cross-conversation count is a
group-by (see ``docs/scale-out.md``).

Needs the ``arrow`` extra (``pip install 'chatparse[arrow]'``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final

import pyarrow as pa

from chatparse.decoders.value import canonical_bytes
from chatparse.model import Message, ParsedConversation

__all__ = ["ARROW_SCHEMAS", "to_arrow"]

_TEXT: Final = pa.large_string()
_TIME: Final = pa.timestamp("us", tz="UTC")
_COUNT: Final = pa.int64()

_KEYS: Final = [
    pa.field("source", pa.string(), nullable=False),
    pa.field("conversation_id", pa.string(), nullable=False),
]
_MESSAGE_KEY: Final = [*_KEYS, pa.field("message_id", pa.string(), nullable=False)]

ARROW_SCHEMAS: Final[dict[str, pa.Schema]] = {
    "conversations": pa.schema(
        [
            *_KEYS,
            pa.field("parent_conversation_id", pa.string()),
            pa.field("title", _TEXT),
            pa.field("project_path", pa.string()),
            pa.field("git_branch", pa.string()),
            pa.field("created_at", _TIME),
            pa.field("updated_at", _TIME),
            pa.field("parser_version", pa.string(), nullable=False),
            pa.field("producer_version", pa.string()),
            pa.field("path", pa.string(), nullable=False),
            pa.field("fingerprint", pa.string(), nullable=False),
            pa.field("message_count", _COUNT, nullable=False),
            pa.field("records_seen", _COUNT, nullable=False),
            pa.field("records_used", _COUNT, nullable=False),
            pa.field("malformed_records", _COUNT, nullable=False),
            pa.field("unknown_records", _COUNT, nullable=False),
            pa.field("warnings", pa.list_(_TEXT), nullable=False),
        ]
    ),
    "messages": pa.schema(
        [
            *_MESSAGE_KEY,
            pa.field("position", _COUNT, nullable=False),
            pa.field("parent_id", pa.string()),
            pa.field("role", pa.string(), nullable=False),
            pa.field("kind", pa.string(), nullable=False),
            pa.field("text", _TEXT, nullable=False),
            pa.field("thinking", _TEXT),
            pa.field("timestamp", _TIME),
            pa.field("timestamp_synthesized", pa.bool_(), nullable=False),
            pa.field("model", pa.string()),
            pa.field("request_id", pa.string()),
            pa.field("is_sidechain", pa.bool_(), nullable=False),
            pa.field("image_count", _COUNT, nullable=False),
            pa.field("tool_call_count", _COUNT, nullable=False),
        ]
    ),
    "tool_calls": pa.schema(
        [
            *_MESSAGE_KEY,
            pa.field("position", _COUNT, nullable=False),
            pa.field("call_id", pa.string()),
            pa.field("name", pa.string(), nullable=False),
            pa.field("input_json", _TEXT, nullable=False),
            pa.field("output", _TEXT),
            pa.field("is_error", pa.bool_()),
            pa.field("result_json", _TEXT),
        ]
    ),
    "usage": pa.schema(
        [
            *_MESSAGE_KEY,
            pa.field("model", pa.string()),
            pa.field("timestamp", _TIME),
            pa.field("input_tokens", _COUNT),
            pa.field("output_tokens", _COUNT),
            pa.field("cache_read_tokens", _COUNT),
            pa.field("cache_write_tokens", _COUNT),
            pa.field("reasoning_tokens", _COUNT),
            pa.field("dedup_key", pa.string()),
            pa.field("counted", pa.bool_(), nullable=False),
        ]
    ),
}
"""The fixed schema of each table :func:`to_arrow` makes, by table name."""


class _Rows:
    """The four tables' rows while conversations are read: tuples in their schema's column order."""

    def __init__(self) -> None:
        self.rows: dict[str, list[tuple[Any, ...]]] = {name: [] for name in ARROW_SCHEMAS}
        self.conversations = self.rows["conversations"]
        self.messages = self.rows["messages"]
        self.tool_calls = self.rows["tool_calls"]
        self.usage = self.rows["usage"]

    def conversation(self, conversation: ParsedConversation, parent: str | None) -> None:
        source, conversation_id = conversation.source, conversation.id
        diagnostics = conversation.diagnostics
        self.conversations.append(
            (
                source,
                conversation_id,
                parent,
                conversation.title,
                conversation.project_path,
                conversation.git_branch,
                conversation.created_at,
                conversation.updated_at,
                conversation.parser_version,
                conversation.producer_version,
                conversation.meta.path,
                conversation.meta.fingerprint,
                len(conversation.messages),
                diagnostics.records_seen,
                diagnostics.records_used,
                diagnostics.malformed,
                len(diagnostics.unknown),
                list(diagnostics.warnings),
            )
        )
        for position, message in enumerate(conversation.messages):
            self.message(source, conversation_id, position, message)
        for subagent in conversation.subagents:
            self.conversation(subagent, conversation_id)

    def message(self, source: str, conversation_id: str, position: int, message: Message) -> None:
        key = (source, conversation_id, message.id)
        self.messages.append(
            (
                *key,
                position,
                message.parent_id,
                message.role,
                message.kind,
                message.text,
                message.thinking,
                message.timestamp,
                message.timestamp_synthesized,
                message.model,
                message.request_id,
                message.is_sidechain,
                len(message.images),
                len(message.tool_calls),
            )
        )
        for index, call in enumerate(message.tool_calls):
            self.tool_calls.append(
                (
                    *key,
                    index,
                    call.id,
                    call.name,
                    _json(call.input),
                    call.output,
                    call.is_error,
                    None if call.result is None else _json(call.result),
                )
            )
        usage = message.usage
        if usage is not None:
            self.usage.append(
                (
                    *key,
                    message.model,
                    message.timestamp,
                    usage.input_tokens,
                    usage.output_tokens,
                    usage.cache_read_tokens,
                    usage.cache_write_tokens,
                    usage.reasoning_tokens,
                    usage.dedup_key,
                    usage.counted,
                )
            )

    def table(self, name: str) -> pa.Table:
        schema = ARROW_SCHEMAS[name]
        rows = self.rows[name]
        columns = zip(*rows, strict=True) if rows else ([] for _ in schema)
        return pa.Table.from_arrays(
            [
                pa.array(column, type=field.type)
                for column, field in zip(columns, schema, strict=True)
            ],
            schema=schema,
        )


def to_arrow(conversations: Iterable[ParsedConversation]) -> dict[str, pa.Table]:
    """The conversations as four Arrow tables in the schemas of :data:`ARROW_SCHEMAS`.

    Every conversation given becomes one row of ``conversations`` (its sub-agents one each),
    every message one row of ``messages``, every tool call one of ``tool_calls`` and every
    recorded usage one of ``usage``, in conversation order.

    .. versionadded:: 0.2
    """
    rows = _Rows()
    for conversation in conversations:
        rows.conversation(conversation, None)
    return {name: rows.table(name) for name in ARROW_SCHEMAS}


def _json(value: Any) -> bytes:
    # Compact UTF-8 JSON, through orjson when installed; Arrow takes the bytes as a string.
    return canonical_bytes(value)
