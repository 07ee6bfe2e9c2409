"""The log replay's edits against a plain model of them, on any state, path and entry.

``_apply`` takes shortcuts for speed (it runs once per line of logs of any length); this model
takes none: every step of a path is one careful lookup, as JavaScript reads a serialized object.
Both must leave the same state and give the same reason, for every entry, odd ones included:
``true``, ``1.0`` or ``-1`` as an array index, a number as an object's key, a string as a parent.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from chatparse.adapters.copilot.replay import _apply

MISSING = object()
NO_PARENT = "the path's parent does not exist"
BAD_PATH = "path is not a list of keys and indices"
NO_OP = "empty path, ignored as VS Code ignores it"
SET, PUSH, DELETE = 1, 2, 3


def child(node: Any, key: object) -> Any:
    if type(node) is dict and type(key) in (str, int):
        return node.get(str(key), MISSING)
    if type(node) is list and type(key) is int and 0 <= key < len(node):
        return node[key]
    return MISSING


def assign(parent: Any, key: Any, value: Any) -> str | None:
    if type(parent) is dict:
        parent[str(key)] = value
        return None
    if type(key) is not int or key < 0:
        return "an array index that is not a number"
    if key - len(parent) > 10_000:
        return "an array index far past the array's end"
    parent.extend([None] * (key - len(parent)))
    if key < len(parent):
        parent[key] = value
    else:
        parent.append(value)
    return None


def push(parent: Any, key: Any, entry: dict[str, Any]) -> str | None:
    items = child(parent, key)
    fresh = items is MISSING or items is None
    if fresh:
        items = []
    elif type(items) is not list:
        return "push onto a value that is not an array"
    values = entry.get("v")
    if values is not None and type(values) is not list:
        return "push of a value that is not an array"
    truncate = entry.get("i")
    if type(truncate) is int and truncate >= 0:
        del items[truncate:]
    items.extend(values or [])
    return assign(parent, key, items) if fresh else None


def delete(parent: Any, key: Any) -> None:
    if type(parent) is dict:
        parent.pop(str(key), None)
    elif type(key) is int and 0 <= key < len(parent):
        parent[key] = None


def model_apply(state: dict[str, Any], kind: int, entry: dict[str, Any]) -> str | None:
    keys = entry.get("k")
    if type(keys) is not list:
        return BAD_PATH
    if not keys:
        return NO_OP if kind != PUSH else "push without a path"
    parent: Any = state
    for key in keys[:-1]:
        parent = child(parent, key)
        if parent is MISSING:
            return NO_PARENT
    last = keys[-1]
    if type(parent) not in (dict, list):
        return NO_PARENT
    if type(last) not in (str, int):
        return BAD_PATH
    return EDITS[kind](parent, last, entry)


EDITS: dict[int, Callable[[Any, Any, dict[str, Any]], str | None]] = {
    SET: lambda parent, key, entry: assign(parent, key, entry.get("v")),
    PUSH: push,
    DELETE: lambda parent, key, _entry: delete(parent, key),
}


NAMES = st.sampled_from(["requests", "response", "a", "0", "1"])
ODD_KEYS = st.sampled_from([True, False, 1.0, 0.0, -1, -2, None, 10_002, 3_000_000_000])
KEYS = st.one_of(NAMES, st.integers(min_value=0, max_value=3), ODD_KEYS)
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-2, 3), st.floats(0, 2), NAMES)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(NAMES, inner, max_size=4)),
    max_leaves=12,
)
ENTRIES = st.fixed_dictionaries(
    {"k": st.one_of(st.lists(KEYS, max_size=4), KEYS)},
    optional={
        "v": st.one_of(VALUES, st.lists(VALUES, max_size=3)),
        "i": st.one_of(st.integers(-1, 4), st.booleans(), st.none()),
    },
)


@settings(max_examples=500, deadline=None)
@given(
    state=st.dictionaries(NAMES, VALUES, max_size=4),
    entries=st.lists(st.tuples(st.sampled_from([SET, PUSH, DELETE]), ENTRIES), max_size=6),
)
def test_apply_agrees_with_the_model(
    state: dict[str, Any], entries: list[tuple[int, dict[str, Any]]]
) -> None:
    ours, model = copy.deepcopy(state), copy.deepcopy(state)
    for kind, entry in entries:
        # Each side gets its own entry: a pushed or set value becomes part of the state.
        assert _apply(ours, kind, copy.deepcopy(entry)) == model_apply(
            model, kind, copy.deepcopy(entry)
        )
        assert repr(ours) == repr(model)  # repr: True, 1 and 1.0 are equal but not the same


def test_paths_through_every_kind_of_parent() -> None:
    """The odd steps one by one, with the reason each gives."""
    state: dict[str, Any] = {"a": [{"x": 1}, "text"], "1": {"y": 2}}
    cases: list[tuple[list[object], str | None]] = [
        (["a", 0, "x"], None),  # an object key, an index in range
        ([1, "y"], None),  # a number as an object's key: JavaScript reads "1"
        (["a", -1, "x"], NO_PARENT),  # not an index, though Python would take the last item
        (["a", True, "x"], NO_PARENT),  # nor is true, though Python would take item 1
        (["a", 1.0, "x"], NO_PARENT),
        (["a", 5, "x"], NO_PARENT),  # out of range
        (["a", 10**20, "x"], NO_PARENT),  # and beyond any index
        (["a", 1, 0, "x"], NO_PARENT),  # a string is not a parent, indexed or not
        (["a", 1, 0], NO_PARENT),
        (["a", "x", "y"], NO_PARENT),  # a key of an array
        (["b", "x"], NO_PARENT),  # a missing key
        ([None, "x"], NO_PARENT),
    ]
    for keys, reason in cases:
        ours, model = copy.deepcopy(state), copy.deepcopy(state)
        entry = {"k": keys, "v": 7}
        assert _apply(ours, SET, dict(entry)) == model_apply(model, SET, dict(entry)) == reason
        assert repr(ours) == repr(model)
