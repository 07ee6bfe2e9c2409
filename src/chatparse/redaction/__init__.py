"""Take secrets out of a conversation before it leaves the machine.

.. code-block:: python

    import chatparse

    conversation = chatparse.redact(conversation)
    conversation.diagnostics.redactions  # {"github-pat": 1, "secret-assignment": 2}

:func:`redact` passes every string that can hold a secret through a :class:`Redactor`. The
default, :func:`default_redactor`, needs nothing beyond chatparse's own dependencies: gitleaks'
credential formats (:data:`GITLEAKS_RULES`), private keys, URLs with a password and ``KEY=value``
assignments (:data:`ASSIGNMENT_RULES`). Your own: any object with ``redact(text)``, a
:class:`PatternRedactor` of your :class:`Rule` objects, or several chained with
:class:`ChainRedactor`; installed ones are found by name (:func:`get_redactor`) in the
``chatparse.redactors`` entry-point group. ``docs/redaction.md`` has the details.

.. versionadded:: 0.2
"""

from __future__ import annotations

from chatparse.errors import RedactorError, RedactorLoadError, RedactorNotFoundError
from chatparse.redaction._assignments import (
    ASSIGNMENT_RULES,
    NAME_RULES,
    SECRET_WORD,
    is_literal_value,
)
from chatparse.redaction._detect_secrets import DetectSecretsRedactor, detect_secrets_redactor
from chatparse.redaction._gitleaks import GITLEAKS_COMMIT, GITLEAKS_RULES
from chatparse.redaction._patterns import PatternRedactor, default_redactor
from chatparse.redaction._protocol import (
    MARKER_PREFIX,
    ChainRedactor,
    FieldRedactor,
    Redacted,
    Redactor,
    marker,
)
from chatparse.redaction._registry import (
    BUILTIN_REDACTORS,
    ENTRY_POINT_GROUP,
    get_redactor,
    redactor_names,
)
from chatparse.redaction._rule import (
    SHORTEST_TOKEN,
    TOKEN_CHARACTERS,
    NameRule,
    Rule,
    shannon_entropy,
)
from chatparse.redaction._walk import count_redactions, redact

__all__ = [
    "ASSIGNMENT_RULES",
    "BUILTIN_REDACTORS",
    "ENTRY_POINT_GROUP",
    "GITLEAKS_COMMIT",
    "GITLEAKS_RULES",
    "MARKER_PREFIX",
    "NAME_RULES",
    "SECRET_WORD",
    "SHORTEST_TOKEN",
    "TOKEN_CHARACTERS",
    "ChainRedactor",
    "DetectSecretsRedactor",
    "FieldRedactor",
    "NameRule",
    "PatternRedactor",
    "Redacted",
    "Redactor",
    "RedactorError",
    "RedactorLoadError",
    "RedactorNotFoundError",
    "Rule",
    "count_redactions",
    "default_redactor",
    "detect_secrets_redactor",
    "get_redactor",
    "is_literal_value",
    "marker",
    "redact",
    "redactor_names",
    "shannon_entropy",
]


def __dir__() -> list[str]:
    return list(__all__)
