"""``base_state.json``: the conversation's state without its events, and the usage it records.

Read key by key (a real file also holds the whole agent, tool and LLM configuration, which is
not needed): ``id``, ``agent.llm.model``, ``workspace.working_dir`` and ``stats``.

Usage lives only here. ``stats.usage_to_metrics`` (``service_to_metrics`` in older SDKs) maps
each LLM of the conversation (``agent``, ``condenser``...) to its ``Metrics``: the totals so far
(``accumulated_token_usage``) and one ``token_usages`` entry per model response, keyed by its
``response_id``. The counts are LiteLLM's, which already count like chatparse:
``prompt_tokens`` is the whole prompt, cache reads and writes included, ``completion_tokens``
every generated token, reasoning included.
"""

from __future__ import annotations

from contextlib import closing
from pathlib import Path
from typing import Any, Final

from attrs import define, field

from chatparse.adapter import (
    as_nonempty_text,
    as_token_count,
    dig,
    is_file,
    new_usage,
    parts_within_wholes,
)
from chatparse.adapters.openhands.locate import BASE_STATE
from chatparse.decoders import bigjson
from chatparse.errors import SourceUnavailableError
from chatparse.model import Usage

__all__ = ["ResponseUsage", "State", "read_state"]

_KEYS: Final = frozenset({"id", "agent", "workspace", "stats"})
_FIELDS: Final = {
    "input_tokens": "prompt_tokens",
    "output_tokens": "completion_tokens",
    "cache_read_tokens": "cache_read_tokens",
    "cache_write_tokens": "cache_write_tokens",
    "reasoning_tokens": "reasoning_tokens",
}


@define
class ResponseUsage:
    """The usage of one model response, or an LLM's totals when it lists no responses."""

    key: str
    """The ``response_id``; else ``<llm>:total`` or ``<llm>:<position>``."""
    response_id: str | None
    model: str | None
    usage: Usage


@define
class State:
    """What ``base_state.json`` says, as far as the adapter uses it."""

    fields: dict[str, Any] = field(factory=dict)
    malformed: str | None = None
    """Why the file could not be read whole; ``None`` when it could (or is absent)."""
    present: bool = False
    problems: list[str] = field(factory=list)
    """Token counts that were no counts, or parts larger than their whole (left out)."""

    @property
    def model(self) -> str | None:
        """``agent.llm.model``: the main LLM."""
        return as_nonempty_text(dig(self.fields, "agent", "llm", "model"))

    @property
    def working_dir(self) -> str | None:
        """``workspace.working_dir``: the project."""
        return as_nonempty_text(dig(self.fields, "workspace", "working_dir"))

    def responses(self, conversation: str) -> list[ResponseUsage]:
        """The usage of each response of each LLM, in the order the file lists them."""
        metrics = dig(self.fields, "stats", "usage_to_metrics")
        if not isinstance(metrics, dict):
            metrics = dig(self.fields, "stats", "service_to_metrics")
        if not isinstance(metrics, dict):
            return []
        found: list[ResponseUsage] = []
        for llm, metric in metrics.items():
            if isinstance(metric, dict):
                found += self._llm_responses(conversation, str(llm), metric)
        return found

    def _llm_responses(
        self, conversation: str, llm: str, metric: dict[str, Any]
    ) -> list[ResponseUsage]:
        entries = [e for e in metric.get("token_usages") or () if isinstance(e, dict)]
        default_model = as_nonempty_text(metric.get("model_name"))
        if not entries:
            total = metric.get("accumulated_token_usage")
            if not isinstance(total, dict):
                return []
            usage = self._usage(total, f"openhands:{conversation}:{llm}:total", f"{llm} totals")
            if usage is None:
                return []
            model = as_nonempty_text(total.get("model")) or default_model
            return [ResponseUsage(f"{llm}:total", None, model, usage)]
        found = []
        for position, entry in enumerate(entries):
            response = as_nonempty_text(entry.get("response_id"))
            key = response or f"{llm}:{position}"
            dedup = f"openhands:{response}" if response else f"openhands:{conversation}:{key}"
            usage = self._usage(entry, dedup, f"{llm} response {key}")
            if usage is not None:
                model = as_nonempty_text(entry.get("model")) or default_model
                found.append(ResponseUsage(key, response, model, usage))
        return found

    def _usage(self, entry: dict[str, Any], dedup_key: str, where: str) -> Usage | None:
        """One ``TokenUsage`` in the shared meaning; ``None`` when it holds no count."""
        problems: list[str] = []
        read = {
            name: as_token_count(entry.get(key), problems, key) for name, key in _FIELDS.items()
        }
        counts = parts_within_wholes(read, problems)
        self.problems += [f"{where}: {problem}" for problem in problems]
        if all(value is None for value in counts.values()):
            return None
        return new_usage(
            input_tokens=counts["input_tokens"],
            output_tokens=counts["output_tokens"],
            cache_read_tokens=counts["cache_read_tokens"],
            cache_write_tokens=counts["cache_write_tokens"],
            reasoning_tokens=counts["reasoning_tokens"],
            dedup_key=dedup_key,
        )


def read_state(folder: Path) -> State:
    """The folder's ``base_state.json``, streamed key by key; empty when there is none.

    A damaged file keeps the keys read before the damage. A file that cannot be opened raises
    :class:`~chatparse.errors.SourceUnavailableError`: it is the conversation's main file.
    """
    path = folder / BASE_STATE
    state = State()
    if not is_file(path):
        return state
    state.present = True
    try:
        with closing(bigjson.iter_kvitems(path, "")) as items:
            for item in items:
                if isinstance(item, bigjson.Malformed):
                    state.malformed = item.reason
                    return state
                if item.key in _KEYS:
                    state.fields[str(item.key)] = item.value
    except SourceUnavailableError:
        raise
    except OSError as exc:  # a read that failed half-way: what was read is kept
        state.malformed = f"cannot be read ({exc.strerror or exc})"
    return state
