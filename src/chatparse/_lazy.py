"""Names of a package imported on first use: what keeps ``import chatparse...`` cheap.

A package lists, per module, the public names that module defines; :func:`lazy_names` gives it
the module-level ``__getattr__`` and ``__dir__`` (PEP 562) that import a name's module the first
time the name is asked for, and remember the value so later lookups cost nothing.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Mapping
from typing import Any

__all__ = ["lazy_names"]


def lazy_names(
    package: str, homes: Mapping[str, Iterable[str]], public: Iterable[str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for ``package``, whose names live in ``homes``' modules."""
    module_of = {name: module for module, names in homes.items() for name in names}
    listed = frozenset(public)

    def __getattr__(name: str) -> Any:  # noqa: N807 -- the module hook's own name
        if name not in module_of:
            msg = f"module {package!r} has no attribute {name!r}"
            raise AttributeError(msg)
        value = getattr(__import__(module_of[name], fromlist=(name,)), name)
        vars(sys.modules[package])[name] = value  # later lookups skip __getattr__
        return value

    def __dir__() -> list[str]:  # noqa: N807 -- the module hook's own name
        return sorted({*listed, *vars(sys.modules[package])})

    return __getattr__, __dir__
