"""chatparse: read the chat histories AI coding assistants leave on disk.

Every name below is imported on first use, not at ``import chatparse``: the pytest plugin and the
command line import this package in every run, and neither should pay for cattrs, the decoders or
any adapter they do not use.

.. code-block:: python

    import chatparse

    for conversation in chatparse.iter_conversations():
        print(conversation.source, conversation.title, len(conversation.messages))
"""

from __future__ import annotations

# Not typing.TYPE_CHECKING: importing typing alone would triple the cost of `import chatparse`.
# mypy treats any constant of this name the same way.
TYPE_CHECKING = False

if TYPE_CHECKING:
    from typing import Any

    from chatparse._api import (
        detect,
        iter_conversations,
        map_conversations,
        parse,
        parse_path,
        scan,
    )
    from chatparse._streaming import iter_messages
    from chatparse.adapter import SourceAdapter
    from chatparse.errors import (
        AdapterConflictError,
        AdapterError,
        AdapterLoadError,
        AdapterNotFoundError,
        ChatparseError,
        ChatparseWarning,
        ModelError,
        ParseWarning,
        PriceFileError,
        RedactorError,
        RedactorLoadError,
        RedactorNotFoundError,
        SkippedSourceWarning,
        SourceUnavailableError,
        UnavailableCause,
        UnsupportedInputError,
        WorkersCannotStartError,
    )
    from chatparse.host import Host
    from chatparse.model import (
        ConversationMeta,
        Diagnostics,
        ImageRef,
        Message,
        ParsedConversation,
        SourceInfo,
        ToolCall,
        UnknownRecord,
        Usage,
    )
    from chatparse.prices import PriceTable
    from chatparse.redaction import Redactor, count_redactions, get_redactor, redact
    from chatparse.registry import adapter_names, get_adapter, register_adapter
    from chatparse.serialize import SCHEMA_VERSION, from_dict, from_json, to_dict, to_json
    from chatparse.usage import UsageRow, usage_report

    __version__: str

__all__ = [
    "SCHEMA_VERSION",
    "AdapterConflictError",
    "AdapterError",
    "AdapterLoadError",
    "AdapterNotFoundError",
    "ChatparseError",
    "ChatparseWarning",
    "ConversationMeta",
    "Diagnostics",
    "Host",
    "ImageRef",
    "Message",
    "ModelError",
    "ParseWarning",
    "ParsedConversation",
    "PriceFileError",
    "PriceTable",
    "Redactor",
    "RedactorError",
    "RedactorLoadError",
    "RedactorNotFoundError",
    "SkippedSourceWarning",
    "SourceAdapter",
    "SourceInfo",
    "SourceUnavailableError",
    "ToolCall",
    "UnavailableCause",
    "UnknownRecord",
    "UnsupportedInputError",
    "Usage",
    "UsageRow",
    "WorkersCannotStartError",
    "__version__",
    "adapter_names",
    "count_redactions",
    "detect",
    "from_dict",
    "from_json",
    "get_adapter",
    "get_redactor",
    "iter_conversations",
    "iter_messages",
    "map_conversations",
    "parse",
    "parse_path",
    "redact",
    "register_adapter",
    "scan",
    "to_dict",
    "to_json",
    "usage_report",
]

_HOMES = {
    "chatparse._api": (
        "detect",
        "iter_conversations",
        "map_conversations",
        "parse",
        "parse_path",
        "scan",
    ),
    "chatparse._streaming": ("iter_messages",),
    "chatparse.adapter": ("SourceAdapter",),
    "chatparse.errors": (
        "AdapterConflictError",
        "AdapterError",
        "AdapterLoadError",
        "AdapterNotFoundError",
        "ChatparseError",
        "ChatparseWarning",
        "ModelError",
        "ParseWarning",
        "PriceFileError",
        "RedactorError",
        "RedactorLoadError",
        "RedactorNotFoundError",
        "SkippedSourceWarning",
        "SourceUnavailableError",
        "UnavailableCause",
        "UnsupportedInputError",
        "WorkersCannotStartError",
    ),
    "chatparse.host": ("Host",),
    "chatparse.model": (
        "ConversationMeta",
        "Diagnostics",
        "ImageRef",
        "Message",
        "ParsedConversation",
        "SourceInfo",
        "ToolCall",
        "UnknownRecord",
        "Usage",
    ),
    "chatparse.registry": ("adapter_names", "get_adapter", "register_adapter"),
    "chatparse.prices": ("PriceTable",),
    "chatparse.redaction": ("Redactor", "count_redactions", "get_redactor", "redact"),
    "chatparse.serialize": ("SCHEMA_VERSION", "from_dict", "from_json", "to_dict", "to_json"),
    "chatparse.usage": ("UsageRow", "usage_report"),
}
_MODULE_OF = {name: module for module, names in _HOMES.items() for name in names}


def __getattr__(name: str) -> Any:
    if name == "__version__":
        from importlib.metadata import version  # noqa: PLC0415 -- deferred: costs ~10 ms

        value: Any = version("chatparse")
    elif name in _MODULE_OF:
        module = __import__(_MODULE_OF[name], fromlist=(name,))
        value = getattr(module, name)
    else:
        msg = f"module 'chatparse' has no attribute {name!r}"
        raise AttributeError(msg)
    globals()[name] = value  # later lookups skip __getattr__
    return value


def __dir__() -> list[str]:
    return sorted({*__all__, *globals()})
