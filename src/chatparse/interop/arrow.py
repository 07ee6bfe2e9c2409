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


class _Columns:
    """The four tables' columns while rows are added, as Python lists."""

    def __init__(self) -> None:
        self.tables: dict[str, dict[str, list[Any]]] = {
            name: {column: [] for column in schema.names} for name, schema in ARROW_SCHEMAS.items()
        }

    def add(self, table: str, **row: Any) -> None:
        columns = self.tables[table]
        for name, value in row.items():
            columns[name].append(value)

    def conversation(self, conversation: ParsedConversation, parent: str | None) -> None:
        keys = {"source": conversation.source, "conversation_id": conversation.id}
        diagnostics = conversation.diagnostics
        self.add(
            "conversations",
            **keys,
            parent_conversation_id=parent,
            title=conversation.title,
            project_path=conversation.project_path,
            git_branch=conversation.git_branch,
            created_at=conversation.created_at,
            updated_at=conversation.updated_at,
            parser_version=conversation.parser_version,
            producer_version=conversation.producer_version,
            path=conversation.meta.path,
            fingerprint=conversation.meta.fingerprint,
            message_count=len(conversation.messages),
            records_seen=diagnostics.records_seen,
            records_used=diagnostics.records_used,
            malformed_records=diagnostics.malformed,
            unknown_records=len(diagnostics.unknown),
            warnings=list(diagnostics.warnings),
        )
        for position, message in enumerate(conversation.messages):
            self.message({**keys, "message_id": message.id}, position, message)
        for subagent in conversation.subagents:
            self.conversation(subagent, conversation.id)

    def message(self, keys: dict[str, str], position: int, message: Message) -> None:
        self.add(
            "messages",
            **keys,
            position=position,
            parent_id=message.parent_id,
            role=message.role,
            kind=message.kind,
            text=message.text,
            thinking=message.thinking,
            timestamp=message.timestamp,
            timestamp_synthesized=message.timestamp_synthesized,
            model=message.model,
            request_id=message.request_id,
            is_sidechain=message.is_sidechain,
            image_count=len(message.images),
            tool_call_count=len(message.tool_calls),
        )
        for index, call in enumerate(message.tool_calls):
            self.add(
                "tool_calls",
                **keys,
                position=index,
                call_id=call.id,
                name=call.name,
                input_json=_json(call.input),
                output=call.output,
                is_error=call.is_error,
                result_json=None if call.result is None else _json(call.result),
            )
        usage = message.usage
        if usage is not None:
            self.add(
                "usage",
                **keys,
                model=message.model,
                timestamp=message.timestamp,
                input_tokens=usage.input_tokens,
                output_tokens=usage.output_tokens,
                cache_read_tokens=usage.cache_read_tokens,
                cache_write_tokens=usage.cache_write_tokens,
                reasoning_tokens=usage.reasoning_tokens,
                dedup_key=usage.dedup_key,
                counted=usage.counted,
            )


def to_arrow(conversations: Iterable[ParsedConversation]) -> dict[str, pa.Table]:
    """The conversations as four Arrow tables in the schemas of :data:`ARROW_SCHEMAS`.

    Every conversation given becomes one row of ``conversations`` (its sub-agents one each),
    every message one row of ``messages``, every tool call one of ``tool_calls`` and every
    recorded usage one of ``usage``, in conversation order.

    .. versionadded:: 0.2
    """
    columns = _Columns()
    for conversation in conversations:
        columns.conversation(conversation, None)
    return {
        name: pa.table(columns.tables[name], schema=schema)
        for name, schema in ARROW_SCHEMAS.items()
    }


def _json(value: Any) -> bytes:
    # Compact UTF-8 JSON, through orjson when installed; Arrow takes the bytes as a string.
    return canonical_bytes(value)
