"""The rest of the public toolkit: times, titles, images, ids, tool pairing, fingerprints.

Also the spans in the ledger and the assembly of a conversation.
"""

from __future__ import annotations

import os
import warnings
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from chatparse.adapter import (
    Ledger,
    ToolCallPairing,
    UniqueIds,
    as_epoch,
    as_nonempty_text,
    as_time,
    build_conversation,
    content_text,
    digest_fingerprint,
    files_in,
    folders_in,
    image_at,
    image_ref,
    list_folder,
    new_message,
    new_meta,
    prompt_title,
    stat_fingerprint,
    strip_images,
    title_from,
)
from chatparse.errors import SkippedSourceWarning
from chatparse.model import ImageRef, Message

T0 = datetime(2024, 11, 16, 12, 0, tzinfo=UTC)
T0_S = int(T0.timestamp())


# --- times ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "unit", "expected"),
    [
        (T0_S, "s", T0),
        (T0_S * 1000, "ms", T0),
        (float(T0_S), "s", T0),
        (str(T0_S * 1000), "ms", T0),
        (f" {T0_S} ", "s", T0),
        ("2024-11-16T12:00:00Z", "ms", T0),
        ("2024-11-16T13:00:00+01:00", "s", T0),
        ("2024-11-16T12:00:00", "ms", None),  # no zone: no time, never a guess
        (0, "ms", None),
        (-5, "s", None),
        (True, "s", None),
        (float("nan"), "s", None),
        (float("inf"), "ms", None),
        (10**30, "ms", None),
        (10**400, "ms", None),
        (float("-inf"), "s", None),
        ("9" * 21, "ms", None),
        ("9" * 5000, "ms", None),
        ("²", "ms", None),
        ("", "ms", None),
        (None, "s", None),
        ({"t": 1}, "s", None),
    ],
)
def test_as_time_one_policy(value: object, unit: str, expected: datetime | None) -> None:
    assert as_time(value, unit) == expected  # type: ignore[arg-type] # units as given


def test_epoch_numbers_need_their_unit() -> None:
    """The same number is 1970 in milliseconds and 2024 in seconds: the caller says which."""
    assert as_epoch(T0_S, "s") == T0
    stamp = as_epoch(T0_S, "ms")
    assert stamp is not None
    assert stamp.year == 1970
    assert as_epoch("2024-11-16T12:00:00Z", "s") is None  # text is only digits here


@given(st.floats(min_value=1, max_value=2.5e14))
def test_epoch_ms_times_are_aware_utc(value: float) -> None:
    stamp = as_epoch(value, "ms")
    assert stamp is not None
    assert stamp.tzinfo is UTC


# --- titles ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Fix the bug", "Fix the bug"),
        ("\n\n  \n  Fix\tthe\u00a0 bug  \nsecond line", "Fix the bug"),
        ("x" * 100, "x" * 100),
        ("x" * 101, "x" * 99 + "…"),
        ("y" * 98 + "   zzzz", "y" * 98 + "…"),
        ("", None),
        ("  \n\t\n", None),
        (None, None),
    ],
)
def test_title_from_one_rule(text: str | None, expected: str | None) -> None:
    assert title_from(text) == expected


@given(st.text())
def test_titles_are_short_single_lines_or_none(text: str) -> None:
    title = title_from(text)
    if title is not None:
        assert 0 < len(title) <= 100
        assert title == " ".join(title.split())
        assert "\n" not in title


def _message(ident: str, role: str, text: str, kind: str = "message") -> Message:
    return new_message(id=ident, role=role, text=text, kind=kind)  # type: ignore[arg-type]


def test_prompt_title_takes_the_first_prompt_of_the_first_kind() -> None:
    messages = [
        _message("1", "assistant", "Hello"),
        _message("2", "user", "/compact", "command"),
        _message("3", "user", "   "),
        _message("4", "user", "Real prompt\nmore"),
    ]
    assert prompt_title(messages) == "Real prompt"
    assert prompt_title(messages[:3], ("message", "command")) == "/compact"
    assert prompt_title(messages[:3]) is None


# --- images ---------------------------------------------------------------------------------


def test_strip_images_measures_and_drops_the_payload() -> None:
    payload = "iVBORw0KGgoAAAAN" * 4
    text, images = strip_images(f"look: data:image/png;base64,{payload} ok")
    assert payload not in text
    assert text.startswith("look: [image: image/png,")
    assert images == (ImageRef(media_type="image/png", byte_size=48),)
    assert strip_images("no images; here") == ("no images; here", ())


def test_image_ref_takes_what_is_there() -> None:
    assert image_ref("image/jpeg", "AAAA") == ImageRef(media_type="image/jpeg", byte_size=3)
    assert image_ref(None, None) == ImageRef()
    assert image_ref(5, ["x"]) == ImageRef()
    assert image_ref("", "AAAA") == ImageRef(byte_size=3)


def test_image_at_measures_a_data_uri_and_keeps_a_link() -> None:
    assert image_at("data:image/jpeg;base64,AAAA") == (
        "[image: image/jpeg, 3 bytes]",
        ImageRef(media_type="image/jpeg", byte_size=3),
    )
    assert image_at("https://x.test/a.png") == ("[image: https://x.test/a.png]", ImageRef())
    assert image_at("") == ("[image]", ImageRef())


def test_content_text_reads_text_and_image_parts_in_order() -> None:
    def by_url(part: dict[str, Any]) -> list[tuple[str, ImageRef]]:
        return [image_at(url) for url in part["urls"]]

    odd: set[str] = set()
    content = [
        {"type": "text", "text": "see data:image/png;base64,AAAA"},
        {"type": "pics", "urls": ["data:image/gif;base64,AAAAAAAA", "https://x.test/b"]},
        {"type": "audio"},
        7,
        {"text": "end"},
    ]
    text, images = content_text(content, {"pics": by_url}, odd) or ("", [])
    assert text.splitlines() == [
        "see [image: image/png, 3 bytes]",
        "[image: image/gif, 6 bytes]",
        "[image: https://x.test/b]",
        "end",
    ]
    assert images == [
        ImageRef(media_type="image/png", byte_size=3),
        ImageRef(media_type="image/gif", byte_size=6),
        ImageRef(),
    ]
    assert odd == {"audio", "int"}


def test_content_text_of_a_string_and_of_other_shapes() -> None:
    assert content_text("hi data:image/png;base64,AAAA", {}) == (
        "hi [image: image/png, 3 bytes]",
        [ImageRef(media_type="image/png", byte_size=3)],
    )
    assert content_text([], {}) == ("", [])
    assert content_text(None, {}) is None
    assert content_text({"text": "a"}, {}) is None


# --- ids and fields -------------------------------------------------------------------------


def test_unique_ids_are_deterministic_suffixes() -> None:
    ids = UniqueIds()
    assert [ids.take(x) for x in ["a", "a", "b", "a", "a#2"]] == ["a", "a#2", "b", "a#3", "a#2#2"]
    assert "a#3" in ids
    assert "c" not in ids
    assert len(ids) == 5


def test_as_nonempty_text() -> None:
    assert as_nonempty_text("x") == "x"
    assert as_nonempty_text("") is None
    assert as_nonempty_text(1) is None


# --- tool calls -----------------------------------------------------------------------------


def test_pairing_calls_results_orphans_and_unanswered() -> None:
    pairing = ToolCallPairing()
    first = pairing.call("c1", "Read", {"path": "a"})
    second = pairing.call("c2", "Bash", {"cmd": "ls"})
    nameless = pairing.call(None, "Think")
    assert pairing.answer("c1", "contents", is_error=False, result={"lines": 1}) is first
    assert pairing.answer("c1", "replayed") is first  # a replay: the first result stays
    assert pairing.answer("c9", "lost") is None
    assert pairing.answer(None, "no id") is None
    assert (first.output, first.is_error, first.result) == ("contents", False, {"lines": 1})
    assert (pairing.orphans, pairing.repeated) == (2, 1)
    assert pairing.unanswered() == [second, nameless]
    frozen = first.freeze()
    assert (frozen.id, frozen.name, frozen.input, frozen.output) == (
        "c1",
        "Read",
        {"path": "a"},
        "contents",
    )


def test_two_calls_with_one_id_are_answered_in_order() -> None:
    pairing = ToolCallPairing()
    first, second = pairing.call("x", "A"), pairing.call("x", "B")
    assert pairing.answer("x", "1") is first
    assert pairing.answer("x", "2") is second
    assert pairing.answer("x", "3") is second
    assert pairing.repeated == 1
    assert pairing.find("x") is second
    assert pairing.find("nope") is None


# --- fingerprints ---------------------------------------------------------------------------


def test_stat_fingerprint_is_size_and_mtime(tmp_path: Path) -> None:
    path = tmp_path / "f"
    path.write_bytes(b"12345")
    os.utime(path, ns=(1, 2_000_000_003))
    assert stat_fingerprint(path.stat()) == "5:2000000003"


def test_digest_fingerprint_keeps_parts_apart() -> None:
    assert digest_fingerprint("ab", "c") != digest_fingerprint("a", "bc")
    assert digest_fingerprint("ab", "c") == digest_fingerprint(b"ab", b"c")
    assert len(digest_fingerprint("\ud83d")) == 32  # a lone surrogate is still a key


# --- ledger ---------------------------------------------------------------------------------


def test_spans_are_read_back_in_the_order_kept(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    lines = [b'{"type":"a"}\n', b'{"type":"future","x":1}\r\n', b'{"type":"b"}\n']
    path.write_bytes(b"".join(lines))
    ledger = Ledger()
    ledger.use()
    ledger.keep_span("line 2", "future", path, start=len(lines[0]), end=len(lines[0] + lines[1]))
    ledger.keep("element 7", "odd", "{}")
    ledger.keep_span(
        "line 3", "b", str(path), start=len(lines[0] + lines[1]), end=path.stat().st_size
    )
    diagnostics = ledger.diagnostics()
    assert diagnostics.balanced
    assert [(u.where, u.type, u.raw) for u in diagnostics.unknown] == [
        ("line 2", "future", '{"type":"future","x":1}'),
        ("element 7", "odd", "{}"),
        ("line 3", "b", '{"type":"b"}'),
    ]


def test_merge_adds_a_part_read_apart(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"{}\n")
    part = Ledger()
    part.use(3)
    part.skip("noise", 2)
    part.bad("line 9", "torn")
    part.keep("line 4", "new", "{}")
    part.keep_span("line 1", None, path, start=0, end=3)
    whole = Ledger()
    whole.use()
    whole.merge(part, prefix="transcript: ")
    diagnostics = whole.diagnostics()
    assert diagnostics.balanced
    assert (diagnostics.records_seen, diagnostics.records_used, diagnostics.malformed) == (9, 4, 1)
    assert dict(diagnostics.skipped) == {"noise": 2}
    assert diagnostics.warnings == ("transcript: line 9: torn",)
    assert [u.where for u in diagnostics.unknown] == ["transcript: line 4", "transcript: line 1"]


def test_warn_once() -> None:
    ledger = Ledger()
    ledger.warn_once("newer")
    ledger.warn_once("newer")
    ledger.warn("twice")
    ledger.warn("twice")
    assert ledger.diagnostics().warnings == ("newer", "twice", "twice")


# --- assembly -------------------------------------------------------------------------------


class _Toy:
    name = "toy"
    display_name = "Toy"
    parser_version = "1"


def test_build_conversation_fallbacks() -> None:
    meta = new_meta(source="toy", id="c", path="/x", fingerprint="f", project_path="/proj")
    later = datetime(2025, 1, 2, tzinfo=UTC)
    messages = [
        new_message(id="1", role="user", text="  first prompt \n more", timestamp=later),
        new_message(id="2", role="assistant", text="ok", timestamp=T0),
    ]
    ledger = Ledger()
    ledger.use(2)
    conversation = build_conversation(_Toy(), meta, messages, ledger)  # type: ignore[arg-type]
    assert (conversation.source, conversation.id, conversation.parser_version) == ("toy", "c", "1")
    assert conversation.title == "first prompt"
    assert conversation.project_path == "/proj"
    assert (conversation.created_at, conversation.updated_at) == (T0, later)
    assert conversation.diagnostics.balanced
    given_fields = build_conversation(
        _Toy(),  # type: ignore[arg-type]
        meta,
        messages,
        ledger,
        title="Stored",
        project_path="/other",
        created_at=later,
        warnings=["store damaged"],
    )
    assert (given_fields.title, given_fields.project_path, given_fields.created_at) == (
        "Stored",
        "/other",
        later,
    )
    assert given_fields.diagnostics.warnings == ("store damaged",)
    empty = build_conversation(_Toy(), meta, [], Ledger())  # type: ignore[arg-type]
    assert (empty.title, empty.created_at, empty.updated_at) == (None, None, None)


def test_a_name_too_long_for_any_file_is_simply_not_there(tmp_path: Path) -> None:
    """A path built from damaged content can be longer than a name may be: no file, no warning."""
    from chatparse.adapter import is_file  # noqa: PLC0415 -- local to this check

    assert is_file(tmp_path / ("x" * 70_000)) is False  # warnings are errors in this suite


def test_listing_folders_sorts_skips_links_and_warns_once_per_unlistable(tmp_path: Path) -> None:
    (tmp_path / "b").mkdir()
    (tmp_path / "a").mkdir()
    (tmp_path / "z.jsonl").write_text("")
    (tmp_path / "y.json").write_text("")
    (tmp_path / "link").symlink_to(tmp_path / "a")
    (tmp_path / "x.jsonl").symlink_to(tmp_path / "z.jsonl")
    assert [e.name for e in list_folder(tmp_path)] == [
        "a",
        "b",
        "link",
        "x.jsonl",
        "y.json",
        "z.jsonl",
    ]
    assert folders_in(tmp_path) == [tmp_path / "a", tmp_path / "b"]  # the link is not followed
    wanted = files_in(tmp_path, lambda name: name.endswith(".jsonl"))
    assert wanted == [tmp_path / "x.jsonl", tmp_path / "z.jsonl"]  # a link to a file counts
    assert list_folder(tmp_path / "missing") == []
    assert list_folder(tmp_path / "z.jsonl") == []  # a file is no folder, and says nothing


def test_an_unlistable_folder_is_passed_over_with_a_warning_unless_asked_not_to(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(path: object) -> None:
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(os, "scandir", refuse)  # as for a folder of mode 000, also under root
    with pytest.warns(SkippedSourceWarning, match=r"passed over .*: cannot be listed"):
        assert folders_in(tmp_path) == []
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert files_in(tmp_path, str.isalpha, warn=False) == []
