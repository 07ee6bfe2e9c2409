"""Pairing tool calls with their results, which sources write as separate records.

A model's tool call and the tool's answer are two records, often far apart, linked by a call id.
:class:`ToolCallPairing` holds the calls of one conversation while their results may still
arrive and answers three questions at the end: which result went to which call, which results
answered no call we saw (*orphans*: kept by the adapter as ``tool_result`` messages, so nothing
is lost), and which calls were never answered (their ``output`` stays ``None``).

Rules, the same in every adapter:

* a result goes to the call with its id; a call without an id cannot be answered by id (an
  adapter whose source pairs by position answers the :class:`PendingCall` itself);
* the first result of a call wins: a second one for the same call is a replay, and is counted
  in :attr:`ToolCallPairing.repeated`;
* two calls with one id: a result goes to the earliest that is still unanswered.
"""

from __future__ import annotations

from typing import Any

from attrs import define, field

from chatparse.adapter.build import new_tool_call
from chatparse.model import ToolCall

__all__ = ["PendingCall", "ToolCallPairing"]


@define(eq=False)  # identity: a call can key a dict (which message made it, say)
class PendingCall:
    """A tool call while its result may still arrive; :meth:`freeze` makes the model's.

    Attributes:
        id: The source's call id; ``None`` when it has none.
        name: The tool's name.
        input: The call's arguments, as a JSON value.
        output: The result as text, once answered (it may stay ``None``: a result without
            text).
        is_error: Whether the result says the call failed; ``None`` when not recorded.
        result: The result's structured form, when the source recorded one besides the text.
        answered: Whether a result arrived (not the same as ``output is not None``).
    """

    id: str | None
    name: str
    input: Any = None
    output: str | None = None
    is_error: bool | None = None
    result: Any = None
    answered: bool = False

    def answer(
        self, output: str | None, *, is_error: bool | None = None, result: Any = None
    ) -> bool:
        """Record the result; ``False`` (and nothing changed) when the call was answered."""
        if self.answered:
            return False
        self.output, self.is_error, self.result, self.answered = output, is_error, result, True
        return True

    def freeze(self) -> ToolCall:
        """The :class:`~chatparse.model.ToolCall` as it stands."""
        return new_tool_call(
            id=self.id,
            name=self.name,
            input=self.input,
            output=self.output,
            is_error=self.is_error,
            result=self.result,
        )


@define
class ToolCallPairing:
    """The tool calls of one conversation, by id, until their results arrive.

    Attributes:
        calls: Every call, in the order they were made.
        orphans: Results that answered no call (the adapter keeps their text).
        repeated: Results for a call that already had one (replays; the first result stayed).
    """

    calls: list[PendingCall] = field(factory=list)
    orphans: int = 0
    repeated: int = 0
    _waiting: dict[str, list[PendingCall]] = field(factory=dict, init=False, repr=False)

    def call(self, ident: str | None, name: str, arguments: Any = None) -> PendingCall:
        """A new call, waiting for its result when it has an id."""
        pending = PendingCall(id=ident, name=name, input=arguments)
        self.calls.append(pending)
        if ident is not None:
            waiting = self._waiting.get(ident)
            if waiting is None:
                self._waiting[ident] = [pending]
            else:
                waiting.append(pending)
        return pending

    def find(self, ident: str) -> PendingCall | None:
        """The earliest unanswered call with this id, else the latest answered one, else None."""
        calls = self._waiting.get(ident)
        if calls is None:
            return None
        for call in calls:
            if not call.answered:
                return call
        return calls[-1]

    def answer(
        self,
        ident: str | None,
        output: str | None,
        *,
        is_error: bool | None = None,
        result: Any = None,
    ) -> PendingCall | None:
        """Give a result to its call; the call, or ``None`` for an orphan (counted).

        A result for a call that already has one changes nothing and is counted as
        :attr:`repeated`; the call is still returned, since the result was not an orphan.
        """
        call = self.find(ident) if ident is not None else None
        if call is None:
            self.orphans += 1
            return None
        if not call.answer(output, is_error=is_error, result=result):
            self.repeated += 1
        return call

    def unanswered(self) -> list[PendingCall]:
        """The calls no result came for, in call order."""
        return [c for c in self.calls if not c.answered]
