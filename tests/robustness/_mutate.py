"""Hypothesis-driven damage to real-shaped records: JSON trees, JSON Lines files, SQLite rows."""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any, Final

from hypothesis import strategies as st

__all__ = ["dump", "mutate_db", "mutate_document", "mutate_jsonl", "mutate_tree"]

# A placeholder string swapped for deep nesting after ``json.dumps``, which would recurse.
_DEEP: Final = "\x00chatparse-deep\x00"
_DEEP_JSON: Final = json.dumps(_DEEP)
_EMOJI: Final = "\U0001f469\u200d\U0001f4bb"  # woman technologist: a ZWJ sequence of 11 bytes
_BOM: Final = b"\xef\xbb\xbf"

# Strings that have broken readers before: NUL, right-to-left overrides, a lone surrogate of
# each kind, separators JSON allows raw but JavaScript does not, a ZWJ emoji, CR, a data URI.
WEIRD: Final = (
    "",
    "\x00",
    "a\x00b",
    "\u202eevil\u202c",
    "\u200f\u05e9\u05dc\u05d5\u05dd",
    "\ud800",
    "\udfff",
    "x\ud83dy",
    "\u2028\u2029",
    _EMOJI * 3,
    "\r",
    "\r\n",
    "\ufeff",
    "\ufffd",
    "<system-reminder>",
    "</command-name>",
    "data:image/png;base64," + "QUJD" * 40,
    "1e400",
    "-0",
    "2025-13-45T99:99:99Z",
    "2025-01-01T00:00:00",
)

text = st.text(
    st.characters(codec="utf-8") | st.sampled_from("\ud800\udc00\x00\u202e"), max_size=20
)
scalars = (
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats()
    | text
    | st.sampled_from(WEIRD)
)
values: st.SearchStrategy[Any] = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(text, inner, max_size=3),
    max_leaves=6,
)
TYPE_KEYS: Final = ("type", "kind", "role", "subtype")


def _paths(value: Any, limit: int = 4000) -> list[tuple[Any, ...]]:
    """Every path into ``value`` (breadth first, at most ``limit``), the root ``()`` first."""
    found: list[tuple[Any, ...]] = [()]
    queue: list[tuple[tuple[Any, ...], Any]] = [((), value)]
    while queue and len(found) < limit:
        path, node = queue.pop(0)
        children: list[tuple[Any, Any]] = []
        if isinstance(node, dict):
            children = list(node.items())
        elif isinstance(node, list):
            children = list(enumerate(node))
        for key, child in children:
            found.append((*path, key))
            queue.append(((*path, key), child))
    return found


def _get(value: Any, path: tuple[Any, ...]) -> Any:
    for key in path:
        value = value[key]
    return value


def _replacement(data: st.DataObject, old: Any) -> tuple[bool, Any]:
    """A new value for ``old``, or ``(False, None)`` to delete it."""
    op = data.draw(
        st.sampled_from(
            ["delete", "null", "value", "weird", "huge", "deep", "wrap", "as-string", "type"]
        ),
        label="op",
    )
    new: Any
    if op == "delete":
        return False, None
    if op == "null":
        new = None
    elif op == "value":
        new = data.draw(values, label="value")
    elif op == "weird":
        new = data.draw(st.sampled_from(WEIRD), label="weird")
    elif op == "huge":
        size = data.draw(st.sampled_from([70_000, 300_000, 1_100_000]), label="huge size")
        new = data.draw(st.sampled_from(["x", _EMOJI, "\ud800", "A"]), label="unit") * size
    elif op == "deep":
        new = _DEEP
    elif op == "wrap":
        new = data.draw(st.sampled_from([[old], {"value": old}, [[[old]]]]), label="wrapped")
    elif op == "as-string":
        new = json.dumps(old)  # JSON in a string, as Trae and Cursor nest it
    elif isinstance(old, dict):  # "type": an unknown record or part type
        new = dict(old)
        key = data.draw(st.sampled_from(TYPE_KEYS), label="type key")
        new[key] = data.draw(st.sampled_from(["zz-unknown", 99, None, ""]) | text, label="tag")
    else:
        new = data.draw(st.sampled_from(["zz-unknown", "assistant", "user", "tool"]))
    return True, new


def mutate_tree(data: st.DataObject, value: Any, count: int) -> Any:
    """``value`` with ``count`` random nodes replaced, deleted, wrapped or retyped."""
    for _ in range(count):
        paths = _paths(value)
        path = paths[data.draw(st.integers(0, len(paths) - 1), label="node")]
        keep, new = _replacement(data, _get(value, path))
        if not path:
            value = new if keep else {}
            continue
        parent = _get(value, path[:-1])
        if keep:
            parent[path[-1]] = new
        else:
            del parent[path[-1]]
    return value


def dump(data: st.DataObject, value: Any) -> bytes:
    """``value`` as JSON bytes; lone surrogates raw or escaped, deep placeholders expanded."""
    ascii_only = data.draw(st.booleans(), label="ensure_ascii")
    text_form = json.dumps(value, ensure_ascii=ascii_only)
    if _DEEP_JSON in text_form:
        depth = data.draw(st.sampled_from([100, 1023, 1025, 100_000]), label="depth")
        opener = data.draw(st.sampled_from(["[", '{"a":']), label="opener")
        closer = "]" if opener == "[" else "}"
        text_form = text_form.replace(_DEEP_JSON, opener * depth + "1" + closer * depth)
    # "surrogatepass" writes a lone surrogate as the invalid UTF-8 a buggy writer would leave.
    return text_form.encode("utf-8", "surrogatepass")


def _loads(raw: bytes) -> tuple[bool, Any]:
    try:
        return True, json.loads(raw)
    except ValueError:
        return False, None


def _split(data: st.DataObject, lines: list[bytes], index: int) -> None:
    cut = data.draw(st.integers(0, len(lines[index])), label="cut")
    line = lines[index]
    lines[index : index + 1] = [line[:cut] + b"\n", line[cut:]]


def _truncate(data: st.DataObject, lines: list[bytes], index: int) -> None:
    cut = data.draw(st.integers(0, len(lines[index])), label="cut")
    lines[index:] = [lines[index][:cut]]


def _split_emoji(data: st.DataObject, lines: list[bytes], index: int) -> None:
    # An emoji whose bytes a line break cuts in two: two halves, neither valid UTF-8.
    emoji = _EMOJI.encode()
    cut = data.draw(st.integers(1, len(emoji) - 1), label="emoji cut")
    lines[index] = lines[index].rstrip(b"\n") + emoji[:cut] + b"\n" + emoji[cut:] + b"\n"


def _invalid_utf8(data: st.DataObject, lines: list[bytes], index: int) -> None:
    cut = data.draw(st.integers(0, len(lines[index])), label="cut")
    lines[index] = lines[index][:cut] + b"\xff\xfe\xc0\x80" + lines[index][cut:]


def _swap(data: st.DataObject, lines: list[bytes], index: int) -> None:
    other = data.draw(st.integers(0, len(lines) - 1), label="other line")
    lines[index], lines[other] = lines[other], lines[index]


def _garbage(data: st.DataObject, lines: list[bytes], index: int) -> None:
    lines.insert(index, data.draw(st.binary(max_size=40), label="garbage") + b"\n")


def _drop(_data: st.DataObject, lines: list[bytes], index: int) -> None:
    del lines[index]


def _duplicate(_data: st.DataObject, lines: list[bytes], index: int) -> None:
    lines.insert(index, lines[index])


def _bom(_data: st.DataObject, lines: list[bytes], index: int) -> None:
    lines.insert(index, _BOM + lines[index])


def _crlf(_data: st.DataObject, lines: list[bytes], _index: int) -> None:
    lines[:] = [line.replace(b"\n", b"\r\n") for line in lines]


def _blank(_data: st.DataObject, lines: list[bytes], index: int) -> None:
    lines.insert(index, b" \t\r\n")


_LINE_DAMAGE: Final = {
    "drop": _drop,
    "duplicate": _duplicate,
    "swap": _swap,
    "split": _split,
    "split-emoji": _split_emoji,
    "invalid-utf8": _invalid_utf8,
    "bom": _bom,
    "crlf": _crlf,
    "garbage": _garbage,
    "blank": _blank,
    "truncate": _truncate,
}


def _line_damage(data: st.DataObject, lines: list[bytes]) -> list[bytes]:
    """Damage at the level of lines and bytes: what a crash, an editor or a copy can leave."""
    if not lines:
        return lines
    op = data.draw(st.sampled_from(sorted(_LINE_DAMAGE)), label="line op")
    _LINE_DAMAGE[op](data, lines, data.draw(st.integers(0, len(lines) - 1), label="line"))
    return lines


def mutate_jsonl(data: st.DataObject, raw: bytes) -> bytes:
    """A JSON Lines file with some records mutated and some lines damaged."""
    lines = raw.splitlines(keepends=True)
    parsed = [_loads(line) for line in lines]
    candidates = [i for i, (ok, _value) in enumerate(parsed) if ok]
    if candidates:
        chosen = data.draw(
            st.lists(st.sampled_from(candidates), min_size=1, max_size=3, unique=True),
            label="records",
        )
        for index in chosen:
            count = data.draw(st.integers(1, 3), label="mutations")
            value = mutate_tree(data, parsed[index][1], count)
            lines[index] = dump(data, value) + b"\n"
    for _ in range(data.draw(st.integers(0, 2), label="line ops")):  # 0: records only
        lines = _line_damage(data, lines)
    return b"".join(lines)


def mutate_document(data: st.DataObject, raw: bytes) -> bytes:
    """A JSON document with some nodes mutated, then maybe cut or given stray bytes."""
    ok, value = _loads(raw)
    out = dump(data, mutate_tree(data, value, data.draw(st.integers(1, 4)))) if ok else raw
    op = data.draw(st.sampled_from(["none", "truncate", "bom", "invalid-utf8"]), label="doc op")
    if op == "none":
        return out
    cut = data.draw(st.integers(0, len(out)), label="cut")
    if op == "truncate":
        return out[:cut]
    return out[:cut] + (_BOM if op == "bom" else b"\xff\xc0") + out[cut:]


def _value_tables(connection: sqlite3.Connection) -> list[str]:
    names = [
        row[0].decode()
        for row in connection.execute("SELECT name FROM sqlite_master WHERE type='table'")
    ]
    return [
        name
        for name in names
        if {"key", "value"}
        <= {column[1] for column in connection.execute(f"PRAGMA table_info('{name}')")}
    ]


def mutate_db(data: st.DataObject, db: Path) -> None:
    """Mutate the JSON of some rows of every ``value`` table, delete or clone some rows."""
    with db.open("rb") as stream:
        if not stream.read(16).startswith(b"SQLite format 3"):
            return  # a file that only pretends to be a database stays as it is
    with closing(sqlite3.connect(db, isolation_level=None)) as connection:
        connection.text_factory = bytes
        rows: list[tuple[str, int, Any, bytes]] = []
        for table in _value_tables(connection):
            rows += [
                (table, rowid, value, kind)
                for rowid, value, kind in connection.execute(
                    f'SELECT rowid, value, typeof(value) FROM "{table}"'  # noqa: S608 -- test-only table names
                )
            ]
        if not rows:
            return
        chosen = data.draw(
            st.lists(st.sampled_from(rows), min_size=1, max_size=3, unique_by=lambda r: r[:2]),
            label="rows",
        )
        for table, rowid, value, kind in chosen:
            op = data.draw(st.sampled_from(["mutate", "mutate", "delete", "clone"]), label="row op")
            if op == "delete":
                connection.execute(f'DELETE FROM "{table}" WHERE rowid = ?', (rowid,))  # noqa: S608 -- ditto
                continue
            ok, decoded = _loads(value) if isinstance(value, bytes) else (False, None)
            new = (
                dump(data, mutate_tree(data, decoded, data.draw(st.integers(1, 3))))
                if ok
                else b"\xff"
            )
            cast = "CAST(? AS TEXT)" if kind == b"text" else "?"
            if op == "mutate":
                connection.execute(
                    f'UPDATE "{table}" SET value = {cast} WHERE rowid = ?',  # noqa: S608 -- ditto
                    (new, rowid),
                )
            else:  # an unknown row next to the real ones: same key with a suffix
                connection.execute(
                    f'INSERT OR IGNORE INTO "{table}" (key, value) '  # noqa: S608 -- ditto
                    f"SELECT key || ':zz', {cast} FROM \"{table}\" WHERE rowid = ?",
                    (new, rowid),
                )
