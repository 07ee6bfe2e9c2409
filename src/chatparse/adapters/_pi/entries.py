"""How each type of entry is read, in two tables: Pi's own, and Oh My Pi's additions.

Every line of a session file has a ``type``. The ``session`` header (and Oh My Pi's ``title``
slot before it) describe the file; every other entry is a node of the session's tree. Entries
that carry the conversation become messages; settings (model, thinking level, service tier,
mode), bookmarks and extension state are known noise, skipped by name.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from chatparse.adapter import as_count, as_nonempty_text, as_text
from chatparse.adapters._pi.reading import EntryReader, Outcome, Reading, Title
from chatparse.adapters._pi.roles import read_message, summary
from chatparse.adapters._pi.usage import response_usage

__all__ = ["HEADERS", "OMP_ENTRIES", "PI_ENTRIES", "SKIPPED", "read_header"]

HEADERS: Final = frozenset({"session", "title"})
"""Entry types that describe the file and are not nodes of the tree."""

SKIPPED: Final[Mapping[str, str]] = {
    "model_change": "model_change: setting",
    "thinking_level_change": "thinking_level_change: setting",
    "label": "label: bookmark on an entry",
    "custom": "custom: extension state (not sent to the model)",
}
"""Pi's entry types that carry nothing for the transcript, with the reason each is skipped."""

OMP_SKIPPED: Final[Mapping[str, str]] = {
    "service_tier_change": "service_tier_change: setting",
    "mode_change": "mode_change: setting",
    "ttsr_injection": "ttsr_injection: rules injected (names only)",
    "credential_pin": "credential_pin: account hash",
    "session_init": "session_init: sub-agent setup (its task is the first prompt)",
    "reset_boundary": "reset_boundary: /clear marker (history stays)",
    "archive": "archive: branch hidden from view (nothing deleted)",
}
"""Oh My Pi's own entry types that carry nothing for the transcript."""


def read_header(reading: Reading, entry: dict[str, Any]) -> Outcome:
    """The ``session`` header: the session's id, time, folder and format version."""
    if reading.header is not None:
        # Pi once wrote a second header when a session was flushed twice.
        return "session: header of an earlier copy" if reading.repeated else "session: repeated"
    reading.header = entry
    version = as_count(entry.get("version"))
    reading.version = version if version is not None else 1
    reading.offer_title(Title.HEADER, entry.get("title"))
    return None


def custom_message(reading: Reading, entry: dict[str, Any]) -> Outcome:
    """An extension's message, sent to the model as if the person wrote it."""
    return read_message(reading, {"message": {"role": "custom", "content": entry.get("content")}})


def session_info(reading: Reading, entry: dict[str, Any]) -> Outcome:
    """The name given to the session with ``/name``; the latest one wins."""
    reading.offer_title(Title.NAME, entry.get("name"))
    return None


def title_slot(reading: Reading, entry: dict[str, Any]) -> Outcome:
    """Oh My Pi's first line: the current title, rewritten in place."""
    reading.offer_title(Title.SLOT, entry.get("title"))
    return None


def title_change(reading: Reading, entry: dict[str, Any]) -> Outcome:
    """Oh My Pi's record of a title change; the latest one wins."""
    reading.offer_title(Title.CHANGE, entry.get("title"))
    return None


def model_usage(reading: Reading, entry: dict[str, Any]) -> Outcome:
    """Oh My Pi's usage of a side call (a title, a summary) that is not in the transcript.

    It counts towards the session's totals, so it becomes a usage-only ``notice``, marked as a
    side chain: the tool ran it beside the conversation.
    """
    usage = response_usage(entry, None)
    if usage is None:
        return "model_usage: no usage recorded"
    reading.add(
        "assistant",
        "notice",
        as_text(entry.get("purpose")) or "",
        model=as_nonempty_text(entry.get("model")),
        usage=usage,
        sidechain=True,
    )
    return None


def _skip(reason: str) -> EntryReader:
    return lambda _reading, _entry: reason


PI_ENTRIES: Final[Mapping[str, EntryReader]] = {
    "session": read_header,
    "message": read_message,
    # A compaction's summary stands for the history before it; a branch summary, as the first
    # node of a new /tree branch, for the branch left behind.
    "compaction": summary,
    "branch_summary": summary,
    "custom_message": custom_message,
    "session_info": session_info,
    **{kind: _skip(reason) for kind, reason in SKIPPED.items()},
}
"""Pi's entry types (versions 1 to 3)."""

OMP_ENTRIES: Final[Mapping[str, EntryReader]] = {
    **PI_ENTRIES,
    "title": title_slot,
    "title_change": title_change,
    "model_usage": model_usage,
    **{kind: _skip(reason) for kind, reason in OMP_SKIPPED.items()},
}
"""Oh My Pi's: Pi's, the title slot and title changes, side-call usage, and its settings."""
