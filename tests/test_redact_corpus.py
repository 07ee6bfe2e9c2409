"""The default redactor on the real corpus: every replacement it makes is a known one.

``docs/redaction.md`` lists what the default rules replace in the seed corpus (``shared/corpus``
and ``shared/corpus-next``), each judged a real secret-shaped string or a false positive. A new
replacement fails here until it is judged and listed there and in :data:`KNOWN`.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from pathlib import Path

import pytest

import chatparse
from chatparse import ParsedConversation
from chatparse.errors import ChatparseError
from chatparse.redaction import PatternRedactor, count_redactions, default_redactor, redact

SHARED = Path(__file__).resolve().parents[2] / "shared"
CORPORA = [SHARED / "corpus", SHARED / "corpus-next"]

KNOWN = {
    # corpus-next/crush (dbos-transact-golang): the DBOS local development database's password,
    # in connection URLs and in the Go code that defaults to it. Real secret-shaped strings.
    ("url-password", "dbos"),
    ("url-password", "pwd"),
    ("secret-assignment", "dbos"),
}
"""(kind, the text replaced) of every replacement the default rules make in the corpus."""


class Recording:
    """The default redactor, noting each secret it replaces."""

    def __init__(self, redactor: PatternRedactor) -> None:
        self.redactor = redactor
        self.replaced: set[tuple[str, str]] = set()

    def redact(self, text: str) -> tuple[str, Sequence[str]]:
        self.replaced.update(
            (kind, text[start:end]) for start, end, kind in self.redactor.find(text)
        )
        return self.redactor.redact(text)

    def redact_field(self, name: str, text: str) -> tuple[str, Sequence[str]]:
        redacted = self.redactor.redact_field(name, text)
        found = self.redactor.find(text)
        self.replaced.update((kind, text[start:end]) for start, end, kind in found)
        if redacted.kinds and not found:
            self.replaced.add((redacted.kinds[0], text))  # the whole value, known by its name
        return redacted


def corpus_conversations() -> list[ParsedConversation]:
    found = []
    for root in CORPORA:
        for path in sorted(p for p in root.rglob("*") if p.is_file()):
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # a skipped store is not this test's concern
                    found += chatparse.parse_path(path)
            except ChatparseError:
                continue  # not a conversation file, or no adapter reads it yet
    return found


@pytest.mark.skipif(not CORPORA[0].is_dir(), reason=f"no corpus at {CORPORA[0]}")
def test_every_replacement_in_the_corpus_is_a_known_one() -> None:
    """Redacting every corpus conversation replaces only the strings judged and listed."""
    conversations = corpus_conversations()
    recording = Recording(default_redactor())
    for conversation in conversations:
        redacted = redact(conversation, recording)
        assert redact(redacted) == redacted
        assert chatparse.from_json(chatparse.to_json(redacted)) == redacted
        replaced = sum(count_redactions(redacted).values())
        assert (replaced == 0) == (redacted == conversation)
    assert len(conversations) >= 20
    assert recording.replaced <= KNOWN, (
        f"judge and list in docs/redaction.md: {recording.replaced - KNOWN}"
    )
