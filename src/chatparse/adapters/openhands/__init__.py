"""OpenHands CLI (OpenHands/software-agent-sdk V1 conversations): a folder per conversation.

Where: ``<home>/.openhands/conversations/<id>/`` on Linux, macOS and Windows; newer CLI builds
move it with ``$OPENHANDS_PERSISTENCE_DIR`` (``<dir>/conversations``) or
``$OPENHANDS_CONVERSATIONS_DIR``. Every one of these folders that exists is read; a
conversation found in two is read from the copy changed last. The id is the folder's name (32
hex digits).

Records, per conversation folder:

* ``base_state.json``, the state without its events (one record): the model
  (``agent.llm.model``), the working directory, and the token usage of every model response
  (``stats.usage_to_metrics``, ``service_to_metrics`` in older SDKs), the only usage recorded.
* ``events/event-<index>-<event id>.json`` (older: ``event-<index>.json``), one pretty JSON
  event per file (one record each), in index order: messages, tool calls (actions), their
  results (observations), rejections, errors and condensation summaries. Event times carry no
  zone and are not read.

Legacy OpenHands V0 file stores (``sessions/<sid>/events/<n>.json``, the web app's) are another
schema and are not read.

The modules, by concern: :mod:`~chatparse.adapters.openhands.adapter` (the adapter),
:mod:`~chatparse.adapters.openhands.locate` (where, and what a scan lists),
:mod:`~chatparse.adapters.openhands.state` (``base_state.json`` and usage),
:mod:`~chatparse.adapters.openhands.events` (the event files) and
:mod:`~chatparse.adapters.openhands.conversation` (one folder into a conversation).
"""

from chatparse.adapters.openhands.adapter import OpenHandsAdapter

__all__ = ["OpenHandsAdapter"]
