"""Turn model objects into plain JSON data and back, exactly.

There is one cattrs converter, built here on first use. ``to_dict`` writes every field, in field
order, with datetimes as ISO-8601 strings ending in ``Z``; the outermost object also carries
``schema_version``. ``from_dict`` is strict where cattrs would be lenient: a number is not
silently turned into a string, nor a string into a bool, because data that needs such coercion was
not written by us and should not be trusted silently. Its errors name the path of each bad field.

``from_dict(type(x), to_dict(x)) == x`` holds for every model object.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from functools import cache
from typing import Any, Final, TypeVar, overload

import cattrs
from cattrs.cols import (
    homogenous_tuple_structure_factory,
    is_mapping,
    is_sequence,
    mapping_structure_factory,
)
from cattrs.errors import BaseValidationError
from cattrs.gen import make_dict_unstructure_fn, override

from chatparse import model
from chatparse.decoders.jsonl import MAX_DEPTH
from chatparse.errors import ModelError

__all__ = ["SCHEMA_VERSION", "from_dict", "from_json", "to_dict", "to_json"]

SCHEMA_VERSION: Final = 1
"""The version of the serialized form. It changes when a field is added, removed or changes
meaning; ``from_dict`` refuses data written under another version."""

_SCHEMA_KEY: Final = "schema_version"

OMITTED_WHEN_EMPTY: Final[dict[type, tuple[str, ...]]] = {model.Diagnostics: ("redactions",)}
"""Fields written only when they hold something. A field added after a release goes here, so
that what was written before it (and what readers of that release read) stays byte for byte the
same; a missing one reads as its default."""

MODEL_CLASSES: Final[tuple[type, ...]] = (
    model.ConversationMeta,
    model.Diagnostics,
    model.ImageRef,
    model.Message,
    model.ParsedConversation,
    model.SourceInfo,
    model.ToolCall,
    model.UnknownRecord,
    model.Usage,
)

T = TypeVar("T")

_NO_DATA: Final[Any] = object()
"""Marks the second argument of ``from_dict``/``from_json`` as not given (``None`` is data)."""


def _format_datetime(value: datetime) -> str:
    return value.astimezone(UTC).isoformat().replace("+00:00", "Z")


def _parse_datetime(value: object, _type: object) -> datetime:
    if not isinstance(value, str):
        msg = f"expected an ISO-8601 string, got {type(value).__name__}"
        raise TypeError(msg)
    parsed = datetime.fromisoformat(value)
    if parsed.tzinfo is None:
        msg = f"datetime {value!r} has no time zone"
        raise ValueError(msg)
    return parsed.astimezone(UTC)


def _strict(expected: type[Any]) -> Any:
    def structure(value: object, _type: object) -> object:
        # bool is an int to Python but not to JSON; refuse it where an int is expected.
        if type(value) is not expected:
            msg = f"expected {expected.__name__}, got {type(value).__name__}"
            raise TypeError(msg)
        return value

    return structure


def _only(kind: type | tuple[type, ...], what: str, factory: Any) -> Any:
    # cattrs happily turns any iterable into a tuple (a string into a tuple of characters, an
    # object into a tuple of its keys); serialized model data only ever has JSON arrays there.
    def make(type_: Any, conv: cattrs.Converter) -> Any:
        inner = factory(type_, conv)

        def structure(value: object, target: Any) -> Any:
            if not isinstance(value, kind):
                msg = f"expected {what}, got {type(value).__name__}"
                raise TypeError(msg)
            return inner(value, target)

        return structure

    return make


def _describe(exc: BaseException, type_: Any) -> str:
    if isinstance(exc, KeyError):
        return "required field missing"
    if isinstance(exc, cattrs.ForbiddenExtraKeysError):
        return f"unknown fields {sorted(exc.extra_fields)}"
    expected = getattr(type_, "__name__", None) or str(type_)
    return f"{exc} (expected {expected})"


@cache
def converter() -> cattrs.Converter:
    """The one converter; built on first use so that importing chatparse stays cheap."""
    conv = cattrs.Converter(detailed_validation=True, forbid_extra_keys=True)
    conv.register_unstructure_hook(datetime, _format_datetime)
    conv.register_structure_hook(datetime, _parse_datetime)
    for primitive in (str, int, bool):
        conv.register_structure_hook(primitive, _strict(primitive))
    conv.register_structure_hook_factory(
        is_sequence, _only((list, tuple), "an array", homogenous_tuple_structure_factory)
    )
    conv.register_structure_hook_factory(
        is_mapping, _only(Mapping, "an object", mapping_structure_factory)
    )
    # Read-only mappings unstructure to plain dicts; cattrs would otherwise try to rebuild
    # a MappingProxyType, which has no such constructor.
    conv.register_unstructure_hook_func(
        lambda t: getattr(t, "__origin__", None) is Mapping,
        lambda value: dict(value.items()),
    )
    # Fields typed ``Any`` hold JSON values as the source wrote them (``ToolCall.input``). cattrs
    # would walk them by runtime type, a few frames per level, and raise RecursionError on a
    # value nested a few hundred deep (the decoders accept 1,024): they are copied by a loop.
    conv.register_unstructure_hook_func(lambda t: t is Any, _plain_copy)
    for cls, names in OMITTED_WHEN_EMPTY.items():
        overrides: dict[str, Any] = {name: override(omit_if_default=True) for name in names}
        conv.register_unstructure_hook(cls, make_dict_unstructure_fn(cls, conv, **overrides))
    return conv


_Container = dict[Any, Any] | list[Any]


_DEEPEST: Final = 2 * MAX_DEPTH
"""The deepest JSON value written: twice what the decoders accept, so a plugin's own values fit,
and a container that holds itself is refused rather than copied forever."""


_SCALARS: Final = frozenset({str, int, float, bool, type(None)})


def _plain_copy(value: object) -> object:
    """A copy of a JSON value with lists for tuples, built with a stack rather than recursion.

    Anything else inside (a datetime or a model object from a plugin that broke the JSON-value
    contract) is unstructured by the converter, as cattrs' own walk did.

    Raises:
        ValueError: The value is nested deeper than :data:`_DEEPEST`, or contains itself.
    """
    if not isinstance(value, (dict, list, tuple)):
        return value if type(value) in _SCALARS else converter().unstructure(value)
    root: list[Any] = [value]
    pending: list[tuple[_Container, Any, dict[Any, Any] | list[Any] | tuple[Any, ...], int]] = [
        (root, 0, value, 1)
    ]
    while pending:
        target, key, source, depth = pending.pop()
        if depth > _DEEPEST:
            msg = f"a JSON value nested deeper than {_DEEPEST} levels, or containing itself"
            raise ValueError(msg)
        copy: _Container = dict(source) if isinstance(source, dict) else list(source)
        items = source.items() if isinstance(source, dict) else enumerate(source)
        for inner_key, inner in items:
            if isinstance(inner, (dict, list, tuple)):
                pending.append((copy, inner_key, inner, depth + 1))
            elif type(inner) not in _SCALARS:
                copy[inner_key] = converter().unstructure(inner)
        target[key] = copy
    return root[0]


def to_dict(obj: object) -> dict[str, Any]:
    """Serialize a model object to plain JSON types, with ``schema_version`` first."""
    if type(obj) not in MODEL_CLASSES:
        msg = f"to_dict takes a chatparse model object, got {type(obj).__name__}"
        raise TypeError(msg)
    data: dict[str, Any] = converter().unstructure(obj)
    return {_SCHEMA_KEY: SCHEMA_VERSION, **data}


@overload
def from_dict(data: Mapping[str, Any], /) -> model.ParsedConversation: ...
@overload
def from_dict(cls: type[T], data: Mapping[str, Any]) -> T: ...
def from_dict(cls: Any, data: Any = _NO_DATA) -> Any:
    """Rebuild a model object from :func:`to_dict` output.

    ``from_dict(data)`` reads a :class:`~chatparse.model.ParsedConversation`;
    ``from_dict(cls, data)`` reads any model class.

    Raises:
        ModelError: the data does not describe a valid ``cls``; the message names each bad
            field's path, such as ``$.messages[3].role``.
    """
    cls, data = _class_and_value(cls, data, "from_dict")
    if cls not in MODEL_CLASSES:
        msg = f"from_dict builds chatparse model classes, not {getattr(cls, '__name__', cls)!r}"
        raise TypeError(msg)
    if not isinstance(data, Mapping):
        raise ModelError(cls.__name__, [f"expected an object, got {type(data).__name__} @ $"])
    body = dict(data)
    version = body.pop(_SCHEMA_KEY, SCHEMA_VERSION)
    if version != SCHEMA_VERSION:
        problem = (
            f"written with schema version {version!r}, this chatparse reads "
            f"{SCHEMA_VERSION}; use the chatparse version that wrote it, or parse the "
            f"source again @ $.{_SCHEMA_KEY}"
        )
        raise ModelError(cls.__name__, [problem])
    try:
        return converter().structure(body, cls)
    except BaseValidationError as exc:
        lines = cattrs.transform_error(exc, path="$", format_exception=_describe)
        raise ModelError(cls.__name__, lines) from exc
    except (TypeError, ValueError) as exc:
        # A value that passed every field hook but broke an invariant of the class itself
        # (such as a naive datetime caught by the model's own converter).
        raise ModelError(cls.__name__, [f"{exc} @ $"]) from exc


def _class_and_value(cls: Any, value: Any, function: str) -> tuple[Any, Any]:
    """``(cls, value)`` for the two spellings: ``f(value)`` reads a ParsedConversation."""
    if value is not _NO_DATA:
        return cls, value
    if isinstance(cls, type):
        msg = f"{function}({cls.__name__}) needs the data to read as its second argument"
        raise TypeError(msg)
    return model.ParsedConversation, cls


def to_json(obj: object, *, indent: int | None = None) -> str:
    """Serialize a model object to a JSON string (UTF-8 text, not ASCII-escaped)."""
    return json_text(to_dict(obj), indent=indent)


def json_text(data: object, *, indent: int | None = None) -> str:
    """Plain JSON data as chatparse writes it: UTF-8 text, not ASCII-escaped, any depth.

    For the package's own writers (exports, the command line, Markdown transcripts), so that a
    value nested as deep as the decoders accept can always be written back.
    """
    return deep_enough(lambda: json.dumps(data, ensure_ascii=False, indent=indent))


def deep_enough(run: Callable[[], T]) -> T:
    """``run()``, allowed as deep a nesting as the decoders accept.

    ``json`` counts each level of nesting against the interpreter's recursion limit (1,000 by
    default) on Python 3.11, and on every version when it indents (its pure-Python encoder, one
    call per level), so a tool input nested 1,000 deep, which the decoders accept, would raise
    ``RecursionError``. Only then is the limit raised, by enough for the deepest value, and put
    back afterwards.
    """
    try:
        return run()
    except RecursionError:
        pass
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(limit + _DEEPEST)
    try:
        return run()
    finally:
        sys.setrecursionlimit(limit)


@overload
def from_json(text: str | bytes, /) -> model.ParsedConversation: ...
@overload
def from_json(cls: type[T], text: str | bytes) -> T: ...
def from_json(cls: Any, text: Any = _NO_DATA) -> Any:
    """Rebuild a model object from :func:`to_json` output.

    ``from_json(text)`` reads a :class:`~chatparse.model.ParsedConversation`, so
    ``from_json(to_json(conversation)) == conversation``; ``from_json(cls, text)`` reads any
    model class.

    Raises:
        ModelError: the text is not JSON, or does not describe a valid ``cls``.
    """
    cls, text = _class_and_value(cls, text, "from_json")
    try:
        data = deep_enough(lambda: json.loads(text))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ModelError(getattr(cls, "__name__", str(cls)), [f"not JSON: {exc} @ $"]) from exc
    return from_dict(cls, data)
