"""A composer read from the global store: its document, its bubbles in turn order, sub-agents."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any, Final, NamedTuple

from chatparse.adapter import Ledger, SourceAdapter, as_text, as_time, new_meta, title_from
from chatparse.adapters.cursor.content import bubble_time
from chatparse.adapters.cursor.fingerprints import composer_digest, document_digest, fingerprint
from chatparse.adapters.cursor.messages import NEWEST_COMPOSER_V, MessageBuilder, newer_version
from chatparse.adapters.cursor.store import (
    BUBBLE_PREFIX,
    COMPOSER,
    COMPOSER_PREFIX,
    DISK_KV,
    identifier_project,
    key_text,
    loads,
    split_bubble_key,
)
from chatparse.decoders import value as jsonvalue
from chatparse.decoders.sqlite import Row, Snapshot
from chatparse.errors import SourceUnavailableError, UnavailableCause
from chatparse.model import ConversationMeta, ParsedConversation

_DISCARDED: Final = "bubble not in fullConversationHeadersOnly (discarded edit)"


class Bubble(NamedTuple):
    """One bubble row of ``cursorDiskKV``, its value decoded when its message is built.

    A composer's rows are read together, but each value is decoded only when its message is
    built, and the decoded value dropped right after: the stored bytes are small beside it and
    cost the garbage collector nothing, where a composer's worth of decoded dicts kept alive made
    every collection walk them. Rows that are not shown (discarded edits, repeats of inline
    bubbles) are never decoded. The rare orderings that look into every bubble first (no turn
    order recorded, a header naming a bubble by the id inside it) decode those bubbles again when
    their messages are built.
    """

    id: str
    raw_key: object
    """The key as read (UTF-8 bytes), decoded only for the rare bubble that is reported."""
    data: bytes | None
    """The value as stored (TEXT or BLOB); ``None`` for NULL, and for a number, which is no JSON
    text either."""

    @property
    def where(self) -> str:
        """The row's key, to name it in diagnostics."""
        return f"row {key_text(self.raw_key)}"

    @property
    def raw(self) -> str | None:
        """The value's text, for the rare bubble reported or kept raw; decoded only then."""
        return None if self.data is None else self.data.decode("utf-8", "replace")

    def value(self) -> Any:
        """The decoded value, ``None`` when it is NULL or not JSON."""
        value = None if self.data is None else jsonvalue.decode(self.data)
        return None if isinstance(value, jsonvalue.Invalid) else value

    def inner_id(self) -> str | None:
        """The ``bubbleId`` inside the value, which may differ from the one in the key."""
        value = self.value()
        inner = value.get("bubbleId") if isinstance(value, dict) else None
        return inner if isinstance(inner, str) else None


def read_bubbles(snapshot: Snapshot, composer_id: str) -> list[Bubble]:
    """Every bubble row of one composer, values undecoded (see :class:`Bubble`).

    The bubble id is the rest of the key after the composer's prefix, decoded alone.
    """
    prefix = f"{BUBBLE_PREFIX}{composer_id}:"
    # Keys are split on their first two colons (split_bubble_key): after a composer id that holds
    # a colon, the bubble id starts at that colon rather than after the prefix.
    start = None if ":" in composer_id else len(prefix.encode())
    return [
        Bubble(
            (
                raw_key[start:].decode("utf-8", "replace")
                if start is not None and type(raw_key) is bytes
                else split_bubble_key(key_text(raw_key))[1]
            ),
            raw_key,
            stored if type(stored) is bytes else None,
        )
        for _, raw_key, stored in snapshot.iter_prefix_raw(DISK_KV, prefix)
    ]


def read_composer(
    snapshot: Snapshot, meta: ConversationMeta, adapter: SourceAdapter
) -> ParsedConversation:
    """A composer and its sub-agents, as the scan put their tree in the locator."""
    return _read_composer(snapshot, meta, adapter, _descendants(meta))


def _read_composer(
    snapshot: Snapshot,
    meta: ConversationMeta,
    adapter: SourceAdapter,
    tree: Mapping[str, list[str]],
) -> ParsedConversation:
    """A composer from the global store: its document, then its bubbles in header order."""
    ledger = Ledger()
    document = _read_document(snapshot, meta, ledger)
    builder = MessageBuilder(meta.id, ledger)
    order_bubbles(document, read_bubbles(snapshot, meta.id), builder)
    subagents = [
        _read_composer(snapshot, _child_meta(meta, child, snapshot), adapter, tree)
        for child in tree.get(meta.id, [])
    ]
    return builder.conversation(
        meta,
        adapter,
        title=title_from(as_text(document.get("name"))),
        created_at=as_time(document.get("createdAt"), "ms"),
        updated_at=as_time(document.get("lastUpdatedAt"), "ms"),
        # The workspace listing the composer names its project before the document does.
        project_path=meta.project_path or identifier_project(document.get("workspaceIdentifier")),
        subagents=subagents,
    )


def _read_document(snapshot: Snapshot, meta: ConversationMeta, ledger: Ledger) -> dict[str, Any]:
    """The composer's document, accounted in ``ledger``; ``{}`` when there is none to read.

    Raises:
        SourceUnavailableError: The scan found a document that is gone now.
    """
    row = _get_document(snapshot, meta)
    if row is None:
        if meta.locator.get("kind", COMPOSER) == COMPOSER:
            raise SourceUnavailableError(
                meta.path,
                f"composer {meta.id} is no longer in the database",
                "Scan again.",
                UnavailableCause.MISSING,
            )
        return {}
    raw = as_text(row.values[0])
    where = f"row {COMPOSER_PREFIX}{meta.id}"
    ok, value = loads(raw) if raw is not None else (False, None)
    if raw is None:
        ledger.bad(where, "the composer document is NULL; bubbles ordered by time")
    elif not ok or not isinstance(value, dict):
        ledger.bad(where, "the composer document is not a JSON object; bubbles ordered by time")
    else:
        ledger.use()
        version = value.get("_v")
        if type(version) is int and version > NEWEST_COMPOSER_V:
            ledger.warn_once(newer_version("composer", version, NEWEST_COMPOSER_V))
        return value
    return {}


def _get_document(snapshot: Snapshot, meta: ConversationMeta) -> Row | None:
    """The ``composerData`` row of ``meta.id``, or ``None``.

    The table is looked for only when the read fails (one transaction less per composer), to
    tell a database without ``cursorDiskKV`` from one that cannot be read at all.
    """
    try:
        return snapshot.get(DISK_KV, f"{COMPOSER_PREFIX}{meta.id}")
    except SourceUnavailableError as exc:
        # A locked database is reported as it is: asking it for its tables would only wait
        # through a second busy window.
        if exc.cause is not UnavailableCause.LOCKED and DISK_KV not in snapshot.tables():
            raise SourceUnavailableError(
                meta.path, f"no {DISK_KV} table", "Scan again.", UnavailableCause.MISSING
            ) from None
        raise


def order_bubbles(document: dict[str, Any], bubbles: list[Bubble], builder: MessageBuilder) -> None:
    """Feed the bubbles to ``builder`` in turn order, and account for the ones not shown.

    ``fullConversationHeadersOnly`` is the order when it lists anything; bubbles it leaves out
    are discarded edits. Else an inline ``conversation`` is the order (its elements are the
    bubbles; rows repeating them are skipped). Else, with no order recorded at all, the bubbles
    are ordered by their timestamps, and the conversation says so in a warning.
    """
    headers = document.get("fullConversationHeadersOnly")
    inline = document.get("conversation")
    if isinstance(headers, list) and headers:
        listed = match_headers(headers, bubbles, builder.ledger)
        if len(bubbles) > len(listed):  # each row is listed at most once
            builder.ledger.skip(_DISCARDED, len(bubbles) - len(listed))
        builder.add_rows(listed)
    elif isinstance(inline, list) and inline:
        _add_inline_conversation(inline, bubbles, builder)
    elif bubbles:
        builder.ledger.warn(
            "no turn order recorded (no fullConversationHeadersOnly or conversation): "
            "bubbles are ordered by their timestamps"
        )
        builder.add_rows(sorted(bubbles, key=_time_order))


def _add_inline_conversation(
    inline: list[Any], bubbles: list[Bubble], builder: MessageBuilder
) -> None:
    """The elements of a document's ``conversation`` are the bubbles; its rows are skipped."""
    # Ids only: a damaged inline bubble's id may be a list, which a set cannot hold.
    inline_ids = {
        b["bubbleId"] for b in inline if isinstance(b, dict) and isinstance(b.get("bubbleId"), str)
    }
    for index, value in enumerate(inline):
        builder.add_inline(value, index, f"conversation[{index}]")
    for bubble in bubbles:
        reason = (
            "repeats an inline bubble"
            if bubble.id in inline_ids
            else "not in the inline conversation"
        )
        builder.ledger.skip(f"bubble row {reason}")


def match_headers(headers: list[Any], bubbles: list[Bubble], ledger: Ledger) -> list[Bubble]:
    """The bubble row each header names: by the id in its key, else by the id inside it."""
    by_key = {bubble.id: bubble for bubble in bubbles}
    unlisted = dict(by_key)  # a row leaves it when a header names it: each is listed once
    by_inner: dict[str, Bubble] | None = None  # built at the first header its key misses
    listed: list[Bubble] = []
    for index, header in enumerate(headers):
        bubble_id = header.get("bubbleId") if type(header) is dict else None
        match = unlisted.pop(bubble_id, None) if type(bubble_id) is str else None
        if match is None:  # rare: say why, or find the row by the id inside it
            where = f"fullConversationHeadersOnly[{index}]"
            if type(bubble_id) is not str:
                ledger.warn(f"{where} names no bubble")
                continue
            if bubble_id in by_key:
                ledger.warn(f"{where} repeats {bubble_id!r}")
                continue
            by_inner = _by_inner_id(bubbles) if by_inner is None else by_inner
            match = by_inner.get(bubble_id)
            if match is None:
                ledger.warn(f"{where} names bubble {bubble_id!r}, which has no row")
                continue
            if unlisted.get(match.id) is not match:
                ledger.warn(f"{where} repeats {bubble_id!r}")
                continue
            del unlisted[match.id]
        listed.append(match)
    return listed


def _by_inner_id(bubbles: list[Bubble]) -> dict[str, Bubble]:
    """The bubbles whose own ``bubbleId`` differs from the id in their key, by that id."""
    by_inner: dict[str, Bubble] = {}
    for bubble in bubbles:
        inner = bubble.inner_id()
        if inner is not None and inner != bubble.id:
            by_inner.setdefault(inner, bubble)
    return by_inner


def _time_order(bubble: Bubble) -> tuple[bool, datetime, str]:
    value = bubble.value()
    stamp = bubble_time(value) if isinstance(value, dict) else None
    return stamp is None, stamp or datetime.min.replace(tzinfo=UTC), bubble.id


def _child_meta(parent: ConversationMeta, child: str, snapshot: Snapshot) -> ConversationMeta:
    """The meta of a sub-agent composer, fingerprinted from its own rows."""
    row = snapshot.get_raw(DISK_KV, f"{COMPOSER_PREFIX}{child}")
    document = document_digest(*row) if row is not None else ""
    bubbles = snapshot.key_run(DISK_KV, BUBBLE_PREFIX, child)
    return new_meta(
        source=parent.source,
        id=child,
        path=parent.path,
        fingerprint=fingerprint(composer_digest(document, bubbles)),
        size=parent.size,
        mtime=parent.mtime,
        project_path=parent.project_path,
        locator={"kind": COMPOSER, "parent": parent.id},
    )


def _descendants(meta: ConversationMeta) -> dict[str, list[str]]:
    """The sub-agent tree a scan put in the locator: parent id -> child ids, in order."""
    tree: dict[str, list[str]] = {}
    for pair in meta.locator.get("subagents", "").split():
        parent, _, child = pair.partition("/")
        tree.setdefault(parent, []).append(child)
    return tree
