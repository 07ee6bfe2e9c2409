"""Importing an optional dependency, with an error that says which extra installs it.

Each feature that needs more than the core dependencies (Arrow tables, engines, OpenTelemetry,
secret scanning) imports its package through :func:`import_extra` when it is first used, so that
``import chatparse`` and every other feature work without it.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from chatparse.errors import MissingExtraError

__all__ = ["import_extra"]


def import_extra(module: str, extra: str) -> ModuleType:
    """``importlib.import_module(module)``, or :class:`MissingExtraError` naming ``extra``."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise MissingExtraError(module.partition(".")[0], extra) from exc
