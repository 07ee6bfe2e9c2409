"""Opening the files the streaming decoders read, with the errors chatparse promises."""

from __future__ import annotations

import os
from pathlib import Path
from typing import IO

from chatparse.errors import SourceUnavailableError, UnavailableCause

Source = str | os.PathLike[str] | IO[bytes]
"""A path to open, or a binary stream to read from its current position."""


def open_binary(path: str | os.PathLike[str]) -> IO[bytes]:
    """Open ``path`` for reading bytes; the caller closes it.

    Raises:
        SourceUnavailableError: The file is missing or cannot be read.
    """
    try:
        return Path(path).open("rb")
    except OSError as exc:
        raise SourceUnavailableError(
            os.fsdecode(path),
            f"cannot open: {exc.strerror or exc}",
            "Check the path and its permissions.",
            UnavailableCause.of(exc),
        ) from exc
