"""Tests for chatparse.decoders.text: surrogate repair, tags, ANSI codes and inline images."""

from __future__ import annotations

import base64

import pytest
from hypothesis import given
from hypothesis import strategies as st

from chatparse.decoders.text import (
    ImagePayload,
    base64_decoded_size,
    has_surrogates,
    repair_surrogates,
    strip_ansi,
    strip_data_uri_images,
    strip_tags,
    unwrap_tags,
)

# -- surrogates -----------------------------------------------------------------------------------


def test_lone_surrogates_become_replacement_characters() -> None:
    """Each lone half becomes U+FFFD and the rest of the text is untouched."""
    assert repair_surrogates("a\ud83db\udc00c") == "a\ufffdb\ufffdc"


def test_adjacent_halves_are_joined() -> None:
    """A high and a low surrogate next to each other become the character they encode."""
    assert repair_surrogates("\ud83d\ude00") == "\U0001f600"


def test_text_without_surrogates_is_returned_as_is() -> None:
    """Well-formed text comes back as the same object, so the common case costs nothing."""
    text = "plain \U0001f600 text"
    assert repair_surrogates(text) is text
    assert not has_surrogates(text)


@given(st.text(alphabet=st.characters() | st.sampled_from("\ud800\udbff\udc00\udfff\ud83d\ude00")))
def test_repaired_text_always_encodes_to_utf8(text: str) -> None:
    """Whatever code points go in, the result is well-formed and encodes to UTF-8."""
    repaired = repair_surrogates(text)
    repaired.encode()
    assert not has_surrogates(repaired)
    if not has_surrogates(text):
        assert repaired == text


# -- tags -----------------------------------------------------------------------------------------


def test_strip_tags_keeps_content_with_angle_brackets_correct() -> None:
    """An element whose content contains ``<`` is removed whole, unlike a naive regex."""
    text = "before <system-reminder>if a < b and <i>x</i></system-reminder>after"
    assert strip_tags(text, ["system-reminder"]) == "before after"


def test_unwrap_tags_keeps_content_with_angle_brackets() -> None:
    """Unwrapping keeps content such as ``a < b`` and inner markup verbatim."""
    text = "<local-command-stdout>x < y <b>bold</b></local-command-stdout>"
    assert unwrap_tags(text, ["local-command-stdout"]) == "x < y <b>bold</b>"


def test_nested_elements_of_the_same_name() -> None:
    """An element nested in one of the same name is handled with its parent."""
    text = "<x>a<x>b</x>c</x>d"
    assert strip_tags(text, ["x"]) == "d"
    assert unwrap_tags(text, ["x"]) == "abcd"


def test_unmatched_tags_are_left_alone() -> None:
    """A tag without its partner may be prose such as ``<x>``, so it is kept."""
    assert strip_tags("use <x> here", ["x"]) == "use <x> here"
    assert strip_tags("a </x> b", ["x"]) == "a </x> b"
    assert strip_tags("<a>x</b>", ["a", "b"]) == "<a>x</b>"


def test_attributes_and_empty_elements() -> None:
    """Opening tags with attributes and self-closing tags are recognised."""
    assert strip_tags('<task id="1">done</task> and <task/> end', ["task"]) == " and  end"


def test_only_named_tags_are_touched() -> None:
    """Other tags, and names that merely start the same way, are not matched."""
    text = "<command-name>/x</command-name><command-names>y</command-names>"
    assert strip_tags(text, ["command-name"]) == "<command-names>y</command-names>"


def test_no_names_means_no_change() -> None:
    """An empty name list returns the text unchanged."""
    assert strip_tags("<x>a</x>", []) == "<x>a</x>"


@given(st.text(), st.text())
def test_stripping_a_wrapped_text_leaves_what_is_around_it(before: str, inner: str) -> None:
    """Wrapping any text in a tag and stripping the tag gives back what was around it."""
    inner = inner.replace("</t>", "").replace("<t>", "").replace("<t/>", "")
    before = before.replace("<t", "")
    assert strip_tags(f"{before}<t>{inner}</t>!", ["t"]) == before + "!"
    assert unwrap_tags(f"{before}<t>{inner}</t>!", ["t"]) == before + inner + "!"


# -- ANSI -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("\x1b[31mred\x1b[0m", "red"),
        ("\x1b[1;38;5;208mx\x1b[m", "x"),
        ("\x1b]0;window title\x07text", "text"),
        ("\x1b]8;;https://x\x1b\\link\x1b]8;;\x1b\\", "link"),
        ("a\x1b[2Kb\x1b[1Gc", "abc"),
        ("\x9b31mc1\x9b0m", "c1"),
        ("\x1bMno", "no"),
    ],
)
def test_strip_ansi(raw: str, clean: str) -> None:
    """Colour, cursor, OSC and C1 sequences are removed; the text between them stays."""
    assert strip_ansi(raw) == clean


# -- images ---------------------------------------------------------------------------------------


@given(st.binary(max_size=300), st.booleans(), st.booleans())
def test_base64_decoded_size_matches_the_real_size(data: bytes, pad: bool, wrap: bool) -> None:  # noqa: FBT001 -- hypothesis passes drawn values positionally
    """The size is right with or without padding and line wrapping."""
    encoded = base64.b64encode(data).decode()
    if not pad:
        encoded = encoded.rstrip("=")
    if wrap:
        encoded = "\n".join(encoded[i : i + 76] for i in range(0, len(encoded), 76))
    assert base64_decoded_size(encoded) == len(data)


def test_data_uri_images_are_replaced_by_a_placeholder() -> None:
    """Each inline image becomes a short placeholder and is reported with type and size."""
    png = base64.b64encode(b"\x89PNG" + b"\x00" * 96).decode()
    jpeg = base64.b64encode(b"\xff\xd8" * 10).decode()
    text = f"a data:image/png;base64,{png} b ![x](data:image/jpeg;base64,{jpeg}) c"
    cleaned, images = strip_data_uri_images(text)
    assert cleaned == "a [image: image/png, 100 bytes] b ![x]([image: image/jpeg, 20 bytes]) c"
    assert images == (ImagePayload("image/png", 100), ImagePayload("image/jpeg", 20))


@pytest.mark.parametrize("at", range(1, len("data:image/jpeg;base64,") + 20))  # inside it
def test_a_uri_damaged_by_invalid_bytes_anywhere_is_stripped_whole(at: int) -> None:
    """Invalid bytes decode to U+FFFD, in the marker or in the payload: the URI is still found.

    Found by the entry-point fuzzing: damage in ``data:`` hid the whole payload from the
    pattern, and damage in the payload cut it short, leaving its tail in the text.
    """
    uri = b"data:image/jpeg;base64," + base64.b64encode(bytes(range(90)))
    text = (b"see " + uri[:at] + b"\xff\xfe\xc0\x80" + uri[at:] + b" end").decode(
        "utf-8", "replace"
    )
    cleaned, images = strip_data_uri_images(text)
    assert cleaned == "see [image: image/jpeg, 90 bytes] end"
    assert images == (ImagePayload("image/jpeg", 90),)


def test_data_uri_placeholder_is_configurable() -> None:
    """An empty placeholder removes the URI and still reports the image."""
    cleaned, images = strip_data_uri_images("x data:image/gif;base64,R0lGOD== y", "")
    assert cleaned == "x  y"
    assert images == (ImagePayload("image/gif", 4),)


def test_text_without_images_is_unchanged() -> None:
    """Text without a data URI comes back equal, with no images."""
    assert strip_data_uri_images("data: not an image") == ("data: not an image", ())
