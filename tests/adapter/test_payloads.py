"""drop_payloads: base64 payloads out of structured values, placeholders with type and size in."""

from __future__ import annotations

import base64
import copy
import json
import random
import string
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from chatparse.adapter import drop_payloads, strip_payloads
from chatparse.adapter.payloads import BASE64_LIMIT, looks_like_base64
from chatparse.decoders.jsonl import MAX_DEPTH
from chatparse.model import ImageRef

# Seeded: the payload heuristic must not flip on a draw whose separators look like a path.
_RANDOM = random.Random(20261207)  # noqa: S311 -- test data, not secrets
PNG_BYTES = _RANDOM.randbytes(340)
PNG = base64.b64encode(PNG_BYTES).decode()
PDF = base64.b64encode(_RANDOM.randbytes(600)).decode()
URLSAFE = base64.urlsafe_b64encode(_RANDOM.randbytes(300)).decode().rstrip("=")
PNG_REF = ImageRef(media_type="image/png", byte_size=340)


def strings(value: Any) -> list[str]:
    """Every string value in ``value``."""
    return [s for s in json.dumps(value).split('"') if s]


def test_claude_code_read_of_an_image() -> None:
    """Claude Code's toolUseResult of a Read of a PNG keeps everything but the payload."""
    result: dict[str, Any] = {
        "type": "image",
        "file": {
            "base64": PNG,
            "type": "image/png",
            "originalSize": 340,
            "dimensions": {"originalWidth": 12, "originalHeight": 8},
        },
    }
    original = copy.deepcopy(result)
    cleaned, images = drop_payloads(result)
    assert cleaned == {
        "type": "image",
        "file": {
            "base64": "[image: image/png, 340 bytes]",
            "type": "image/png",
            "originalSize": 340,
            "dimensions": {"originalWidth": 12, "originalHeight": 8},
        },
    }
    assert images == (PNG_REF,)
    assert result == original  # copied on the way to the payload, never changed in place
    assert cleaned["file"]["dimensions"] is result["file"]["dimensions"]  # the rest is shared


@pytest.mark.parametrize(
    ("block", "where", "placeholder", "image"),
    [
        (
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}},
            ("source", "data"),
            "[image: image/png, 340 bytes]",
            PNG_REF,
        ),
        (
            {
                "type": "document",
                "source": {"type": "base64", "media_type": "application/pdf", "data": PDF},
            },
            ("source", "data"),
            "[base64: application/pdf, 600 bytes]",
            None,
        ),
        (
            {"type": "image", "data": PNG, "mimeType": "image/png"},
            ("data",),
            "[image: image/png, 340 bytes]",
            PNG_REF,
        ),
        (
            {"inlineData": {"mimeType": "image/png", "data": PNG}},
            ("inlineData", "data"),
            "[image: image/png, 340 bytes]",
            PNG_REF,
        ),
        (
            {"output_type": "display_data", "data": {"image/png": PNG, "text/plain": "<Figure>"}},
            ("data", "image/png"),
            "[image: image/png, 340 bytes]",
            PNG_REF,
        ),
        (
            {"resource": {"uri": "file:///a.bin", "mimeType": "application/zip", "blob": PDF}},
            ("resource", "blob"),
            "[base64: application/zip, 600 bytes]",
            None,
        ),
        (
            {"type": "image", "source": {"type": "base64", "data": PNG}},
            ("source", "data"),
            "[base64: 340 bytes]",
            None,
        ),
    ],
    ids=["anthropic", "document", "mcp", "gemini", "notebook", "mcp-blob", "no-media-type"],
)
def test_blocks_known_by_their_shape(
    block: dict[str, Any], where: tuple[str, ...], placeholder: str, image: ImageRef | None
) -> None:
    """Each shape's payload becomes a placeholder naming its media type and decoded size."""
    cleaned, images = drop_payloads([block])
    inner: Any = cleaned[0]
    for key in where:
        inner = inner[key]
    assert inner == placeholder
    assert images == (() if image is None else (image,))


def test_a_short_payload_is_dropped_by_its_shape() -> None:
    """A one-pixel image is under the kit's limit, but its block says what it is."""
    tiny = base64.b64encode(b"\x89PNG tiny").decode()
    cleaned, images = drop_payloads(
        {"source": {"type": "base64", "media_type": "image/gif", "data": tiny}}
    )
    assert cleaned == {
        "source": {
            "type": "base64",
            "media_type": "image/gif",
            "data": "[image: image/gif, 9 bytes]",
        }
    }
    assert images == (ImageRef(media_type="image/gif", byte_size=9),)


def test_data_uris_and_whole_payloads_in_strings() -> None:
    """A data URI in any string as strip_images does; a string that is only base64, as bytes."""
    wrapped = "\n".join(PDF[i : i + 76] for i in range(0, len(PDF), 76))
    value = {
        "html": f'<img src="data:image/png;base64,{PNG}"> and more',
        "stdout": f"{PNG}\n",
        "wrapped": wrapped,
        "log": f"uploaded {URLSAFE} done",  # inside a longer text: strip_payloads' job
    }
    cleaned, images = drop_payloads(value)
    assert cleaned == {
        "html": '<img src="[image: image/png, 340 bytes]"> and more',
        "stdout": "[base64: 340 bytes]",
        "wrapped": "[base64: 600 bytes]",
        "log": value["log"],
    }
    assert images == (PNG_REF,)


def test_strip_payloads_takes_every_run_out_of_a_text() -> None:
    """In a text, every run the kit reports goes, with its padding; nothing else moves."""
    text = f"uploaded {URLSAFE} done; key={PDF}; see data:image/png;base64,{PNG}."
    cleaned, images = strip_payloads(text)
    size = len(URLSAFE) * 3 // 4
    assert cleaned == (
        f"uploaded [base64: {size} bytes] done; key=[base64: 600 bytes]; "
        "see [image: image/png, 340 bytes]."
    )
    assert images == (PNG_REF,)
    assert not looks_like_base64(cleaned)
    assert strip_payloads("nothing to see") == ("nothing to see", ())


@pytest.mark.parametrize(
    "value",
    [
        {"data": "hello world", "type": "text"},  # no media type: not a payload
        {"data": "not base64 at all!", "mimeType": "image/png"},  # not base64 text
        {"base64": ""},
        {"path": "/Users/someone/Projects/chatparse/src/chatparse/adapters/claude/" * 3},
        {"id": "some_long_snake_case_identifier_" * 5},
        ["0123456789abcdef" * 8, PNG[:BASE64_LIMIT], 3, None, True],
        "plain text",
    ],
)
def test_values_without_payloads_come_back_as_they_are(value: Any) -> None:
    """Nothing to drop: the very same object, no images."""
    cleaned, images = drop_payloads(value)
    assert cleaned is value
    assert images == ()


def test_a_raw_record_text_keeps_its_other_bytes() -> None:
    """A record's raw JSON text: the payload's characters go, every other byte stays."""
    raw = json.dumps(
        {"type": "weird", "source": {"type": "base64", "media_type": "image/png", "data": PNG}}
    )
    cleaned, images = strip_payloads(raw)
    assert cleaned == raw.replace(PNG, "[base64: 340 bytes]")
    assert images == ()
    assert json.loads(cleaned)["source"]["media_type"] == "image/png"


def test_nested_as_deep_as_the_decoders_accept() -> None:
    """A payload 1,024 levels down is found without recursion, and the copy is as deep."""
    deep: Any = {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/png", "data": PNG},
    }
    for _ in range(MAX_DEPTH):
        deep = [deep]
    cleaned, images = drop_payloads(deep)
    assert images == (PNG_REF,)
    inner = cleaned
    for _ in range(MAX_DEPTH):
        inner = inner[0]
    assert inner["source"]["data"] == "[image: image/png, 340 bytes]"


def test_images_come_in_document_order() -> None:
    """Two images, three levels apart, in the order they are written."""
    gif = base64.b64encode(b"GIF89a....").decode()
    value = [
        {
            "a": {
                "type": "image",
                "source": {"type": "base64", "media_type": "image/jpeg", "data": PNG},
            }
        },
        f"then data:image/gif;base64,{gif}",
    ]
    _, images = drop_payloads(value)
    assert [image.media_type for image in images] == ["image/jpeg", "image/gif"]


IMAGE_BLOCK = {"type": "image", "data": PNG, "mimeType": "image/png"}
_json_with_payloads = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.text(max_size=30)
    | st.just(f"{PNG}\n")
    | st.just(IMAGE_BLOCK),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.text(string.ascii_letters, max_size=8), inner, max_size=4)
    ),
    max_leaves=20,
)


def image_blocks(value: Any) -> int:
    """How many times IMAGE_BLOCK appears in ``value``."""
    if value is IMAGE_BLOCK:
        return 1
    inner = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
    return sum(image_blocks(item) for item in inner)


@given(value=_json_with_payloads)
def test_no_payload_survives_anywhere(value: Any) -> None:
    """Payloads planted anywhere in a JSON value are gone, one image each, the input untouched."""
    before = copy.deepcopy(value)
    cleaned, images = drop_payloads(value)
    assert not any(looks_like_base64(s) for s in strings(cleaned))
    assert images == (PNG_REF,) * image_blocks(value)
    assert value == before
