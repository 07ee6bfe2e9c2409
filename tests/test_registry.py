"""The registry: built-ins, entry-point plugins, runtime registration, conflicts and failures."""

from __future__ import annotations

import pickle
import sys

import pytest

import chatparse
from chatparse import registry
from chatparse.errors import (
    AdapterConflictError,
    AdapterLoadError,
    AdapterNotFoundError,
    ChatparseWarning,
)

from conftest import GHOST_BUILTIN, PLUGIN_SOURCE, MakeDist, NoteAdapter

BUILTINS = ("claude-code", "codex", "copilot", "cursor", "trae")


def test_builtins_are_known_without_metadata() -> None:
    """The five built-in names are listed even by a registry that finds no entry points."""
    names = registry.Registry().names()
    assert set(BUILTINS) <= set(names)
    assert list(names) == sorted(names)


def test_builtins_are_also_declared_as_entry_points() -> None:
    """Our own pyproject declares each built-in in the entry-point group, with the same target."""
    from importlib.metadata import entry_points  # noqa: PLC0415 -- only this test needs it

    own = {
        entry.name: entry.value
        for entry in entry_points(group=registry.ENTRY_POINT_GROUP)
        if entry.dist is not None and entry.dist.name == "chatparse"
    }
    assert own == registry.BUILTIN_ADAPTERS


@pytest.mark.usefixtures("ghost_builtins")
def test_unwritten_builtin_fails_clearly() -> None:
    """A built-in whose module is not written yet raises AdapterLoadError; it never fakes output."""
    with pytest.raises(AdapterLoadError, match="does not include it yet") as info:
        registry.Registry().get(GHOST_BUILTIN)
    assert info.value.distribution == "chatparse"
    assert isinstance(info.value.__cause__, ModuleNotFoundError)


def test_unknown_name_lists_available() -> None:
    """Asking for a missing name says which names exist."""
    names = r"available: .*\bclaude-code, .*\bcodex, "
    with pytest.raises(AdapterNotFoundError, match=names) as info:
        registry.Registry().get("nope")
    assert isinstance(info.value, LookupError)


def test_plugin_is_discovered_without_import_and_loaded_lazily(make_dist: MakeDist) -> None:
    """Listing a plugin reads metadata only; the module is imported on the first get."""
    module = make_dist("chatparse-alpha", {"alpha": "Alpha"}, PLUGIN_SOURCE)
    reg = registry.Registry()
    assert "alpha" in reg.names()
    spec = next(spec for spec in reg.specs() if spec.name == "alpha")
    assert (spec.origin, spec.distribution) == ("plugin", "chatparse-alpha")
    assert module not in sys.modules
    adapter = reg.get("alpha")
    assert module in sys.modules
    assert adapter.name == "alpha"
    assert reg.get("alpha") is adapter


def test_plugin_may_be_an_instance(make_dist: MakeDist) -> None:
    """An entry point may name an adapter object instead of a class."""
    make_dist("chatparse-instance", {"instance": "Instance"}, PLUGIN_SOURCE)
    assert registry.Registry().get("instance").name == "instance"


def test_broken_plugin_raises_load_error_with_cause(make_dist: MakeDist) -> None:
    """A plugin whose import fails raises AdapterLoadError naming the distribution."""
    make_dist("chatparse-broken", {"broken": "Anything"}, "raise RuntimeError('kaput')\n")
    with pytest.raises(AdapterLoadError, match="chatparse-broken") as info:
        registry.Registry().get("broken")
    assert isinstance(info.value.__cause__, RuntimeError)
    assert "kaput" in str(info.value)


def test_missing_attribute_is_a_load_error(make_dist: MakeDist) -> None:
    """An entry point naming an attribute the module lacks is a load error, not AttributeError."""
    make_dist("chatparse-typo", {"typo": "Alhpa"}, PLUGIN_SOURCE)
    with pytest.raises(AdapterLoadError, match="AttributeError"):
        registry.Registry().get("typo")


def test_object_that_is_not_an_adapter_is_refused(make_dist: MakeDist) -> None:
    """The loaded object is checked against the SourceAdapter protocol."""
    make_dist("chatparse-bad", {"not-an-adapter": "NotAnAdapter"}, PLUGIN_SOURCE)
    with pytest.raises(AdapterLoadError, match="missing display_name, parser_version, detect"):
        registry.Registry().get("not-an-adapter")


def test_name_must_match_entry_name(make_dist: MakeDist) -> None:
    """An adapter registered as one name but calling itself another is refused."""
    make_dist("chatparse-wrong", {"wrong": "Wrong"}, PLUGIN_SOURCE)
    with pytest.raises(AdapterLoadError, match="calls itself 'something-else'"):
        registry.Registry().get("wrong")


def test_two_plugins_one_name_conflict_only_when_requested(make_dist: MakeDist) -> None:
    """Two distributions claiming one name raise only when that name is asked for."""
    make_dist("chatparse-one", {"shared": "Shared", "alpha": "Alpha"}, PLUGIN_SOURCE)
    make_dist("chatparse-two", {"shared": "Shared"}, PLUGIN_SOURCE)
    reg = registry.Registry()
    assert reg.names().count("shared") == 1
    assert reg.get("alpha").name == "alpha"
    with pytest.raises(AdapterConflictError) as info:
        reg.get("shared")
    assert set(info.value.claimants) == {"chatparse-one", "chatparse-two"}


def test_builtin_beats_plugin_with_warning(make_dist: MakeDist) -> None:
    """A plugin claiming a built-in's name is ignored with a warning naming its distribution."""
    make_dist("chatparse-impostor", {"claude-code": "Claude"}, PLUGIN_SOURCE)
    reg = registry.Registry()
    with pytest.warns(ChatparseWarning, match="chatparse-impostor"):
        specs = {spec.name: spec for spec in reg.specs()}
    assert specs["claude-code"].origin == "builtin"
    assert specs["claude-code"].distribution == "chatparse"


def test_builtin_by_name_reads_no_entry_points(monkeypatch: pytest.MonkeyPatch) -> None:
    """A built-in asked for by name loads without reading entry points; other names read them."""

    def unreadable() -> dict[str, registry.AdapterSpec]:
        msg = "entry points read"
        raise AssertionError(msg)

    monkeypatch.setattr(registry, "_discover_specs", unreadable)
    reg = registry.Registry()
    assert reg.get("claude-code").name == "claude-code"
    assert [adapter.name for adapter in reg.iter_adapters(["codex"])] == ["codex"]
    with pytest.raises(AssertionError, match="entry points read"):
        reg.get("alpha")


def test_builtin_by_name_wins_before_plugins_are_read(make_dist: MakeDist) -> None:
    """Getting a built-in that a plugin also claims gives the built-in; listing warns about it."""
    make_dist("chatparse-impostor", {"claude-code": "Claude"}, PLUGIN_SOURCE)
    reg = registry.Registry()
    adapter = reg.get("claude-code")
    assert type(adapter).__module__.startswith("chatparse.adapters.claude_code")
    with pytest.warns(ChatparseWarning, match="chatparse-impostor"):
        assert "claude-code" in reg.names()


def test_badly_named_entry_point_is_ignored_with_warning(make_dist: MakeDist) -> None:
    """Entry names must be lower-case words joined by hyphens."""
    make_dist("chatparse-shouty", {"Shouty_Name": "Alpha"}, PLUGIN_SOURCE)
    with pytest.warns(ChatparseWarning, match="Shouty_Name"):
        names = registry.Registry().names()
    assert "Shouty_Name" not in names


@pytest.mark.usefixtures("ghost_builtins")
def test_bulk_iteration_skips_broken_with_warning(make_dist: MakeDist) -> None:
    """Iterating every adapter skips the ones that fail to load, warning about each."""
    make_dist("chatparse-alpha", {"alpha": "Alpha"}, PLUGIN_SOURCE)
    make_dist("chatparse-broken", {"broken": "Nope"}, "raise ImportError('no deps')\n")
    with pytest.warns(ChatparseWarning) as caught:
        loaded = [adapter.name for adapter in registry.Registry().iter_adapters()]
    assert "alpha" in loaded
    assert "broken" not in loaded
    skipped = sorted(str(w.message).split("'")[1] for w in caught)
    assert skipped == ["broken", GHOST_BUILTIN]


@pytest.mark.usefixtures("ghost_builtins")
def test_named_iteration_raises() -> None:
    """Asking for adapters by name raises on the first one that fails."""
    with pytest.raises(AdapterLoadError):
        list(registry.Registry().iter_adapters([GHOST_BUILTIN]))


def test_register_adapter_and_conflicts(fresh_registry: registry.Registry) -> None:
    """register_adapter adds a name, refuses to replace silently, and replaces when asked."""
    chatparse.register_adapter(NoteAdapter)
    first = chatparse.get_adapter("notes")
    assert isinstance(first, NoteAdapter)
    assert "notes" in chatparse.adapter_names()
    with pytest.raises(AdapterConflictError, match="replace=True"):
        chatparse.register_adapter(NoteAdapter())
    replacement = NoteAdapter()
    chatparse.register_adapter(replacement, replace=True)
    assert chatparse.get_adapter("notes") is replacement
    spec = next(s for s in fresh_registry.specs() if s.name == "notes")
    assert spec.origin == "registered"


def test_register_may_replace_a_builtin(ghost_builtins: registry.Registry) -> None:
    """A runtime registration with replace=True shadows a built-in of the same name."""

    class Ghost(NoteAdapter):
        name = GHOST_BUILTIN

    with pytest.raises(AdapterConflictError):
        ghost_builtins.register(Ghost, replace=False)
    ghost_builtins.register(Ghost, replace=True)
    assert isinstance(ghost_builtins.get(GHOST_BUILTIN), Ghost)
    ghost_builtins.unregister(GHOST_BUILTIN)
    with pytest.raises(AdapterLoadError):
        ghost_builtins.get(GHOST_BUILTIN)


def test_register_refuses_non_adapters_and_bad_names(fresh_registry: registry.Registry) -> None:
    """Runtime registration checks the protocol and the name's form."""

    class Upper(NoteAdapter):
        name = "Notes"

    with pytest.raises(ValueError, match="lower-case"):
        fresh_registry.register(Upper, replace=False)
    with pytest.raises(AdapterLoadError, match="not a SourceAdapter"):
        fresh_registry.register(type("Half", (), {"name": "half"})(), replace=False)


def test_refresh_sees_new_plugins(make_dist: MakeDist) -> None:
    """Discovery is cached until refresh(), which reads entry points again."""
    reg = registry.Registry()
    assert "alpha" not in reg.names()
    make_dist("chatparse-alpha", {"alpha": "Alpha"}, PLUGIN_SOURCE)
    assert "alpha" not in reg.names()
    reg.refresh()
    assert "alpha" in reg.names()


def test_load_error_pickles(make_dist: MakeDist) -> None:
    """A load error survives pickling with its fields (it crosses process pools)."""
    make_dist("chatparse-broken", {"broken": "X"}, "raise RuntimeError('kaput')\n")
    with pytest.raises(AdapterLoadError) as info:
        registry.Registry().get("broken")
    copy = pickle.loads(pickle.dumps(info.value))  # noqa: S301 -- our own bytes
    assert (copy.name, copy.distribution, str(copy)) == (
        "broken",
        "chatparse-broken",
        str(info.value),
    )
