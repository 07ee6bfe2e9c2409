"""Claude Code: one JSON Lines transcript per session, under ``~/.claude/projects/``.

Where the files are
    Each *projects root* holds one folder per working directory (its path with every character
    that is not a letter or digit replaced by ``-``, which is lossy, so it is never decoded), and
    in it one ``<sessionId>.jsonl`` per session. Roots are ``~/.claude/projects``,
    ``~/.config/claude/projects`` and ``<dir>/projects`` for each comma-separated ``<dir>`` in
    ``CLAUDE_CONFIG_DIR``; all of them are merged, one conversation per session id.

    Sub-agents (the Task/Agent tool) are written to ``<sessionId>/subagents/agent-<id>.jsonl``
    with an optional sidecar ``agent-<id>.meta.json`` (Claude Code 2.1+), or, in 2.0.x, to flat
    ``agent-<id>.jsonl`` files beside the sessions whose lines carry the *parent's* sessionId.
    Both become :attr:`~chatparse.ParsedConversation.subagents` of their parent; a flat agent
    whose parent file is gone is listed on its own. Even older versions (1.0.x) wrote sub-agent
    turns inline, marked ``isSidechain``; those are messages with ``is_sidechain=True``.

What a line is
    Every line is one JSON object with a ``type``. ``user`` and ``assistant`` lines are the
    conversation; they carry ``uuid`` and ``parentUuid``, which make a tree (rewinds fork it,
    compaction restarts it from a ``compact_boundary``). One API response is written as one
    ``assistant`` line *per content block*, all sharing ``message.id`` and ``requestId`` and each
    repeating the response's ``usage``. Tool results come back as ``user`` lines holding
    ``tool_result`` blocks. Harness text (reminders, slash commands, command output) is written
    into ``user`` lines as pseudo-XML tags. A few metadata lines name the session
    (``custom-title``, ``ai-title``, ``summary``), and many more are bookkeeping of the tool
    itself (``progress``, ``file-history-snapshot``, ``attachment``, ...).

What this adapter makes of it
    * The lines of one response become **one message**, its blocks in file order; its id is the
      ``uuid`` of its first line. Lines sharing (``message.id``, ``requestId``) are merged only
      when they also chain to each other, so a replayed copy stays a separate message.
    * A ``tool_result`` is paired with its ``tool_use`` into :class:`~chatparse.ToolCall`; a
      user line that carries only results is not a message. A result whose call is not in the
      file becomes a ``kind="tool_result"`` message.
    * Every line that is not a message (tool results, bookkeeping) still keeps the tree
      connected: a message whose parent is such a line gets that line's nearest message ancestor
      as its ``parent_id``.
    * Usage: one per response. Copies of one response (replays, sidechain copies) keep their
      usage, but only one per ``dedup_key`` is ``counted``: the last non-sidechain copy.
    * Nothing is dropped without a count: see ``docs/sources/claude-code.md`` for which lines
      are skipped as known noise, and why.

Where the code is
    ``adapter`` (detect, scan, parse), ``locate`` (roots, folders, sub-agent files,
    fingerprints), ``transcript`` (one file read into drafts, the tree, the conversation),
    ``records`` (what each line type becomes), ``turns`` (user, assistant and system
    lines), ``copies`` (lines written twice), ``content`` (harness text, tool results),
    ``draft`` (a message being read), ``usage`` (which copy of a usage counts).
"""

from __future__ import annotations

from chatparse.adapters.claude_code.adapter import ClaudeCodeAdapter

__all__ = ["ClaudeCodeAdapter"]
