"""One JSON value held in a string: decoded by the line reader's rules, encoded back compactly."""

from __future__ import annotations

import io
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chatparse.decoders import jsonl, value


def _json_like(numbers: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """JSON values (small ones) whose numbers are drawn from ``numbers``."""
    return st.recursive(
        st.none() | st.booleans() | numbers | st.text(st.characters(codec="utf-8")),
        lambda inner: (
            st.lists(inner, max_size=4)
            | st.dictionaries(st.text(st.characters(codec="utf-8"), max_size=5), inner, max_size=4)
        ),
        max_leaves=10,
    )


json_values = _json_like(
    st.integers(min_value=-(2**63), max_value=2**63 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
)


@settings(max_examples=200, deadline=None)
@given(json_values)
def test_encode_then_decode_is_identity(data: Any) -> None:
    """Any JSON value survives encode → decode."""
    assert value.decode(value.encode(data)) == data


@settings(max_examples=200, deadline=None)
@given(json_values)
def test_decode_agrees_with_the_line_reader(data: Any) -> None:
    """A value decodes to what the JSON Lines reader would give for the same text."""
    text = value.encode(data)
    line = jsonl.read_first_line(io.BytesIO(text.encode() + b"\n"))
    assert isinstance(line, jsonl.Line)
    assert value.decode(text) == line.value
    assert value.decode(text.encode()) == line.value


def test_invalid_text_is_marked_not_raised() -> None:
    """Text that is not one JSON value gives Invalid with a reason."""
    for text in ("", "{", "NaN", "[1] [2]", "{'a': 1}"):
        result = value.decode(text)
        assert isinstance(result, value.Invalid), text
        assert result.reason


def test_repairs_like_everywhere_else() -> None:
    """Lone surrogates, escaped or raw, become U+FFFD; huge integers become floats."""
    assert value.decode('"\\ud83d x"') == "\ufffd x"
    assert value.decode('"\ud83d"') == "\ufffd"
    big = value.decode("123456789012345678901234567890")
    assert isinstance(big, float)
    assert math.isclose(big, 1.2345678901234568e29)


def test_encode_is_compact_and_readable() -> None:
    """Encoding uses no spaces and keeps non-ASCII text as is."""
    assert value.encode({"a": ["é", None, True]}) == '{"a":["é",null,true]}'


def test_read_spans_gives_exact_lines(tmp_path: Path) -> None:
    """read_spans returns the lines at the given offsets, without line breaks, repaired."""
    path = tmp_path / "log.jsonl"
    path.write_bytes(b'{"a":1}\r\n{"b":\xff}\n{"c":3}')
    spans = [(record.offset, record.end_offset) for record in jsonl.iter_lines(path)]
    assert jsonl.read_spans(path, spans) == ['{"a":1}', '{"b":\ufffd}', '{"c":3}']


CANONICAL_CASES: list[tuple[str, bytes]] = [
    ("non-ASCII", '{"t":"é 日本語 😀","k\\"ey":"tab\\t\\u0000 \\\\ /"}'.encode()),
    ("nested", b'{"a":{"b":[[],{},[{"c":[1,[2,[3]]]}]]},"z":null}'),
    ("ints", b"[0,-1,9223372036854775807,-9223372036854775808,18446744073709551615]"),
    ("simple floats", b"[0.5,-0.0,1.25,3.0,123456.789,1e+16]"),
    ("scalars", b'[true,false,null,""]'),
    ("deeper than orjson writes", b"[" * 300 + '{"a":"é"}'.encode() + b"]" * 300),
    ("deeper than json recurses", b"[" * 1020 + b"[1,{}]" + b"]" * 1020),
]


@pytest.fixture(params=["orjson", "json"])
def canonical_backend(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Which backend ``canonical_bytes`` writes with: orjson when installed, or ``json``."""
    if request.param == "json":
        monkeypatch.setattr(value, "_orjson_dumps", None)
    elif value._orjson_dumps is None:
        pytest.skip("orjson is not installed")
    return str(request.param)


@pytest.mark.parametrize(
    "text", [t for _, t in CANONICAL_CASES], ids=[n for n, _ in CANONICAL_CASES]
)
@pytest.mark.usefixtures("canonical_backend")
def test_canonical_bytes_give_back_the_compact_text(text: bytes) -> None:
    """A decoded value is written back as the compact UTF-8 text it came from, by both backends.

    Floats in exponent form are the exception (``1e-05`` against ``1e-5``), so the only one here
    is written alike by both.
    """
    assert value.canonical_bytes(value.decode(text)) == text


_plain_floats = st.floats(allow_nan=False, allow_infinity=False).filter(
    lambda f: "e" not in repr(f)
)
canonical_values = _json_like(st.integers(min_value=-(2**63), max_value=2**64 - 1) | _plain_floats)


@settings(max_examples=200, deadline=None)
@given(canonical_values)
def test_canonical_bytes_are_the_same_with_either_backend(data: Any) -> None:
    """Both backends write the same bytes for a value without floats in exponent form."""
    if value._orjson_dumps is None:
        pytest.skip("orjson is not installed")
    assert value.canonical_bytes(data) == value.encode(data).encode()
