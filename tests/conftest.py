"""Shared test helpers: a minimal in-memory adapter and fake installed distributions.

Also the Hypothesis profiles: every property test runs derandomized (the ``ci`` profile, loaded
whether or not ``CI`` is set), so a run fails only where the code changed, never on a new draw;
``nox -s fuzz`` explores with the ``fuzz`` profile and a seed it prints.
"""

from __future__ import annotations

import importlib
import sys
import textwrap
import uuid
from collections.abc import Callable, Iterator, Mapping
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import settings

from chatparse import registry
from chatparse.host import Host
from chatparse.model import ConversationMeta, Diagnostics, Message, ParsedConversation, SourceInfo

# Explicit, whatever Hypothesis version is installed (recent ones have a "ci" profile of their
# own, older ones do not).
_DEFAULT = settings.get_profile("default")
settings.register_profile(
    "ci", _DEFAULT, derandomize=True, database=None, deadline=None, print_blob=True
)
settings.register_profile("fuzz", _DEFAULT, database=None, print_blob=True)
# Everywhere, not only where CI is set: a contributor's run and CI's draw the same examples, so
# a new draw never turns a run red. --hypothesis-profile, when given, still wins.
settings.load_profile("ci")


class NoteAdapter:
    """Reads ``<home>/.notes/<id>.txt``: each line is one user message; ``boom`` files raise."""

    name = "notes"
    display_name = "Notes"
    parser_version = "1"

    def detect(self, host: Host) -> SourceInfo | None:
        root = host.home / ".notes"
        if not root.is_dir():
            return None
        return SourceInfo(source=self.name, display_name=self.display_name, roots=(str(root),))

    def scan(self, source: SourceInfo) -> Iterator[ConversationMeta]:
        for root in source.roots:
            for path in sorted(Path(root).glob("*.txt")):
                yield self._meta(path)

    def sniff(self, path: Path) -> float:
        return 0.5 if path.suffix == ".txt" else 0.0

    def scan_path(self, path: Path) -> Iterator[ConversationMeta]:
        yield self._meta(path)

    def _meta(self, path: Path) -> ConversationMeta:
        stat = path.stat()
        return ConversationMeta(
            source=self.name,
            id=path.stem,
            path=str(path),
            size=stat.st_size,
            mtime=datetime.fromtimestamp(stat.st_mtime, UTC),
            fingerprint=str(stat.st_size),
        )

    def parse(self, meta: ConversationMeta) -> ParsedConversation:
        if meta.id == "boom":
            msg = "this adapter cannot read files called boom"
            raise RuntimeError(msg)
        lines = Path(meta.path).read_text(encoding="utf-8").splitlines()
        messages = [Message(id=str(i), role="user", text=line) for i, line in enumerate(lines)]
        return ParsedConversation(
            source=self.name,
            id=meta.id,
            meta=meta,
            parser_version=self.parser_version,
            messages=messages,
            diagnostics=Diagnostics(records_seen=len(lines), records_used=len(lines)),
        )


@pytest.fixture
def fresh_registry(monkeypatch: pytest.MonkeyPatch) -> registry.Registry:
    """A new registry behind the module-level functions, so tests cannot leak registrations."""
    fresh = registry.Registry()
    monkeypatch.setattr(registry, "_registry", fresh)
    return fresh


GHOST_BUILTIN = "ghost"


@pytest.fixture
def ghost_builtins(
    monkeypatch: pytest.MonkeyPatch, fresh_registry: registry.Registry
) -> registry.Registry:
    """Built-ins replaced by one declared but not written, whatever the real ones are by now."""
    monkeypatch.setattr(
        registry, "BUILTIN_ADAPTERS", {GHOST_BUILTIN: "chatparse.adapters.ghost:GhostAdapter"}
    )
    return fresh_registry


MakeDist = Callable[[str, Mapping[str, str], str], str]


@pytest.fixture
def make_dist(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[MakeDist]:
    """Install a fake distribution: a ``.dist-info`` with entry points and one module.

    ``make_dist(dist_name, {entry_name: "ATTR"}, module_source)`` writes the module under a
    unique name, points each entry at ``<module>:ATTR`` and returns the module name. It is found
    by ``importlib.metadata`` exactly as a pip-installed package is.
    """
    site = tmp_path / "site-packages"
    site.mkdir()
    monkeypatch.syspath_prepend(str(site))
    created: list[str] = []

    def make(dist: str, entries: Mapping[str, str], source: str) -> str:
        module = f"fake_plugin_{uuid.uuid4().hex[:12]}"
        (site / f"{module}.py").write_text(textwrap.dedent(source), encoding="utf-8")
        info = site / f"{dist.replace('-', '_')}-1.0.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(
            f"Metadata-Version: 2.1\nName: {dist}\nVersion: 1.0\n", encoding="utf-8"
        )
        lines = [f"{name} = {module}:{attr}" for name, attr in entries.items()]
        (info / "entry_points.txt").write_text(
            "[chatparse.adapters]\n" + "\n".join(lines) + "\n", encoding="utf-8"
        )
        importlib.invalidate_caches()
        created.append(module)
        return module

    yield make
    for module in created:
        sys.modules.pop(module, None)


PLUGIN_SOURCE = """
from chatparse.host import Host

class Adapter:
    display_name = "Fake"
    parser_version = "1"

    def __init__(self, name="fake"):
        self.name = name

    def detect(self, host):
        return None

    def scan(self, source):
        return iter(())

    def parse(self, meta):
        raise NotImplementedError

def make(name):
    class Named(Adapter):
        def __init__(self):
            super().__init__(name)
    return Named

Alpha = make("alpha")
Shared = make("shared")
Claude = make("claude-code")
Wrong = make("something-else")

class NotAnAdapter:
    name = "not-an-adapter"

Instance = Adapter("instance")
"""
