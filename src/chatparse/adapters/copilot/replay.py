"""The ``.jsonl`` mutation log, replayed as VS Code replays it (``objectMutationLog``).

Each line is ``{"kind", "k"?, "v"?, "i"?}``; ``k`` is a path of object keys (strings) and array
indices (integers). What each kind does to the parent of the path's last key is a table,
:data:`EDITS`; :func:`replay_log` walks the log and counts every line in the ledger.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Final, TypeAlias, cast

from chatparse.adapter import Ledger
from chatparse.decoders.jsonl import Line, Malformed, iter_lines

__all__ = ["DELETE", "EDITS", "INITIAL", "PUSH", "SET", "replay_log"]

# Log entry kinds (VS Code's objectMutationLog).
INITIAL, SET, PUSH, DELETE = 0, 1, 2, 3

_MISSING: Final = object()
_NO_OP: Final = "empty path, ignored as VS Code ignores it"
_BAD_PATH: Final = "path is not a list of keys and indices"
_NO_PARENT: Final = "the path's parent does not exist"
_LONGEST_GAP: Final = 10_000
"""The most holes a Set past an array's end may open. JavaScript's arrays are sparse, so the
editor pays nothing for them; a list holds one ``None`` each, and a damaged index such as
3,000,000,000 would ask for gigabytes. Real logs set at most one past the end."""


def replay_log(path: Path, ledger: Ledger) -> dict[str, Any] | None:
    """Replay a ``.jsonl`` session log line by line, as VS Code does; return the final state.

    Each line is one record. Where VS Code would refuse the whole file we keep what came before:

    * A line that is not valid JSON, not an object, or torn off mid-write stops the replay there
      (``malformed``); the lines after it are counted, not applied. The state so far is kept.
    * An entry before any kind-0 entry, or whose path's parent does not exist, is skipped with a
      warning; the replay goes on.
    * An entry of an unknown kind is kept raw as unknown; the replay goes on.

    Memory is the session state plus one line: a log of any length that rewrites one response
    many times costs no more than the response.
    """
    state: dict[str, Any] | None = None
    applied = 0  # the edits that went in, told to the ledger once at the end
    records = iter_lines(path)
    for record in records:
        entry = record.value if type(record) is Line else None
        if type(entry) is not dict:
            reason = record.reason if isinstance(record, Malformed) else "not an object"
            ledger.bad(
                f"line {record.line_no}", f"{reason}; the log was replayed up to the line before"
            )
            for _after in records:  # counted, not applied
                ledger.skip("log entry after a malformed line")
            break
        kind = entry.get("kind")
        if state is None or type(kind) is not int or kind not in EDITS:
            state = _replay_start(state, path, cast("Line", record), ledger)
            continue
        problem = _apply(state, kind, entry)
        if problem is None:
            applied += 1
        else:
            ledger.skip(f"log entry: {problem}")
            if problem is not _NO_OP:
                ledger.warn(f"line {record.line_no}: {problem}; entry skipped")
    ledger.use(applied)
    return state


def _replay_start(
    state: dict[str, Any] | None, path: Path, record: Line, ledger: Ledger
) -> dict[str, Any] | None:
    """An entry that is not an edit of an existing state: an Initial, an early or unknown one."""
    where = f"line {record.line_no}"
    kind = record.value.get("kind")
    kind_number = kind if isinstance(kind, int) and not isinstance(kind, bool) else None
    if kind_number == INITIAL:
        if isinstance(record.value.get("v"), dict):
            ledger.use()
            return dict(record.value["v"])
        _keep(ledger, where, "kind 0 without an object", path, record)
    elif kind_number not in (SET, PUSH, DELETE):
        _keep(ledger, where, f"kind {kind}", path, record)
    else:
        ledger.skip("log entry before the initial state")
        ledger.warn(f"{where}: a kind {kind_number} entry before any kind 0; skipped")
    return state


def _keep(ledger: Ledger, where: str, kind: str, path: Path, record: Line) -> None:
    ledger.keep_span(where, kind, path, start=record.offset, end=record.end_offset)


def _apply(state: dict[str, Any], kind: int, entry: dict[str, Any]) -> str | None:
    """Apply one Set, Push or Delete entry to ``state`` in place; say why not, if it cannot.

    Keys are object keys (strings) and array indices (integers); the walk to the parent of the
    last key never creates anything, as VS Code's does not.
    """
    keys = entry.get("k")
    if type(keys) is not list:
        return _BAD_PATH
    if not keys:
        # VS Code ignores a Set or Delete of the root; a Push needs an array to push to.
        return _NO_OP if kind != PUSH else "push without a path"
    parent: Any = state
    for key in keys[:-1]:
        # Python's own indexing takes the steps of almost every path, an object's key
        # (``requests``) and an array's index (``0``), at the least cost per line; ``_child``
        # decides whatever it refuses or would read differently from JavaScript (a number as
        # an object's key, ``-1``, ``true``). Indexing a string only leads to a string, which
        # is not a parent either way.
        try:
            if type(key) is str or (type(key) is int and key >= 0):
                parent = parent[key]
            else:
                parent = _child(parent, key)
        except (LookupError, TypeError):
            parent = _child(parent, key)
        if parent is _MISSING:
            return _NO_PARENT
    last = keys[-1]
    if type(parent) is not dict and type(parent) is not list:
        return _NO_PARENT
    if type(last) is not str and type(last) is not int:
        return _BAD_PATH
    return EDITS[kind](parent, last, entry)


def _child(node: Any, key: object) -> Any:
    """``node[key]``, or ``_MISSING`` when there is no such key or index (or it is not one)."""
    kind = type(key)
    if type(node) is dict and (kind is str or kind is int):
        return node.get(key if kind is str else str(key), _MISSING)
    if type(node) is list and kind is int and 0 <= key < len(node):  # type: ignore[operator]
        return node[key]  # type: ignore[call-overload]
    return _MISSING


def _assign(parent: dict[str, Any] | list[Any], key: str | int, value: Any) -> str | None:
    if isinstance(parent, dict):
        parent[str(key)] = value
        return None
    if not isinstance(key, int) or key < 0:
        return "an array index that is not a number"
    if key < len(parent):
        parent[key] = value
    elif key - len(parent) > _LONGEST_GAP:
        return "an array index far past the array's end"
    else:  # JavaScript arrays grow on assignment; the gap holds undefined, saved as null
        parent.extend([None] * (key - len(parent)))
        parent.append(value)
    return None


def _assign_value(
    parent: dict[str, Any] | list[Any], key: str | int, entry: dict[str, Any]
) -> str | None:
    return _assign(parent, key, entry.get("v"))


def _delete(
    parent: dict[str, Any] | list[Any], key: str | int, _entry: dict[str, Any]
) -> str | None:
    if isinstance(parent, dict):
        parent.pop(str(key), None)
    elif isinstance(key, int) and 0 <= key < len(parent):
        parent[key] = None  # ``delete array[i]`` leaves a hole
    return None


def _push(parent: dict[str, Any] | list[Any], key: str | int, entry: dict[str, Any]) -> str | None:
    # An object's key (a response's ``response``) is the commonest place: looked up inline.
    items = parent.get(key) if type(key) is str and type(parent) is dict else _child(parent, key)
    fresh = items is _MISSING or items is None
    if fresh:
        items = []
    elif type(items) is not list:
        return "push onto a value that is not an array"
    values = entry.get("v")
    if values is not None and type(values) is not list:
        return "push of a value that is not an array"
    truncate = entry.get("i")
    # One slice assignment truncates to ``i`` items (when given) and appends ``v``.
    items[truncate if type(truncate) is int and truncate >= 0 else len(items) :] = values or ()
    return _assign(parent, key, items) if fresh else None


_Edit: TypeAlias = Callable[[dict[str, Any] | list[Any], str | int, dict[str, Any]], str | None]

EDITS: Final[dict[int, _Edit]] = {SET: _assign_value, PUSH: _push, DELETE: _delete}
"""What each kind of edit does to the parent of its path's last key."""
