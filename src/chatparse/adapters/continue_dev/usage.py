"""Continue's token counts, in the shared meaning.

Continue writes ``{promptTokens, completionTokens, promptTokensDetails: {cachedTokens,
cacheWriteTokens}}`` on an answer (since 2025-07) and the same with ``totalCost`` for the whole
session (since 2025-12). ``promptTokens`` means what the provider said: OpenAI-style providers
count the cached part in it, Anthropic-style ones do not. A count of cache writes, or cached
tokens beyond ``promptTokens``, shows the Anthropic reading, and the cache parts are added to
make the input; otherwise ``promptTokens`` is the input as written. A usage of nothing but zeros
recorded nothing.
"""

from __future__ import annotations

from chatparse.adapter import as_token_count, dig, new_usage
from chatparse.model import Usage

__all__ = ["message_usage"]


def message_usage(value: object, dedup_key: str, problems: list[str]) -> Usage | None:
    """A usage object as :class:`~chatparse.model.Usage`; ``None`` when it records nothing."""
    if not isinstance(value, dict):
        return None
    prompt = as_token_count(value.get("promptTokens"), problems, "promptTokens")
    output = as_token_count(value.get("completionTokens"), problems, "completionTokens")
    details = dig(value, "promptTokensDetails")
    read = as_token_count(dig(details, "cachedTokens"), problems, "cachedTokens")
    written = as_token_count(dig(details, "cacheWriteTokens"), problems, "cacheWriteTokens")
    if not any((prompt, output, read, written)):
        return None
    cached = (read or 0) + (written or 0)
    apart = bool(written) or (prompt is not None and cached > prompt)
    total = prompt + cached if apart and prompt is not None else prompt
    if total is None:
        read = written = None  # parts of an input that is not known
    return new_usage(
        input_tokens=total,
        output_tokens=output,
        cache_read_tokens=read,
        cache_write_tokens=written,
        dedup_key=dedup_key,
    )
