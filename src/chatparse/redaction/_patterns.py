"""PatternRedactor: rules tried only where they can match, so that ordinary text costs little.

Most of a transcript holds no secret, and most rules need a keyword (``ghp_``, ``AKIA``,
``-----BEGIN``) to match. Trying ~100 regular expressions over every string would cost far more
than parsing it, so a string is read in two cheap passes first, both in C:

1. its runs of :data:`TOKEN_CHARACTERS` at least :data:`SHORTEST_TOKEN` long (found with
   ``bytes.translate`` and ``bytes.find``), in which a *token* rule is tried only when the run
   holds one of its keywords;
2. one search for the keywords of the other rules in the lower-cased string.

The string is encoded ``ascii`` with ``replace``, so each character is one byte and positions are
the same in the bytes as in the string.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache

from chatparse.redaction._assignments import ASSIGNMENT_RULES, NAME_RULES
from chatparse.redaction._gitleaks import GITLEAKS_RULES
from chatparse.redaction._keywords import TextKeywords, TokenKeywords
from chatparse.redaction._protocol import Redacted, marker
from chatparse.redaction._rule import NameRule, Rule

__all__ = ["PatternRedactor", "default_redactor"]

Span = tuple[int, int, int]
"""Where a secret is: start, end, and the index of the rule that found it (its priority)."""


class PatternRedactor:
    """A :class:`~chatparse.redaction.Redactor` made of :class:`~chatparse.redaction.Rule` objects.

    Each secret found is replaced by ``[REDACTED:<kind>]``. Where the secrets two rules found
    overlap, they are replaced as one, under the kind of the rule listed first (so specific
    formats go before general ones). The text around a secret is kept.

    ``names`` are used by :meth:`redact_field` for a string that the rules found nothing in.

    .. versionadded:: 0.2
    """

    def __init__(self, rules: Iterable[Rule], *, names: Iterable[NameRule] = ()) -> None:
        self.rules: tuple[Rule, ...] = tuple(rules)
        self.names: tuple[NameRule, ...] = tuple(names)
        self._in_tokens = TokenKeywords(self.rules)
        self._in_text = TextKeywords(self.rules)

    def __repr__(self) -> str:
        return f"PatternRedactor(<{len(self.rules)} rules, {len(self.names)} name rules>)"

    def redact(self, text: str) -> Redacted:
        """``text`` with every secret the rules find replaced; the kinds replaced, in order."""
        found = self.find(text)
        if not found:
            return Redacted(text)
        pieces: list[str] = []
        position = 0
        for start, end, kind in found:
            pieces += (text[position:start], marker(kind))
            position = end
        pieces.append(text[position:])
        return Redacted("".join(pieces), tuple(kind for _, _, kind in found))

    def find(self, text: str) -> list[tuple[int, int, str]]:
        """Where the secrets in ``text`` are, as :meth:`redact` replaces them.

        Each is given by its start, its end and its kind, in order.
        """
        spans = self._find(text)
        return [(start, end, self.rules[index].kind) for start, end, index in _merged(spans)]

    def redact_field(self, name: str, text: str) -> Redacted:
        """As :meth:`redact`, knowing the name ``text`` is stored under.

        When the rules find nothing, the whole ``text`` is replaced if a name rule says ``name``
        holds a secret (``{"password": "hunter2"}``).
        """
        redacted = self.redact(text)
        if redacted.kinds:
            return redacted
        for rule in self.names:
            if rule.applies(name, text):
                return Redacted(marker(rule.kind), (rule.kind,))
        return redacted

    def _find(self, text: str) -> list[Span]:
        encoded = text.encode("ascii", "replace")
        lowered = encoded.lower()
        spans: list[Span] = []
        if self._in_tokens:
            for index, (start, end) in self._in_tokens.candidates(encoded, lowered):
                # One character either side: a rule may need to see what precedes or follows
                # the token (a quote, a space) to know where it starts and ends.
                self._search(index, text, lowered, (max(start - 1, 0), end + 1), spans)
        for index, window in self._in_text.candidates(lowered):
            self._search(index, text, lowered, window, spans)
        return spans

    def _search(
        self, index: int, text: str, lowered: bytes, window: tuple[int, int], spans: list[Span]
    ) -> None:
        rule = self.rules[index]
        start, end = window
        matches = (
            rule.pattern.finditer(lowered, start, end)
            if isinstance(rule.pattern.pattern, bytes)
            else rule.pattern.finditer(text, start, end)
        )
        for match in matches:
            span = rule.secret_span(match, text)
            if span is not None:
                spans.append((*span, index))


def _merged(spans: list[Span]) -> list[Span]:
    """Overlapping spans as one, under the first-listed rule of those starting first."""
    merged: list[Span] = []
    for start, end, index in sorted(spans, key=lambda s: (s[0], s[2])):
        if merged and start < merged[-1][1]:
            last_start, last_end, last_index = merged[-1]
            merged[-1] = (last_start, max(last_end, end), last_index)
        else:
            merged.append((start, end, index))
    return merged


@cache
def default_redactor() -> PatternRedactor:
    """The redactor :func:`chatparse.redact` uses when given none (one, shared).

    gitleaks' credential formats (:data:`~chatparse.redaction.GITLEAKS_RULES`), then private
    keys, URLs with a password and ``KEY=value`` assignments
    (:data:`~chatparse.redaction.ASSIGNMENT_RULES`), and the names of JSON keys that hold
    secrets. It needs nothing beyond chatparse's own dependencies.

    .. versionadded:: 0.2
    """
    return PatternRedactor((*GITLEAKS_RULES, *ASSIGNMENT_RULES), names=NAME_RULES)
