r"""Secrets found by their context: ``KEY=value``, authorization headers, URLs with a password.

A password such as ``hunter2`` has no shape of its own; what gives it away is the name it is
assigned to. These rules are chatparse's own, written for what transcripts hold (``.env`` files a
tool read, commands with ``--password``, configuration in YAML and JSON, ``curl`` headers), with
two from detect-secrets (https://github.com/Yelp/detect-secrets, Apache-2.0, version 1.5.0):
``url-password`` is its ``BasicAuthDetector`` pattern and ``azure-storage-account-key`` its
``AzureStorageKeyDetector`` pattern.

A name *names a secret* when it ends with one of the words of :data:`SECRET_WORD`
(``DB_PASSWORD``, ``clientSecret``, ``x-api-key``), so that ``max_tokens``, ``token_count``,
``secretName`` and ``tokenizer`` do not. A value is taken only when it is a literal: not a
variable (``$TOKEN``, ``${{ secrets.X }}``, ``<your-key>``), a path, a call or a word such as
``null``; an unquoted value after a lower-case name (which in code is an expression, such as
``password = self.password``) must also mix letters and digits.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Final

from chatparse.redaction._protocol import MARKER_PREFIX
from chatparse.redaction._rule import NameRule, Rule

__all__ = ["ASSIGNMENT_RULES", "NAME_RULES", "SECRET_WORD", "is_literal_value"]

SECRET_WORD: Final = (
    r"(?:a(?:pi|ccess|uth)[_-]?key|client[_-]?key|encryption[_-]?key|master[_-]?key"  # noqa: S105 -- a pattern of names, not a password
    r"|p(?:ass(?:word|wd|phrase)|rivate[_-]?key)|s(?:ecret(?:[_-]?key)?|igning[_-]?key)|token)"
)
"""The words a name that holds a secret ends with, in lower case (matched ignoring case). Written
as a trie (alternatives that share a first letter grouped), which ``re`` searches several times
faster than a flat list of words."""

_KEYWORDS: Final = ("passw", "passphrase", "secret", "token", "key")
"""Text that every match of SECRET_WORD holds: the assignment rules are tried only near one."""

_REACH: Final = 300
"""How far an assignment reaches from its keyword: a name's start, the operator and quotes, and
a value of up to 200 characters."""

_NOT_VALUES: Final = frozenset(
    {
        "empty",
        "env",
        "false",
        "hidden",
        "masked",
        "nil",
        "none",
        "null",
        "optional",
        "redacted",
        "required",
        "str",
        "string",
        "true",
        "undefined",
    }
)
"""Words that stand where a value would, in code, schemas and documentation."""

# A variable, template, placeholder, expression or path where a literal value would be, or a
# secret already redacted.
_NOT_LITERAL_START: Final = (
    "$",
    "<",
    "{",
    "%",
    "[",
    "(",
    "*",
    "/",
    "./",
    "../",
    "~/",
    "#",
    MARKER_PREFIX,
)


def is_literal_value(value: str) -> bool:
    """Whether ``value`` can be a secret's own text rather than a stand-in for one.

    .. versionadded:: 0.2
    """
    return not (
        value.startswith(_NOT_LITERAL_START)
        or value.lower() in _NOT_VALUES
        or "..." in value
        or len(set(value)) == 1  # xxxx, ****, ....
    )


def _mixes_letters_and_digits(value: str) -> bool:
    return (
        is_literal_value(value)
        and any(c.isdigit() for c in value)
        and any(c.isalpha() for c in value)
    )


def _assignment(pattern: str | bytes, *, check: Callable[[str], bool] = is_literal_value) -> Rule:
    return Rule(
        kind="secret-assignment", pattern=pattern, keywords=_KEYWORDS, reach=_REACH, check=check
    )


_WORD: Final = SECRET_WORD.encode("ascii")
_VALUE: Final = r"""[^\s"'`;&|<>]"""

# Bytes patterns are matched against the lower-cased text (see Rule.pattern).
ASSIGNMENT_RULES: Final[tuple[Rule, ...]] = (
    # A quoted literal: password = "x", "api_key": "x", token: 'x', Password: `x` (also with the
    # quotes of JSON inside a JSON string: \"password\": \"x\").
    _assignment(
        _WORD + rb"""(?![\w-])\\?["']?[ \t]*(?:=|:=|=>|:)[ \t]*\\?(?P<q>["'`])"""
        rb"""(?P<secret>[^\s"'`\\]{4,200})\\?(?P=q)"""
    ),
    # An environment variable, whose name is upper case: PASSWORD=x, export AWS_SECRET_ACCESS_KEY=x.
    _assignment(rf"{SECRET_WORD.upper()}=(?P<secret>{_VALUE}{{4,200}})"),
    # A command-line option: --password=x, --api-key x, --token "x".
    _assignment(
        rb"--[\w-]*?"
        + _WORD
        + rb"""(?:=|[ \t]+)(?P<q>["']?)"""
        + rf"(?P<secret>{_VALUE}{{4,200}})(?P=q)".encode("ascii")
    ),
    # Anything else unquoted (YAML, .ini, query strings, prose): token=ab12cd34, secret: ab12cd34.
    _assignment(
        _WORD + rb"""(?![\w-])["']?[ \t]*(?:=|:=|:)[ \t]*"""
        rb"""(?P<secret>[^\s"'`;,&|<>(){}\[\]\\]{8,200})(?![^\s;,&|>)}\]"'`])""",
        check=_mixes_letters_and_digits,
    ),
    Rule(
        kind="authorization-header",
        pattern=rb"""\b(?:proxy-)?authorization\\?["']?[ \t]*[:=][ \t]*\\?["']?"""
        rb"(?:bearer|basic|token|bot|digest)[ \t]+(?P<secret>[a-z0-9._~+/=-]{8,})",
        keywords=("authorization",),
        reach=_REACH,
        check=is_literal_value,
    ),
    Rule(
        kind="bearer-token",
        pattern=rb"\bbearer[ \t]+(?P<secret>[a-z0-9._~+/-]{16,}=*)",
        keywords=("bearer",),
        reach=_REACH,
        check=_mixes_letters_and_digits,
    ),
    Rule(
        kind="url-password",
        pattern=r"://[^:/?#\[\]@!$&'()*+,;=\s]+:(?P<secret>[^:/?#\[\]@!$&'()*+,;=\s]+)@",
        keywords=("://",),
        check=is_literal_value,
    ),
    Rule(
        kind="azure-storage-account-key",
        pattern=re.compile(r"AccountKey=(?P<secret>[a-zA-Z0-9+/=]{88})", re.ASCII),
        keywords=("accountkey=",),
        token=True,
    ),
)
"""Secrets found by their context, in the order they are tried."""

NAME_RULES: Final[tuple[NameRule, ...]] = (
    NameRule(
        kind="secret-assignment",
        name=rf"(?i){SECRET_WORD}$",
        check=lambda value: len(value) >= 4 and is_literal_value(value),
    ),
    NameRule(
        kind="authorization-header",
        name=r"(?i)^(?:proxy-)?authorization$",
        check=is_literal_value,
    ),
)
"""Strings that are secrets because of the JSON key they are stored under."""
