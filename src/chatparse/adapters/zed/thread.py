"""One Zed thread, from its blob to the parsed conversation.

Records: the thread document's own fields (title, model, usage, project snapshot...) are one
record, and each element of ``messages`` is one. A message is routed by its shape, which also
tells the format version: an externally tagged enum (``{"User": ...}``, ``{"Agent": ...}``,
``"Resume"``) is the current format (:mod:`.agent2`), an object with a ``role`` is the first
agent's (:mod:`.agent1`). Anything else is kept raw.

Usage: the current format keeps, per prompt (``request_token_usage``, keyed by the prompt's
id), the usage of the turn's latest request, given to the turn's last answer; the first agent
kept a list with one entry per message, given to the answer at that place. When a thread
records no per-turn usage but a total (``cumulative_token_usage``), the total goes to its last
answer.
"""

from __future__ import annotations

from typing import Any, Final

from chatparse.adapter import as_nonempty_text, dig, title_from
from chatparse.adapters.zed.agent1 import read_agent1
from chatparse.adapters.zed.agent2 import STRING_MESSAGES, TAGGED_MESSAGES
from chatparse.adapters.zed.reading import Reading, model_of, thread_usage
from chatparse.decoders import bigjson
from chatparse.decoders.value import Invalid, decode, encode

__all__ = ["KNOWN_VERSIONS", "document_branch", "document_title", "read_thread"]

KNOWN_VERSIONS: Final = frozenset({"0.1.0", "0.2.0", "0.3.0"})


def _route(reading: Reading, message: object, index: int) -> bool:
    """Read a message by its shape; ``False`` when it has none this reader knows."""
    if isinstance(message, str):
        resume = STRING_MESSAGES.get(message)
        if resume is not None:
            resume(reading, index)
        return resume is not None
    if not isinstance(message, dict):
        return False
    if "role" in message:
        return read_agent1(reading, message, index)
    if len(message) != 1:
        return False
    tag, body = next(iter(message.items()))
    reader = TAGGED_MESSAGES.get(tag)
    if reader is None or not isinstance(body, dict):
        return False
    reader(reading, body, index)
    return True


def _kind(message: object) -> str | None:
    if isinstance(message, str):
        return message[:80]
    if isinstance(message, dict) and "role" in message:
        return as_nonempty_text(message["role"])
    if isinstance(message, dict) and len(message) == 1:
        return str(next(iter(message)))
    return None


def _message(reading: Reading, message: object, index: int) -> None:
    if _route(reading, message, index):
        reading.ledger.use()
    else:
        reading.ledger.keep(f"messages[{index}]", _kind(message), encode(message))


def _usage(reading: Reading, document: dict[str, Any]) -> None:
    problems: list[str] = []
    turns = document.get("request_token_usage")
    pairs: list[tuple[str, Any]] = []
    if isinstance(turns, dict):
        pairs = [(str(key), value) for key, value in turns.items()]
    elif isinstance(turns, list):
        pairs = [(str(index), value) for index, value in enumerate(turns)]
    given = False
    for key, value in pairs:
        draft = reading.answers.get(key)
        usage = thread_usage(value, f"zed:{reading.thread}:{key}", problems)
        if draft is not None and usage is not None:
            draft.usage = usage
            given = True
    if not given:
        total = thread_usage(
            document.get("cumulative_token_usage"), f"zed:{reading.thread}", problems
        )
        answers = [d for d in reading.drafts if d.role == "assistant"]
        if total is not None and answers:
            answers[-1].usage = total
    for problem in problems:
        reading.ledger.warn(f"usage: {problem}")


def _salvage(reading: Reading, blob: bytes) -> None:
    """The messages of a damaged thread that come before the damage."""
    for item in bigjson.iter_items(blob, "messages.item"):
        if isinstance(item, bigjson.Malformed):
            return
        _message(reading, item.value, int(item.key))


def read_thread(reading: Reading, blob: bytes) -> dict[str, Any]:
    """Read a thread's JSON into ``reading``; its document fields (``{}`` when not JSON)."""
    document = decode(blob)
    if isinstance(document, Invalid):
        _salvage(reading, blob)
        reading.ledger.bad("thread", f"thread data is cut short or damaged ({document.reason})")
        return {}
    if not isinstance(document, dict):
        reading.ledger.bad("thread", "thread data is not a JSON object")
        return {}
    reading.ledger.use()  # the document's own fields
    version = document.get("version")
    if version is not None and version not in KNOWN_VERSIONS:
        reading.ledger.warn(f"thread format version {version!r} is not one this reader knows")
    reading.model = model_of(document.get("model"))
    messages = document.get("messages")
    for index, message in enumerate(messages if isinstance(messages, list) else ()):
        _message(reading, message, index)
    _usage(reading, document)
    return document


def document_title(document: dict[str, Any]) -> str | None:
    """The title the document itself holds (``title``; ``summary`` in the first agent's)."""
    return title_from(
        as_nonempty_text(document.get("title")) or as_nonempty_text(document.get("summary"))
    )


def document_branch(document: dict[str, Any]) -> str | None:
    """The git branch of the thread's first worktree when it started (its project snapshot)."""
    worktrees = dig(document, "initial_project_snapshot", "worktree_snapshots")
    first = worktrees[0] if isinstance(worktrees, list) and worktrees else None
    return as_nonempty_text(dig(first, "git_state", "current_branch"))
