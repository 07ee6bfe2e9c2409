"""Tests for chatparse.decoders.jsonl, each run under orjson and under the standard library."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import tempfile
import tracemalloc
from collections.abc import Iterator
from pathlib import Path
from typing import IO

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chatparse.decoders import _json, jsonl
from chatparse.decoders.jsonl import Line, Malformed, iter_lines, read_first_line
from chatparse.errors import SourceUnavailableError

BACKENDS = [
    pytest.param(_json.STDLIB, id="json"),
    pytest.param(
        _json.ORJSON,
        id="orjson",
        marks=pytest.mark.skipif(_json.ORJSON is None, reason="orjson is not installed"),
    ),
]


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> _json.Backend:
    """Run the test with the line reader using one backend."""
    chosen: _json.Backend = request.param
    monkeypatch.setattr(jsonl, "_backend", chosen)
    return chosen


def read(data: bytes, **kwargs: int) -> list[Line | Malformed]:
    return list(iter_lines(io.BytesIO(data), **kwargs))


def read_with(backend: _json.Backend, data: bytes, **kwargs: int) -> list[Line | Malformed]:
    """Read ``data`` with ``backend``, whatever the module-level choice is."""
    saved = jsonl._backend
    jsonl._backend = backend
    try:
        return read(data, **kwargs)
    finally:
        jsonl._backend = saved


def read_path_with(backend: _json.Backend, path: Path, **kwargs: int) -> list[Line | Malformed]:
    """Read the file at ``path`` with ``backend``."""
    saved = jsonl._backend
    jsonl._backend = backend
    try:
        return list(iter_lines(path, **kwargs))
    finally:
        jsonl._backend = saved


def all_backends() -> list[_json.Backend]:
    return [b for b in (_json.STDLIB, _json.ORJSON) if b is not None]


# -- ordinary lines -------------------------------------------------------------------------------


@pytest.mark.usefixtures("backend")
def test_records_carry_line_numbers_and_byte_offsets() -> None:
    """Each line yields its number, start offset and the offset just past its newline."""
    assert read(b'{"a":1}\n{"b":2}\n') == [
        Line(1, 0, 8, {"a": 1}),
        Line(2, 8, 16, {"b": 2}),
    ]


@pytest.mark.usefixtures("backend")
def test_crlf_bom_and_blank_lines() -> None:
    """A BOM, CRLF endings and blank lines are accepted; blank lines still count in numbering."""
    data = b'\xef\xbb\xbf{"a":1}\r\n\r\n  \t\r\n{"b":2}\r\n'
    assert read(data) == [Line(1, 3, 12, {"a": 1}), Line(4, 19, 28, {"b": 2})]


@pytest.mark.parametrize("bom", [b"", b"\xef\xbb\xbf"])
def test_a_first_line_longer_than_one_piece_is_one_line_with_or_without_a_bom(bom: bytes) -> None:
    """The mark is cut after the piece is judged whole: the long line is not split in two."""
    text = "x" * (jsonl._CHUNK + 1000)  # longer than one piece read
    first = json.dumps({"t": text}).encode() + b"\n"
    records = read(bom + first + b'{"b":2}\n')
    start = len(bom)
    assert records == [
        Line(1, start, start + len(first), {"t": text}),
        Line(2, start + len(first), start + len(first) + 8, {"b": 2}),
    ]


@pytest.mark.usefixtures("backend")
def test_bom_is_only_skipped_at_the_start_of_the_file() -> None:
    """A BOM in the middle of a file is not valid JSON there, and is reported."""
    records = read(b'{"a":1}\n\xef\xbb\xbf{"b":2}\n')
    assert records[1] == Malformed(2, 8, 19, "not valid JSON")


@pytest.mark.usefixtures("backend")
def test_last_line_without_newline_is_kept() -> None:
    """A complete last line needs no newline."""
    assert read(b'{"a":1}\n{"b":2}') == [Line(1, 0, 8, {"a": 1}), Line(2, 8, 15, {"b": 2})]


@pytest.mark.usefixtures("backend")
def test_torn_last_line_is_malformed_and_resumes_at_its_start() -> None:
    """A last line cut off mid-write is malformed, with end_offset pointing back at its start."""
    records = read(b'{"a":1}\n{"b":')
    assert records[-1] == Malformed(2, 8, 8, "torn last line: no newline and not valid JSON")


@pytest.mark.usefixtures("backend")
def test_values_that_are_not_objects_are_passed_on() -> None:
    """Valid JSON that is not an object is yielded as is, for the adapter to judge."""
    values = [r.value for r in read(b'"text"\n42\n[1]\nnull\ntrue\n') if isinstance(r, Line)]
    assert values == ["text", 42, [1], None, True]


@pytest.mark.usefixtures("backend")
def test_invalid_json_is_malformed_and_reading_continues() -> None:
    """A bad line is reported with its position and the next line is still read."""
    assert read(b'{"a":\n{"b":2}\n') == [
        Malformed(1, 0, 6, "not valid JSON"),
        Line(2, 6, 14, {"b": 2}),
    ]


@pytest.mark.usefixtures("backend")
@pytest.mark.parametrize("text", [b"NaN", b"-Infinity", b'{"x": Infinity}', b"1e400", b"[01]"])
def test_non_standard_numbers_are_malformed(text: bytes) -> None:
    """NaN, infinities and overflowing numbers are rejected by both backends alike."""
    assert read(text + b"\n") == [Malformed(1, 0, len(text) + 1, "not valid JSON")]


@pytest.mark.usefixtures("backend")
def test_integers_beyond_64_bits_become_floats() -> None:
    """Integers outside the signed and unsigned 64-bit ranges become floats under both backends."""
    data = (
        b"18446744073709551615\n18446744073709551616\n-9223372036854775808\n-9223372036854775809\n"
    )
    values = [r.value for r in read(data) if isinstance(r, Line)]
    assert values == [2**64 - 1, float(2**64), -(2**63), float(-(2**63) - 1)]
    assert [type(v) for v in values] == [int, float, int, float]


@pytest.mark.usefixtures("backend")
def test_a_number_with_thousands_of_digits_is_malformed_not_an_error() -> None:
    """An integer too long for a double is malformed, never Python's int-string limit error."""
    assert read(b"1" * 5000 + b"\n") == [Malformed(1, 0, 5001, "not valid JSON")]


# -- repairs --------------------------------------------------------------------------------------


@pytest.mark.usefixtures("backend")
def test_invalid_utf8_is_replaced_and_counted() -> None:
    """Invalid UTF-8 bytes become U+FFFD and the line counts each replacement."""
    assert read(b'{"a":"x\xff\xfey"}\n') == [Line(1, 0, 13, {"a": "x\ufffd\ufffdy"}, 2)]


@pytest.mark.usefixtures("backend")
def test_a_genuine_replacement_character_is_not_counted_as_a_repair() -> None:
    """A U+FFFD written by the producer is data, not a repair."""
    assert read('{"a":"\ufffd"}\n'.encode()) == [Line(1, 0, 12, {"a": "\ufffd"}, 0)]


@pytest.mark.usefixtures("backend")
def test_lone_surrogates_are_repaired_in_keys_and_values() -> None:
    """Lone surrogate escapes become U+FFFD everywhere, while a valid pair stays one character."""
    data = rb'{"k\ud800":["v\udc00", {"x": "\ud83d\ude00\ud83d"}]}' + b"\n"
    (record,) = read(data)
    assert isinstance(record, Line)
    assert record.value == {"k\ufffd": ["v\ufffd", {"x": "\U0001f600\ufffd"}]}
    assert record.repairs == 3


@pytest.mark.usefixtures("backend")
def test_a_top_level_string_with_a_lone_surrogate_is_repaired() -> None:
    """A line that is only a string is repaired like any string inside an object."""
    assert read(rb'"\udfff"' + b"\n") == [Line(1, 0, 9, "\ufffd", 1)]


@pytest.mark.usefixtures("backend")
def test_an_escaped_backslash_before_ud800_is_not_a_surrogate() -> None:
    """An escaped backslash followed by ``ud800`` is text, and is kept as such."""
    assert read(rb'{"a":"\\ud800"}' + b"\n") == [Line(1, 0, 16, {"a": "\\ud800"})]


@pytest.mark.usefixtures("backend")
def test_repaired_keys_keep_their_order() -> None:
    """Rebuilding an object to repair a key keeps its keys in file order."""
    (record,) = read(rb'{"b":1,"\ud800":2,"a":3}' + b"\n")
    assert isinstance(record, Line)
    assert list(record.value) == ["b", "\ufffd", "a"]


# -- depth and size -------------------------------------------------------------------------------


@pytest.mark.usefixtures("backend")
@pytest.mark.parametrize("depth", [jsonl.MAX_DEPTH, 990])
def test_nesting_up_to_the_limit_is_parsed(depth: int) -> None:
    """Values nested up to MAX_DEPTH levels parse, even where json alone would fail."""
    (record,) = read(b"[" * depth + b"]" * depth + b"\n")
    assert isinstance(record, Line)
    assert record.value is not None


@pytest.mark.usefixtures("backend")
@pytest.mark.parametrize("depth", [jsonl.MAX_DEPTH + 1, 100_000])
def test_nesting_past_the_limit_is_malformed(depth: int) -> None:
    """Deeper values are malformed, never a RecursionError."""
    (record,) = read(b"[" * depth + b"]" * depth + b"\n")
    assert record == Malformed(1, 0, 2 * depth + 1, f"nested deeper than {jsonl.MAX_DEPTH} levels")


def test_depth_is_enforced_where_json_itself_would_go_deeper(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """When the standard library accepts deeper nesting (Python 3.12+), our limit still applies."""
    monkeypatch.setattr(jsonl, "_backend", _json.STDLIB)
    monkeypatch.setattr(_json, "_stdlib_may_exceed_depth", lambda: True)
    monkeypatch.setattr(_json, "MAX_DEPTH", 10)
    (record,) = read(b"[" * 11 + b"]" * 11 + b"\n")
    assert isinstance(record, Malformed)


@pytest.mark.usefixtures("backend")
def test_lines_over_the_cap_are_skipped_and_reading_continues() -> None:
    """A line longer than max_line_bytes is one malformed record; the following line is read."""
    data = b'{"a":1}\n' + b'{"x":"' + b"y" * 100 + b'"}\n{"b":2}\n'
    assert read(data, max_line_bytes=50) == [
        Line(1, 0, 8, {"a": 1}),
        Malformed(2, 8, 117, "longer than 50 bytes"),
        Line(3, 117, 125, {"b": 2}),
    ]


@pytest.mark.usefixtures("backend")
@pytest.mark.parametrize("ending", [b"\n", b""])
def test_a_line_longer_than_one_piece_is_assembled(ending: bytes) -> None:
    """A line of several MiB under the cap is read in pieces and parsed whole."""
    text = "x" * (3 * 2**20)
    line = b'{"t":"' + text.encode() + b'"}' + ending
    assert read(line) == [Line(1, 0, len(line), {"t": text})]


@pytest.mark.usefixtures("backend")
def test_a_line_exactly_at_the_cap_is_read() -> None:
    """The cap counts the newline, and a line of exactly that many bytes is accepted."""
    line = b'{"x":"' + b"y" * 42 + b'"}\n'
    assert len(line) == 51
    assert read(line, max_line_bytes=51) == [Line(1, 0, 51, {"x": "y" * 42})]
    assert read(line, max_line_bytes=50) == [Malformed(1, 0, 51, "longer than 50 bytes")]


class GeneratedStream(io.RawIOBase):
    """A readable stream whose bytes come from a generator, so huge input never exists whole."""

    def __init__(self, pieces: Iterator[bytes]) -> None:
        self._pieces = pieces
        self._piece = memoryview(b"")

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        while not self._piece:
            piece = next(self._pieces, b"")
            if not piece:
                return 0
            self._piece = memoryview(piece)
        size = min(len(buffer), len(self._piece))
        buffer[:size] = self._piece[:size]
        self._piece = self._piece[size:]
        return size


def huge_line(size: int) -> Iterator[bytes]:
    yield b'{"big":"'
    block = b"x" * (1024 * 1024)
    for _ in range(size // len(block)):
        yield block
    yield b'"}\n{"after":true}\n'


def peak_memory_reading(stream: IO[bytes], **kwargs: int) -> tuple[list[Line | Malformed], int]:
    tracemalloc.start()
    try:
        records = list(iter_lines(stream, **kwargs))
        return records, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.usefixtures("backend")
def test_a_line_far_over_the_cap_costs_no_more_memory_than_the_cap() -> None:
    """A 48 MiB line under a 1 MiB cap is skipped in pieces; memory stays near the cap."""
    stream = io.BufferedReader(GeneratedStream(huge_line(48 * 2**20)), 2**20)
    records, peak = peak_memory_reading(stream, max_line_bytes=2**20)
    assert [type(r) for r in records] == [Malformed, Line]
    assert peak < 8 * 2**20


@pytest.mark.usefixtures("backend")
def test_the_default_cap_is_64_mib() -> None:
    """A line just over 64 MiB is malformed by default, holding no more than the cap meanwhile."""
    stream = io.BufferedReader(GeneratedStream(huge_line(jsonl.MAX_LINE_BYTES)), 2**20)
    records, peak = peak_memory_reading(stream)
    assert records[0] == Malformed(1, 0, jsonl.MAX_LINE_BYTES + 11, "longer than 67108864 bytes")
    assert records[1] == Line(
        2, jsonl.MAX_LINE_BYTES + 11, jsonl.MAX_LINE_BYTES + 26, {"after": True}
    )
    assert peak < jsonl.MAX_LINE_BYTES + 4 * 2**20


# -- paths, streams, resuming ---------------------------------------------------------------------


@pytest.mark.usefixtures("backend")
def test_reading_a_path(tmp_path: Path) -> None:
    """A path is opened, read and closed."""
    path = tmp_path / "a.jsonl"
    path.write_bytes(b'{"a":1}\n')
    assert list(iter_lines(path)) == [Line(1, 0, 8, {"a": 1})]


def test_a_missing_path_raises_source_unavailable(tmp_path: Path) -> None:
    """A path that cannot be opened raises SourceUnavailableError naming the file."""
    missing = tmp_path / "nope.jsonl"
    with pytest.raises(SourceUnavailableError, match=r"nope\.jsonl"):
        list(iter_lines(missing))


@pytest.mark.usefixtures("backend")
def test_a_stream_is_read_from_where_it_is_and_offsets_count_from_start() -> None:
    """A stream is not seeked; ``start`` says which offset its position is."""
    stream = io.BytesIO(b'{"a":1}\n{"b":2}\n')
    stream.seek(8)
    assert list(iter_lines(stream, start=8, first_line_no=2)) == [Line(2, 8, 16, {"b": 2})]


@pytest.mark.usefixtures("backend")
def test_resuming_a_growing_file(tmp_path: Path) -> None:
    """Reading again from the last end_offset picks up a line that was torn before."""
    path = tmp_path / "grow.jsonl"
    path.write_bytes(b'{"a":1}\n{"b":')
    first = list(iter_lines(path))
    assert first[-1] == Malformed(2, 8, 8, "torn last line: no newline and not valid JSON")
    with path.open("ab") as stream:
        stream.write(b'2}\n{"c":3}\n')
    last = first[-1]
    rest = list(iter_lines(path, start=last.end_offset, first_line_no=last.line_no))
    assert rest == [Line(2, 8, 16, {"b": 2}), Line(3, 16, 24, {"c": 3})]


@pytest.mark.usefixtures("backend")
def test_resuming_after_a_last_line_that_lacked_its_newline(tmp_path: Path) -> None:
    """The newline that completes an already-read last line does not shift the line numbers."""
    path = tmp_path / "grow.jsonl"
    path.write_bytes(b'{"a":1}')
    (first,) = iter_lines(path)
    assert first == Line(1, 0, 7, {"a": 1})
    path.write_bytes(b'{"a":1}\n{"b":2}\n')
    rest = list(iter_lines(path, start=first.end_offset, first_line_no=first.line_no + 1))
    assert rest == [Line(2, 8, 16, {"b": 2})]


@pytest.mark.usefixtures("backend")
def test_read_first_line_skips_blank_lines() -> None:
    """read_first_line returns the first non-blank line, or None for a blank file."""
    assert read_first_line(io.BytesIO(b'\n\n{"a":1}\n{"b":2}\n')) == Line(3, 2, 10, {"a": 1})
    assert read_first_line(io.BytesIO(b"\n \n")) is None


class CountingStream(io.BytesIO):
    """A stream that remembers how many bytes were asked of it."""

    requested = 0

    def readline(self, size: int | None = -1) -> bytes:
        line = super().readline(size)
        self.requested += len(line)
        return line


def test_read_first_line_reads_no_further_than_the_first_newline() -> None:
    """Only the first line is consumed, however large the rest of the file is."""
    stream = CountingStream(b'{"a":1}\n' + b"x" * 5_000_000)
    assert read_first_line(stream) == Line(1, 0, 8, {"a": 1})
    assert stream.requested == 8


WITHOUT_ORJSON = """
import io, sys
sys.modules["orjson"] = None  # any `import orjson` now raises ImportError
from chatparse.decoders import jsonl
print(jsonl.backend_name())
print([r.value for r in jsonl.iter_lines(io.BytesIO(b'{"a": 1}\\n[2]\\n'))])
"""


def test_without_orjson_the_standard_library_is_used() -> None:
    """Without orjson the module still imports, names json as its backend, and decodes."""
    result = subprocess.run(
        [sys.executable, "-c", WITHOUT_ORJSON], capture_output=True, text=True, check=True
    )
    assert result.stdout.splitlines() == ["json", "[{'a': 1}, [2]]"]


def test_backend_name_prefers_orjson() -> None:
    """backend_name reports orjson when it is installed."""
    assert jsonl.backend_name() == ("orjson" if _json.ORJSON is not None else "json")


# -- properties -----------------------------------------------------------------------------------

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(), children, max_size=4)
    ),
    max_leaves=20,
)
line_endings = st.sampled_from([b"\n", b"\r\n"])


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=400))
def test_random_bytes_never_raise_and_both_backends_agree(data: bytes) -> None:
    """Any bytes decode without raising, to the same records under both backends."""
    results = [read_with(backend, data) for backend in all_backends()]
    assert all(result == results[0] for result in results)
    previous_end = 0
    for record in results[0]:
        assert previous_end <= record.offset <= len(data)
        previous_end = max(record.end_offset, record.offset)
        assert record.end_offset <= len(data)


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.tuples(json_values, st.booleans(), line_endings), max_size=8),
    st.booleans(),
)
def test_serialized_values_round_trip_with_mixed_endings(
    entries: list[tuple[object, bool, bytes]],
    bom: bool,  # noqa: FBT001 -- hypothesis passes drawn values positionally
) -> None:
    """Serialized values come back equal under both backends, whatever the endings and BOM."""
    data = b"\xef\xbb\xbf" if bom else b""
    for value, ascii_only, ending in entries:
        data += json.dumps(value, ensure_ascii=ascii_only).encode("utf-8", "surrogatepass") + ending
    expected = [_json._normalize(json.loads(json.dumps(v)), ints=True)[0] for v, _, _ in entries]
    for backend in all_backends():
        records = read_with(backend, data)
        assert all(isinstance(r, Line) for r in records), records
        assert [r.value for r in records if isinstance(r, Line)] == expected


@settings(max_examples=100, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(json_values, min_size=1, max_size=6), st.data())
def test_resuming_after_any_split_gives_the_same_records(
    values: list[object], data: st.DataObject
) -> None:
    """Reading a file cut at any byte, then resuming once it is complete, equals one whole read."""
    # Writers append objects, which cannot be cut into a shorter valid object.
    document = b"".join(json.dumps({"v": v}).encode() + b"\n" for v in values)
    cut = data.draw(st.integers(0, len(document)))
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "grow.jsonl"
        for backend in all_backends():
            path.write_bytes(document[:cut])
            head = read_path_with(backend, path)
            start, first_line_no = 0, 1
            if head:
                last = head[-1]
                start = last.end_offset
                first_line_no = last.line_no + isinstance(last, Line)
            path.write_bytes(document)
            tail = read_path_with(backend, path, start=start, first_line_no=first_line_no)
            kept = [r for r in head if r.offset < start]
            assert [(r.line_no, r.offset, r.value) for r in kept + tail if isinstance(r, Line)] == [
                (r.line_no, r.offset, r.value)
                for r in read_with(backend, document)
                if isinstance(r, Line)
            ]
            assert not any(isinstance(r, Malformed) for r in tail)


@settings(max_examples=100, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.text(max_size=20), st.binary(max_size=3)), min_size=1, max_size=6))
def test_invalid_utf8_inside_strings_is_repaired_identically(
    pieces: list[tuple[str, bytes]],
) -> None:
    """Junk bytes spliced into strings give the same values and counts under both backends."""
    lines = []
    for text, junk in pieces:
        encoded = json.dumps(text).encode()
        lines.append(encoded[:1] + junk.translate(None, b'"\\\r\n') + encoded[1:] + b"\r\n")
    data = b"".join(lines)
    results = [read_with(backend, data) for backend in all_backends()]
    assert all(result == results[0] for result in results)
    for record in results[0]:
        assert isinstance(record, Line | Malformed)
        if isinstance(record, Line):
            assert isinstance(record.value, str)
            record.value.encode()  # well-formed: no surrogates survive
