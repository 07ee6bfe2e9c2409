"""The model: validation on construction, immutability, and the derived views."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import attrs
import pytest

from chatparse import model
from chatparse.adapter import ADAPTER_NAME
from chatparse.model import ConversationMeta, Message, ParsedConversation, Usage

META = ConversationMeta(source="claude-code", id="s", path="/p.jsonl", fingerprint="1")
T0 = datetime(2025, 1, 1, tzinfo=UTC)


def conversation(
    *messages: Message, subagents: tuple[ParsedConversation, ...] = ()
) -> ParsedConversation:
    return ParsedConversation(
        source="claude-code",
        id="s",
        meta=META,
        parser_version="1",
        messages=messages,
        subagents=subagents,
    )


def msg(id_: str, parent: str | None = None, minutes: int | None = None, **kw: object) -> Message:
    stamp = None if minutes is None else T0 + timedelta(minutes=minutes)
    return Message(id=id_, role="user", parent_id=parent, timestamp=stamp, **kw)  # type: ignore[arg-type]  # test shorthand


def test_datetimes_become_utc() -> None:
    """An aware datetime in another zone is stored as the same instant in UTC."""
    local = datetime(2025, 1, 1, 5, 30, tzinfo=timezone(timedelta(hours=5, minutes=30)))
    message = Message(id="a", role="user", timestamp=local)
    assert message.timestamp == T0
    assert message.timestamp is not None
    assert message.timestamp.tzinfo is UTC


def test_naive_datetime_is_refused() -> None:
    """A naive datetime would shift every time by the machine's offset; it is refused."""
    with pytest.raises(ValueError, match="no time zone"):
        Message(id="a", role="user", timestamp=datetime(2025, 1, 1))  # noqa: DTZ001 -- the point of the test


@pytest.mark.parametrize(
    "build",
    [
        lambda: Message(id="a", role="robot"),  # type: ignore[arg-type]  # the point of the test
        lambda: Message(id="a", role="user", kind="chatter"),  # type: ignore[arg-type]  # ditto
        lambda: Usage(input_tokens=-1),
        lambda: ConversationMeta(source="Claude Code", id="x", path="p", fingerprint="f"),
        lambda: model.Diagnostics(malformed=-1),
    ],
    ids=["role", "kind", "negative-count", "source-name", "negative-malformed"],
)
def test_closed_sets_and_ranges_are_enforced(build: object) -> None:
    """Roles, kinds, source names and counts are checked when an object is built."""
    with pytest.raises(ValueError):  # noqa: PT011 -- each case has its own message
        build()  # type: ignore[operator]  # a lambda


def test_objects_are_frozen_and_mappings_read_only() -> None:
    """Fields cannot be reassigned and mappings are read-only copies of what was passed."""
    locator = {"db": "state.vscdb"}
    meta = ConversationMeta(source="cursor", id="x", path="p", fingerprint="f", locator=locator)
    locator["db"] = "changed"
    assert meta.locator["db"] == "state.vscdb"
    with pytest.raises(TypeError):
        meta.locator["db"] = "x"  # type: ignore[index]  # the point of the test
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        meta.id = "y"  # type: ignore[misc]  # the point of the test


def test_lists_become_tuples() -> None:
    """Sequence fields given as lists are stored as tuples."""
    message = Message(id="a", role="assistant", tool_calls=[model.ToolCall(id="t", name="x")])
    assert isinstance(message.tool_calls, tuple)
    assert message.has_tool_use
    assert not Message(id="b", role="assistant").has_tool_use


def test_usage_total_counts_only_counted_and_keeps_unknown() -> None:
    """Duplicates marked counted=False are left out; a never-recorded count stays None."""
    first = Usage(input_tokens=10, output_tokens=5, dedup_key="r1", counted=False)
    final = Usage(input_tokens=10, output_tokens=7, dedup_key="r1")
    other = Usage(input_tokens=1, cache_read_tokens=100)
    sub = conversation(msg("s1", usage=Usage(output_tokens=2)))
    conv = conversation(
        msg("a", usage=first),
        msg("b", usage=final),
        msg("c", usage=other),
        msg("d"),
        subagents=(sub,),
    )
    total = conv.usage_total()
    assert (total.input_tokens, total.output_tokens, total.cache_read_tokens) == (11, 9, 100)
    assert total.cache_write_tokens is None
    assert total.reasoning_tokens is None
    assert conv.usage_total(include_subagents=False).output_tokens == 7


def test_main_thread_without_parents_is_everything() -> None:
    """A flat conversation's main thread is all of it, in order."""
    conv = conversation(msg("a"), msg("b"), msg("c"))
    assert conv.main_thread() == conv.messages


def test_main_thread_follows_newest_branch() -> None:
    """After a rewind, the main thread ends at the newest leaf, not at the last line."""
    conv = conversation(
        msg("root", minutes=0),
        msg("old", "root", minutes=1),
        msg("old-reply", "old", minutes=2),
        msg("new", "root", minutes=3),
        msg("new-reply", "new", minutes=4),
        msg("side", "new-reply", minutes=9, is_sidechain=True),
        msg("late-but-older", "root", minutes=3),
    )
    # The side chain is newest but not the main line; "late-but-older" is an abandoned leaf.
    assert [m.id for m in conv.main_thread()] == ["root", "new", "new-reply"]


def test_main_thread_without_timestamps_takes_last_leaf() -> None:
    """With no times recorded, the leaf written last wins."""
    conv = conversation(msg("r"), msg("x", "r"), msg("y", "r"))
    assert [m.id for m in conv.main_thread()] == ["r", "y"]


def test_main_thread_survives_missing_parent_and_cycles() -> None:
    """A dangling parent ends the chain; a loop does not hang."""
    dangling = conversation(msg("b", "missing"), msg("c", "b"))
    assert [m.id for m in dangling.main_thread()] == ["b", "c"]
    loop = conversation(msg("a", "b"), msg("b", "a"))
    assert loop.main_thread() == loop.messages
    tail_loop = conversation(msg("a", "b"), msg("b", "a"), msg("c", "a"))
    assert [m.id for m in tail_loop.main_thread()] == ["b", "a", "c"]


def test_diagnostics_balance() -> None:
    """Balanced holds exactly when every record seen is accounted for once."""
    unknown = model.UnknownRecord(where="line 3", type="x", raw="{}")
    good = model.Diagnostics(
        records_seen=6, records_used=2, malformed=1, skipped={"p": 2}, unknown=[unknown]
    )
    assert good.balanced
    assert not attrs.evolve(good, records_seen=7).balanced
    assert not attrs.evolve(good, records_used=3).balanced


def test_kinds_and_roles_are_documented() -> None:
    """Every kind in the closed set is explained in the model's documentation."""
    source = Path(model.__file__).read_text(encoding="utf-8")
    for kind in model.MESSAGE_KINDS:
        assert f"``{kind}``" in source


@pytest.mark.parametrize("name", ["claude-", "-codex", "a--b", "Cursor", "trae_cn", ""])
def test_a_source_name_follows_the_adapter_name_rule(name: str) -> None:
    """The model checks source names by the registry's own rule: words joined by single hyphens."""
    with pytest.raises(ValueError, match="single hyphens"):
        ConversationMeta(source=name, id="x", path="/p", fingerprint="f")


@pytest.mark.parametrize("name", ["claude-code", "pi", "oh-my-pi", "x1-2"])
def test_adapter_names_are_source_names(name: str) -> None:
    assert ADAPTER_NAME.fullmatch(name)
    assert ConversationMeta(source=name, id="x", path="/p", fingerprint="f").source == name
