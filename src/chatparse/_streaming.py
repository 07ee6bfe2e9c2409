"""Streaming one huge conversation: :func:`iter_messages`, and what the streaming adapters share.

``parse`` holds a whole conversation; :func:`iter_messages` yields the same messages one by one.
A message can only be handed out once nothing later in the file can change it: its tool calls
are answered, its response has no more lines to merge, the copy of its usage that counts is
known, and the line its parent id points to is read. Most of that is known from what has been
read; whether an id is written *again* further on is not. :class:`IdHorizons` answers that from
one pass over the file's bytes, before any line is decoded: where each id is written last.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterable, Iterator
from functools import partial
from typing import TYPE_CHECKING, Final

from chatparse.decoders._files import open_binary

if TYPE_CHECKING:
    from chatparse.model import ConversationMeta, Message

__all__ = ["IdHorizons", "iter_messages"]

_ID_VALUE: Final = re.compile(rb'id"[ \t\r\n]*:[ \t\r\n]*"([^"\\]*\\?)')
"""A string written as the value of a key whose name ends in ``id`` (``id``, ``uuid``,
``tool_use_id``, ``call_id``, ...), up to its closing quote; or up to and with a backslash: an
escape, whose decoded text the bytes do not show."""

_PRINTABLE_ESCAPE: Final = re.compile(rb"\\u00[2-7][0-9a-fA-F]")
"""A ``\\uXXXX`` escape of a printable ASCII character: it could spell any key or id. No
writer of the streamed formats escapes those characters."""

_BLOCK: Final = 1024 * 1024


def iter_messages(meta: ConversationMeta) -> Iterator[Message]:
    """Yield the messages of one conversation, as ``parse(meta).messages`` holds them.

    Same messages, same order, equal one for one; but a source whose adapter streams (Claude
    Code, Codex) is read holding only a window: tool calls waiting for their results, one
    response whose lines are being merged, and the ids that keep message ids unique and parent
    ids right. Other sources are parsed whole and their messages yielded from the result.

    Raises:
        TypeError: ``meta`` is not a :class:`~chatparse.model.ConversationMeta`.
        chatparse.errors.SourceUnavailableError: As :func:`~chatparse.parse`; for a streaming
            adapter, when the first message is asked for.

    .. versionadded:: 0.3
    """
    # Deferred: the registry imports every built-in adapter's entry point.
    from chatparse._api import _not_a_meta  # noqa: PLC0415 -- see above
    from chatparse.adapter.protocol import MessageStreamer  # noqa: PLC0415 -- see above
    from chatparse.model import ConversationMeta  # noqa: PLC0415 -- see above
    from chatparse.registry import get_adapter  # noqa: PLC0415 -- see above

    if not isinstance(meta, ConversationMeta):
        raise TypeError(_not_a_meta(meta).replace("parse()", "iter_messages()", 1))
    adapter = get_adapter(meta.source)
    if isinstance(adapter, MessageStreamer):
        return adapter.iter_messages(meta)
    return iter(adapter.parse(meta).messages)


class IdHorizons:
    """Where each id of a JSON Lines file is written for the last time, found from its bytes.

    Every string value of a key whose name ends in ``id`` is an id here; its *horizon* is the
    offset just past its last occurrence. Once reading has passed an id's horizon, no later line
    can mention it, so nothing waiting on that id can change any more. Values whose text the
    bytes do not show as is (escapes, invalid UTF-8) stand for every id: they push every horizon
    past them. So a horizon is never too early; at worst a message is held a little longer.

    ``words`` are found the same way, anywhere in a line: a record type, say.

    A file that grows while it is read keeps the horizons of the bytes it had: past them, no
    id is taken as settled.

    Raises:
        chatparse.errors.SourceUnavailableError: The file cannot be opened.
    """

    NEVER: Final = sys.maxsize
    """The horizon of what may be written anywhere: it is passed only by the end of the file."""

    def __init__(self, path: str | os.PathLike[str], words: Iterable[str] = ()) -> None:
        self._last: dict[bytes, int] = {}
        self._words = dict.fromkeys(words, 0)
        self._anything = 0
        self.size = 0
        with open_binary(path) as stream:
            # A block at a time, each cut after its last newline (no value spans lines); the
            # line cut in two is looked at whole with the next block. Memory stays at one
            # block, or at one line where a line is longer.
            pending: list[bytes] = []  # the start of a line that goes on in the next block
            for block in iter(partial(stream.read, _BLOCK), b""):
                start = self.size
                self.size += len(block)
                first = block.find(b"\n") + 1
                if not first:
                    pending.append(block)
                    continue
                if pending:
                    line = b"".join([*pending, block[:first]])
                    self._index(line, start + first - len(line), 0, len(line))
                last = block.rfind(b"\n") + 1
                self._index(block, start, first if pending else 0, last)
                pending = [block[last:]]
            rest = b"".join(pending)
            self._index(rest, self.size - len(rest), 0, len(rest))

    def _index(self, data: bytes, start: int, begin: int, end: int) -> None:
        """Note the ids written in ``data[begin:end]``; ``data`` is at offset ``start``.

        Every id in it gets the end of those lines as its horizon (they are looked at in one
        call, not match by match): a message is held at most a block longer.
        """
        horizon = start + end
        found = dict.fromkeys(_ID_VALUE.findall(data, begin, end), horizon)
        self._last.update(found)
        for word in self._words:
            if data.find(word.encode(), begin, end) >= 0:
                self._words[word] = horizon
        if b"\\" in b"".join(found) or (
            data.find(b"\\u00", begin, end) >= 0 and _PRINTABLE_ESCAPE.search(data, begin, end)
        ):
            self._anything = horizon

    def horizon(self, ident: str) -> int:
        """Where reading must be for no later line to mention ``ident``.

        :attr:`NEVER` for an id with a replacement character: it may stand for bytes that were
        not UTF-8, so it is not looked up by its bytes.
        """
        if "\ufffd" in ident:
            return self.NEVER
        last = self._last.get(ident.encode("utf-8", "surrogatepass"), 0)
        return max(last, self._anything)

    def word_horizon(self, word: str) -> int:
        """:meth:`horizon` of one of the ``words`` given, found anywhere in a line."""
        return max(self._words[word], self._anything)

    def passed(self, ident: str, offset: int) -> bool:
        """Whether reading up to ``offset`` has passed every line that can mention ``ident``."""
        return self.size >= offset >= self.horizon(ident)

    def word_passed(self, word: str, offset: int) -> bool:
        """Whether reading up to ``offset`` has passed every line with ``word`` in it."""
        return self.size >= offset >= self.word_horizon(word)


def _is_utf8(value: bytes) -> bool:
    try:
        value.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True
