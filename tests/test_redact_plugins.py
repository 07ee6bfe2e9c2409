"""Redactors by name: built-ins, plugins from the ``chatparse.redactors`` group, detect-secrets."""

from __future__ import annotations

import pickle
import sys
from collections.abc import Iterator, Sequence
from types import SimpleNamespace

import pytest

from chatparse.errors import ChatparseWarning, MissingExtraError
from chatparse.redaction import (
    ENTRY_POINT_GROUP,
    ChainRedactor,
    DetectSecretsRedactor,
    Redacted,
    RedactorLoadError,
    RedactorNotFoundError,
    _registry,
    default_redactor,
    get_redactor,
    marker,
    redactor_names,
)

AWS_KEY = "AKIAQ3EGRF5JX7M2PLNB"


class AcmeRedactor:
    """A company's own token format."""

    def redact(self, text: str) -> tuple[str, Sequence[str]]:
        found = text.count("ACME-")
        return text.replace("ACME-", marker("acme-token")), ["acme-token"] * found


def make_acme() -> AcmeRedactor:
    return AcmeRedactor()


ACME_INSTANCE = AcmeRedactor()
NOT_A_REDACTOR = object()


def entry(name: str, target: str, distribution: str | None = "acme-redactor") -> SimpleNamespace:
    """What ``importlib.metadata.entry_points`` gives for one declared plugin."""
    dist = None if distribution is None else SimpleNamespace(name=distribution)
    return SimpleNamespace(name=name, value=target, group=ENTRY_POINT_GROUP, dist=dist)


@pytest.fixture
def plugins(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[SimpleNamespace]]:
    """The installed plugins, as the test declares them; discovery is read afresh."""
    declared: list[SimpleNamespace] = []

    def fake_entry_points(*, group: str) -> list[SimpleNamespace]:
        assert group == ENTRY_POINT_GROUP
        return declared

    monkeypatch.setattr(_registry, "entry_points", fake_entry_points)
    _registry._claims.cache_clear()
    yield declared
    _registry._claims.cache_clear()


@pytest.mark.usefixtures("plugins")
def test_builtins_are_listed_and_default_is_the_shared_default() -> None:
    """``default`` and ``detect-secrets`` are always there; ``default`` is default_redactor()."""
    assert redactor_names() == ("default", "detect-secrets")
    assert get_redactor("default") is default_redactor()


@pytest.mark.parametrize("target", ["AcmeRedactor", "make_acme", "ACME_INSTANCE"])
def test_a_plugin_may_name_a_class_a_factory_or_an_instance(
    plugins: list[SimpleNamespace], target: str
) -> None:
    """An entry point's object is called when it is a class or a function, else used as is."""
    plugins.append(entry("acme", f"{__name__}:{target}"))
    assert redactor_names() == ("acme", "default", "detect-secrets")
    assert get_redactor("acme").redact("ACME-1") == (marker("acme-token") + "1", ["acme-token"])


def test_listing_names_imports_no_plugin(plugins: list[SimpleNamespace]) -> None:
    """A plugin that cannot be imported is still listed; it fails only when asked for."""
    plugins.append(entry("broken", "no_such_module_anywhere:Redactor"))
    assert "broken" in redactor_names()
    with pytest.raises(RedactorLoadError, match="ModuleNotFoundError") as raised:
        get_redactor("broken")
    assert isinstance(raised.value.__cause__, ModuleNotFoundError)
    assert raised.value.distribution == "acme-redactor"


@pytest.mark.usefixtures("plugins")
def test_an_unknown_name_lists_the_known_ones() -> None:
    """The error is a LookupError whose message names every redactor there is."""
    with pytest.raises(RedactorNotFoundError, match="available: default, detect-secrets"):
        get_redactor("nope")
    with pytest.raises(LookupError):
        get_redactor("nope")


def test_an_object_that_is_not_a_redactor_is_refused(plugins: list[SimpleNamespace]) -> None:
    """The loaded object must have ``redact(text)``."""
    plugins.append(entry("odd", f"{__name__}:NOT_A_REDACTOR"))
    with pytest.raises(RedactorLoadError, match="no redact"):
        get_redactor("odd")


def test_a_plugin_cannot_take_a_builtin_name(plugins: list[SimpleNamespace]) -> None:
    """A claim on ``default`` is ignored with a warning naming the distribution."""
    plugins.append(entry("default", f"{__name__}:AcmeRedactor"))
    with pytest.warns(ChatparseWarning, match="acme-redactor declares"):
        names = redactor_names()
    assert names == ("default", "detect-secrets")
    assert get_redactor("default") is default_redactor()


def test_a_badly_spelled_name_is_ignored(plugins: list[SimpleNamespace]) -> None:
    """Names are lower-case words joined by '-', as adapter names are."""
    plugins.append(entry("Acme_Redactor", f"{__name__}:AcmeRedactor", distribution=None))
    with pytest.warns(ChatparseWarning, match="lower-case"):
        assert redactor_names() == ("default", "detect-secrets")


def test_two_plugins_with_one_name_fail_only_when_asked_for(
    plugins: list[SimpleNamespace],
) -> None:
    """A clash is not guessed at: the error names both distributions."""
    plugins.append(entry("acme", f"{__name__}:AcmeRedactor"))
    plugins.append(entry("acme", f"{__name__}:make_acme", distribution="acme-fork"))
    assert "acme" in redactor_names()
    with pytest.raises(RedactorLoadError, match="also declared by acme-fork"):
        get_redactor("acme")


def test_lookup_errors_pickle() -> None:
    """Errors keep their fields across processes."""
    for error in (
        RedactorNotFoundError("x", ["default"]),
        RedactorLoadError("x", "dist", "broken"),
    ):
        copy = pickle.loads(pickle.dumps(error))  # noqa: S301 -- our own bytes
        assert str(copy) == str(error)
        assert copy.name == "x"


@pytest.mark.usefixtures("plugins")
def test_detect_secrets_needs_its_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without detect-secrets, asking for it says which extra installs it."""
    monkeypatch.setitem(sys.modules, "detect_secrets.core.plugins.util", None)
    with pytest.raises(MissingExtraError, match=r"chatparse\[redact\]"):
        get_redactor("detect-secrets")


@pytest.mark.usefixtures("plugins")
def test_detect_secrets_detectors_redact_under_their_secret_type() -> None:
    """With the extra, detect-secrets' detectors follow the default rules."""
    pytest.importorskip("detect_secrets")
    chained = get_redactor("detect-secrets")
    assert isinstance(chained, ChainRedactor)
    assert chained.redactors[0] is default_redactor()
    alone = DetectSecretsRedactor()
    assert alone.redact(f"key {AWS_KEY} here") == Redacted(
        f"key {marker('aws-access-key')} here", ("aws-access-key",)
    )
    assert "public-ip-ipv4" not in {rule.kind for rule in alone.rules}
    assert chained.redact(f"key {AWS_KEY} here") == (
        f"key {marker('aws-access-token')} here",
        ["aws-access-token"],
    )
