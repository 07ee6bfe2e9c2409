"""Where rules can match: the runs of token characters in a string, and the keywords in it.

Python's ``re`` reads about 20-60 MB/s when a pattern can start at a common letter, while
``bytes.find`` and ``bytes.translate`` read several hundred; a transcript is mostly text that holds
no secret. So everything here is done with those two where the whole string must be read, and a
regular expression is only run over short runs, or near a keyword. Strings are encoded ``ascii``
with ``replace``, so that each character is one byte and positions are the same in the bytes as
in the string.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator, Sequence
from typing import Final, TypeAlias

from chatparse.redaction._rule import SHORTEST_TOKEN, TOKEN_CHARACTERS, Rule

__all__ = ["TextKeywords", "TokenKeywords", "token_runs"]

_TOKEN_BYTE: Final = ord("t")
_TOKEN_TABLE: Final = bytes(
    _TOKEN_BYTE if chr(code) in TOKEN_CHARACTERS else ord(" ") for code in range(256)
)
_SHORTEST_RUN: Final = bytes([_TOKEN_BYTE]) * SHORTEST_TOKEN
_SEPARATOR: Final = b"\n"  # never a token character, so no keyword spans two runs

Window = tuple[int, int]
"""A part of a string to search, as start and end."""


def token_runs(encoded: bytes) -> list[Window]:
    """The start and end of each run of token characters at least SHORTEST_TOKEN long."""
    marked = encoded.translate(_TOKEN_TABLE)
    runs = []
    start = marked.find(_SHORTEST_RUN)
    while start != -1:
        end = marked.find(b" ", start + SHORTEST_TOKEN)
        if end == -1:
            end = len(marked)
        runs.append((start, end))
        start = marked.find(_SHORTEST_RUN, end)
    return runs


def _rules_by_keyword(rules: Sequence[Rule], *, token: bool) -> dict[str, list[int]]:
    by_keyword: dict[str, list[int]] = {}
    for index, rule in enumerate(rules):
        if rule.token == token:
            for keyword in rule.keywords:
                by_keyword.setdefault(keyword, []).append(index)
    return by_keyword


def _always(rules: Sequence[Rule], *, token: bool) -> list[int]:
    return [index for index, rule in enumerate(rules) if rule.token == token and not rule.keywords]


_Trie: TypeAlias = "dict[str, _Trie]"


class TokenKeywords:
    """Which token rules each run of a string can hold, found in one scan of all its runs.

    The runs are joined and searched for every keyword at once, as a trie
    (``a(?:kia|iza)|gh[opsu]_``): ``re`` tries the alternatives of a flat ``akia|aiza|ghp_`` one
    by one at every position, a trie only those that share a first letter. A keyword that another
    starts with is enough to find both, so a match stands for every keyword that starts with it.
    """

    def __init__(self, rules: Sequence[Rule]) -> None:
        by_keyword = _rules_by_keyword(rules, token=True)
        self.always = _always(rules, token=True)
        trie: _Trie = {}
        for keyword in by_keyword:
            node = trie
            for char in keyword:
                node = node.setdefault(char, {})
            node[""] = {}
        self._search = re.compile(_alternatives(trie).encode("ascii")) if trie else None
        self._rules_of = {
            found.encode("ascii"): {
                index
                for keyword, indexes in by_keyword.items()
                if keyword.startswith(found)
                for index in indexes
            }
            for found in by_keyword
        }

    def __bool__(self) -> bool:
        return self._search is not None or bool(self.always)

    def candidates(self, encoded: bytes, lowered: bytes) -> Iterator[tuple[int, Window]]:
        """Each (rule, run) pair where the rule may match, in the order of the runs."""
        runs = token_runs(encoded)
        if not runs:
            return
        if self.always:
            for run in runs:
                yield from ((index, run) for index in self.always)
        if self._search is None:
            return
        joined = _SEPARATOR.join(lowered[start:end] for start, end in runs)
        offsets = []  # where each run starts in ``joined``
        position = 0
        for start, end in runs:
            offsets.append(position)
            position += end - start + 1
        found: dict[int, set[int]] = {}  # rules by the number of the run they may be in
        for match in self._search.finditer(joined):
            number = bisect.bisect_right(offsets, match.start()) - 1
            found.setdefault(number, set()).update(self._rules_of[match.group()])
        for number, indexes in sorted(found.items()):
            yield from ((index, runs[number]) for index in sorted(indexes))


class TextKeywords:
    """Which other rules a string can hold, and where: near each keyword, or anywhere.

    Each keyword is looked for with ``bytes.find``. A rule with a :attr:`~Rule.reach` is then
    only searched within that distance of each place its keywords are.
    """

    def __init__(self, rules: Sequence[Rule]) -> None:
        self._rules = rules
        self._by_keyword = {
            keyword.encode("ascii"): indexes
            for keyword, indexes in _rules_by_keyword(rules, token=False).items()
        }
        self.always = _always(rules, token=False)

    def candidates(self, lowered: bytes) -> Iterator[tuple[int, Window]]:
        """Each (rule, part of the string) where the rule may match, rules in order."""
        found: dict[int, list[Window]] = {index: [(0, len(lowered))] for index in self.always}
        for keyword, indexes in self._by_keyword.items():
            first = lowered.find(keyword)
            if first == -1:
                continue
            for index in indexes:
                found.setdefault(index, []).extend(self._near(lowered, keyword, first, index))
        for index in sorted(found):
            yield from ((index, window) for window in _merged_windows(found[index]))

    def _near(self, lowered: bytes, keyword: bytes, first: int, index: int) -> Iterator[Window]:
        reach = self._rules[index].reach
        if reach is None:
            yield 0, len(lowered)
            return
        position = first
        while position != -1:
            yield max(position - reach, 0), min(position + len(keyword) + reach, len(lowered))
            position = lowered.find(keyword, position + 1)


def _merged_windows(windows: list[Window]) -> list[Window]:
    merged: list[Window] = []
    for start, end in sorted(windows):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def _alternatives(node: _Trie) -> str:
    if "" in node:
        return ""  # a keyword ends here: the longer ones that start with it add nothing
    branches = [re.escape(char) + _alternatives(child) for char, child in sorted(node.items())]
    return branches[0] if len(branches) == 1 else f"(?:{'|'.join(branches)})"
