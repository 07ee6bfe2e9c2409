"""The exception hierarchy: builtin bases, pickling, and messages that say what to do."""

from __future__ import annotations

import pickle

import pytest

from chatparse import errors

CASES = [
    (errors.AdapterNotFoundError("x", ["a", "b"]), LookupError, "available: a, b"),
    (errors.AdapterLoadError("x", "dist", "boom"), ImportError, "Reinstall or upgrade dist"),
    (errors.AdapterConflictError("x", ["d1", "d2"], "uninstall one."), LookupError, "d1, d2"),
    (
        errors.SourceUnavailableError("/db", "locked", "close the IDE"),
        OSError,
        "/db: locked. close",
    ),
    (
        errors.SourceUnavailableError("/db", "busy", "", errors.UnavailableCause.LOCKED),
        OSError,
        "/db: busy",
    ),
    (errors.UnsupportedInputError("/f", "no adapter"), ValueError, "/f: no adapter"),
    (errors.ModelError("Message", ["bad @ $.role"]), ValueError, "bad @ $.role"),
    (errors.WorkersCannotStartError(), RuntimeError, '`if __name__ == "__main__":`'),
]


@pytest.mark.parametrize(("error", "builtin", "text"), CASES)
def test_hierarchy_and_message(error: errors.ChatparseError, builtin: type, text: str) -> None:
    """Each error is a ChatparseError, the matching builtin, and says what happened."""
    assert isinstance(error, errors.ChatparseError)
    assert isinstance(error, builtin)
    assert text in str(error)


@pytest.mark.parametrize(("error", "builtin", "text"), CASES)
def test_pickles_with_attributes(error: errors.ChatparseError, builtin: type, text: str) -> None:  # noqa: ARG001 -- shares the cases' parameters
    """Every error survives a pickle round trip with its message and attributes."""
    copy = pickle.loads(pickle.dumps(error))  # noqa: S301 -- our own bytes
    assert type(copy) is type(error)
    assert str(copy) == str(error)
    assert vars(copy) == vars(error)
    assert isinstance(copy, builtin)


def test_source_unavailable_says_why_to_programs() -> None:
    """``cause`` is machine-readable: OTHER unless the raiser knows better, and a str enum."""
    assert errors.SourceUnavailableError("/x", "gone").cause is errors.UnavailableCause.OTHER
    locked = errors.SourceUnavailableError("/x", "?", "", errors.UnavailableCause.LOCKED)
    assert locked.cause == "locked"
    assert pickle.loads(pickle.dumps(locked)).cause is errors.UnavailableCause.LOCKED  # noqa: S301 -- our own bytes


def test_source_unavailable_sets_filename() -> None:
    """SourceUnavailableError fills OSError's filename, as callers of open() expect."""
    assert errors.SourceUnavailableError("/x", "gone").filename == "/x"


def test_warning_hierarchy() -> None:
    """ParseWarning and SkippedSourceWarning are ChatparseWarnings, which are UserWarnings."""
    assert issubclass(errors.ParseWarning, errors.ChatparseWarning)
    assert issubclass(errors.SkippedSourceWarning, errors.ChatparseWarning)
    assert issubclass(errors.ChatparseWarning, UserWarning)
