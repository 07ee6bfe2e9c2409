"""Token counts of one response, in the meaning every source shares.

Both tools store Gemini's ``usageMetadata`` counters, under three spellings: the API's own
(``promptTokenCount``...), Gemini CLI's ``tokens`` (``input``...) and Qwen Code's telemetry
events (``input_token_count``...). Their meaning:

* the prompt count already includes the cached part (``cachedContentTokenCount``), as
  chatparse's ``input_tokens`` does; the prompt of a built-in tool (``toolUsePromptTokenCount``)
  is read by the model too, and is added to it;
* the Gemini API counts thoughts *beside* the candidates (``total = prompt + tool + candidates
  + thoughts``), while an OpenAI-compatible provider behind Qwen Code reports its completion
  tokens, reasoning included, as the candidates (``total = prompt + candidates``). chatparse's
  ``output_tokens`` includes reasoning, so thoughts are added to the candidates in the first
  case only. The total tells the two apart when the thoughts are not zero; without a total
  that settles it, the source's usual provider decides (:data:`GEMINI_API`,
  :data:`OPENAI_COMPATIBLE`), and thoughts larger than the candidates cannot be a part of them.

Nothing records cache writes: ``cache_write_tokens`` is ``None``. A count not recorded is
``None``, never 0.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from chatparse.adapter import as_count, new_usage, parts_within_wholes
from chatparse.model import Usage

__all__ = ["GEMINI_API", "OPENAI_COMPATIBLE", "SPELLINGS", "read_usage"]

GEMINI_API: Final = False
"""Thoughts are counted beside the candidates, unless the total says otherwise."""
OPENAI_COMPATIBLE: Final = True
"""Thoughts are a part of the candidates, unless the total says otherwise."""

# prompt, candidates, cached, thoughts, tool prompt, total: each spelling's field names.
SPELLINGS: Final[Mapping[str, tuple[str, str, str, str, str, str]]] = {
    "api": (
        "promptTokenCount",
        "candidatesTokenCount",
        "cachedContentTokenCount",
        "thoughtsTokenCount",
        "toolUsePromptTokenCount",
        "totalTokenCount",
    ),
    "gemini-cli": ("input", "output", "cached", "thoughts", "tool", "total"),
    "qwen-telemetry": (
        "input_token_count",
        "output_token_count",
        "cached_content_token_count",
        "thoughts_token_count",
        "tool_token_count",
        "total_token_count",
    ),
}


def _thoughts_in_output(counts: tuple[int | None, ...], *, thoughts_in_output: bool) -> bool:
    prompt, output, _cached, thoughts, tool, total = counts
    if not thoughts or output is None:
        return True  # nothing to add either way
    if thoughts > output:
        return False
    if total is not None and prompt is not None:
        read = prompt + (tool or 0)
        if total == read + output + thoughts:
            return False
        if total == read + output:
            return True
    return thoughts_in_output


def read_usage(
    raw: object,
    spelling: str,
    *,
    thoughts_in_output: bool,
    dedup_key: str | None,
    problems: list[str],
) -> Usage | None:
    """The usage of one response from its counters (``raw``), or ``None`` when it has none.

    ``spelling`` is a key of :data:`SPELLINGS`; ``thoughts_in_output`` is the source's usual
    provider (:data:`GEMINI_API` or :data:`OPENAI_COMPATIBLE`). A damaged counter that would
    break the one meaning (a cached part larger than the prompt) is left out and described in
    ``problems``.
    """
    if not isinstance(raw, Mapping):
        return None
    counts = tuple(as_count(raw.get(name)) for name in SPELLINGS[spelling])
    prompt, output, cached, thoughts, tool, _total = counts
    if prompt is None and output is None and cached is None and thoughts is None:
        return None
    input_tokens = None if prompt is None else prompt + (tool or 0)
    if output is not None and not _thoughts_in_output(
        counts, thoughts_in_output=thoughts_in_output
    ):
        output += thoughts or 0
    kept = parts_within_wholes(
        {
            "input_tokens": input_tokens,
            "output_tokens": output,
            "cache_read_tokens": cached,
            "reasoning_tokens": thoughts,
        },
        problems,
    )
    return new_usage(
        input_tokens=kept["input_tokens"],
        output_tokens=kept["output_tokens"],
        cache_read_tokens=kept["cache_read_tokens"],
        reasoning_tokens=kept["reasoning_tokens"],
        dedup_key=dedup_key,
    )
