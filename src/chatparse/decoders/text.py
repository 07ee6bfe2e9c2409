"""String repair and cleaning shared by every adapter.

The tools we read from put harness text (``<system-reminder>`` blocks, terminal colour codes,
pasted images as base64) into the same strings as what the user and the model said. These helpers
take it out again, and they are deliberately conservative: text is only removed when its structure
is certain, so that a damaged or unusual string is kept rather than cut.

All functions are pure and total: any ``str`` is accepted and a ``str`` is returned.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from attrs import frozen

__all__ = [
    "ImagePayload",
    "base64_decoded_size",
    "has_surrogates",
    "repair_surrogates",
    "strip_ansi",
    "strip_data_uri_images",
    "strip_tags",
    "unwrap_tags",
]

_SURROGATE = re.compile("[\ud800-\udfff]")

# ECMA-48: CSI sequences (ESC [ or the 8-bit CSI), OSC strings ended by BEL or ST, and the
# two-character escapes. Terminal output pasted into chats carries all three.
_ANSI = re.compile(
    r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]"
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)"
    r"|\x1b[@-Z\\-_]"
)

# Invalid bytes in a stored string are decoded as U+FFFD, and a run of them may sit anywhere in a
# URI, its "data:image/…;base64," marker included: the pattern allows one between any two of its
# characters, so that a damaged URI is still taken out whole rather than its payload left behind.
_DAMAGE = "\ufffd*"


def _damaged(literal: str) -> str:
    return _DAMAGE.join(map(re.escape, literal))


_DATA_URI = re.compile(
    f"{_damaged('data:image/')}(?P<subtype>[A-Za-z0-9.+\ufffd-]+){_damaged(';base64,')}"
    "(?P<payload>[A-Za-z0-9+/\ufffd]*={0,2})"
)


@frozen
class ImagePayload:
    """What is kept of an inline image once its base64 payload is dropped.

    Attributes:
        media_type: The declared type, such as ``image/png``.
        byte_size: The size of the decoded image in bytes, computed without decoding it.
    """

    media_type: str
    byte_size: int


def has_surrogates(text: str) -> bool:
    """Tell whether ``text`` contains a surrogate code point, paired or not.

    Such a string cannot be encoded to UTF-8, so it must be repaired before it leaves chatparse.
    """
    return _SURROGATE.search(text) is not None


def repair_surrogates(text: str) -> str:
    """Return ``text`` with every lone surrogate replaced by U+FFFD.

    Old Claude Code versions cut UTF-16 surrogate pairs in half when truncating tool output, and
    JSON parsers hand the halves back as lone surrogates. A high and a low surrogate that stand
    next to each other are joined into the character they encode, as a UTF-16 decoder would.
    """
    return _repair_surrogates(text)[0]


def _repair_surrogates(text: str) -> tuple[str, int]:
    """Repair like :func:`repair_surrogates` and also count the replacement characters inserted."""
    if _SURROGATE.search(text) is None:
        return text, 0
    # Round-tripping through UTF-16 is the one standard codec path that both pairs up adjacent
    # halves and replaces the lone ones.
    repaired = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return repaired, repaired.count("\ufffd") - text.count("\ufffd")


def strip_ansi(text: str) -> str:
    """Remove terminal escape sequences (colours, cursor moves, window titles) from ``text``."""
    return _ANSI.sub("", text)


def strip_tags(text: str, names: Iterable[str]) -> str:
    """Remove each element named in ``names`` together with everything inside it.

    Elements are matched by their tags, not by their content, so content containing ``<`` (code,
    comparisons, other tags) is handled; an element of the same name nested inside is removed with
    its parent. A tag without its partner is left alone: it may be a literal ``<x>`` in prose.

    Example:
        >>> strip_tags("hi <system-reminder>if a < b</system-reminder>there", ["system-reminder"])
        'hi there'
    """
    return _remove(text, names, keep_content=False)


def unwrap_tags(text: str, names: Iterable[str]) -> str:
    """Remove the tags of each element named in ``names`` but keep what they wrap.

    Matching follows the same rules as :func:`strip_tags`.

    Example:
        >>> unwrap_tags("<command-args>a < b</command-args>", ["command-args"])
        'a < b'
    """
    return _remove(text, names, keep_content=True)


def _remove(text: str, names: Iterable[str], *, keep_content: bool) -> str:
    alternatives = "|".join(re.escape(name) for name in sorted(set(names), key=len, reverse=True))
    if not alternatives or "<" not in text:
        return text
    # Attributes may not contain ``<`` or ``>``: that keeps a stray ``<name`` in prose from
    # swallowing the text up to the next ``>``.
    tag = re.compile(rf"<(?P<close>/?)(?P<name>{alternatives})(?:\s[^<>]*?)?(?P<empty>/?)>")
    cuts: list[tuple[int, int]] = []
    open_tags: list[re.Match[str]] = []
    for match in tag.finditer(text):
        if match["empty"] and not match["close"]:
            cuts.append(match.span())
        elif not match["close"]:
            open_tags.append(match)
        else:
            # Close the nearest open tag of the same name; unclosed tags above it stay as text.
            for depth in range(len(open_tags) - 1, -1, -1):
                if open_tags[depth]["name"] == match["name"]:
                    opened = open_tags[depth]
                    del open_tags[depth:]
                    if keep_content:
                        cuts.extend((opened.span(), match.span()))
                    else:
                        cuts.append((opened.start(), match.end()))
                    break
    return _cut(text, cuts)


def _cut(text: str, cuts: list[tuple[int, int]]) -> str:
    """Remove the given spans, any of which may overlap or contain each other."""
    if not cuts:
        return text
    pieces: list[str] = []
    position = 0
    for start, end in sorted(cuts):
        if start > position:
            pieces.append(text[position:start])
        position = max(position, end)
    pieces.append(text[position:])
    return "".join(pieces)


def base64_decoded_size(payload: str) -> int:
    """Return how many bytes ``payload`` decodes to, without decoding it.

    Whitespace (base64 is often wrapped at 76 columns) is not counted; a missing ``=`` padding is
    tolerated, as browsers and most encoders tolerate it.
    """
    length = len(payload) - sum(payload.count(space) for space in " \t\r\n")
    padding = 2 if payload.rstrip().endswith("==") else int(payload.rstrip().endswith("="))
    return (length - padding) * 3 // 4


def strip_data_uri_images(
    text: str, placeholder: str = "[image: {media_type}, {byte_size} bytes]"
) -> tuple[str, tuple[ImagePayload, ...]]:
    """Replace each ``data:image/…;base64,…`` URI in ``text`` with a short placeholder.

    Args:
        text: Any string; most have no data URI and are returned unchanged.
        placeholder: A :meth:`str.format` template with the fields ``media_type`` and
            ``byte_size``; ``""`` removes the URI without a trace in the text.

    Returns:
        The cleaned text and one :class:`ImagePayload` per URI removed, in order, so the caller can
        still say that an image was there, what type it was and how large.
    """
    # Every URI has a ";", which most text lacks: one character is found by a memchr-like scan,
    # far faster than "data:", whose letters are everywhere in prose. Callers need no check first.
    if ";" not in text or ("data:image/" not in text and "\ufffd" not in text):
        return text, ()
    images: list[ImagePayload] = []

    def replace(match: re.Match[str]) -> str:
        media_type = "image/" + match["subtype"].replace("\ufffd", "")
        payload = match["payload"].replace("\ufffd", "")
        image = ImagePayload(media_type, base64_decoded_size(payload))
        images.append(image)
        return placeholder.format(media_type=image.media_type, byte_size=image.byte_size)

    return _DATA_URI.sub(replace, text), tuple(images)
