"""The canonical golden form of a case's output, and how two of them are compared."""

from __future__ import annotations

import difflib
import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Final

from chatparse.model import ParsedConversation, SourceInfo
from chatparse.serialize import to_dict

__all__ = ["GOLDEN_FORMAT", "golden_diff", "render_golden"]

GOLDEN_FORMAT: Final = 1
"""The version of the golden layout. It changes only when the layout of ``expected.json``
itself changes (not when the model's :data:`~chatparse.SCHEMA_VERSION` does)."""

_DIFF_LINES: Final = 400


def _home_strings(home: Path) -> list[str]:
    forms = {str(home), os.path.realpath(home), home.as_posix()}
    return sorted(forms, key=len, reverse=True)


def _replace_home(value: Any, homes: list[str]) -> Any:
    if isinstance(value, str):
        for home in homes:
            value = value.replace(home, "~")
        return value
    if isinstance(value, dict):
        return {_replace_home(k, homes): _replace_home(v, homes) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_replace_home(item, homes) for item in value]
    return value


def _sort_key(data: dict[str, Any]) -> tuple[str, str]:
    return (str(data.get("id")), json.dumps(data, sort_keys=True, ensure_ascii=False))


def render_golden(
    detected: SourceInfo | None,
    conversations: Iterable[ParsedConversation],
    *,
    home: Path,
    skipped_sources: Iterable[str] = (),
) -> str:
    """The canonical text of a golden ``expected.json``.

    ``{"golden_format": 1, "detect": to_dict(detected) or null, "conversations": [...]}`` with
    the conversations sorted by id, ``home`` written as ``~`` in every string, keys sorted,
    indented by two spaces, not ASCII-escaped, and ending in a newline. When the adapter passed
    over folders or stores (:class:`~chatparse.errors.SkippedSourceWarning`), their messages are
    listed, sorted, under ``"skipped_sources"``; the key is absent otherwise.

    .. versionadded:: 0.1
    """
    homes = _home_strings(home)
    data: dict[str, object] = {
        "golden_format": GOLDEN_FORMAT,
        "detect": None if detected is None else to_dict(detected),
        "conversations": sorted((to_dict(c) for c in conversations), key=_sort_key),
    }
    skipped = sorted(set(skipped_sources))
    if skipped:
        data["skipped_sources"] = skipped
    text = json.dumps(_replace_home(data, homes), ensure_ascii=False, indent=2, sort_keys=True)
    return text + "\n"


def golden_diff(expected: str | None, actual: str, *, name: str) -> str:
    """A unified diff from the golden (``None``: missing) to the actual output, capped in length."""
    lines = list(
        difflib.unified_diff(
            (expected or "").splitlines(keepends=True),
            actual.splitlines(keepends=True),
            fromfile=name if expected is not None else "/dev/null",
            tofile=f"{name} (actual output)",
        )
    )
    if len(lines) > _DIFF_LINES:
        lines = [*lines[:_DIFF_LINES], f"... {len(lines) - _DIFF_LINES} more diff lines\n"]
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)
