"""What a scan lists: one meta per conversation of each store, the first store's copy winning.

Stores are listed in this order, and a conversation id met again later is passed over: the
session files under the Kiro home (CLI, then workspace sessions), the IDE 0.x session files,
then the Kiro CLI database and the Amazon Q Developer CLI database (in each,
``conversations_v2`` before ``conversations``). The newer writer's copy wins.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Final

from chatparse.adapter import (
    as_epoch,
    file_meta,
    file_stat,
    new_meta,
    passed_over,
    stat_fingerprint,
)
from chatparse.adapters.kiro.locate import (
    SESSION_FILE,
    SESSION_MESSAGES,
    Found,
    cli_sessions,
    ide_sessions,
    workspace_sessions,
)
from chatparse.adapters.kiro.store import Row, database_name, rows
from chatparse.decoders.sqlite import open_snapshot
from chatparse.errors import SourceUnavailableError
from chatparse.model import ConversationMeta

__all__ = [
    "DATABASE_LAYOUT",
    "database_metas",
    "files_of",
    "metadata_of",
    "root_metas",
    "session_meta",
]

DATABASE_LAYOUT: Final = "database"


def metadata_of(found: Found) -> Path | None:
    """The metadata file of a session in the file stores (IDE sessions have none apart)."""
    if found.layout == "cli":
        return found.path.with_name(f"{found.ident}.json")
    if found.layout == "workspace":
        return found.path.with_name(SESSION_FILE)
    return None


def files_of(found: Found) -> list[Path]:
    """Every file of a session in the file stores."""
    if found.layout == "cli":
        return [
            found.path.with_name(f"{found.ident}.json"),
            found.path.with_name(f"{found.ident}.jsonl"),
        ]
    if found.layout == "workspace":
        return [found.path.with_name(SESSION_FILE), found.path.with_name(SESSION_MESSAGES)]
    return [found.path]


def session_meta(source: str, found: Found) -> ConversationMeta | None:
    """The meta of a session in the file stores, by stat; ``None`` when its files are gone.

    The path is its journal (else its metadata file); size and time are its files' sum and
    latest; the fingerprint joins each file's size and time.
    """
    stats = {path: info for path in files_of(found) if (info := file_stat(path)) is not None}
    if not stats:
        return None
    main = found.path if found.path in stats else next(iter(stats))
    return new_meta(
        source=source,
        id=found.ident,
        path=str(main),
        fingerprint="+".join(f"{p.name}={stat_fingerprint(s)}" for p, s in stats.items()),
        size=sum(s.st_size for s in stats.values()),
        mtime=datetime.fromtimestamp(max(s.st_mtime for s in stats.values()), UTC),
        locator={"layout": found.layout},
    )


def root_metas(
    source: str, sessions: Path | None, storage: Path | None
) -> Iterator[ConversationMeta]:
    """The file stores' sessions: the Kiro home's ``sessions`` folder, the IDE's storage."""
    found: list[Found] = []
    if sessions is not None:
        found += [*cli_sessions(sessions), *workspace_sessions(sessions)]
    if storage is not None:
        found += ide_sessions(storage)
    for session in found:
        meta = session_meta(source, session)
        if meta is not None:
            yield meta


def _row_meta(source: str, db: Path, row: Row, info: os.stat_result) -> ConversationMeta:
    return file_meta(
        source,
        row.ident,
        db,
        info,
        fingerprint=row.stamp,
        project_path=row.key,
        updated_at=as_epoch(row.updated_at, "ms"),
        locator={
            "layout": DATABASE_LAYOUT,
            "producer": database_name(db),
            "table": row.table,
            "key": row.key,
        },
    )


def database_metas(source: str, db: Path) -> Iterator[ConversationMeta]:
    """One meta per conversation row of the database (a store it cannot open: passed over)."""
    try:
        info = db.stat()
        with open_snapshot(db) as snapshot:
            found = list(rows(snapshot))
    except SourceUnavailableError as exc:
        passed_over(db, str(exc))
        return
    except OSError as exc:
        passed_over(db, f"cannot be read ({exc.strerror or exc})")
        return
    for row in found:
        yield _row_meta(source, db, row, info)
