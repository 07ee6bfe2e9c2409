"""Functions that build the model's frozen attrs classes like the classes do, but cheaper.

attrs makes a class frozen by overriding ``__setattr__``, so the ``__init__`` it generates has to
write every field through ``object.__setattr__``; and calling a class with keywords costs CPython
more than calling a function with the same keywords. Adapters build a message, a usage and tool
calls per record, so :func:`fast_constructor` makes, from a class's own ``attrs.fields``, a
function with the same keyword-only signature, defaults, factories, converters and validators,
applied in the same order, with the same errors. Only the writing differs: the new instance is
made as a *twin*, a plain class with the same ``__slots__`` and no ``__setattr__`` of its own, its
fields are written as ordinary slot stores, and it is then switched to the real class.
``__class__`` assignment between two classes of the same layout is documented language
behaviour; that the layouts match is checked once, at import, so a model change that breaks it
fails every test rather than one parse. What this buys end to end is in ``docs/benchmarks.md``.

One assumption goes beyond attrs: a validator depends on the value alone, not on the instance or
on other fields (true of every validator in :mod:`chatparse.model`). A field left at a default
that passed its validator once, here, is not validated again.
"""

from __future__ import annotations

import linecache
import sys
from collections.abc import Callable
from typing import Any, Final, ParamSpec, TypeVar

import attrs

__all__ = ["fast_constructor"]

_T = TypeVar("_T")
_P = ParamSpec("_P")

_INDENT: Final = "    "

# Whether validators run: read through attrs' public switch, as its own __init__ honours it.
_VALIDATORS_RUN: Final = "not _validators_disabled()"


def fast_constructor(cls: Callable[_P, _T]) -> Callable[_P, _T]:
    """A function that builds ``cls`` from the same keywords as ``cls(...)``, and cheaper.

    Raises :class:`TypeError` when ``cls`` uses an attrs feature the generator does not
    reproduce (a post-init hook, a converter that takes the instance, a cached hash, a
    ``__weakref__`` slot...), rather than building instances that differ from attrs' own.
    """
    if not isinstance(cls, type):
        msg = f"fast_constructor takes a class, got {cls!r}"
        raise TypeError(msg)
    fields = attrs.fields(cls)
    _check_supported(cls, fields)
    twin = type(f"_{cls.__name__}Slots", (), {"__slots__": vars(cls)["__slots__"]})
    _check_layout(cls, twin)

    namespace: dict[str, Any] = {
        "_cls": cls,
        "_twin": twin,
        "_new": object.__new__,
        "_NOTHING": attrs.NOTHING,
        "_validators_disabled": attrs.validators.get_disabled,
    }
    params: list[str] = []
    writes: list[str] = []
    checks: list[str] = []
    for field in fields:
        param, write, check = _field_code(field, namespace)
        params.append(param)
        writes.append(write)
        checks += [check] if check else []

    # A new object is only ever seen by this function, so no clean-up is needed if a converter
    # raises half-way: the half-built twin is simply dropped.
    body = ["self = _new(_twin)", *writes, "self.__class__ = _cls"]
    if checks:
        body += [f"if {_VALIDATORS_RUN}:", *(_INDENT + check for check in checks)]
    body.append("return self")
    # The function is made inside a maker whose parameters carry the names it uses, so that its
    # globals can be the model module's own (typing.get_type_hints resolves the annotations
    # there, as for attrs' __init__) without adding a name to that module.
    source = "\n".join(
        [
            f"def make({', '.join(namespace)}):",
            f"{_INDENT}def build(*, {', '.join(params)}):",
            *(_INDENT * 2 + line for line in body),
            f"{_INDENT}return build",
        ]
    )
    # Registered with linecache, as attrs does, so that tracebacks and inspect show the source.
    filename = f"<chatparse constructor of {cls.__qualname__}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(keepends=True), filename)
    made: dict[str, Any] = {}
    module = vars(sys.modules[cls.__module__])
    exec(compile(source, filename, "exec"), module, made)  # noqa: S102 -- source built above from attrs.fields
    build = made["make"](**namespace)
    # Errors about arguments then read as attrs' do: "Message.__init__() missing ... 'id'".
    build.__qualname__ = f"{cls.__qualname__}.__init__"
    init: Any = vars(cls)["__init__"]  # attrs' own, for its annotations
    build.__annotations__ = {**init.__annotations__, "return": cls.__name__}
    build.__doc__ = f"Build a :class:`{cls.__qualname__}`: the same as calling the class."
    return build  # type: ignore[no-any-return] # generated with cls's own signature


def _check_supported(cls: type, fields: tuple[attrs.Attribute[Any], ...]) -> None:
    def refuse(why: str) -> None:
        msg = f"fast_constructor cannot reproduce attrs' __init__ of {cls.__qualname__}: {why}"
        raise TypeError(msg)

    for hook in ("__attrs_pre_init__", "__attrs_post_init__"):
        if hasattr(cls, hook):
            refuse(f"it defines {hook}")
    if set(getattr(cls, "__slots__", ("__dict__",))) != {field.name for field in fields}:
        refuse("its slots are not exactly its fields (not slotted, __weakref__, cached hash?)")
    for field in fields:
        if not (field.init and field.kw_only):
            refuse(f"field {field.name!r} is not a keyword-only __init__ argument")
        if isinstance(field.converter, attrs.Converter):
            refuse(f"field {field.name!r} has a converter that takes the instance or field")
        factory = _factory_of(field)
        if factory is not None and factory.takes_self:
            refuse(f"field {field.name!r} has a factory that takes the instance")


def _field_code(field: attrs.Attribute[Any], namespace: dict[str, Any]) -> tuple[str, str, str]:
    """The parameter, the write and the validation (or "") of one field; adds its names."""
    name = field.name
    alias = field.alias or name  # attrs always sets it on a built class; typed optional
    default, factory = field.default, _factory_of(field)
    if factory is not None:
        namespace[f"_factory_{name}"] = factory.factory
        param = f"{alias}=_NOTHING"
        value = f"(_factory_{name}() if {alias} is _NOTHING else {alias})"
    elif default is attrs.NOTHING:
        param = value = alias
    else:
        namespace[f"_default_{name}"] = default
        param = f"{alias}=_default_{name}"
        value = alias
    # Most calls leave most fields at their default (no images, no cache tokens): when the
    # default converts to itself and passes its validator, passing it needs neither call.
    plain_default = factory is None and default is not attrs.NOTHING
    if field.converter is not None:
        namespace[f"_convert_{name}"] = field.converter
        value = f"_convert_{name}({value})"
        if plain_default and _converts_to_itself(field.converter, default):
            value = f"({alias} if {alias} is _default_{name} else {value})"
    check = ""
    if field.validator is not None:
        namespace[f"_validate_{name}"] = field.validator
        namespace[f"_field_{name}"] = field
        check = f"_validate_{name}(self, _field_{name}, self.{name})"
        if plain_default and _passes(field, default):
            check = f"if self.{name} is not _default_{name}: {check}"
    return param, f"self.{name} = {value}", check


def _converts_to_itself(converter: Any, default: Any) -> bool:
    try:
        return converter(default) is default
    except Exception:  # noqa: BLE001 -- any failure just means no shortcut
        return False


def _passes(field: attrs.Attribute[Any], default: Any) -> bool:
    try:
        field.validator(None, field, default)  # type: ignore[misc] # checked not None by the caller
    except Exception:  # noqa: BLE001 -- any failure just means no shortcut
        return False
    return True


def _factory_of(field: attrs.Attribute[Any]) -> Any:
    # attrs' stubs type Factory as a function, which isinstance cannot narrow.
    default: Any = field.default
    return default if isinstance(default, attrs.Factory) else None  # type: ignore[arg-type]


def _check_layout(cls: type, twin: type) -> None:
    probe: object = object.__new__(cls)
    try:
        object.__setattr__(probe, "__class__", twin)
    except TypeError as exc:  # CPython compares the two classes' slot layouts
        msg = f"fast_constructor: {cls.__qualname__} and its twin differ in layout: {exc}"
        raise TypeError(msg) from exc
    probe.__class__ = cls
