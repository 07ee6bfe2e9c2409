"""Accounting for the records an adapter reads, so that nothing is lost without a trace.

A *record* is the smallest unit a source stores on its own: a line of a JSON Lines file, a row
of a database table, an element of a document's message array, an event of an event log. Every
record an adapter reads goes to exactly one place:

used
    It went into the output: a message, a part of one (a tool result paired into its call, a
    usage merged into its response), or the conversation's own fields (a title record).
skipped
    Known noise, counted by reason: a record type the adapter knows and deliberately leaves out
    (progress ticks, snapshots of files, UI state).
malformed
    It could not be decoded (not JSON, torn, of the wrong JSON type for its place).
unknown
    It decoded, but its shape is not one the adapter knows: it is kept as its raw text in an
    :class:`~chatparse.model.UnknownRecord`, so that a newer format loses nothing.

A :class:`Ledger` counts them as the adapter goes and turns the count into the conversation's
:class:`~chatparse.model.Diagnostics`, whose ``balanced`` property then holds by construction.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable, Iterator

from attrs import define, evolve, field, frozen

from chatparse.adapter.payloads import strip_payloads
from chatparse.decoders.jsonl import Line, Malformed, iter_lines, read_spans
from chatparse.decoders.text import repair_surrogates
from chatparse.model import Diagnostics, UnknownRecord

__all__ = ["Ledger"]


@frozen
class _Span:
    """An unknown record not read yet: its bytes in a file, read once when the account is made."""

    where: str
    kind: str | None
    path: str
    start: int
    end: int
    producer_version: str | None


@define
class Ledger:
    """Where every record of one conversation went.

    Made empty (``Ledger()``) and told of each record through its methods; read through
    :meth:`diagnostics`.

    Attributes:
        seen: Every record read so far.
        used: Records that went into the output.
        malformed: Records that could not be decoded.
        skipped: Known noise, counted by reason.
        warnings: Warnings about records or the container, in the order said.
    """

    seen: int = field(default=0, init=False)
    used: int = field(default=0, init=False)
    malformed: int = field(default=0, init=False)
    skipped: Counter[str] = field(factory=Counter, init=False)
    warnings: list[str] = field(factory=list, init=False)
    # Unknown records, some still spans of a file: read them through diagnostics().
    _unknown: list[UnknownRecord | _Span] = field(factory=list, init=False, repr=False)

    def use(self, count: int = 1) -> None:
        """A record went into the output; or ``count`` of them, told once for a whole batch."""
        self.seen += count
        self.used += count

    def skip(self, reason: str, count: int = 1) -> None:
        """A record (or ``count`` of them) is known noise, counted under ``reason``."""
        self.seen += count
        self.skipped[reason] += count

    def bad(self, where: str | None = None, reason: str | None = None) -> None:
        """A record could not be decoded; with ``where`` and ``reason``, say so in a warning."""
        self.seen += 1
        self.malformed += 1
        if where is not None and reason is not None:
            self.warnings.append(f"{where}: {reason}")

    def decoded_lines(self, path: str | os.PathLike[str]) -> Iterator[Line]:
        """The lines of the JSON Lines file at ``path`` that decode, in order.

        Each line that does not is a malformed record, told here (``line N`` and why), so that
        a reader's loop sees decoded values only; a value may still be of any JSON type.
        """
        for line in iter_lines(path):
            if isinstance(line, Malformed):
                self.bad(f"line {line.line_no}", line.reason)
            else:
                yield line

    def keep(
        self, where: str, kind: str | None, raw: str, producer_version: str | None = None
    ) -> None:
        """A record of a shape the adapter does not know, kept as its raw text."""
        self.seen += 1
        self._unknown.append(
            UnknownRecord(
                where=where,
                type=kind,
                raw=strip_payloads(repair_surrogates(raw))[0],
                producer_version=producer_version,
            )
        )

    def keep_span(  # noqa: PLR0913 -- a record's place in its file
        self,
        where: str,
        kind: str | None,
        path: str | os.PathLike[str],
        *,
        start: int,
        end: int,
        producer_version: str | None = None,
    ) -> None:
        """Like :meth:`keep`, for a record whose bytes are ``start:end`` of the file at ``path``.

        The text is read when :meth:`diagnostics` is called, all such records of a file at once:
        unknown records are rare, and reading those few again is cheaper than keeping the text
        of every record while parsing. The line break at the end is not part of the text.
        """
        self.seen += 1
        self._unknown.append(_Span(where, kind, os.fspath(path), start, end, producer_version))

    def warn(self, text: str) -> None:
        """A warning about the conversation as a whole (a damaged store, a newer version)."""
        self.warnings.append(text)

    def warn_once(self, text: str) -> None:
        """:meth:`warn`, unless the same text was already said."""
        if text not in self.warnings:
            self.warnings.append(text)

    def merge(self, other: Ledger, prefix: str = "") -> None:
        """Add ``other``'s account to this one: a part of the conversation read apart.

        ``prefix`` (such as ``"transcript: "``) is put before the other's warnings and the
        ``where`` of its unknown records, to say which part they come from.
        """
        self.seen += other.seen
        self.used += other.used
        self.malformed += other.malformed
        self.skipped.update(other.skipped)
        self._unknown += [evolve(item, where=prefix + item.where) for item in other._unknown]
        self.warnings += [prefix + w for w in other.warnings]

    def diagnostics(self, warnings: Iterable[str] | None = None) -> Diagnostics:
        """The account as :class:`~chatparse.model.Diagnostics`.

        ``warnings`` replaces the ledger's own list, for adapters that add warnings about the
        container (a damaged store) to those about its records.

        Raises:
            SourceUnavailableError: A file holding unknown records kept by :meth:`keep_span`
                can no longer be read.
        """
        return Diagnostics(
            records_seen=self.seen,
            records_used=self.used,
            malformed=self.malformed,
            skipped=dict(sorted(self.skipped.items())),
            unknown=_read_unknown(self._unknown),
            warnings=tuple(self.warnings if warnings is None else warnings),
        )


def _read_unknown(items: list[UnknownRecord | _Span]) -> list[UnknownRecord]:
    """The unknown records in the order they were kept, each span read from its file."""
    spans_by_path: dict[str, list[_Span]] = {}
    for item in items:
        if isinstance(item, _Span):
            spans_by_path.setdefault(item.path, []).append(item)
    texts: dict[int, str] = {}
    for path, spans in spans_by_path.items():
        read = read_spans(path, [(span.start, span.end) for span in spans])
        texts |= {id(span): text for span, text in zip(spans, read, strict=True)}
    return [
        item
        if isinstance(item, UnknownRecord)
        else UnknownRecord(
            where=item.where,
            type=item.kind,
            raw=strip_payloads(texts[id(item)])[0],
            producer_version=item.producer_version,
        )
        for item in items
    ]
