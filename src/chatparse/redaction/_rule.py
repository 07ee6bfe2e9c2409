"""One kind of secret, as a regular expression and the tests a match must pass."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Iterable
from typing import Final, TypeAlias

from attrs import field, frozen

from chatparse._names import SOURCE_NAME

__all__ = ["SHORTEST_TOKEN", "TOKEN_CHARACTERS", "NameRule", "Rule", "shannon_entropy"]

TOKEN_CHARACTERS: Final = frozenset(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_+/=.~-\\"
)
"""What a credential is spelled with: letters, digits and the punctuation of base64, base64url,
JWTs, dotted and prefixed tokens (``_+/=.~-``), and the backslash of an escaped newline in raw
JSON text."""

SHORTEST_TOKEN: Final = 20
"""The fewest characters a *token* rule's match may have (see :attr:`Rule.token`): shorter runs
of token characters (words, short paths, numbers) are not looked at, which is most of a
transcript. Real credentials are longer than this."""


def _kind(_instance: object, _attribute: object, value: str) -> None:
    if not SOURCE_NAME.fullmatch(value):
        msg = f"a kind is lower-case words of letters and digits joined by '-', got {value!r}"
        raise ValueError(msg)


Pattern: TypeAlias = re.Pattern[str] | re.Pattern[bytes]


def _compiled(value: str | bytes | Pattern) -> Pattern:
    return value if isinstance(value, re.Pattern) else re.compile(value)


def _keywords(values: Iterable[str]) -> tuple[str, ...]:
    keywords = tuple(value.lower() for value in values)
    if not all(keyword and keyword.isascii() for keyword in keywords):
        msg = f"keywords are non-empty ASCII text, got {keywords!r}"
        raise ValueError(msg)
    return keywords


def shannon_entropy(text: str) -> float:
    """Bits per character of ``text`` (0 for text of one repeated character, or empty).

    .. versionadded:: 0.2
    """
    if not text:
        return 0.0
    total = len(text)
    return -sum(n / total * math.log2(n / total) for n in Counter(text).values())


@frozen(kw_only=True)
class Rule:
    """One kind of secret: where it is in text, and what it must look like.

    Attributes:
        kind: What the secret is, as it appears in the marker (``[REDACTED:<kind>]``) and the
            counts: lower-case words joined by ``-``, such as ``"github-pat"``.
        pattern: The regular expression that finds it (a string is compiled as is). A bytes
            pattern is matched against the text lower-cased and encoded as ASCII, each other
            character read as ``?`` (positions are the same): write it in lower case. It finds
            words in any case many times faster than a ``re.IGNORECASE`` string pattern.
        keywords: Lower-case ASCII text of which at least one appears in any match (gitleaks'
            keywords): the pattern is only tried where one does. None: always tried.
        token: The secret is one unbroken run of :data:`TOKEN_CHARACTERS`, at least
            :data:`SHORTEST_TOKEN` long, holding a keyword: the pattern is tried only on such
            runs, which is what keeps redaction fast. False: tried on the whole string.
        reach: For a rule that is not a token rule: every match lies within this many
            characters of one of its keywords, so the pattern is tried only there. None: on the
            whole string, once a keyword is in it.
        group: The group of ``pattern`` that is the secret and is replaced; the rest of the
            match is context that is kept. Default: the group named ``secret``, else the first
            group that took part in the match, else the whole match (gitleaks' rule).
        entropy: The secret is replaced only when its :func:`shannon_entropy` is above this
            (gitleaks' threshold, which passes over placeholders such as ``AKIAXXXXXXXXXXXXXXXX``).
        check: A further test of the secret; it is replaced only when this returns true.

    .. versionadded:: 0.2
    """

    kind: str = field(validator=_kind)
    pattern: Pattern = field(converter=_compiled)
    keywords: tuple[str, ...] = field(default=(), converter=_keywords)
    token: bool = False
    reach: int | None = None
    group: int | str | None = None
    entropy: float | None = None
    check: Callable[[str], bool] | None = None

    def secret_span(
        self, match: re.Match[str] | re.Match[bytes], text: str
    ) -> tuple[int, int] | None:
        """Where the secret is in ``match`` of ``text``; None when it fails the rule's tests.

        The tests see the text as it is, even when the pattern matched its lower-cased form.
        """
        start, end = self._span(match)
        if start >= end:
            return None
        secret = text[start:end]
        if self.entropy is not None and shannon_entropy(secret) <= self.entropy:
            return None
        if self.check is not None and not self.check(secret):
            return None
        return start, end

    def _span(self, match: re.Match[str] | re.Match[bytes]) -> tuple[int, int]:
        if self.group is not None:
            return match.span(self.group)
        if "secret" in self.pattern.groupindex:
            return match.span("secret")
        for index in range(1, (self.pattern.groups or 0) + 1):
            start, end = match.span(index)
            if end > start:
                return start, end
        return match.span()


@frozen(kw_only=True)
class NameRule:
    """A string is a secret, whole, because of the name it is stored under.

    For JSON objects (tool inputs and results): ``{"password": "hunter2"}``. Used by
    :meth:`PatternRedactor.redact_field` when the string itself had nothing the rules found.

    Attributes:
        kind: As :attr:`Rule.kind`.
        name: Matched (``search``) against the name, such as ``(?i)password$``.
        check: A test of the value; it is replaced only when this returns true.

    .. versionadded:: 0.2
    """

    kind: str = field(validator=_kind)
    name: re.Pattern[str] = field(converter=_compiled)
    check: Callable[[str], bool] | None = None

    def applies(self, name: str, value: str) -> bool:
        """Whether ``value``, stored under ``name``, is a secret of this kind."""
        if self.name.search(name) is None:
            return False
        return self.check is None or self.check(value)
