"""Change keys for :attr:`~chatparse.model.ConversationMeta.fingerprint`.

A fingerprint tells a caller who stored a parse whether to parse again: equal fingerprints mean
the conversation has not changed. Two kinds cover the sources we know:

* a conversation with a file of its own: the file's size and modification time
  (:func:`stat_fingerprint`), which a stat gives without reading the file;
* a conversation inside a shared store (a database, a document holding many sessions): a digest
  of *its own* stored bytes or rows (:func:`digest_fingerprint`), never the shared file's size or
  time, which change whenever any other conversation does.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Final

from chatparse.adapter.build import new_meta
from chatparse.model import ConversationMeta

__all__ = ["digest_fingerprint", "file_meta", "stat_fingerprint"]

_DIGEST_LENGTH: Final = 32  # hex characters: 128 bits, beyond any accidental collision
_SEPARATOR: Final = b"\x1f"  # the unit separator: a part cannot run into the next


def stat_fingerprint(info: os.stat_result) -> str:
    """``"<size>:<mtime in ns>"`` of a file's stat."""
    return f"{info.st_size}:{info.st_mtime_ns}"


def digest_fingerprint(*parts: str | bytes) -> str:
    """32 hex characters of the SHA-256 of ``parts``, each kept apart from the next.

    Strings are encoded as UTF-8, lone surrogates included (``surrogatepass``), so that any
    decoded value can be part of a key.
    """
    digest = hashlib.sha256()
    for index, part in enumerate(parts):
        if index:
            digest.update(_SEPARATOR)
        digest.update(part if isinstance(part, bytes) else part.encode("utf-8", "surrogatepass"))
    return digest.hexdigest()[:_DIGEST_LENGTH]


def file_meta(  # noqa: PLR0913 -- the meta's own fields, keyword-only
    source: str,
    ident: str,
    path: str | os.PathLike[str],
    info: os.stat_result,
    *,
    fingerprint: str | None = None,
    title: str | None = None,
    project_path: str | None = None,
    created_at: datetime | None = None,
    updated_at: datetime | None = None,
    locator: Mapping[str, str] | None = None,
) -> ConversationMeta:
    """The :class:`~chatparse.model.ConversationMeta` of a conversation read from the file ``path``.

    ``info`` is the file's stat, taken by the scan: it gives the meta's ``size``, its ``mtime``
    (UTC) and, unless ``fingerprint`` is given (say, one joining the stats of the file and a
    sidecar), its :func:`stat_fingerprint`. The other fields are the meta's own.
    """
    return new_meta(
        source=source,
        id=ident,
        path=os.fspath(path),
        fingerprint=stat_fingerprint(info) if fingerprint is None else fingerprint,
        size=info.st_size,
        mtime=datetime.fromtimestamp(info.st_mtime, UTC),
        title=title,
        project_path=project_path,
        created_at=created_at,
        updated_at=updated_at,
        locator={} if locator is None else locator,
    )
