"""How Hermes's sessions make conversations: compression chains, branches, resets, sub-agents.

A session row may name a ``parent_session_id``. What the child is to its parent, by Hermes's
own rules (``hermes_state_common``):

* a **branch** (``/branch``): ``model_config._branched_from`` names the parent, or the parent
  ended ``branched`` before the child started;
* a **reset** (``/new`` on a messaging platform, an idle or daily reset):
  ``model_config._reset_from`` names the parent, or the parent ended with a reset reason and
  both share one non-empty ``session_key``;
* a **continuation**: the parent ended ``compression`` (context compression closes a session
  and goes on in a new one), and the child is no delegate (``_delegate_from``) and no tool run;
* otherwise a **sub-agent** run (a delegated task).

A conversation is a session that is no continuation and no sub-agent, with its chain of
continuations after it, oldest first; its sub-agents (of any session of the chain) are read
inside it. Branches and resets are conversations of their own.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final

from attrs import define, field

from chatparse.adapter import as_nonempty_text
from chatparse.decoders.value import decode

__all__ = ["Lineage", "relation"]

_RESETS: Final = frozenset(
    {"session_reset", "session_switch", "idle", "daily", "suspended", "resume_pending_expired"}
)
_COMPRESSIONS: Final = frozenset({"compression", "compaction"})


def _config(row: dict[str, Any]) -> dict[str, Any]:
    raw = row.get("model_config")
    value = decode(raw) if isinstance(raw, str) and raw.strip() else None
    return value if isinstance(value, dict) else {}


def _number(value: object) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def relation(child: dict[str, Any], parent: dict[str, Any]) -> str:
    """``"branch"``, ``"reset"``, ``"continuation"`` or ``"subagent"``: what ``child`` is."""
    config, parent_id = _config(child), parent.get("id")
    ended = parent.get("end_reason")
    started, parent_ended = _number(child.get("started_at")), _number(parent.get("ended_at"))
    after_end = started is not None and parent_ended is not None and started >= parent_ended
    if config.get("_branched_from") == parent_id or (ended == "branched" and after_end):
        return "branch"
    key = as_nonempty_text(child.get("session_key"))
    if config.get("_reset_from") == parent_id or (
        ended in _RESETS and key is not None and key == parent.get("session_key")
    ):
        return "reset"
    delegated = config.get("_delegate_from") == parent_id or child.get("source") == "tool"
    if ended in _COMPRESSIONS and not delegated:
        return "continuation"
    return "subagent"


@define
class Lineage:
    """The sessions of one database, by id, and what each child is to its parent."""

    rows: dict[str, dict[str, Any]] = field(factory=dict)
    children: dict[str, list[tuple[str, str]]] = field(factory=dict)
    """Parent id to ``(child id, relation)``, children by start time."""
    nested: set[str] = field(factory=set)
    """Sessions read inside another conversation: continuations and sub-agents."""

    @classmethod
    def of(cls, rows: Iterable[dict[str, Any]]) -> Lineage:
        """The lineage of the session rows ``rows``."""
        lineage = cls()
        for row in rows:
            ident = as_nonempty_text(row.get("id"))
            if ident is not None:
                lineage.rows.setdefault(ident, row)
        order = sorted(
            lineage.rows, key=lambda i: (_number(lineage.rows[i].get("started_at")) or 0, i)
        )
        for ident in order:
            row = lineage.rows[ident]
            parent = as_nonempty_text(row.get("parent_session_id"))
            if parent is None or parent == ident or parent not in lineage.rows:
                continue
            kind = relation(row, lineage.rows[parent])
            lineage.children.setdefault(parent, []).append((ident, kind))
            if kind in ("continuation", "subagent"):
                lineage.nested.add(ident)
        return lineage

    def roots(self) -> list[str]:
        """The sessions that start a conversation, by id.

        Every session that is no continuation and no sub-agent; and, so that no session is
        lost, one nested session reached from none of those (a loop of parents, a second
        continuation of one session), the smallest id first, until every session is reached.
        """
        roots = sorted(ident for ident in self.rows if ident not in self.nested)
        reached: set[str] = set()
        for root in roots:
            reached |= self._reach(root)
        while unreached := sorted(set(self.rows) - reached):
            roots.append(unreached[0])
            reached |= self._reach(unreached[0])
        return sorted(roots)

    def _reach(self, root: str) -> set[str]:
        reached, waiting = set(), [root]
        while waiting:
            chain = self.chain(waiting.pop())
            fresh = [ident for ident in chain if ident not in reached]
            reached.update(fresh)
            waiting += [s for s in self.subagents(chain) if s not in reached]
        return reached

    def chain(self, root: str) -> list[str]:
        """``root`` and its continuations, oldest first."""
        chain, seen = [root], {root}
        while True:
            following = [
                child
                for child, kind in self.children.get(chain[-1], [])
                if kind == "continuation" and child not in seen and child in self.nested
            ]
            if not following:
                return chain
            chain.append(following[0])
            seen.add(following[0])

    def subagents(self, chain: list[str]) -> list[str]:
        """The sub-agent runs started by any session of ``chain``, by start time."""
        return [
            child
            for ident in chain
            for child, kind in self.children.get(ident, [])
            if kind == "subagent" and child in self.nested
        ]

    def related(self, root: str) -> dict[str, str]:
        """What a root that has a parent is to it: ``{"parent_session": id, "relation": kind}``."""
        parent = as_nonempty_text(self.rows[root].get("parent_session_id"))
        if parent is None or parent not in self.rows or parent == root:
            return {"parent_session": parent} if parent else {}
        return {"parent_session": parent, "relation": relation(self.rows[root], self.rows[parent])}
