"""What a redactor is: one method over a string, and the marker that replaces a secret."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Final, NamedTuple, Protocol, runtime_checkable

__all__ = [
    "MARKER_PREFIX",
    "ChainRedactor",
    "FieldRedactor",
    "FieldStep",
    "Redacted",
    "Redactor",
    "field_step",
    "marker",
]

MARKER_PREFIX: Final = "[REDACTED:"
"""How every replacement made by chatparse's own redactors begins; rules never match it, so
redacting twice changes nothing more."""


def marker(kind: str) -> str:
    """The text that stands in for a secret of ``kind``: ``[REDACTED:<kind>]``.

    .. versionadded:: 0.2
    """
    return f"{MARKER_PREFIX}{kind}]"


class Redacted(NamedTuple):
    """A string after redaction: the new text, and the kind of each secret replaced, in order.

    A plain ``(text, kinds)`` tuple is just as good as a return value of :meth:`Redactor.redact`.

    .. versionadded:: 0.2
    """

    text: str
    kinds: tuple[str, ...] = ()


@runtime_checkable
class Redactor(Protocol):
    """Anything that takes secrets out of a string.

    ``redact(text)`` returns the text with every secret it found replaced (by
    :func:`marker` for consistency with the built-in rules, though any text will do) and the
    kind of each replacement, in order: :func:`chatparse.redact` counts them by kind. It must be
    deterministic, and should leave its own output unchanged (``redact`` of a redacted string
    finds nothing), so that redacting twice is the same as redacting once. It is called from one
    thread at a time per :func:`chatparse.redact` call, but may be shared between threads.

    .. versionadded:: 0.2
    """

    def redact(self, text: str) -> tuple[str, Sequence[str]]:
        """``text`` with its secrets replaced, and the kind of each replacement."""
        ...


@runtime_checkable
class FieldRedactor(Redactor, Protocol):
    """A redactor that can also use the name a string is stored under.

    :func:`chatparse.redact` calls ``redact_field(name, text)`` for each string value of a JSON
    object (tool inputs and results) when the redactor has the method, so that
    ``{"password": "hunter2"}`` can be recognised by its key although ``hunter2`` alone looks
    like any other word.

    .. versionadded:: 0.2
    """

    def redact_field(self, name: str, text: str) -> tuple[str, Sequence[str]]:
        """``text``, stored under ``name``, with its secrets replaced; as :meth:`redact`."""
        ...


class ChainRedactor:
    """Several redactors applied in turn: each one sees what the ones before it left.

    For adding a company's own token formats to the default rules::

        ChainRedactor([default_redactor(), PatternRedactor([Rule(kind="acme-token", ...)])])

    .. versionadded:: 0.2
    """

    def __init__(self, redactors: Iterable[Redactor]) -> None:
        self.redactors: tuple[Redactor, ...] = tuple(redactors)
        # Decided once: a runtime protocol check on every string would cost more than most
        # redactions.
        self._field_steps = tuple(field_step(redactor) for redactor in self.redactors)

    def __repr__(self) -> str:
        return f"ChainRedactor({list(self.redactors)!r})"

    def redact(self, text: str) -> tuple[str, Sequence[str]]:
        """``text`` through every redactor in order; the kinds of all their replacements."""
        kinds: list[str] = []
        for redactor in self.redactors:
            text, found = redactor.redact(text)
            kinds.extend(found)
        return text, kinds

    def redact_field(self, name: str, text: str) -> tuple[str, Sequence[str]]:
        """As :meth:`redact`, using each redactor's ``redact_field`` where it has one."""
        kinds: list[str] = []
        for step in self._field_steps:
            text, found = step(name, text)
            kinds.extend(found)
        return text, kinds


FieldStep = Callable[[str, str], tuple[str, Sequence[str]]]


def field_step(redactor: Redactor) -> FieldStep:
    """``redactor.redact_field``, or its ``redact`` ignoring the name when it has no such method."""
    if isinstance(redactor, FieldRedactor):
        return redactor.redact_field

    def ignore_name(_name: str, text: str) -> tuple[str, Sequence[str]]:
        return redactor.redact(text)

    return ignore_name
