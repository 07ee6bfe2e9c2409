"""Accounting for the records an adapter reads, so that nothing is lost without a trace.

Every record read goes to exactly one place: used for the output, skipped as known noise (by
reason), malformed, or kept raw as unknown. A :class:`Ledger` counts them as the adapter goes and
turns the count into the conversation's :class:`~chatparse.model.Diagnostics`, whose ``balanced``
property then holds by construction.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from attrs import define, field

from chatparse.decoders.text import repair_surrogates
from chatparse.model import Diagnostics, UnknownRecord

__all__ = ["Ledger"]


@define
class Ledger:
    """Where every record of one conversation went."""

    seen: int = 0
    used: int = 0
    malformed: int = 0
    skipped: Counter[str] = field(factory=Counter)
    unknown: list[UnknownRecord] = field(factory=list)
    warnings: list[str] = field(factory=list)

    def use(self, count: int = 1) -> None:
        """A record went into the output; or ``count`` of them, told once for a whole batch."""
        self.seen += count
        self.used += count

    def skip(self, reason: str) -> None:
        """A record is known noise, counted under ``reason``."""
        self.seen += 1
        self.skipped[reason] += 1

    def bad(self, where: str | None = None, reason: str | None = None) -> None:
        """A record could not be decoded; with ``where`` and ``reason``, say so in a warning."""
        self.seen += 1
        self.malformed += 1
        if where is not None and reason is not None:
            self.warnings.append(f"{where}: {reason}")

    def keep(
        self, where: str, kind: str | None, raw: str, producer_version: str | None = None
    ) -> None:
        """A record of a shape the adapter does not know, kept as its raw text."""
        self.seen += 1
        self.unknown.append(
            UnknownRecord(
                where=where,
                type=kind,
                raw=repair_surrogates(raw),
                producer_version=producer_version,
            )
        )

    def diagnostics(self, warnings: Iterable[str] | None = None) -> Diagnostics:
        """The account as :class:`~chatparse.model.Diagnostics`.

        ``warnings`` replaces the ledger's own list, for adapters that add warnings about the
        container (a damaged store) to those about its records.
        """
        return Diagnostics(
            records_seen=self.seen,
            records_used=self.used,
            malformed=self.malformed,
            skipped=dict(sorted(self.skipped.items())),
            unknown=self.unknown,
            warnings=tuple(self.warnings if warnings is None else warnings),
        )
