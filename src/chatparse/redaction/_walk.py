"""``redact``: the same conversation with every string that can hold a secret redacted.

Strings that can hold a secret: the title (the conversation's and the scan's), each message's
text and thinking, each tool call's input, output and structured result (every string at any
depth, JSON object keys included), unknown records' raw text and the diagnostics' warnings (which
can quote content), in every sub-agent too. Everything else is left as it is: ids, names, paths,
locators, fingerprints, times, usage, models, the structure. An object with nothing to redact is
kept as the same object, so redacting costs little where there is nothing to find.

A string value of a JSON object is redacted knowing its key, when the redactor has
``redact_field`` (:class:`~chatparse.redaction.FieldRedactor`): ``{"password": "hunter2"}``; the
``"value"`` of ``{"name": "API_KEY", "value": "..."}`` is known by that name. A key is redacted like
any string (a key can be a token: a cache keyed by API key); should two keys of one object become
the same text, the later ones get `` #2``, `` #3``... so that no entry is lost.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any, Final, TypeVar, cast

import attrs
from attrs import AttrsInstance

from chatparse.model import (
    ConversationMeta,
    Diagnostics,
    Message,
    ParsedConversation,
    ToolCall,
)
from chatparse.redaction._patterns import default_redactor
from chatparse.redaction._protocol import Redactor, field_step

__all__ = ["count_redactions", "redact"]

_T = TypeVar("_T")
_Model = TypeVar("_Model", bound=AttrsInstance)

_CONTAINERS: Final = (dict, list, tuple)

_NAME_KEYS: Final = ("name", "key")


def redact(
    conversation: ParsedConversation, redactor: Redactor | None = None
) -> ParsedConversation:
    """A copy of ``conversation`` with every string that can hold a secret redacted.

    Each string is passed through ``redactor`` (default:
    :func:`~chatparse.redaction.default_redactor`).

    Each replacement is counted by kind in the conversation's
    :attr:`Diagnostics.redactions <chatparse.model.Diagnostics.redactions>` (added to what an
    earlier redaction counted; each sub-agent counts its own). Ids, times, usage and structure are
    unchanged. Redacting a redacted conversation changes nothing.

    Raises:
        TypeError: the redactor returned something other than a string and a sequence of kinds.
        ValueError: a tool input or result contains itself.

    .. versionadded:: 0.2
    """
    return _Scrubber(redactor if redactor is not None else default_redactor()).conversation(
        conversation
    )


def count_redactions(
    conversation: ParsedConversation, *, include_subagents: bool = True
) -> dict[str, int]:
    """How many secrets of each kind were redacted in ``conversation``, sorted by kind.

    .. versionadded:: 0.2
    """
    totals: Counter[str] = Counter(conversation.diagnostics.redactions)
    if include_subagents:
        for subagent in conversation.subagents:
            totals.update(count_redactions(subagent))
    return dict(sorted(totals.items()))


class _Scrubber:
    """One :func:`redact` call: the redactor, and what it returned for each string seen."""

    def __init__(self, redactor: Redactor) -> None:
        self._redact = redactor.redact
        self._redact_field = field_step(redactor)
        # Keys, tool names in inputs, repeated outputs: the same strings come back again and again.
        self._texts: dict[str, tuple[str, tuple[str, ...]]] = {}
        self._fields: dict[tuple[str, str], tuple[str, tuple[str, ...]]] = {}

    def conversation(self, conversation: ParsedConversation) -> ParsedConversation:
        counts: Counter[str] = Counter()
        changes: dict[str, Any] = {
            "title": self._optional(conversation.title, counts),
            "meta": self._meta(conversation.meta, counts),
            "messages": _each(conversation.messages, lambda m: self._message(m, counts)),
            "subagents": _each(conversation.subagents, self.conversation),
        }
        changes["diagnostics"] = self._diagnostics(conversation.diagnostics, counts)
        return _evolved(conversation, changes)

    def text(self, value: str, counts: Counter[str]) -> str:
        found = self._texts.get(value)
        if found is None:
            found = self._texts[value] = _checked(self._redact(value))
        return _counted(value, found, counts)

    def field(self, name: str, value: str, counts: Counter[str]) -> str:
        found = self._fields.get((name, value))
        if found is None:
            found = self._fields[name, value] = _checked(self._redact_field(name, value))
        return _counted(value, found, counts)

    def _optional(self, value: str | None, counts: Counter[str]) -> str | None:
        return None if value is None else self.text(value, counts)

    def _meta(self, meta: ConversationMeta, counts: Counter[str]) -> ConversationMeta:
        return _evolved(meta, {"title": self._optional(meta.title, counts)})

    def _message(self, message: Message, counts: Counter[str]) -> Message:
        changes = {
            "text": self.text(message.text, counts),
            "thinking": self._optional(message.thinking, counts),
            "tool_calls": _each(message.tool_calls, lambda call: self._tool_call(call, counts)),
        }
        return _evolved(message, changes)

    def _tool_call(self, call: ToolCall, counts: Counter[str]) -> ToolCall:
        walk = _JsonWalk(self, counts)
        changes = {
            "input": walk.value(call.input),
            "output": self._optional(call.output, counts),
            "result": walk.value(call.result),
        }
        return _evolved(call, changes)

    def _diagnostics(self, diagnostics: Diagnostics, counts: Counter[str]) -> Diagnostics:
        changes: dict[str, Any] = {
            "unknown": _each(
                diagnostics.unknown,
                lambda record: _evolved(record, {"raw": self.text(record.raw, counts)}),
            ),
            "warnings": _each(diagnostics.warnings, lambda warning: self.text(warning, counts)),
        }
        if counts:
            totals = Counter(diagnostics.redactions) + counts
            changes["redactions"] = dict(sorted(totals.items()))
        return _evolved(diagnostics, changes)


def _checked(result: object) -> tuple[str, tuple[str, ...]]:
    """A redactor's answer, checked: it comes from code that may not be typed."""
    match result:
        case (str() as text, Sequence() as kinds) if all(isinstance(k, str) for k in kinds):
            return text, tuple(kinds)
    msg = (
        f"a redactor must return (text, kinds): a string and a sequence of strings, got {result!r}"
    )
    raise TypeError(msg)


def _counted(original: str, found: tuple[str, tuple[str, ...]], counts: Counter[str]) -> str:
    text, kinds = found
    if kinds:
        counts.update(kinds)
    # Keep the very object when the text is unchanged, so that unchanged parents are kept too.
    return original if text == original else text


def _each(items: tuple[_T, ...], change: Callable[[_T], _T]) -> tuple[_T, ...]:
    changed = tuple(change(item) for item in items)
    return items if all(new is old for new, old in zip(changed, items, strict=True)) else changed


def _evolved(instance: _Model, changes: dict[str, Any]) -> _Model:
    """``instance`` itself when every change is the value it already has, else a copy."""
    if all(getattr(instance, name) is value for name, value in changes.items()):
        return instance
    # mypy's attrs plugin checks evolve's argument against one concrete class, not a TypeVar.
    evolved: _Model = attrs.evolve(cast("Any", instance), **changes)
    return evolved


class _JsonWalk:
    """Every string of one JSON value redacted, at any depth, without recursion.

    The decoders accept values nested a thousand deep, past Python's recursion limit; a value
    is walked with a stack of the containers entered, and rebuilt only where a string changed.
    """

    def __init__(self, scrubber: _Scrubber, counts: Counter[str]) -> None:
        self._scrubber = scrubber
        self._counts = counts

    def value(self, root: Any) -> Any:
        if isinstance(root, str):
            return self._scrubber.text(root, self._counts)
        if not isinstance(root, _CONTAINERS):
            return root
        stack = [_Frame(root)]
        entered = {id(root)}
        while True:
            frame = stack[-1]
            if frame.position < len(frame.entries):
                key, child = frame.entries[frame.position]
                frame.position += 1
                if isinstance(child, _CONTAINERS):
                    if id(child) in entered:
                        msg = "a tool input or result contains itself"
                        raise ValueError(msg)
                    entered.add(id(child))
                    stack.append(_Frame(child))
                else:
                    frame.add(self._leaf(frame.name_of(key), child, is_entry=frame.is_object), self)
                continue
            stack.pop()
            entered.discard(id(frame.source))
            rebuilt = frame.rebuilt()
            if not stack:
                return rebuilt
            stack[-1].add(rebuilt, self)

    def _leaf(self, key: Any, value: Any, *, is_entry: bool) -> Any:
        if not isinstance(value, str):
            return value
        if is_entry and isinstance(key, str):
            return self._scrubber.field(key, value, self._counts)
        return self._scrubber.text(value, self._counts)

    def key(self, key: Any) -> Any:
        return self._scrubber.text(key, self._counts) if isinstance(key, str) else key


class _Frame:
    """A container being walked: its entries, and the new value of each one walked so far."""

    def __init__(self, source: dict[Any, Any] | list[Any] | tuple[Any, ...]) -> None:
        self.source = source
        self.is_object = isinstance(source, dict)
        self.entries: list[tuple[Any, Any]] = (
            list(source.items()) if isinstance(source, dict) else list(enumerate(source))
        )
        self.position = 0
        self.keys: list[Any] = []
        self.values: list[Any] = []
        self.changed = False

    def name_of(self, key: Any) -> Any:
        """The name an entry's value is stored under: its key, as a rule.

        A ``"value"`` beside a string ``"name"`` or ``"key"`` is stored under that name
        (``{"name": "API_KEY", "value": "..."}``): environment variables and headers are often
        written as lists of such pairs.
        """
        if key != "value" or not isinstance(self.source, dict):
            return key
        for alias in _NAME_KEYS:
            name = self.source.get(alias)
            if isinstance(name, str):
                return name
        return key

    def add(self, value: Any, walk: _JsonWalk) -> None:
        """The new value of the next entry (its key, in an object, is redacted here)."""
        key, original = self.entries[len(self.values)]
        new_key = walk.key(key) if self.is_object else key
        self.changed = self.changed or new_key is not key or value is not original
        self.keys.append(new_key)
        self.values.append(value)

    def rebuilt(self) -> Any:
        if not self.changed:
            return self.source
        if not self.is_object:
            return tuple(self.values) if isinstance(self.source, tuple) else self.values
        rebuilt: dict[Any, Any] = {}
        for key, value in zip(self.keys, self.values, strict=True):
            rebuilt[_unused(key, rebuilt)] = value
        return rebuilt


def _unused(key: Any, taken: dict[Any, Any]) -> Any:
    """``key``, or ``key #2``, ``key #3``... when two keys were redacted to the same text."""
    if key not in taken:
        return key
    number = 2
    while f"{key} #{number}" in taken:
        number += 1
    return f"{key} #{number}"
