"""Cutting a compact store value into its sessions, each decoded from its own bytes.

Trae writes its store with ``JSON.stringify``: no whitespace, so each session's bytes can be
found and decoded on their own, and digested as stored. The cuts are guessed from the text, then
proved by decoding; a value whose cuts cannot be proved is decoded whole by the caller instead.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final, TypeVar

from chatparse.adapter import digest_fingerprint
from chatparse.decoders import value as jsonvalue

__all__ = ["split_list"]

_T = TypeVar("_T")

_LIST: Final = b'"list":['


def split_list(value: bytes, each: Callable[[int, Any, str], _T]) -> list[_T] | None:
    """``each(position, item, digest)`` of the items of ``{..., "list": [<item>, ...], ...}``.

    Decoding each session from its own bytes costs what decoding the whole value costs, and
    gives the session as stored to digest for its fingerprint: writing it back as JSON instead
    would cost a good part of the decode again (every non-ASCII string encoded anew). ``each``
    is called on every item as soon as it is decoded, so that the caller can read it while it
    is still in the CPU's caches, and let it go; what ``each`` makes counts only once every cut
    is proved (else this gives ``None`` and the caller reads the value whole), so it must not
    change anything else.

    JSON says nowhere where an item ends, so the list is cut where the next item seems to
    start: before each ``},{"<key>"`` with ``<key>`` the first key of the first item, as a
    compact writer (``JSON.stringify``) writes a list of objects. The cuts are proved, not
    trusted:

    - each piece decodes as one JSON value on its own, which it can only do if the cut before
      it was between two items (a cut inside an item or a string leaves some piece unbalanced);
    - the text around the list decodes, and its top-level ``list`` is this list, which the
      JSON text with this list as ``[]`` and then as ``[0]`` tells.

    Each piece is decoded inside ``[[...]]``, at the depth it has in the whole value, so that
    nesting too deep is refused exactly as by the whole decode. Anything else (whitespace
    between items, items that start with different keys, damage) gives ``None``: the caller
    then decodes the value whole, which gives the same items.
    """
    start, end = value.find(_LIST), value.rfind(b"]")
    if start < 0 or end < start:
        return None
    start += len(_LIST)
    head, tail = value[:start], value[end:]
    emptied, marked = jsonvalue.decode(head + tail), jsonvalue.decode(head + b"0" + tail)
    if not (
        isinstance(emptied, dict)
        and isinstance(marked, dict)
        and emptied.get("list") == []
        and marked.get("list") == [0]
    ):
        return None
    if start == end:
        return []
    first = value.find(b'"', start + 2)  # the end of the first item's first key
    if not value.startswith(b'{"', start) or not start < first < end:
        return None
    cut = b"}," + value[start : first + 1]
    whole = memoryview(value)
    items: list[_T] = []
    while start < end:
        found = value.find(cut, start, end)
        stop = end if found < 0 else found + 1
        nested = b"".join((b"[[", whole[start:stop], b"]]"))
        decoded = jsonvalue.decode(nested)
        # One array holding one array (as ``nested`` starts with ``[[``) of one item: ``[[1],[2]]``
        # or ``[[1,2]]`` would be a cut in the wrong place.
        if isinstance(decoded, jsonvalue.Invalid) or len(decoded) != 1 or len(decoded[0]) != 1:
            return None
        # The digest of ``[<item>]``: what :func:`.scanning.digest` takes of the item written back.
        items.append(each(len(items), decoded[0][0], digest_fingerprint(nested[1:-1])))
        start = stop + 1
    return items
