"""Property tests of the Trae adapter: any session shape parses, and the invariants hold."""

from __future__ import annotations

import json
import sqlite3
import tempfile
from contextlib import closing
from itertools import pairwise
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from chatparse.adapters.trae import TraeAdapter, scanning
from chatparse.adapters.trae.parsed import Store, conversation
from chatparse.adapters.trae.session import Session
from chatparse.adapters.trae.split import split_list
from chatparse.adapters.trae.stores import STORE_KEY
from chatparse.decoders import value as jsonvalue
from chatparse.host import Host
from chatparse.model import ConversationMeta, ParsedConversation
from chatparse.testing import check_conversation

T0 = 1767348000000

text = st.text(st.characters(codec="utf-8"), max_size=12)
json_scalars = st.none() | st.booleans() | st.integers(-(2**53), 2**53) | text
json_values = st.recursive(
    json_scalars | st.floats(allow_nan=False, allow_infinity=False),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(text, inner, max_size=3),
    max_leaves=8,
)
# A few ids and turns, drawn from small pools so that collisions happen often.
ids = st.none() | st.sampled_from(["a", "b", "t1", "t1:user"])
turns = st.none() | st.integers(-1, 3) | st.sampled_from(["2", 1.0, True])
stamps = st.none() | st.integers(T0 - 5_000, T0 + 5_000) | st.sampled_from([-1, 0, "x", 2**62])
statuses = st.none() | st.sampled_from(["completed", "failed", "cancelled", "running", ""])
steps = st.lists(
    st.fixed_dictionaries(
        {},
        optional={
            "toolName": st.none() | st.sampled_from(["finish", "view_files", ""]),
            "thought": st.none() | text,
            "reasoningContent": st.none() | text,
            "params": json_values,
            "toolCallId": ids,
        },
    )
    | json_scalars,
    max_size=3,
)
tasks = st.fixed_dictionaries(
    {},
    optional={
        "proposal": st.none() | text,
        "proposalReasoningContent": st.none() | text,
        "guideline": st.fixed_dictionaries(
            {}, optional={"thought": st.none() | text, "planItems": steps}
        )
        | json_scalars,
    },
)
task_fields = tasks | tasks.map(json.dumps) | text | json_scalars
messages = st.fixed_dictionaries(
    {},
    optional={
        "role": st.sampled_from(["user", "assistant", "system", "tool", None, 3]),
        "content": st.none() | text | json_scalars,
        "parsedQuery": st.none() | text | st.lists(text | json_scalars, max_size=2),
        "turnIndex": turns,
        "turnId": ids,
        "userMessageId": ids,
        "agentMessageId": ids,
        "timestamp": stamps,
        "status": statuses,
        "errorMessage": st.none() | text,
        "modelInfo": st.none() | json_values | st.just('{"display_model_name": "m"}'),
        "agentTaskContent": task_fields,
        "meta": json_values | text,
        "multiMedia": st.none() | st.just("") | st.lists(json_values, max_size=2),
    },
)
sessions = st.fixed_dictionaries(
    {"messages": st.lists(messages | json_scalars, max_size=6)},
    optional={
        "title": st.none() | text,
        "name": st.none() | text,
        "createdAt": stamps,
        "updatedAt": stamps,
        "hasMore": st.booleans(),
        "nextPageToken": json_scalars,
    },
)


def conversation_of(value: dict[str, Any]) -> ParsedConversation:
    """What ``parse`` would return for a session read from a store, without the store."""
    session = Session.read("s", value)
    if not session.entries and not session.unreadable:
        session.fall_back([], unattributed=0)
    locator = {"key": STORE_KEY, "position": "0"}
    meta = ConversationMeta(source="trae", id="s", path="db", fingerprint="f", locator=locator)
    return conversation(TraeAdapter(), meta, Store({(STORE_KEY, 0): session}, [], 0))


@given(sessions)
@settings(max_examples=300, deadline=None)
def test_any_session_parses_with_the_invariants_kept(value: dict[str, Any]) -> None:
    """Whatever a session holds, parsing it keeps every conformance invariant."""
    conversation = conversation_of(value)
    assert check_conversation(conversation) == []
    assert conversation.diagnostics.balanced
    assert conversation.diagnostics.records_seen == len(value["messages"])


@given(sessions)
@settings(max_examples=300, deadline=None)
def test_times_only_go_forward(value: dict[str, Any]) -> None:
    """Message times, where there are any, strictly increase in conversation order."""
    stamps = [m.timestamp for m in conversation_of(value).messages if m.timestamp is not None]
    assert all(earlier < later for earlier, later in pairwise(stamps))


@given(
    st.lists(sessions, min_size=1, max_size=3),
    st.sampled_from(["TEXT", "BLOB"]),
    st.sampled_from([(", ", ": "), (",", ":")]),
)
@settings(max_examples=25, deadline=None)
def test_sessions_read_through_a_database_match_the_direct_reading(
    values: list[dict[str, Any]], column: str, separators: tuple[str, str]
) -> None:
    """Reading a store out of a database (split or whole) gives what reading a session gives."""
    for number, value in enumerate(values):
        value["sessionId"] = f"s{number}"
    document = json.dumps(
        {"currentSessionId": "s0", "list": values}, separators=separators, ensure_ascii=False
    )
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        db = home / ".config/Trae/User/workspaceStorage/w/state.vscdb"
        db.parent.mkdir(parents=True)
        with closing(sqlite3.connect(db)) as connection, connection:
            connection.execute("CREATE TABLE ItemTable (key TEXT UNIQUE, value BLOB)")
            stored = document.encode() if column == "BLOB" else document
            connection.execute("INSERT INTO ItemTable VALUES (?, ?)", (STORE_KEY, stored))
        adapter = TraeAdapter()
        source = adapter.detect(Host(home=home, env={}, platform="linux"))
        assert source is not None
        parsed = {meta.id: adapter.parse(meta) for meta in adapter.scan(source)}
    assert sorted(parsed) == [f"s{n}" for n in range(len(values))]
    for number, value in enumerate(values):
        direct = Session.read(f"s{number}", value)
        assert parsed[f"s{number}"].messages == direct.messages


# Keys that make a compact store hard to cut: the first key of the items, repeated inside them.
tricky_keys = st.sampled_from(["sessionId", "list", "a", '},{"sessionId"', "]}"])
tricky_values = st.recursive(
    json_scalars | st.sampled_from(['},{"sessionId":"', "]", '"list":[']),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(tricky_keys, inner, max_size=3),
    max_leaves=8,
)
tricky_items = st.dictionaries(tricky_keys, tricky_values, max_size=3) | tricky_values


@given(
    st.lists(tricky_items, max_size=4),
    st.dictionaries(tricky_keys, tricky_values, max_size=2),
    st.dictionaries(tricky_keys, tricky_values, max_size=2),
)
@settings(max_examples=300, deadline=None)
def test_a_split_store_gives_the_items_of_the_whole_decode(
    items: list[Any], before: dict[str, Any], after: dict[str, Any]
) -> None:
    """Splitting a compact store gives the items of the whole decode, or nothing.

    Whatever the store holds around and in its list. The digest of each item's own bytes is the
    digest of the item written back, as the value was written the way it writes.
    """
    document = {**before, "list": items, **after}
    value = json.dumps(document, separators=(",", ":"), ensure_ascii=False).encode()
    split = split_list(value, lambda _position, item, digest: (item, digest))
    if split is None:
        return
    whole = jsonvalue.decode(value)
    assert isinstance(whole, dict)
    assert [item for item, _ in split] == whole["list"]
    for item, digest in split:
        assert digest == scanning.digest(item)
