"""Factory Droid (Factory's ``droid`` CLI): a JSON Lines file per session, and a settings sidecar.

Where: ``<home>/.factory/sessions/<encoded cwd>/<session id>.jsonl`` on every platform (some
installs put the files directly in ``sessions/``), with ``<session id>.settings.json`` beside
each. Droid is closed source; the format is known from peer readers and samples.

Records: each line of the session file is one, in one of two dialects: the interactive store
(``session_start``, then ``message`` lines with Anthropic-style content: text, thinking, images,
tool calls, and tool results in user lines paired to their calls by ``tool_use_id``), or the
flat stream-json events of ``droid exec --output-format stream-json`` (``system``, ``message``,
``tool_call``, ``tool_result``, ``completion``, ``error``). The sidecar is one record: the
session's model and its cumulative token totals, the only usage Droid keeps, given to the
session's last answer. A sub-agent (Task tool) run is a session file of its own, which names
no parent: it is listed as a conversation of its own.

The modules, by concern: :mod:`~chatparse.adapters.factory_droid.adapter` (the adapter),
:mod:`~chatparse.adapters.factory_droid.locate` (where),
:mod:`~chatparse.adapters.factory_droid.lines` (one file, either dialect),
:mod:`~chatparse.adapters.factory_droid.store` and
:mod:`~chatparse.adapters.factory_droid.stream` (the two dialects),
:mod:`~chatparse.adapters.factory_droid.session` (what the lines give) and
:mod:`~chatparse.adapters.factory_droid.settings` (the sidecar). Listing the files and sorting
content blocks are shared with Amp: :mod:`chatparse.adapters._anthropic`.
"""

from chatparse.adapters.factory_droid.adapter import FactoryDroidAdapter

__all__ = ["FactoryDroidAdapter"]
