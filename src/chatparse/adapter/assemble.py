"""Assembling the :class:`~chatparse.model.ParsedConversation` an adapter's ``parse`` returns.

Every adapter ends the same way: the messages it built, the conversation's own fields where the
source recorded them, times and a title derived from the messages where it did not, and the
ledger's account. :func:`build_conversation` does that once, with the same fallbacks for every
source:

* ``title``: the given one (a title the source stored), else the meta's (what scan found), else
  :func:`~chatparse.adapter.prompt_title` of the messages;
* ``project_path``: the given one, else the meta's;
* ``created_at`` / ``updated_at``: the given ones, else the meta's, else the earliest / latest
  message time. Never the file's modification time, never "now".
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime

from chatparse.adapter.ledger import Ledger
from chatparse.adapter.protocol import SourceAdapter
from chatparse.adapter.text import prompt_title
from chatparse.model import ConversationMeta, Message, ParsedConversation

__all__ = ["build_conversation"]


def build_conversation(  # noqa: PLR0913 -- the conversation's fields, keyword-only
    adapter: SourceAdapter,
    meta: ConversationMeta,
    messages: Sequence[Message],
    ledger: Ledger,
    *,
    title: str | None = None,
    project_path: str | None = None,
    git_branch: str | None = None,
    created_at: datetime | None = None,
    updated_at: datetime | None = None,
    producer_version: str | None = None,
    subagents: Iterable[ParsedConversation] = (),
    warnings: Iterable[str] | None = None,
) -> ParsedConversation:
    """The conversation ``adapter`` read for ``meta``, with the fallbacks of this module.

    ``ledger`` gives the diagnostics; ``warnings``, when given, replaces its warnings (see
    :meth:`~chatparse.adapter.Ledger.diagnostics`).
    """
    stamps = [m.timestamp for m in messages if m.timestamp is not None]
    return ParsedConversation(
        source=adapter.name,
        id=meta.id,
        meta=meta,
        parser_version=adapter.parser_version,
        title=title or meta.title or prompt_title(messages),
        project_path=project_path or meta.project_path,
        git_branch=git_branch,
        created_at=created_at or meta.created_at or min(stamps, default=None),
        updated_at=updated_at or meta.updated_at or max(stamps, default=None),
        producer_version=producer_version,
        messages=tuple(messages),
        subagents=tuple(subagents),
        diagnostics=ledger.diagnostics(warnings),
    )
