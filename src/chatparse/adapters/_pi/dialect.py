"""How one writer of Pi's container differs from Pi itself: the part each adapter gives.

Pi, Oh My Pi and OpenClaw write the same entries; they differ in a few entry types of their own
and in the wrappers their gateways put around a message's text. A :class:`Dialect` says which,
and the shared reader does the rest.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from attrs import frozen

from chatparse.adapters._pi.reading import EntryReader

__all__ = ["Dialect", "unchanged"]


def unchanged(text: str) -> str:
    """A text cleaner that leaves the text as it is."""
    return text


@frozen
class Dialect:
    """One source's reading of the container.

    Attributes:
        source: The adapter's name; it prefixes usage ``dedup_key`` values.
        entries: The reader of each entry ``type``; a type not in it is kept raw.
        prompt_text: Removes what the source's gateway wraps around a typed prompt.
        answer_text: Removes what the source puts around an answer's text (reply directives).
        injected: ``(provider, model)`` pairs written on assistant messages that no model
            wrote: the source's own notices, read as ``system`` notices without usage.
    """

    source: str
    entries: Mapping[str, EntryReader]
    prompt_text: Callable[[str], str] = unchanged
    answer_text: Callable[[str], str] = unchanged
    injected: frozenset[tuple[str, str]] = frozenset()
