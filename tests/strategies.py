"""Hypothesis strategies that build every model object, nested sub-agents included."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from typing import Any

from hypothesis import strategies as st

from chatparse import model

# Any Unicode a well-formed string may hold: no lone surrogates (chatparse repairs those at the
# boundary, so they never reach the model).
text = st.text(st.characters(codec="utf-8"), max_size=8)
maybe_text = st.none() | text
counts = st.none() | st.integers(min_value=0, max_value=2**53)
source_names = st.from_regex(r"[a-z0-9]{1,6}(?:-[a-z0-9]{1,6}){0,2}", fullmatch=True)
zones = st.sampled_from(
    [UTC, timezone(timedelta(hours=5, minutes=30)), timezone(-timedelta(hours=8))]
)
moments = st.none() | st.datetimes(
    min_value=datetime(1970, 1, 2),  # noqa: DTZ001 -- hypothesis wants naive bounds; zones are added below
    max_value=datetime(2100, 1, 1),  # noqa: DTZ001 -- ditto
    timezones=zones,
)
json_values: st.SearchStrategy[Any] = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | text,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(text, inner, max_size=3),
    max_leaves=4,
)

usages = st.builds(
    model.Usage,
    input_tokens=counts,
    output_tokens=counts,
    cache_read_tokens=counts,
    cache_write_tokens=counts,
    reasoning_tokens=counts,
    dedup_key=maybe_text,
    counted=st.booleans(),
)
images = st.builds(model.ImageRef, media_type=maybe_text, byte_size=counts)
tool_calls = st.builds(
    model.ToolCall,
    id=maybe_text,
    name=text,
    input=json_values,
    output=maybe_text,
    is_error=st.none() | st.booleans(),
    result=json_values,
)
messages = st.builds(
    model.Message,
    id=text,
    role=st.sampled_from(model.ROLES),
    parent_id=maybe_text,
    text=text,
    thinking=maybe_text,
    tool_calls=st.lists(tool_calls, max_size=1).map(tuple),
    images=st.lists(images, max_size=1).map(tuple),
    timestamp=moments,
    timestamp_synthesized=st.booleans(),
    model=maybe_text,
    usage=st.none() | usages,
    request_id=maybe_text,
    is_sidechain=st.booleans(),
    kind=st.sampled_from(model.MESSAGE_KINDS),
)
unknown_records = st.builds(
    model.UnknownRecord, where=text, type=maybe_text, raw=text, producer_version=maybe_text
)
diagnostics = st.builds(
    model.Diagnostics,
    records_seen=st.integers(min_value=0, max_value=10**6),
    records_used=st.integers(min_value=0, max_value=10**6),
    malformed=st.integers(min_value=0, max_value=10**6),
    skipped=st.dictionaries(text, st.integers(min_value=0, max_value=10**6), max_size=3),
    unknown=st.lists(unknown_records, max_size=1).map(tuple),
    warnings=st.lists(text, max_size=2).map(tuple),
)
metas = st.builds(
    model.ConversationMeta,
    source=source_names,
    id=text,
    path=text,
    fingerprint=text,
    size=counts,
    mtime=moments,
    title=maybe_text,
    project_path=maybe_text,
    created_at=moments,
    updated_at=moments,
    locator=st.dictionaries(text, text, max_size=3),
)
source_infos = st.builds(
    model.SourceInfo,
    source=source_names,
    display_name=text,
    roots=st.lists(text, max_size=3).map(tuple),
    conversation_count=counts,
)


def _conversation(subagents: st.SearchStrategy[tuple[model.ParsedConversation, ...]]) -> Any:
    return st.builds(
        model.ParsedConversation,
        source=source_names,
        id=text,
        meta=metas,
        parser_version=text,
        title=maybe_text,
        project_path=maybe_text,
        git_branch=maybe_text,
        created_at=moments,
        updated_at=moments,
        producer_version=maybe_text,
        messages=st.lists(messages, max_size=2).map(tuple),
        subagents=subagents,
        diagnostics=diagnostics,
    )


conversations: st.SearchStrategy[model.ParsedConversation] = st.recursive(
    _conversation(st.just(())),
    lambda inner: _conversation(st.lists(inner, max_size=2).map(tuple)),
    max_leaves=3,
)

any_model_object = st.one_of(
    conversations,
    metas,
    source_infos,
    messages,
    tool_calls,
    images,
    usages,
    diagnostics,
    unknown_records,
)
