"""detect-secrets' detectors as a redactor: the optional ``redact`` extra.

detect-secrets (https://github.com/Yelp/detect-secrets) scans files in a repository; its
``scan_line`` is not made for redaction (it resets global settings on every call, reports a
capture group rather than where the secret is, and in ad hoc mode flags ordinary words as high
entropy). What is used here is the part that is a maintained rule set: the regular expressions of
its regular-expression detectors, each match replaced whole, under the detector's secret type
(``"AWS Access Key"`` becomes ``aws-access-key``). Left out: its keyword and high-entropy
detectors, which flag identifiers, hashes and ids in ordinary transcripts, and the public IP
address detector (an address is not a credential).

Its detectors have no keywords, so each is tried on every whole string: slower than the default
rules (``docs/redaction.md`` has the figures).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Final

from chatparse._optional import import_extra
from chatparse.redaction._patterns import PatternRedactor, default_redactor
from chatparse.redaction._protocol import ChainRedactor
from chatparse.redaction._rule import Rule

__all__ = ["DetectSecretsRedactor", "detect_secrets_redactor"]

EXTRA: Final = "redact"

LEFT_OUT: Final = ("IPPublicDetector",)
"""detect-secrets detectors that find no credential."""


def _kind(secret_type: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", secret_type.lower()).strip("-")


def _rules(left_out: Iterable[str]) -> list[Rule]:
    plugins = import_extra("detect_secrets.core.plugins.util", EXTRA)
    base = import_extra("detect_secrets.plugins.base", EXTRA)
    skipped = frozenset(left_out)
    rules = []
    for secret_type, plugin in sorted(plugins.get_mapping_from_secret_type_to_class().items()):
        if issubclass(plugin, base.RegexBasedDetector) and plugin.__name__ not in skipped:
            rules += [
                Rule(kind=_kind(secret_type), pattern=pattern, group=0)
                for pattern in plugin().denylist
            ]
    return rules


class DetectSecretsRedactor(PatternRedactor):
    """The regular-expression detectors of detect-secrets, each match replaced whole.

    Args:
        left_out: Class names of detectors not to use (default: :data:`LEFT_OUT`).

    Raises:
        MissingExtraError: detect-secrets is not installed (``pip install 'chatparse[redact]'``).

    .. versionadded:: 0.2
    """

    def __init__(self, *, left_out: Iterable[str] = LEFT_OUT) -> None:
        super().__init__(_rules(left_out))

    def __repr__(self) -> str:
        return f"DetectSecretsRedactor(<{len(self.rules)} rules>)"


def detect_secrets_redactor() -> ChainRedactor:
    """The redactor named ``detect-secrets``: the default rules, then detect-secrets' detectors.

    Raises:
        MissingExtraError: detect-secrets is not installed (``pip install 'chatparse[redact]'``).

    .. versionadded:: 0.2
    """
    return ChainRedactor([default_redactor(), DetectSecretsRedactor()])
