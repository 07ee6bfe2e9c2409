"""One thread document, ``T-<id>.json``, read into a conversation.

The document is one pretty-printed JSON object, rewritten whole on every change (``v`` counts
the rewrites): ``{v, id, created, title, agentMode, nextMessageId, env, meta, ~debug,
messages: [...], usageLedger?: {events: [...]}}``. Records: the document's own fields are one
(title, ``created`` in epoch milliseconds, ``env.initial``: the workspace folder as a ``file://``
URI with its git ``repository.ref``, and the client's version); each element of ``messages`` is
one (see :mod:`.messages`); each ``usageLedger`` event is one (see :mod:`.usage`). ``meta.traces``
(timings of the agent loop) and ``~debug`` are part of the document's fields and not read.

The document is streamed key by key. One cut short (a crash mid-rewrite) gives the fields and
messages before the damage, and one malformed record.
"""

from __future__ import annotations

from contextlib import closing
from pathlib import Path
from typing import Any, Final

from attrs import define, field

from chatparse.adapter import (
    SourceAdapter,
    as_epoch,
    as_nonempty_text,
    build_conversation,
    dig,
    require_file,
    title_from,
)
from chatparse.adapters._vscode import uri_platform, uri_to_project_path
from chatparse.adapters.amp.messages import Reading, read_message
from chatparse.adapters.amp.usage import apply_ledger
from chatparse.decoders import bigjson
from chatparse.model import ConversationMeta, ParsedConversation

__all__ = ["read_thread"]

_BRANCH_PREFIX: Final = "refs/heads/"
_MESSAGES: Final = "messages"
_LEDGER: Final = "usageLedger"


@define
class _Document:
    """The document's own fields, and whether its messages were read."""

    fields: dict[str, Any] = field(factory=dict)
    ledger_events: object = None
    messages_read: bool = False


def _folder(uri: object) -> str | None:
    """The workspace folder a tree's URI names, in the form of the platform it was written on."""
    text = as_nonempty_text(uri)
    return uri_to_project_path(text, uri_platform(text)) if text is not None else None


def _branch(tree: object) -> str | None:
    ref = as_nonempty_text(dig(tree, "repository", "ref"))
    if ref is None:
        return None
    return ref.removeprefix(_BRANCH_PREFIX) or None


def _read(path: Path, reading: Reading) -> _Document:
    document = _Document()
    with closing(bigjson.iter_kvitems(path, "")) as items:
        for item in items:
            if isinstance(item, bigjson.Malformed):
                if not document.messages_read:
                    _salvage(path, reading)
                reading.ledger.bad("document", f"cut short or damaged ({item.reason})")
                return document
            key, value = str(item.key), item.value
            if key == _MESSAGES and isinstance(value, list):
                document.messages_read = True
                for index, record in enumerate(value):
                    read_message(reading, record, index)
            elif key == _LEDGER:
                document.ledger_events = dig(value, "events")
                document.fields[key] = value  # its other keys are the document's own
            else:
                document.fields[key] = value
    return document


def _salvage(path: Path, reading: Reading) -> None:
    """The messages of a damaged document that come before the damage."""
    with closing(bigjson.iter_items(path, f"{_MESSAGES}.item")) as items:
        for index, item in enumerate(items):
            if isinstance(item, bigjson.Malformed):
                return
            read_message(reading, item.value, index)


def read_thread(adapter: SourceAdapter, meta: ConversationMeta) -> ParsedConversation:
    """The conversation in the thread document at ``meta.path``."""
    path = require_file(meta.path, "thread")
    reading = Reading(thread_id=meta.id)
    document = _read(path, reading)
    apply_ledger(document.ledger_events, reading.drafts, meta.id, reading.ledger)
    fields = document.fields
    if fields:
        reading.ledger.use()  # the document's own fields, one record
    elif not reading.ledger.seen:
        reading.ledger.bad("document", "not a thread object")
    tree = dig(fields, "env", "initial", "trees")
    first_tree = tree[0] if isinstance(tree, list) and tree else None
    return build_conversation(
        adapter,
        meta,
        [draft.freeze() for draft in reading.drafts],
        reading.ledger,
        title=title_from(as_nonempty_text(fields.get("title"))),
        project_path=_folder(dig(first_tree, "uri")),
        git_branch=_branch(first_tree),
        created_at=as_epoch(fields.get("created"), "ms"),
        producer_version=as_nonempty_text(
            dig(fields, "env", "initial", "platform", "clientVersion")
        ),
    )
