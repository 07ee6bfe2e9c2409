"""Per-model token prices, read from a file in the format of LiteLLM's price table.

LiteLLM's ``model_prices_and_context_window.json`` is the price file most tools read. It maps a
model name (``claude-sonnet-4-5-20250929``, ``gpt-5``, ``anthropic/claude-...``) to an object of
per-token prices in US dollars:

``input_cost_per_token`` / ``output_cost_per_token``
    Uncached prompt tokens, and generated tokens (reasoning included).
``cache_read_input_token_cost`` / ``cache_creation_input_token_cost``
    Prompt tokens read from, and written into, a prompt cache.
``<any of the above>_above_<N>k_tokens``
    The price once a request's prompt is over ``N`` thousand tokens (long-context pricing,
    such as ``input_cost_per_token_above_200k_tokens``). It applies to the whole request, as the
    providers bill it; of several tiers, the highest one the prompt is over applies.

Everything else in an entry (context sizes, modes, per-image prices) is ignored, and so is an
entry without both an input and an output price (the file's ``sample_spec`` is one). chatparse
ships no prices and never fetches any: the caller names the file.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from attrs import frozen

from chatparse.errors import PriceFileError
from chatparse.model import Usage

__all__ = ["ModelPrice", "PriceTable"]

_PRICE_FIELDS: Final = {
    "input": "input_cost_per_token",
    "output": "output_cost_per_token",
    "cache_read": "cache_read_input_token_cost",
    "cache_write": "cache_creation_input_token_cost",
}
_TIER: Final = re.compile(r"(?P<field>.+)_above_(?P<thousands>\d+)k_tokens")


@frozen(kw_only=True)
class ModelPrice:
    """Prices per token of one model, for prompts up to the first tier's threshold.

    Attributes:
        input: Per uncached prompt token.
        output: Per generated token.
        cache_read: Per prompt token read from a cache; ``None`` when the file has none.
        cache_write: Per prompt token written into a cache; ``None`` when the file has none.
        tiers: ``(threshold, prices)`` pairs, lowest threshold first: ``prices`` apply to a
            request whose prompt has more than ``threshold`` tokens.

    .. versionadded:: 0.2
    """

    input: float
    output: float
    cache_read: float | None = None
    cache_write: float | None = None
    tiers: tuple[tuple[int, ModelPrice], ...] = ()

    def cost(self, usage: Usage) -> float | None:
        """The cost of one response; ``None`` when a recorded count has no price here."""
        prompt = usage.input_tokens or 0
        price = next((p for limit, p in reversed(self.tiers) if prompt > limit), self)
        parts = (
            (usage.uncached_input_tokens, price.input),
            (usage.cache_read_tokens, price.cache_read),
            (usage.cache_write_tokens, price.cache_write),
            (usage.output_tokens, price.output),
        )
        if any(count and per_token is None for count, per_token in parts):
            return None
        return sum((count or 0) * (per_token or 0.0) for count, per_token in parts)


@frozen
class PriceTable:
    """Prices by model name, as :meth:`from_litellm` reads them from a file.

    A model is found by its exact name, else by its name without a ``provider/`` prefix, else
    as the last part of an entry's ``provider/name`` key.

    .. versionadded:: 0.2
    """

    models: Mapping[str, ModelPrice]

    @classmethod
    def from_litellm(cls, path: str | os.PathLike[str]) -> PriceTable:
        """Read a LiteLLM-format price file.

        Raises:
            PriceFileError: The file cannot be read, is not JSON (the error names the line),
                is not an object of objects, or has a price that is not a non-negative number.
        """
        where = os.fspath(path)
        try:
            text = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise PriceFileError(where, None, f"cannot be read: {exc}") from exc
        try:
            document = json.loads(text)
        except json.JSONDecodeError as exc:
            raise PriceFileError(where, exc.lineno, f"not JSON: {exc.msg}") from exc
        if not isinstance(document, dict):
            raise PriceFileError(where, 1, "not a JSON object of models")
        models: dict[str, ModelPrice] = {}
        for name, entry in document.items():
            price = _model_price(where, text, name, entry)
            if price is not None:
                models[name] = price
        return cls(_with_short_names(models))

    def price(self, model: str | None) -> ModelPrice | None:
        """The prices of ``model``, or ``None`` when the table has none."""
        if not model:
            return None
        return self.models.get(model) or self.models.get(model.rpartition("/")[2])

    def cost(self, model: str | None, usage: Usage) -> float | None:
        """The cost of one response of ``model``; ``None`` when it cannot be priced."""
        price = self.price(model)
        return price.cost(usage) if price is not None else None


def _model_price(path: str, text: str, name: str, entry: Any) -> ModelPrice | None:
    if not isinstance(entry, dict):
        return None
    base = {slot: _per_token(path, text, name, entry, key) for slot, key in _PRICE_FIELDS.items()}
    tiers: dict[int, dict[str, float | None]] = {}
    for key in entry:
        match = _TIER.fullmatch(key)
        slot = next((s for s, f in _PRICE_FIELDS.items() if match and match["field"] == f), None)
        if match is not None and slot is not None:
            tier = tiers.setdefault(int(match["thousands"]) * 1000, dict(base))
            tier[slot] = _per_token(path, text, name, entry, key)
    priced_tiers = ((limit, _priced(tiers[limit])) for limit in sorted(tiers))
    return _priced(base, tuple((limit, p) for limit, p in priced_tiers if p is not None))


def _priced(
    slots: dict[str, float | None], tiers: tuple[tuple[int, ModelPrice], ...] = ()
) -> ModelPrice | None:
    """The prices in ``slots``, or ``None`` without both an input and an output price."""
    input_price, output_price = slots["input"], slots["output"]
    if input_price is None or output_price is None:
        return None
    return ModelPrice(
        input=input_price,
        output=output_price,
        cache_read=slots["cache_read"],
        cache_write=slots["cache_write"],
        tiers=tiers,
    )


def _per_token(path: str, text: str, name: str, entry: dict[str, Any], key: str) -> float | None:
    value = entry.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not value >= 0:
        raise PriceFileError(
            path, _line_of(text, name), f"{name}: {key} is {value!r}, not a price per token"
        )
    return float(value)


def _line_of(text: str, name: str) -> int | None:
    """The line where the entry of ``name`` starts, for an error message."""
    at = text.find(json.dumps(name))
    return text.count("\n", 0, at) + 1 if at >= 0 else None


def _with_short_names(models: dict[str, ModelPrice]) -> dict[str, ModelPrice]:
    """``models``, plus each ``provider/name`` entry under ``name`` where that is not taken."""
    short = {key.rpartition("/")[2]: price for key, price in models.items() if "/" in key}
    return {**short, **models}
