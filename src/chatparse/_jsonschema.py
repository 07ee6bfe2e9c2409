"""Generate the JSON Schema of the serialized :class:`~chatparse.model.ParsedConversation`.

The schema is derived from the model's own type annotations, so it cannot drift from the code:
a test compares the shipped ``parsed-conversation.schema.json`` with a fresh generation and
prints the command that regenerates it (``nox -s schema``, or
``python -m chatparse._jsonschema > src/chatparse/parsed-conversation.schema.json``).

It is for readers in other languages and for validating stored output; chatparse itself reads
serialized data with :func:`chatparse.from_dict`, which checks more than a schema can.
"""

from __future__ import annotations

import json
import types
import typing
from collections.abc import Mapping
from datetime import datetime
from typing import Any, Literal, Union, get_args, get_origin

import attrs

from chatparse import model
from chatparse.serialize import OMITTED_WHEN_EMPTY, SCHEMA_VERSION

__all__ = ["json_schema"]

SCHEMA_ID = "https://chatparse.readthedocs.io/schema/parsed-conversation.schema.json"
_DRAFT = "https://json-schema.org/draft/2020-12/schema"


def _type_schema(annotation: Any, defs: dict[str, Any]) -> dict[str, Any]:  # noqa: C901, PLR0911 -- one branch per JSON type reads as the mapping it is
    origin = get_origin(annotation)
    if annotation is Any:
        return {}
    if annotation is type(None):
        return {"type": "null"}
    if annotation is str:
        return {"type": "string"}
    if annotation is bool:
        return {"type": "boolean"}
    if annotation is int:
        return {"type": "integer"}
    if annotation is datetime:
        return {"type": "string", "format": "date-time", "pattern": "Z$"}
    if origin is Literal:
        return {"enum": list(get_args(annotation))}
    if origin in (Union, types.UnionType):
        return {"anyOf": [_type_schema(arg, defs) for arg in get_args(annotation)]}
    if origin is tuple:
        item, _ellipsis = get_args(annotation)
        return {"type": "array", "items": _type_schema(item, defs)}
    if origin is Mapping:
        _key, value = get_args(annotation)
        return {"type": "object", "additionalProperties": _type_schema(value, defs)}
    if attrs.has(annotation):
        _define(annotation, defs)
        return {"$ref": f"#/$defs/{annotation.__name__}"}
    msg = f"no JSON Schema mapping for {annotation!r}; extend chatparse._jsonschema"
    raise TypeError(msg)


def _define(cls: type, defs: dict[str, Any]) -> None:
    if cls.__name__ in defs:
        return
    defs[cls.__name__] = {}  # placeholder first: ParsedConversation refers to itself
    hints = typing.get_type_hints(cls)
    fields = attrs.fields(cls)
    defs[cls.__name__] = {
        "type": "object",
        "description": (cls.__doc__ or "").strip().split("\n", 1)[0],
        "properties": {field.name: _type_schema(hints[field.name], defs) for field in fields},
        "required": [
            field.name for field in fields if field.name not in OMITTED_WHEN_EMPTY.get(cls, ())
        ],
        "additionalProperties": False,
    }


def json_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of ``chatparse.to_dict(parsed_conversation)``."""
    defs: dict[str, Any] = {}
    _define(model.ParsedConversation, defs)
    top = dict(defs["ParsedConversation"])
    top["properties"] = {
        "schema_version": {"const": SCHEMA_VERSION},
        **top["properties"],
    }
    top["required"] = ["schema_version", *top["required"]]
    return {
        "$schema": _DRAFT,
        "$id": SCHEMA_ID,
        "title": "chatparse ParsedConversation",
        **top,
        "$defs": dict(sorted(defs.items())),
    }


def render() -> str:
    """The schema as the shipped file holds it: indented, sorted definitions, final newline."""
    return json.dumps(json_schema(), indent=2, ensure_ascii=False) + "\n"


if __name__ == "__main__":
    print(render(), end="")  # noqa: T201 -- this module's command-line job is to print the schema
