"""One Droid session file, line by line, in whichever dialect it was written.

Both dialects tag each line with ``type``; the interactive store's are read by
:mod:`.store`, ``droid exec``'s stream-json by :mod:`.stream`. ``message`` is in both: a line
with a ``message`` object is the store's, one with a ``role`` the stream's. A line of another
type is kept raw; a line that is not a JSON object is malformed.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

from chatparse.adapter import as_text, dig
from chatparse.adapters.factory_droid.session import Session
from chatparse.adapters.factory_droid.store import STORE_READERS
from chatparse.adapters.factory_droid.stream import STREAM_READERS, stream_message

__all__ = ["read_lines"]

_Reader = Callable[[Session, dict[str, Any], int], "str | None"]


_ROLES: Final = ("user", "assistant")  # a tuple: a role that is a list must not raise


def _message_reader(record: dict[str, Any]) -> _Reader | None:
    """The reader of a ``message`` line: the store's or the stream's, by shape.

    ``None`` for a role neither dialect has (a newer Droid's): the line is kept raw.
    """
    message = record.get("message")
    if isinstance(message, dict):
        return STORE_READERS["message"] if message.get("role") in _ROLES else None
    return stream_message if record.get("role") in _ROLES else None


_READERS: Final[dict[str, _Reader]] = {**STREAM_READERS, **STORE_READERS}


def read_lines(path: Path, session: Session) -> None:
    """Read the session file at ``path`` into ``session``, every line accounted for."""
    ledger = session.ledger
    for line in ledger.decoded_lines(path):
        record = line.value
        kind = as_text(dig(record, "type"))
        reader = _READERS.get(kind) if kind is not None else None
        if kind == "message" and isinstance(record, dict):
            reader = _message_reader(record)
        if not isinstance(record, dict):
            ledger.bad(f"line {line.line_no}", "not a JSON object")
        elif reader is None:
            ledger.keep_span(
                f"line {line.line_no}", kind, path, start=line.offset, end=line.end_offset
            )
        elif (skipped := reader(session, record, line.line_no)) is not None:
            ledger.skip(skipped)
        else:
            ledger.use()
