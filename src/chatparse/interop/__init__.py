"""Exports to the formats other tools already read.

``to_arrow`` and ``ARROW_SCHEMAS`` (extra ``arrow``): conversations as Arrow tables, for DuckDB,
polars, pandas and Parquet. ``to_atif``: an ATIF trajectory, for evaluation and training pipelines.
``to_openai_messages``: OpenAI chat-completions messages, for fine-tuning sets. ``to_otel_spans``
and ``send_otlp`` (extra ``otel``): OpenTelemetry GenAI spans, for observability tools. Each export
is imported the first time it is used, so ``import chatparse.interop`` costs nothing and needs no
extra; a missing extra raises :class:`~chatparse.errors.MissingExtraError` naming it.

.. versionadded:: 0.2
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from chatparse._optional import import_extra

if TYPE_CHECKING:
    from chatparse.interop.arrow import ARROW_SCHEMAS, to_arrow
    from chatparse.interop.atif import to_atif
    from chatparse.interop.openai import to_openai_messages
    from chatparse.interop.otel import send_otlp, to_otel_spans
    from chatparse.interop.parquet import write_parquet

__all__ = [
    "ARROW_SCHEMAS",
    "send_otlp",
    "to_arrow",
    "to_atif",
    "to_openai_messages",
    "to_otel_spans",
    "write_parquet",
]

_OTLP_EXPORTER = "opentelemetry.exporter.otlp.proto.http.trace_exporter"

# name -> (module, the third-party package it needs and the extra that installs it, if any)
_HOMES: dict[str, tuple[str, tuple[str, str] | None]] = {
    "ARROW_SCHEMAS": ("chatparse.interop.arrow", ("pyarrow", "arrow")),
    "send_otlp": ("chatparse.interop.otel", (_OTLP_EXPORTER, "otel")),
    "to_arrow": ("chatparse.interop.arrow", ("pyarrow", "arrow")),
    "to_atif": ("chatparse.interop.atif", None),
    "to_openai_messages": ("chatparse.interop.openai", None),
    "to_otel_spans": ("chatparse.interop.otel", ("opentelemetry.trace", "otel")),
    "write_parquet": ("chatparse.interop.parquet", ("pyarrow.parquet", "arrow")),
}


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        msg = f"module 'chatparse.interop' has no attribute {name!r}"
        raise AttributeError(msg)
    module, needs = _HOMES[name]
    if needs is not None:
        import_extra(*needs)
    value = getattr(__import__(module, fromlist=(name,)), name)
    globals()[name] = value  # later lookups skip __getattr__
    return value


def __dir__() -> list[str]:
    return sorted({*__all__, *globals()})
