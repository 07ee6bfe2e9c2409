"""Everything an adapter needs: the protocol it implements and the toolkit it is built with.

An adapter reads the conversations of one tool. It is any object with the attributes and methods
of :class:`SourceAdapter` (``detect``, ``scan``, ``parse``), plus any of the optional protocols
(:class:`PathSniffer`, :class:`Explainer`, :class:`BatchParser`, :class:`ContentScanner`,
:class:`Peeker`, :class:`MessageStreamer`). The
built-in adapters and third-party ones are built from the same public parts, listed here by the
question each answers:

Where did every record go?
    :class:`Ledger` counts each record read as used, skipped (known noise), malformed or kept
    raw as unknown, and turns the count into the conversation's
    :class:`~chatparse.model.Diagnostics`.
What does this field hold?
    :func:`as_text`, :func:`as_nonempty_text`, :func:`as_count`, :func:`dig` read decoded JSON
    without trusting its shape; :func:`as_datetime`, :func:`as_epoch` and :func:`as_time` read
    times under one policy (a time without a zone is no time).
How are messages named and titled?
    :class:`UniqueIds`, :func:`title_from`, :func:`prompt_title`.
What about images and tools?
    :func:`strip_images`, :func:`image_ref`, :func:`image_at`; :func:`content_text` reads a
    message's text and image parts; :func:`drop_payloads` and :func:`strip_payloads`
    take base64 payloads out of structured values (tool inputs and results) and raw texts;
    :class:`ToolCallPairing` pairs calls with results and tells orphans and unanswered calls
    apart.
What did the scan pass over?
    :func:`passed_over`, :func:`unlistable`, :func:`is_file`, :func:`is_dir`,
    :func:`list_folder`, :func:`folders_in`, :func:`files_in`, :func:`walk_files`,
    :func:`file_stat`; :func:`require_file` for a file gone since the scan.
Is this file the tool's?
    :func:`read_head` reads the first bytes a ``sniff`` looks at.
What is a conversation called, before it is parsed?
    :func:`read_window` reads a file's head and tail within :data:`PEEK_BYTES` each, for a
    :class:`Peeker`.
Has it changed since last time?
    :func:`stat_fingerprint`, :func:`digest_fingerprint`; :func:`file_meta` lists a conversation
    kept in a file of its own, by the file's stat.
What does ``chatparse doctor`` say?
    :func:`explain_variable` says whether a variable that moves the tool's folder is set.
And the result?
    :func:`build_conversation` assembles the :class:`~chatparse.model.ParsedConversation`;
    :func:`new_message`, :func:`new_tool_call`, :func:`new_usage`, :func:`new_image` and
    :func:`new_meta` build the model objects made once per record.

``import chatparse.adapter`` is cheap: each name is imported the first time it is used.

.. versionadded:: 0.1
   The protocols.
.. versionadded:: 0.2
   The toolkit.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from chatparse._lazy import lazy_names
from chatparse.adapter.protocol import (
    ADAPTER_NAME,
    BatchParser,
    ContentScanner,
    Explainer,
    MessageStreamer,
    PathSniffer,
    Peeker,
    SourceAdapter,
)

if TYPE_CHECKING:
    from chatparse.adapter.assemble import build_conversation
    from chatparse.adapter.build import new_image, new_message, new_meta, new_tool_call, new_usage
    from chatparse.adapter.content import ImagePart, content_text, image_at
    from chatparse.adapter.drafts import MessageDraft
    from chatparse.adapter.explaining import explain_variable
    from chatparse.adapter.fields import (
        LARGEST_TOKEN_COUNT,
        as_count,
        as_nonempty_text,
        as_text,
        as_token_count,
        dig,
        parts_within_wholes,
    )
    from chatparse.adapter.fingerprints import digest_fingerprint, file_meta, stat_fingerprint
    from chatparse.adapter.ids import UniqueIds
    from chatparse.adapter.ledger import Ledger
    from chatparse.adapter.paths import (
        file_stat,
        files_in,
        folders_in,
        is_dir,
        is_file,
        list_folder,
        passed_over,
        require_file,
        unlistable,
        walk_files,
    )
    from chatparse.adapter.payloads import drop_payloads, strip_payloads
    from chatparse.adapter.peeking import (
        PEEK_BYTES,
        SNIFF_BYTES,
        Window,
        read_head,
        read_window,
    )
    from chatparse.adapter.text import (
        TITLE_LENGTH,
        image_ref,
        prompt_title,
        strip_images,
        title_from,
    )
    from chatparse.adapter.times import EpochUnit, as_datetime, as_epoch, as_time
    from chatparse.adapter.tools import PendingCall, ToolCallPairing

__all__ = [
    "ADAPTER_NAME",
    "LARGEST_TOKEN_COUNT",
    "PEEK_BYTES",
    "SNIFF_BYTES",
    "TITLE_LENGTH",
    "BatchParser",
    "ContentScanner",
    "EpochUnit",
    "Explainer",
    "ImagePart",
    "Ledger",
    "MessageDraft",
    "MessageStreamer",
    "PathSniffer",
    "Peeker",
    "PendingCall",
    "SourceAdapter",
    "ToolCallPairing",
    "UniqueIds",
    "Window",
    "as_count",
    "as_datetime",
    "as_epoch",
    "as_nonempty_text",
    "as_text",
    "as_time",
    "as_token_count",
    "build_conversation",
    "content_text",
    "dig",
    "digest_fingerprint",
    "drop_payloads",
    "explain_variable",
    "file_meta",
    "file_stat",
    "files_in",
    "folders_in",
    "image_at",
    "image_ref",
    "is_dir",
    "is_file",
    "list_folder",
    "new_image",
    "new_message",
    "new_meta",
    "new_tool_call",
    "new_usage",
    "parts_within_wholes",
    "passed_over",
    "prompt_title",
    "read_head",
    "read_window",
    "require_file",
    "stat_fingerprint",
    "strip_images",
    "strip_payloads",
    "title_from",
    "unlistable",
    "walk_files",
]

_HOMES = {
    "chatparse.adapter.assemble": ("build_conversation",),
    "chatparse.adapter.content": ("ImagePart", "content_text", "image_at"),
    "chatparse.adapter.drafts": ("MessageDraft",),
    "chatparse.adapter.explaining": ("explain_variable",),
    "chatparse.adapter.build": (
        "new_image",
        "new_message",
        "new_meta",
        "new_tool_call",
        "new_usage",
    ),
    "chatparse.adapter.fields": (
        "LARGEST_TOKEN_COUNT",
        "as_count",
        "as_nonempty_text",
        "as_text",
        "as_token_count",
        "dig",
        "parts_within_wholes",
    ),
    "chatparse.adapter.fingerprints": ("digest_fingerprint", "file_meta", "stat_fingerprint"),
    "chatparse.adapter.ids": ("UniqueIds",),
    "chatparse.adapter.ledger": ("Ledger",),
    "chatparse.adapter.paths": (
        "file_stat",
        "files_in",
        "folders_in",
        "is_dir",
        "is_file",
        "list_folder",
        "passed_over",
        "require_file",
        "unlistable",
        "walk_files",
    ),
    "chatparse.adapter.payloads": ("drop_payloads", "strip_payloads"),
    "chatparse.adapter.peeking": (
        "PEEK_BYTES",
        "SNIFF_BYTES",
        "Window",
        "read_head",
        "read_window",
    ),
    "chatparse.adapter.text": (
        "TITLE_LENGTH",
        "image_ref",
        "prompt_title",
        "strip_images",
        "title_from",
    ),
    "chatparse.adapter.times": ("EpochUnit", "as_datetime", "as_epoch", "as_time"),
    "chatparse.adapter.tools": ("PendingCall", "ToolCallPairing"),
}
__getattr__, __dir__ = lazy_names(__name__, _HOMES, __all__)
