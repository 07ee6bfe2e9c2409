r"""Google Antigravity: the IDE (1.x, 2.x) and the ``agy`` CLI, a Windsurf-derived agent.

Where: ``~/.gemini/`` on every platform (``%USERPROFILE%\.gemini`` on Windows), which Gemini
CLI also uses; only Antigravity's three roots are read, never Gemini CLI's ``tmp/`` (and the
gemini-cli adapter never reads these):

* ``antigravity-cli/`` (``agy`` CLI 1.1+), ``antigravity-ide/`` (IDE 2.x) and ``antigravity/``
  (IDE 1.x; the Agent Manager in 2.0), each with ``brain/<conversation id>/``;
* the plaintext transcript, ``brain/<id>/.system_generated/logs/transcript_full.jsonl``, else
  ``transcript.jsonl`` (the same steps, tool arguments JSON-encoded once more);
* ``history.jsonl`` (the CLI's prompt history) for a conversation's workspace.

Records: one step a line, ``{step_index, source, type, status, created_at, content, thinking,
tool_calls, truncated_fields}``; prompts, answers with thinking and tool calls, tool results
paired by position (the format has no call ids), compaction checkpoints, system messages. No
usage: it is only in the conversation databases.

Explained, never read (``chatparse doctor``): ``conversations/<id>.pb`` (IDE 1.x, encrypted)
and ``conversations/<id>.db`` (SQLite whose rows are protobuf without a published schema).

The modules: :mod:`.adapter`, :mod:`.locate` (where, which copy wins), :mod:`.steps` (the
transcript) and :mod:`.prompts` (the wrappers around a prompt). See
``docs/sources/antigravity.md``.
"""

from chatparse.adapters.antigravity.adapter import AntigravityAdapter

__all__ = ["AntigravityAdapter"]
