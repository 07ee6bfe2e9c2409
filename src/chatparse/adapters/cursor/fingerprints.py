"""Fingerprints of Cursor conversations, from their own rows only.

Every composer of a user directory lives in one global database, so the file's size and time
change whenever any composer does: a composer's fingerprint is a digest of its document row and
of its bubble rows as counted by SQLite (see ``docs/sources/cursor.md``).
"""

from __future__ import annotations

import hashlib

from chatparse.adapter import digest_fingerprint
from chatparse.decoders.sqlite import KeyRun


def fingerprint(*parts: str) -> str:
    """``cursor:`` and the digest of ``parts``."""
    return "cursor:" + digest_fingerprint(*parts)


def value_digest(value: object) -> str:
    """A stable hash of a decoded value (dicts keep their stored key order)."""
    return hashlib.sha256(repr(value).encode("utf-8", "surrogatepass")).hexdigest()


def document_digest(rowid: int, stored: object) -> str:
    """A composer document's row as stored: its ``rowid`` and its bytes (NULL, a number: repr).

    The bytes, not the decoded text: hashing them needs no decoding.
    """
    digest = hashlib.sha256(b"%d\x1f" % rowid)
    digest.update(stored if type(stored) is bytes else repr(stored).encode())
    return digest.hexdigest()


def composer_digest(document: str, bubbles: KeyRun | None) -> str:
    """A composer's own data: its document's digest, and its bubble rows counted by :class:`KeyRun`.

    The bubble rows are counted by SQLite rather than read: a bubble added, removed or
    rewritten (Cursor replaces the row, which gives it a new ``rowid``) changes the count.
    """
    counts = (bubbles.rows, bubbles.max_rowid, bubbles.rowid_sum) if bubbles else ()
    return value_digest((document, counts))
