"""Tests for chatparse.decoders.bigjson: items out of one large document, damage reported."""

from __future__ import annotations

import importlib.util
import io
import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chatparse.decoders import bigjson
from chatparse.decoders.bigjson import Item, Malformed, iter_items, iter_kvitems
from chatparse.errors import SourceUnavailableError

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**63) + 1, 2**63 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(), children, max_size=4)
    ),
    max_leaves=20,
)


def values(records: list[Item | Malformed]) -> list[Any]:
    return [r.value for r in records if isinstance(r, Item)]


def test_items_under_a_prefix_come_one_by_one_with_their_index() -> None:
    """Each array element under the prefix is one Item, numbered from 0."""
    document = b'{"requests": [{"a": 1}, {"b": 2.5}], "other": [9]}'
    assert list(iter_items(document, "requests.item")) == [
        Item(0, {"a": 1}),
        Item(1, {"b": 2.5}),
    ]


def test_kvitems_yield_the_keys_of_an_object() -> None:
    """Each member of the object under the prefix is one Item keyed by its name."""
    assert list(iter_kvitems(b'{"x": 1, "y": [2]}', "")) == [Item("x", 1), Item("y", [2])]


def test_numbers_are_floats_never_decimals() -> None:
    """Non-integral numbers come out as float, integers as int."""
    (item,) = iter_items(b"[[1.5, 2, 1e3, -0.25]]", "item")
    assert isinstance(item, Item)
    assert item.value == [1.5, 2, 1000.0, -0.25]
    assert [type(v) for v in item.value] == [float, int, float, float]


def test_truncated_document_yields_items_then_malformed_at_its_size() -> None:
    """Items before the cut are kept and a Malformed marks where the input ended."""
    document = b'{"requests": [{"a": 1}, {"b": 2}, {"c": '
    records = list(iter_items(document, "requests.item"))
    assert records == [
        Item(0, {"a": 1}),
        Item(1, {"b": 2}),
        Malformed(len(document), "parse error: premature EOF"),
    ]


def test_garbage_after_the_document_is_reported() -> None:
    """Trailing garbage is malformed rather than silently ignored."""
    records = list(iter_items(b"[1] x", "item"))
    assert records[0] == Item(0, 1)
    assert isinstance(records[-1], Malformed)


def test_empty_input_is_malformed() -> None:
    """An empty document is reported, not raised."""
    assert [type(r) for r in iter_items(b"", "item")] == [Malformed]


def test_invalid_utf8_is_replaced() -> None:
    """Invalid bytes inside strings become U+FFFD instead of failing the document."""
    assert values(list(iter_items(b'["a\xffb", "c"]', "item"))) == ["a\ufffdb", "c"]


def test_lone_surrogates_become_replacement_characters() -> None:
    """Lone surrogate escapes become U+FFFD; pairs and escaped backslashes are kept."""
    document = rb'["\ud83d", "\udc00x", "\ud83d\ude00", "\\ud83d", {"\ud800": 1}]'
    assert values(list(iter_items(document, "item"))) == [
        "\ufffd",
        "\ufffdx",
        "\U0001f600",
        "\\ud83d",
        {"\ufffd": 1},
    ]


@settings(max_examples=60, deadline=None)
@given(
    st.integers(0, 40), st.sampled_from([rb"\ud83d\ude00", rb"\ud83d", rb"\\ud83d", "é".encode()])
)
def test_escapes_split_between_reads_are_still_recognised(shift: int, piece: bytes) -> None:
    """A surrogate pair or multibyte character cut by a read boundary decodes as if whole."""
    padding = b"x" * (bigjson._READ_SIZE - 10 + shift)
    document = b'["' + padding + piece + b'", "' + piece + b'"]'
    first, second = values(list(iter_items(document, "item")))
    assert first == "x" * len(padding) + second
    assert second == json.loads(b'"' + piece + b'"').encode("utf-16", "surrogatepass").decode(
        "utf-16", "replace"
    )


@settings(max_examples=100)
@given(st.lists(json_values, max_size=6))
def test_random_documents_round_trip(items: list[Any]) -> None:
    """Any serialized array yields its elements equal to the standard library's reading."""
    document = json.dumps({"items": items}).encode()
    records = list(iter_items(document, "items.item"))
    assert [r.key for r in records if isinstance(r, Item)] == list(range(len(items)))
    assert values(records) == json.loads(document)["items"]
    assert not any(isinstance(v, Decimal) for v in _leaves(values(records)))


@settings(max_examples=100)
@given(st.lists(json_values, min_size=1, max_size=6), st.data())
def test_random_truncations_never_raise(items: list[Any], data: st.DataObject) -> None:
    """A document cut anywhere yields a prefix of its items and then one Malformed."""
    document = json.dumps(items).encode()
    cut = data.draw(st.integers(0, len(document) - 1))
    records = list(iter_items(document[:cut], "item"))
    assert records[-1] == Malformed(cut, records[-1].reason)  # type: ignore[union-attr]
    got = values(records)
    assert got[:-1] == items[: max(len(got) - 1, 0)]
    if got and got[-1] != items[len(got) - 1]:
        # A number at the cut is complete as far as the parser can tell (10 cut to 1).
        assert type(got[-1]) in {int, float}


@settings(max_examples=100)
@given(st.binary(max_size=300))
def test_random_bytes_never_raise(data: bytes) -> None:
    """Arbitrary bytes give items or a Malformed, never an exception."""
    for record in iter_items(data, "item"):
        assert isinstance(record, Item | Malformed)


def _leaves(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return [leaf for child in value.values() for leaf in _leaves(child)]
    if isinstance(value, list):
        return [leaf for child in value for leaf in _leaves(child)]
    return [value]


def test_paths_and_streams_are_read(tmp_path: Path) -> None:
    """A path is opened and closed; a stream is read from its position."""
    path = tmp_path / "doc.json"
    path.write_bytes(b'{"a": [1, 2]}')
    assert values(list(iter_items(path, "a.item"))) == [1, 2]
    stream = io.BytesIO(b'xx{"a": [3]}')
    stream.seek(2)
    assert values(list(iter_items(stream, "a.item"))) == [3]


def test_a_missing_path_raises_source_unavailable(tmp_path: Path) -> None:
    """A path that cannot be opened raises SourceUnavailableError naming it."""
    with pytest.raises(SourceUnavailableError, match=r"missing\.json"):
        list(iter_items(tmp_path / "missing.json", "item"))


@pytest.mark.skipif(
    importlib.util.find_spec("ijson.backends._yajl2") is None,
    reason="this ijson build has no C backend",
)
def test_the_c_backend_is_used_when_available(monkeypatch: pytest.MonkeyPatch) -> None:
    """yajl2_c is chosen even when IJSON_BACKEND asks for another backend."""
    monkeypatch.setenv("IJSON_BACKEND", "python")
    assert bigjson._pick_backend().backend_name == "yajl2_c"
    assert bigjson.backend_name() == "yajl2_c"
