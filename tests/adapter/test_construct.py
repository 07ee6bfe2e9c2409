"""The toolkit's constructors build exactly what attrs' own ``__init__`` builds.

Two ways to build each model class are compared on the same keywords, valid and not: calling
the class (attrs' own ``__init__``) and the function from ``fast_constructor``.
"""

from __future__ import annotations

import copy
import inspect
import pickle
import typing
from collections.abc import Callable
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chatparse import model
from chatparse.adapter import new_message, new_tool_call, new_usage
from chatparse.adapter._construct import fast_constructor

MODEL_CLASSES = [getattr(model, name) for name in model.__all__ if attrs.has(getattr(model, name))]

CONSTRUCTORS = {cls: fast_constructor(cls) for cls in MODEL_CLASSES}

T0 = datetime(2025, 1, 1, tzinfo=UTC)

values = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-3, max_value=3),
    st.sampled_from(["", "x", "user", "assistant", "message", "notice", "claude-code", "Bad"]),
    st.sampled_from(
        [
            T0,
            datetime(2025, 1, 1, 5, 30, tzinfo=timezone(timedelta(hours=5, minutes=30))),
            datetime(2025, 1, 1),  # naive: refused by the converter  # noqa: DTZ001
        ]
    ),
    st.lists(st.sampled_from(["a", "b"]), max_size=2),
    st.tuples(st.sampled_from(["a", "b"])),
    st.dictionaries(st.sampled_from(["k", "n"]), st.integers(min_value=-1, max_value=2)),
)


def outcome(build: Callable[..., Any], keywords: dict[str, Any]) -> tuple[Any, ...]:
    try:
        built = build(**keywords)
    except (TypeError, ValueError) as exc:
        return (type(exc), str(exc))
    return ("built", type(built).__mro__[-2], attrs.astuple(built, recurse=False))


@pytest.mark.parametrize("cls", MODEL_CLASSES, ids=lambda cls: cls.__name__)
@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_both_ways_to_build_agree(cls: type, data: st.DataObject) -> None:
    """Same keywords, same object, or the same error, whichever way the class is built."""
    names = [field.alias for field in attrs.fields(cls)]
    keywords = data.draw(st.dictionaries(st.sampled_from(names), values))
    assert outcome(CONSTRUCTORS[cls], keywords) == outcome(cls, keywords)


@pytest.mark.parametrize("cls", MODEL_CLASSES, ids=lambda cls: cls.__name__)
def test_the_model_classes_keep_attrs_own_init(cls: type) -> None:
    """The public classes behave exactly as attrs documents: no generated replacement."""
    init: Any = vars(cls)["__init__"]
    assert init.__code__.co_filename.startswith("<attrs generated")


def test_a_message_built_every_way_is_equal_hashable_and_a_message() -> None:
    keywords: dict[str, Any] = {"id": "m", "role": "user", "text": "hi", "timestamp": T0}
    built = [
        model.Message(**keywords),
        new_message(**keywords),
        CONSTRUCTORS[model.Message](**keywords),
    ]
    assert all(type(message) is model.Message for message in built)
    assert built[0] == built[1] == built[2]
    assert len({hash(message) for message in built}) == 1
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        built[1].text = "changed"


def test_built_objects_copy_pickle_and_evolve() -> None:
    usage = new_usage(input_tokens=3, dedup_key="k")
    message = new_message(
        id="m", role="assistant", usage=usage, tool_calls=[new_tool_call(id=None, name="t")]
    )
    assert pickle.loads(pickle.dumps(message)) == message  # noqa: S301 -- our own bytes
    assert copy.deepcopy(message) == message
    evolved = attrs.evolve(message, text="new")
    assert (evolved.text, evolved.usage, type(evolved)) == ("new", usage, model.Message)


def test_disabled_validators_are_honoured_as_attrs_does() -> None:
    """Validators are skipped while attrs has them disabled (``attrs.validators.disabled``)."""
    build = fast_constructor(model.Message)
    robot: Any = "robot"  # not a Role: typed Any to get past the type checker
    with attrs.validators.disabled():
        assert model.Message(id="m", role=robot).role == robot
        assert build(id="m", role=robot).role == robot
    with pytest.raises(ValueError, match="role must be one of"):
        build(id="m", role=robot)


@pytest.mark.parametrize("cls", MODEL_CLASSES, ids=lambda cls: cls.__name__)
def test_signature_type_hints_and_source_are_attrs_own(cls: type) -> None:
    """Introspection (Sphinx, cattrs, IDEs) sees what it sees of attrs' own ``__init__``."""
    original: Any = vars(cls)["__init__"]
    # attrs' own resolves only with help: its globals are not the model's.
    hints = typing.get_type_hints(original, globalns=vars(model))
    build = CONSTRUCTORS[cls]
    keywords = list(inspect.signature(original).parameters.values())[1:]  # without self
    assert list(inspect.signature(build).parameters.values()) == keywords
    assert typing.get_type_hints(build) == {**hints, "return": cls}
    assert f"self.{attrs.fields(cls)[0].name} = " in inspect.getsource(build)


def _frozen_class(**options: Any) -> type:
    @attrs.frozen(kw_only=True, weakref_slot=False, **options)
    class Sample:
        value: int = 0

    return Sample


@pytest.mark.parametrize(
    ("make", "why"),
    [
        (
            lambda: attrs.frozen(kw_only=True)(
                type("Sample", (), {"__annotations__": {"x": "int"}})
            ),
            "slots",
        ),
        (lambda: _frozen_class(cache_hash=True), "slots"),
        (
            lambda: attrs.frozen(weakref_slot=False)(
                type("Sample", (), {"__annotations__": {"x": "int"}})
            ),
            "keyword-only",
        ),
    ],
    ids=["weakref slot", "cached hash", "positional"],
)
def test_what_it_cannot_reproduce_is_refused_at_import(make: Callable[[], type], why: str) -> None:
    with pytest.raises(TypeError, match=why):
        fast_constructor(make())


def test_hooks_and_converters_that_take_the_instance_are_refused() -> None:
    @attrs.frozen(kw_only=True, weakref_slot=False)
    class Hooked:
        value: int = 0

        def __attrs_post_init__(self) -> None:
            pass

    @attrs.frozen(kw_only=True, weakref_slot=False)
    class Converting:
        value: int = attrs.field(converter=attrs.Converter(lambda v, _self: v, takes_self=True))  # type: ignore[misc] # the attrs plugin knows no Converter

    @attrs.frozen(kw_only=True, weakref_slot=False)
    class Factory:
        value: int = attrs.field(default=attrs.Factory(lambda _self: 0, takes_self=True))

    cases: list[tuple[type, str]] = [
        (Hooked, "__attrs_post_init__"),
        (Converting, "converter"),
        (Factory, "factory"),
    ]
    for cls, why in cases:
        with pytest.raises(TypeError, match=why):
            fast_constructor(cls)


def test_fast_constructor_takes_a_class() -> None:
    with pytest.raises(TypeError, match="takes a class"):
        fast_constructor(len)
