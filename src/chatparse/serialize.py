"""Turn model objects into plain JSON data and back, exactly.

There is one cattrs converter, built here on first use. ``to_dict`` writes every field, in field
order, with datetimes as ISO-8601 strings ending in ``Z``; the outermost object also carries
``schema_version``. ``from_dict`` is strict where cattrs would be lenient: a number is not
silently turned into a string, nor a string into a bool, because data that needs such coercion was
not written by us and should not be trusted silently. Its errors name the path of each bad field.

``from_dict(type(x), to_dict(x)) == x`` holds for every model object.

``to_json`` does not go through ``to_dict``: it hands the model objects to the JSON encoder,
which asks :func:`_json_ready` for each object's fields as it meets it, so no tree of dicts is
built and kept, and tool inputs (JSON values already) are written without a copy. It writes
through orjson when it is installed (the ``fast`` extra), which writes the same JSON values as
the standard library but spells them differently: no space after ``,`` and ``:`` without
``indent``, and some floats (``1e-07`` is ``1e-7``). A value orjson refuses goes the standard
library's way, as without orjson. (A float NaN or infinity in a tool input, which is not JSON
and which no decoder produces, is ``null`` to orjson and ``NaN`` to the standard library.)
"""

from __future__ import annotations

import json
import operator
import sys
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from functools import cache
from types import MappingProxyType, ModuleType
from typing import Any, Final, TypeVar, overload

import attrs
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

try:
    import orjson as _orjson_module
except ImportError:  # pragma: no cover -- tested in a subprocess, which coverage does not follow
    _orjson: ModuleType | None = None
else:
    _orjson = _orjson_module

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
    _check_model(obj, "to_dict")
    data: dict[str, Any] = converter().unstructure(obj)
    return {_SCHEMA_KEY: SCHEMA_VERSION, **data}


def _check_model(obj: object, function: str) -> None:
    if type(obj) not in MODEL_CLASSES:
        msg = f"{function} takes a chatparse model object, got {type(obj).__name__}"
        raise TypeError(msg)


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
    """Serialize a model object to a JSON string (UTF-8 text, not ASCII-escaped).

    The JSON values are those of :func:`to_dict`; through orjson, when it is installed, the text
    has no space after ``,`` and ``:`` (without ``indent``) and spells some floats differently.
    """
    _check_model(obj, "to_json")
    fast = _orjson_bytes(obj, indent)
    return fast.decode() if fast is not None else _stdlib_text(obj, indent)


def json_bytes(obj: object, *, indent: int | None = None) -> bytes:
    """:func:`to_json` encoded as UTF-8, for the package's own writers (exports).

    orjson writes bytes: they are returned as they are, not decoded to text and encoded back.
    """
    _check_model(obj, "json_bytes")
    fast = _orjson_bytes(obj, indent)
    return fast if fast is not None else _stdlib_text(obj, indent).encode()


_ORJSON_INDENTS: Final = frozenset({None, 2})
"""The values of ``indent`` orjson writes: none, and two spaces."""


def _orjson_bytes(obj: object, indent: int | None) -> bytes | None:
    """``obj`` written by orjson, or ``None``.

    ``None`` without orjson, for an ``indent`` it cannot write, and for a value it refuses:
    nested deeper than it writes, a lone surrogate, an integer beyond 64 bits, a key that is not
    text, a container that holds itself.
    """
    if _orjson is None or indent not in _ORJSON_INDENTS:
        return None
    options = _orjson.OPT_PASSTHROUGH_DATETIME | _orjson.OPT_PASSTHROUGH_DATACLASS
    if indent:
        options |= _orjson.OPT_INDENT_2
    try:
        written: bytes = _orjson.dumps(_top_level(obj), default=_json_ready, option=options)
    except TypeError:  # orjson.JSONEncodeError
        return None
    return written


def _stdlib_text(obj: object, indent: int | None) -> str:
    """``obj`` written by the standard library, byte for byte as ``json_text(to_dict(obj))``.

    Anything it refuses goes through :func:`to_dict` after all, whose errors say why.
    """
    try:
        return deep_enough(
            lambda: json.dumps(
                _top_level(obj), default=_json_ready, ensure_ascii=False, indent=indent
            )
        )
    except (TypeError, ValueError, RecursionError):
        return json_text(to_dict(obj), indent=indent)


def _top_level(obj: object) -> dict[str, Any]:
    """The outermost object: ``schema_version``, then ``obj``'s fields."""
    return {_SCHEMA_KEY: SCHEMA_VERSION, **_field_writers()[type(obj)](obj)}


def _json_ready(value: object) -> object:
    """What the encoders write for a value they cannot write as it is (their ``default``).

    A model object becomes the dict of its fields (whose values the encoder meets in turn), a
    datetime its ISO-8601 text, a read-only mapping a dict; anything else (a plugin's non-JSON
    value in a tool input) is unstructured by the converter, as :func:`to_dict` does.

    Raises:
        TypeError: ``value`` has no JSON form.
    """
    write = _field_writers().get(type(value))
    if write is not None:
        return write(value)
    plain = converter().unstructure(value)
    if type(plain) is type(value):
        msg = f"Object of type {type(value).__name__} is not JSON serializable"
        raise TypeError(msg)
    return plain


@cache
def _field_writers() -> dict[type, Callable[[Any], Any]]:
    """For each type :func:`_json_ready` knows, the function that makes it JSON-ready."""
    writers: dict[type, Callable[[Any], Any]] = {
        datetime: _format_datetime,
        MappingProxyType: dict,
    }
    for cls in MODEL_CLASSES:
        writers[cls] = _fields_of(cls, OMITTED_WHEN_EMPTY.get(cls, ()))
    return writers


def _fields_of(cls: type, omitted_when_empty: tuple[str, ...]) -> Callable[[Any], dict[str, Any]]:
    """A function from an object of ``cls`` to the dict of its fields, as :func:`to_dict`'s are.

    The values are left as they are: the encoder writes them, or hands them back to
    :func:`_json_ready`.
    """
    names = tuple(attribute.name for attribute in attrs.fields(cls))
    values = operator.attrgetter(*names)

    def fields(obj: Any) -> dict[str, Any]:
        written = dict(zip(names, values(obj), strict=True))
        for name in omitted_when_empty:
            if not written[name]:
                del written[name]
        return written

    return fields


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
