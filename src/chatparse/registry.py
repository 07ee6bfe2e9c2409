"""Find adapters: the built-ins, plugins declared as entry points, and ones registered at runtime.

Discovery reads package metadata only; no plugin is imported until it is asked for by name, so
listing adapters stays fast and one broken plugin cannot break ``import chatparse``. Nor is any
metadata read (nor :mod:`importlib.metadata` imported) to get a built-in by name: a built-in wins
over any plugin, so ``get_adapter("claude-code")`` or ``scan(sources=["claude-code"])`` need not
know which plugins are installed. Plugins are read the first time a name that is not a built-in
is asked for, or every name is listed. The rules, in order of precedence:

1. An adapter registered with :func:`register_adapter` (``replace=True`` may shadow anything).
2. A built-in. A plugin that claims a built-in's name is ignored, with a
   :class:`~chatparse.errors.ChatparseWarning` naming its distribution when plugins are read.
3. A plugin from the ``chatparse.adapters`` entry-point group. Two distributions claiming one name
   raise :class:`~chatparse.errors.AdapterConflictError` only when that name is asked for.

Loading turns any exception into :class:`~chatparse.errors.AdapterLoadError` chained to the
cause, and checks the loaded object against :class:`~chatparse.adapter.SourceAdapter` and its
``name`` against the name it was registered under.
"""

from __future__ import annotations

import importlib
import threading
import warnings
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Final, Literal

from attrs import frozen

from chatparse.adapter import ADAPTER_NAME, SourceAdapter
from chatparse.errors import (
    AdapterConflictError,
    AdapterLoadError,
    AdapterNotFoundError,
    ChatparseWarning,
)

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

__all__ = [
    "BUILTIN_ADAPTERS",
    "ENTRY_POINT_GROUP",
    "AdapterSpec",
    "Registry",
    "adapter_names",
    "adapter_specs",
    "get_adapter",
    "iter_adapters",
    "register_adapter",
]

ENTRY_POINT_GROUP: Final = "chatparse.adapters"

OWN_DISTRIBUTION: Final = "chatparse"

BUILTIN_ADAPTERS: Final = {
    "aider": "chatparse.adapters.aider:AiderAdapter",
    "amp": "chatparse.adapters.amp:AmpAdapter",
    "antigravity": "chatparse.adapters.antigravity:AntigravityAdapter",
    "claude-code": "chatparse.adapters.claude_code:ClaudeCodeAdapter",
    "cline": "chatparse.adapters.cline:ClineAdapter",
    "codex": "chatparse.adapters.codex:CodexAdapter",
    "continue": "chatparse.adapters.continue_dev:ContinueAdapter",
    "copilot": "chatparse.adapters.copilot:CopilotAdapter",
    "copilot-cli": "chatparse.adapters.copilot_cli:CopilotCliAdapter",
    "crush": "chatparse.adapters.crush:CrushAdapter",
    "cursor": "chatparse.adapters.cursor:CursorAdapter",
    "cursor-cli": "chatparse.adapters.cursor_cli:CursorCliAdapter",
    "factory-droid": "chatparse.adapters.factory_droid:FactoryDroidAdapter",
    "gemini-cli": "chatparse.adapters.gemini_cli:GeminiCliAdapter",
    "goose": "chatparse.adapters.goose:GooseAdapter",
    "grok-build": "chatparse.adapters.grok_build:GrokBuildAdapter",
    "hermes": "chatparse.adapters.hermes:HermesAdapter",
    "kilo-code": "chatparse.adapters.kilo_code:KiloCodeAdapter",
    "kimi": "chatparse.adapters.kimi:KimiAdapter",
    "kiro": "chatparse.adapters.kiro:KiroAdapter",
    "mistral-vibe": "chatparse.adapters.mistral_vibe:MistralVibeAdapter",
    "oh-my-pi": "chatparse.adapters.oh_my_pi:OhMyPiAdapter",
    "openclaw": "chatparse.adapters.openclaw:OpenClawAdapter",
    "opencode": "chatparse.adapters.opencode:OpenCodeAdapter",
    "openhands": "chatparse.adapters.openhands:OpenHandsAdapter",
    "pi": "chatparse.adapters.pi:PiAdapter",
    "qwen-code": "chatparse.adapters.qwen_code:QwenCodeAdapter",
    "roo-code": "chatparse.adapters.roo_code:RooCodeAdapter",
    "trae": "chatparse.adapters.trae:TraeAdapter",
    "windsurf": "chatparse.adapters.windsurf:WindsurfAdapter",
    "zed": "chatparse.adapters.zed:ZedAdapter",
}
"""Built-in adapter names and where they live, known without reading any metadata so that a
plain checkout works too."""

if list(BUILTIN_ADAPTERS) != sorted(BUILTIN_ADAPTERS):  # pragma: no cover -- a guard for editors
    msg = "BUILTIN_ADAPTERS must stay in alphabetical order"
    raise AssertionError(msg)

Origin = Literal["builtin", "plugin", "registered"]


@frozen
class AdapterSpec:
    """What the registry knows about one adapter name before importing anything.

    ``targets`` lists every claim on the name, as ``(distribution, "module:attribute")`` pairs;
    more than one means a conflict between plugins.
    """

    name: str
    origin: Origin
    targets: tuple[tuple[str | None, str], ...]

    @property
    def distribution(self) -> str | None:
        """The distribution that provides the adapter (the first claimant on a conflict)."""
        return self.targets[0][0] if self.targets else None


def _load_target(target: str) -> object:
    module_name, _, attribute = target.partition(":")
    obj: object = importlib.import_module(module_name)
    for part in attribute.split(".") if attribute else ():
        obj = getattr(obj, part)
    return obj


def _instantiate(name: str, distribution: str | None, target: str) -> SourceAdapter:
    try:
        loaded = _load_target(target)
        adapter = loaded() if isinstance(loaded, type) else loaded
    except Exception as exc:
        module = target.partition(":")[0]
        if (
            distribution == OWN_DISTRIBUTION
            and isinstance(exc, ModuleNotFoundError)
            and exc.name is not None
            and f"{module}.".startswith(f"{exc.name}.")
        ):
            reason = f"this release of chatparse does not include it yet ({module} is missing)"
        else:
            reason = f"{type(exc).__name__}: {exc}"
        raise AdapterLoadError(name, distribution, reason) from exc
    return _checked(name, distribution, adapter)


def _checked(name: str, distribution: str | None, adapter: object) -> SourceAdapter:
    if not isinstance(adapter, SourceAdapter):
        missing = [
            member
            for member in ("name", "display_name", "parser_version", "detect", "scan", "parse")
            if not hasattr(adapter, member)
        ]
        reason = f"{type(adapter).__name__} is not a SourceAdapter (missing {', '.join(missing)})"
        raise AdapterLoadError(name, distribution, reason)
    if adapter.name != name:
        reason = f"it calls itself {adapter.name!r}, but is registered as {name!r}"
        raise AdapterLoadError(name, distribution, reason)
    return adapter


class Registry:
    """The set of adapters one process can use.

    The module-level functions use one shared instance. A separate ``Registry()`` sees the same
    built-ins and installed plugins but keeps its own runtime registrations and cache; tests use
    one to avoid touching the shared state.
    """

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._specs: dict[str, AdapterSpec] | None = None
        self._loaded: dict[str, SourceAdapter] = {}
        self._registered: dict[str, SourceAdapter] = {}

    def _discover(self) -> dict[str, AdapterSpec]:
        with self._lock:
            if self._specs is None:
                self._specs = _discover_specs()
            return self._specs

    def refresh(self) -> None:
        """Forget what was discovered and loaded; read entry points again on next use.

        Runtime registrations are kept.
        """
        with self._lock:
            self._specs = None
            self._loaded.clear()

    def specs(self) -> tuple[AdapterSpec, ...]:
        """Every known adapter name with its origin, sorted by name; imports no plugin."""
        specs = dict(self._discover())
        for name, adapter in self._registered.items():
            target = f"{type(adapter).__module__}:{type(adapter).__qualname__}"
            specs[name] = AdapterSpec(name, "registered", ((None, target),))
        return tuple(specs[name] for name in sorted(specs))

    def names(self) -> tuple[str, ...]:
        """Every known adapter name, sorted; imports no plugin."""
        return tuple(spec.name for spec in self.specs())

    def get(self, name: str) -> SourceAdapter:
        """The adapter registered under ``name``, imported on first use."""
        with self._lock:
            if name in self._registered:
                return self._registered[name]
            if name in self._loaded:
                return self._loaded[name]
            distribution, target = self._target(name)
            adapter = _instantiate(name, distribution, target)
            self._loaded[name] = adapter
            return adapter

    def _target(self, name: str) -> tuple[str | None, str]:
        """Who provides ``name`` and where it lives.

        A built-in wins over any plugin, so entry points are read only for another name.
        """
        if name in BUILTIN_ADAPTERS:
            return OWN_DISTRIBUTION, BUILTIN_ADAPTERS[name]
        spec = self._discover().get(name)
        if spec is None:
            raise AdapterNotFoundError(name, self.names())
        if len(spec.targets) > 1:
            raise AdapterConflictError(
                name,
                [dist or "an unknown distribution" for dist, _ in spec.targets],
                "uninstall all but one of them, or register the one you want with "
                "chatparse.register_adapter(adapter, replace=True).",
            )
        return spec.targets[0]

    def register(self, adapter: SourceAdapter | type[SourceAdapter], *, replace: bool) -> None:
        """Add an adapter object (or a class with a no-argument constructor) at runtime."""
        instance: object = adapter() if isinstance(adapter, type) else adapter
        name = getattr(instance, "name", None)
        if not isinstance(name, str) or not ADAPTER_NAME.fullmatch(name):
            msg = f"an adapter's name must be lower-case words joined by '-', got {name!r}"
            raise ValueError(msg)
        checked = _checked(name, None, instance)
        with self._lock:
            if not replace and (name in self._registered or name in self._discover()):
                raise AdapterConflictError(
                    name,
                    ["an adapter already registered", type(instance).__qualname__],
                    "pass replace=True to use the new one instead.",
                )
            self._registered[name] = checked

    def unregister(self, name: str) -> None:
        """Remove a runtime registration; built-ins and plugins cannot be removed."""
        with self._lock:
            self._registered.pop(name, None)

    def iter_adapters(self, names: Iterable[str] | None = None) -> Iterator[SourceAdapter]:
        """Yield adapters by name, or every adapter when ``names`` is None.

        Over every adapter, one that fails to load is skipped with a
        :class:`~chatparse.errors.ChatparseWarning`, so one broken plugin cannot stop a scan of
        everything else. Adapters asked for by name raise instead: the caller wanted that one.
        """
        if names is not None:
            for name in names:
                yield self.get(name)
            return
        for name in self.names():
            try:
                adapter = self.get(name)
            except (AdapterLoadError, AdapterConflictError) as exc:
                warnings.warn(f"skipping adapter {name!r}: {exc}", ChatparseWarning, stacklevel=3)
                continue
            yield adapter


def _discover_specs() -> dict[str, AdapterSpec]:
    # Imported here, not at the top: importlib.metadata, what it imports and the read of the
    # entry points are a large part of a first use of one built-in, which never needs them.
    from importlib.metadata import entry_points  # noqa: PLC0415 -- see the comment above

    specs = {
        name: AdapterSpec(name, "builtin", ((OWN_DISTRIBUTION, target),))
        for name, target in BUILTIN_ADAPTERS.items()
    }
    claims: dict[str, list[tuple[str | None, str]]] = {}
    for entry in entry_points(group=ENTRY_POINT_GROUP):
        distribution = _distribution_name(entry)
        if distribution == OWN_DISTRIBUTION:
            continue  # our own declarations of the built-ins, already known above
        if entry.name in specs:
            warnings.warn(
                f"the {distribution or 'unknown'} distribution declares a chatparse adapter "
                f"named {entry.name!r}, which is a built-in; the built-in is used. Rename the "
                "plugin's entry point to use it.",
                ChatparseWarning,
                stacklevel=5,
            )
            continue
        if not ADAPTER_NAME.fullmatch(entry.name):
            warnings.warn(
                f"ignoring chatparse adapter entry point {entry.name!r} from "
                f"{distribution or 'an unknown distribution'}: names are lower-case words "
                "joined by '-'.",
                ChatparseWarning,
                stacklevel=5,
            )
            continue
        claim = (distribution, entry.value)
        if claim not in claims.setdefault(entry.name, []):
            claims[entry.name].append(claim)
    for name, targets in claims.items():
        specs[name] = AdapterSpec(name, "plugin", tuple(targets))
    return specs


def _distribution_name(entry: EntryPoint) -> str | None:
    return entry.dist.name if entry.dist is not None else None


_registry = Registry()


def adapter_names() -> tuple[str, ...]:
    """Every adapter name: built-ins, installed plugins and runtime registrations, sorted.

    Reads package metadata only; imports no plugin.
    """
    return _registry.names()


def adapter_specs() -> tuple[AdapterSpec, ...]:
    """What is known about every adapter name (origin, providing distribution); imports none."""
    return _registry.specs()


def get_adapter(name: str) -> SourceAdapter:
    """The adapter called ``name``, imported on first use and cached.

    A built-in is found without reading package metadata; any other name reads the installed
    plugins' entry points once.

    Raises:
        AdapterNotFoundError: no adapter has that name; the message lists those that do.
        AdapterLoadError: importing or checking it failed; the cause is chained.
        AdapterConflictError: two installed plugins claim the name.
    """
    return _registry.get(name)


def register_adapter(
    adapter: SourceAdapter | type[SourceAdapter], *, replace: bool = False
) -> None:
    """Make an adapter available under its ``name`` for the rest of this process.

    For adapters that are not installed as packages (a script, a notebook, a test). Installed
    packages should declare an entry point in the ``chatparse.adapters`` group instead.

    Raises:
        AdapterConflictError: the name is taken and ``replace`` is false.
        AdapterLoadError: the object does not satisfy the SourceAdapter protocol.
        ValueError: the name is not lower-case words joined by ``-``.
    """
    _registry.register(adapter, replace=replace)


def iter_adapters(names: Iterable[str] | None = None) -> Iterator[SourceAdapter]:
    """Adapters by name (raising on failure), or all (skipping broken ones with a warning)."""
    return _registry.iter_adapters(names)
