"""The package surface: a cheap import, a sorted __all__, and every public name resolving."""

from __future__ import annotations

import subprocess
import sys

import pytest

import chatparse


def test_import_loads_nothing_else() -> None:
    """`import chatparse` imports no submodule: no adapter, decoder, cattrs or attrs."""
    code = (
        "import sys; before = set(sys.modules); import chatparse; "
        "print(sorted(m for m in set(sys.modules) - before))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() in ("['chatparse']", "['__future__', 'chatparse']")


def test_all_is_sorted_and_resolves() -> None:
    """__all__ is sorted (constants, classes, functions, as ruff orders it) and resolves."""

    def isort_style(name: str) -> tuple[int, str]:
        kind = 0 if name.isupper() else 1 if name[0].isupper() else 2
        return (kind, name)

    assert chatparse.__all__ == sorted(chatparse.__all__, key=isort_style)
    for name in chatparse.__all__:
        assert getattr(chatparse, name) is not None
    assert set(chatparse.__all__) <= set(dir(chatparse))


def test_unknown_attribute() -> None:
    """A name that is not public raises AttributeError like any module."""
    with pytest.raises(AttributeError, match="nope"):
        chatparse.nope  # noqa: B018 -- the access is the test


def test_version_comes_from_metadata() -> None:
    """__version__ is the installed distribution's version."""
    from importlib.metadata import version  # noqa: PLC0415 -- only this test needs it

    assert chatparse.__version__ == version("chatparse")
