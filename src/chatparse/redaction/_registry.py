"""Redactors by name: the built-ins, and plugins declared in the ``chatparse.redactors`` group.

The rules follow the adapter registry's (:mod:`chatparse.registry`): names are lower-case words
joined by ``-``; discovery reads package metadata only and imports nothing; a plugin is imported
when it is asked for by name; a plugin that claims a built-in's name is ignored with a
:class:`~chatparse.errors.ChatparseWarning`; two plugins claiming one name are an error only when
that name is asked for. An entry point names a redactor object, a class or a function taking no
arguments that returns one::

    [project.entry-points."chatparse.redactors"]
    acme = "acme_redactor:AcmeRedactor"
"""

from __future__ import annotations

import inspect
import warnings
from functools import cache
from importlib.metadata import EntryPoint, entry_points
from typing import Final

from chatparse._names import SOURCE_NAME
from chatparse.errors import (
    ChatparseWarning,
    MissingExtraError,
    RedactorLoadError,
    RedactorNotFoundError,
)
from chatparse.redaction._protocol import Redactor

__all__ = ["BUILTIN_REDACTORS", "ENTRY_POINT_GROUP", "get_redactor", "redactor_names"]

ENTRY_POINT_GROUP: Final = "chatparse.redactors"

_OWN_DISTRIBUTION: Final = "chatparse"

BUILTIN_REDACTORS: Final = {
    "default": "chatparse.redaction:default_redactor",
    "detect-secrets": "chatparse.redaction:detect_secrets_redactor",
}
"""Built-in redactor names and where they live."""

_Claim = tuple[str | None, str]
"""A claim on a name: the distribution that declares it, and its ``module:attribute``."""


@cache
def _claims() -> dict[str, tuple[_Claim, ...]]:
    claims: dict[str, list[_Claim]] = {}
    for entry in entry_points(group=ENTRY_POINT_GROUP):
        distribution = entry.dist.name if entry.dist is not None else None
        if distribution == _OWN_DISTRIBUTION:
            continue
        provider = distribution or "an unknown distribution"
        if entry.name in BUILTIN_REDACTORS:
            warnings.warn(
                f"{provider} declares a chatparse redactor named {entry.name!r}, which is a "
                "built-in; the built-in is used. Rename the plugin's entry point to use it.",
                ChatparseWarning,
                stacklevel=4,
            )
        elif not SOURCE_NAME.fullmatch(entry.name):
            warnings.warn(
                f"ignoring chatparse redactor entry point {entry.name!r} from {provider}: "
                "names are lower-case words joined by '-'.",
                ChatparseWarning,
                stacklevel=4,
            )
        elif (distribution, entry.value) not in claims.setdefault(entry.name, []):
            claims[entry.name].append((distribution, entry.value))
    builtins = {name: ((_OWN_DISTRIBUTION, target),) for name, target in BUILTIN_REDACTORS.items()}
    return {**builtins, **{name: tuple(found) for name, found in claims.items()}}


def redactor_names() -> tuple[str, ...]:
    """Every redactor name, built-in or installed as a plugin, sorted; imports no plugin.

    .. versionadded:: 0.2
    """
    return tuple(sorted(_claims()))


def get_redactor(name: str) -> Redactor:
    """The redactor called ``name``, newly built (``"default"`` is shared).

    Raises:
        RedactorNotFoundError: no redactor has that name; the message lists those that do.
        RedactorLoadError: two plugins claim the name, or importing, building or checking it
            failed (the cause is chained).
        MissingExtraError: it needs an optional package that is not installed
            (``detect-secrets`` needs ``chatparse[redact]``).

    .. versionadded:: 0.2
    """
    claims = _claims().get(name)
    if claims is None:
        raise RedactorNotFoundError(name, redactor_names())
    (distribution, target), *others = claims
    if others:
        rivals = ", ".join(other or "an unknown distribution" for other, _ in others)
        reason = f"it is also declared by {rivals}; uninstall all but one of them"
        raise RedactorLoadError(name, distribution, reason)
    try:
        loaded = EntryPoint(name, target, ENTRY_POINT_GROUP).load()
        redactor = loaded() if inspect.isclass(loaded) or inspect.isroutine(loaded) else loaded
    except MissingExtraError:
        raise
    except Exception as exc:
        raise RedactorLoadError(name, distribution, f"{type(exc).__name__}: {exc}") from exc
    if not isinstance(redactor, Redactor):
        reason = f"{target} gave a {type(redactor).__name__}, which has no redact(text) method"
        raise RedactorLoadError(name, distribution, reason)
    return redactor
