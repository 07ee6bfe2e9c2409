"""Message ids that are unique within a conversation and the same on every parse.

Sources reuse ids: a resumed session copies records, a retried request repeats its id, two
rows decode to the same name. The model needs each message's id to be unique, and callers store
ids, so the fix must be deterministic: the first holder keeps the id, later ones get ``#2``,
``#3``... in the order the adapter reads them. Never a random or time-based suffix.
"""

from __future__ import annotations

__all__ = ["UniqueIds"]


class UniqueIds:
    """The ids given out so far in one conversation.

    >>> ids = UniqueIds()
    >>> ids.take("a"), ids.take("a"), ids.take("a"), ids.take("a#2")
    ('a', 'a#2', 'a#3', 'a#2#2')
    """

    __slots__ = ("_taken",)

    def __init__(self) -> None:
        self._taken: set[str] = set()

    def take(self, wanted: str) -> str:
        """``wanted`` if no message has it yet, else the first free ``wanted#2``, ``#3``..."""
        ident, n = wanted, 1
        while ident in self._taken:
            n += 1
            ident = f"{wanted}#{n}"
        self._taken.add(ident)
        return ident

    def __contains__(self, ident: object) -> bool:
        return ident in self._taken

    def __len__(self) -> int:
        return len(self._taken)
