# /// script
# dependencies = ["nox>=2025.2.9"]
# ///
"""Every developer task: ``nox -s tests``, ``lint``, ``typing``, ``docs``, ``build``.

The release checks are ``workflows`` and ``release_dry_run`` (see docs/release.md). Dev tools
live here, not in the package's dependencies.
"""

from __future__ import annotations

import re
import secrets
import shutil
import sys
from pathlib import Path

import nox

nox.options.default_venv_backend = "venv"
nox.options.sessions = ["tests", "lint", "typing"]
# Test on every supported Python this machine has; skip the others instead of failing,
# also on CI (where nox's own default is to fail).
nox.options.error_on_missing_interpreters = False

ROOT = Path(__file__).parent
# The classifiers in pyproject.toml and the CI matrix name the same versions (`nox -s workflows`).
PYTHONS = ["3.11", "3.12", "3.13", "3.14"]
PLUGIN_PKG = "tests/plugin_pkg"
TEST_DEPS = ["pytest>=9", "hypothesis>=6.100", "jsonschema>=4.23", "markdown-it-py>=3"]


@nox.session(python=PYTHONS)
def tests(session: nox.Session) -> None:
    """Run the whole test suite, with the toy plugin installed as a real distribution.

    The ``fast`` extra is installed so that the decoders' tests run on both JSON backends
    (they block orjson themselves for the standard-library runs). The robustness suite
    (``tests/robustness``: fuzzing, every byte-prefix of every fixture, hostile files) tests
    how files are read, not the interpreter, and is most of the time: it runs once, on the
    oldest Python, unless arguments are given.
    """
    session.install(".[fast]", f"./{PLUGIN_PKG}", *TEST_DEPS)
    arguments = list(session.posargs)
    if not arguments and session.python != PYTHONS[0]:
        arguments = ["--ignore=tests/robustness"]
    session.run(
        "pytest",
        *arguments,
        env={"CHATPARSE_TEST_PLUGIN_INSTALLED": "1"},
    )


@nox.session(python=PYTHONS[0])
def conformance_e2e(session: nox.Session) -> None:
    """Run the toy plugin's fixtures through the installed pytest plugin and CLI, as outsiders do.

    chatparse (repo root) and the toy plugin (its own directory) are installed as built wheels,
    not editable, into this fresh venv. Both runs happen in an empty directory with its own
    pytest.ini, so nothing is imported from the checkout and none of its pytest config applies.
    """
    session.install(str(ROOT), "pytest>=9")
    with session.chdir(ROOT / PLUGIN_PKG):
        session.install(".")
    fixtures = str(ROOT / PLUGIN_PKG / "fixtures")
    workdir = Path(session.create_tmp())
    (workdir / "pytest.ini").write_text("[pytest]\nfilterwarnings =\n    error\n", encoding="utf-8")
    with session.chdir(workdir):
        session.run(
            "pytest",
            "-c",
            "pytest.ini",
            "-p",
            "chatparse",
            "-p",
            "no:cacheprovider",
            "--chatparse-fixtures",
            fixtures,
            "-v",
        )
        session.run("chatparse", "conformance", fixtures)


@nox.session(python=PYTHONS[0])
def readme(session: nox.Session) -> None:
    """Run README command (a) exactly as written, in a fresh venv, and check what it shows."""
    readme_text = (ROOT / "README.md").read_text(encoding="utf-8")
    match = re.search(r"\*\*Install and run:\*\* `([^`]+)`", readme_text)
    if match is None:
        session.error("README.md has no '**Install and run:** `...`' command")
    output = session.run("bash", "-c", match.group(1), external=True, silent=True) or ""
    print(output)  # noqa: T201 -- show what a reader of the README would see
    _check_demo_scan(session, output, "README command (a)")


def _check_demo_scan(session: nox.Session, output: str, what: str) -> None:
    """Fail the session unless ``chatparse --demo scan`` output lists every built-in source."""
    sources = ("claude-code", "codex", "copilot", "cursor", "trae")
    missing = [name for name in sources if f"\n{name} " not in f"\n{output}"]
    if missing:
        session.error(f"{what} showed no conversation of {missing}")


EXTRA_TESTS = [
    "tests/test_arrow.py",
    "tests/test_engines.py",
    "tests/test_interop_otel.py",
    "tests/test_interop_validation.py",
    "tests/test_redact_plugins.py",
    "tests/test_cli_usage_export.py",
    "tests/adapters/test_zed.py",
    "tests/adapters/test_zed_corpus.py",
]
"""The tests of features behind optional extras; elsewhere they skip, saying which extra."""


@nox.session(python=PYTHONS[0])
def extras(session: nox.Session) -> None:
    """Run the tests of the optional extras' features, with the extras installed.

    Arrow and Parquet (read back by DuckDB), Dask on a local process cluster, Ray on a local
    two-CPU instance, OpenTelemetry spans (sent over OTLP/HTTP to a local receiver), detect-secrets
    behind the ``detect-secrets`` redactor, Zed's zstd threads decompressed. The exports
    are checked against independent implementations of their formats, installed for the tests
    only: the ``atif`` package's ATIF v1.7 models and the ``openai`` package's message types.
    """
    session.install(
        ".[fast,arrow,dask,ray,otel,redact,zstd]",
        "duckdb",
        "atif>=1.7,<1.8",
        "openai>=1",
        *TEST_DEPS,
    )
    session.run("pytest", *EXTRA_TESTS, "-p", "no:cacheprovider", *session.posargs)


@nox.session(python=PYTHONS[0])
def lint(session: nox.Session) -> None:
    """Check formatting and lint rules with ruff."""
    session.install("ruff==0.17.6")  # pinned: new ruff releases add rules and formatting
    session.run("ruff", "format", "--check", ".")
    session.run("ruff", "check", ".")


@nox.session(python=PYTHONS[0])
def typing(session: nox.Session) -> None:
    """Type-check the package, the tests and this file with mypy --strict."""
    # Two steps: pip does not see an editable install with extras as satisfying the toy
    # plugin's own requirement on chatparse.
    session.install("-e", ".[fast]")
    session.install(
        f"./{PLUGIN_PKG}", "mypy==2.4.1", "nox", "types-jsonschema", "types-PyYAML", *TEST_DEPS
    )
    session.run("mypy")


@nox.session(python=PYTHONS[0])
def docs(session: nox.Session) -> None:
    """Build the documentation; any Sphinx warning is an error."""
    session.install(".", "sphinx>=8", "furo", "myst-parser>=4")
    out = ROOT / "docs" / "_build" / "html"
    shutil.rmtree(out, ignore_errors=True)
    session.run("sphinx-build", "-W", "--keep-going", "-b", "html", "docs", str(out))


@nox.session(python=PYTHONS[0])
def build(session: nox.Session) -> None:
    """Build the sdist and wheel, check their metadata, and check the wheel ships py.typed."""
    _build_and_check(session)


def _build_and_check(session: nox.Session) -> Path:
    """Build the sdist and wheel into dist/, check them as ``build`` says; return the wheel."""
    session.install("build", "twine")
    dist = ROOT / "dist"
    shutil.rmtree(dist, ignore_errors=True)
    session.run("python", "-m", "build", "--outdir", str(dist))
    session.run("twine", "check", "--strict", *map(str, sorted(dist.iterdir())))
    [wheel] = dist.glob("*.whl")
    session.run(
        "python",
        "-c",
        "import sys, zipfile; names = zipfile.ZipFile(sys.argv[1]).namelist();"
        " missing = [n for n in sys.argv[2:] if n not in names];"
        " sys.exit(f'wheel lacks {missing}' if missing else 0)",
        str(wheel),
        "chatparse/py.typed",
        "chatparse/parsed-conversation.schema.json",
    )
    return wheel


@nox.session(python=PYTHONS[0])
def workflows(session: nox.Session) -> None:
    """Audit .github/ with zizmor, then check the workflows parse and test what we claim."""
    session.install("zizmor==1.32.0", "pyyaml")  # pinned: new zizmor releases add audits
    # Offline: the audits that ask GitHub about the pinned commits need a token and the network.
    session.run(
        "zizmor", "--offline", "--no-progress", "--persona", "pedantic", str(ROOT / ".github")
    )
    session.run("python", str(ROOT / "tools" / "check_workflows.py"))


@nox.session(python=PYTHONS[0])
def release_dry_run(session: nox.Session) -> None:
    """Every release step but publishing: ``nox -s release_dry_run -- v1.2.3`` as on a tag.

    Builds and checks the sdist and wheel as ``build`` does, installs the wheel alone into a new
    venv and runs ``chatparse --version`` and the demo there, and writes the release notes (the
    changelog section) to build/release-notes.md. With a tag, the tag must be "v" + the version
    and the changelog must have its section; without one, the Unreleased section is taken, so
    the dry run works between releases.
    """
    wheel = _build_and_check(session)
    version = wheel.name.split("-")[1]
    tag = session.posargs[0] if session.posargs else None
    if tag is not None and tag != f"v{version}":
        session.error(f"tag {tag} is not v + the version built ({version}): see docs/release.md")

    venv = Path(session.create_tmp()).resolve() / "wheel-only"
    shutil.rmtree(venv, ignore_errors=True)
    session.run("python", "-m", "venv", str(venv))
    bin_dir = venv / ("Scripts" if sys.platform == "win32" else "bin")
    session.run(str(bin_dir / "python"), "-m", "pip", "install", str(wheel), external=True)
    # From outside the checkout, so nothing can be imported from it.
    with session.chdir(venv):
        shown = session.run(str(bin_dir / "chatparse"), "--version", external=True, silent=True)
        if (shown or "").strip() != f"chatparse {version}":
            session.error(f"the installed wheel says {shown!r}, not chatparse {version}")
        scan = session.run(str(bin_dir / "chatparse"), "--demo", "scan", external=True, silent=True)
        _check_demo_scan(session, scan or "", "the installed wheel's demo")

    notes = ROOT / "build" / "release-notes.md"
    notes.parent.mkdir(exist_ok=True)
    with notes.open("w", encoding="utf-8") as out:
        session.run(
            "python", str(ROOT / "tools" / "release_notes.py"), tag or "Unreleased", stdout=out
        )
    session.log(f"{wheel.name}: ready; release notes in {notes.relative_to(ROOT)}")


@nox.session(python=PYTHONS[0], default=False)
def fuzz(session: nox.Session) -> None:
    """The robustness tests with a large budget: ``nox -s fuzz -- 2000`` tries 2000 per adapter.

    With the budget set, the truncation tests try every byte-prefix of every JSON and JSON Lines
    fixture (about 128,000) instead of a sample. Unlike ``nox -s tests``, which runs them
    derandomized, each run draws new examples from a seed it prints first and again on failure:
    ``nox -s fuzz -- 2000 SEED`` draws the same ones again (each failure also prints the
    ``@reproduce_failure`` line that replays it alone).
    """
    session.install(".[fast]", *TEST_DEPS)
    examples = session.posargs[0] if session.posargs else "1000"
    seed = session.posargs[1] if len(session.posargs) > 1 else str(secrets.randbelow(2**32))
    again = f"nox -s fuzz -- {examples} {seed}"
    session.log(f"fuzz seed {seed}; to draw the same examples again: {again}")
    try:
        session.run(
            "pytest",
            "tests/robustness",
            "-p",
            "no:cacheprovider",
            "--hypothesis-show-statistics",
            "--hypothesis-profile=fuzz",
            f"--hypothesis-seed={seed}",
            env={"CHATPARSE_FUZZ_EXAMPLES": examples},
        )
    except nox.command.CommandFailed:
        session.error(f"fuzz failed with seed {seed}; to draw the same examples again: {again}")


@nox.session(python=PYTHONS[0], default=False)
def bench(session: nox.Session) -> None:
    """Benchmarks: our readers against the bare loops they wrap, as ratios (not part of CI).

    Arguments go to ``benchmarks/bench_targets.py``: ``nox -s bench -- --scale 0.05`` for a quick
    run on inputs 20 times smaller (the decoder benchmark is scaled alike), ``--repeat N``,
    ``--profile``. The peer, claude-code-log, is installed here only; when it does not install,
    the run goes on without it.
    """
    session.install(".[fast]")
    try:
        session.install("claude-code-log")
    except nox.command.CommandFailed:
        session.warn("peer unavailable: claude-code-log did not install; going on without it")
    args = list(session.posargs)
    scale = 1.0
    for index, arg in enumerate(args):
        if arg.startswith("--scale="):
            scale = float(arg.partition("=")[2])
        elif arg == "--scale" and index + 1 < len(args):
            scale = float(args[index + 1])
    session.run(
        "python",
        "benchmarks/bench_decoders.py",
        f"--jsonl-mb={max(1, round(200 * scale))}",
        f"--sqlite-mb={max(1, round(100 * scale))}",
    )
    session.run("python", "benchmarks/bench_targets.py", *args)


@nox.session(python=PYTHONS[0], default=False)
def schema(session: nox.Session) -> None:
    """Regenerate the shipped JSON Schema from the model (after a model change)."""
    session.install("-e", ".")
    target = ROOT / "src" / "chatparse" / "parsed-conversation.schema.json"
    with target.open("w", encoding="utf-8") as out:
        session.run("python", "-m", "chatparse._jsonschema", stdout=out)
    session.log(f"wrote {target.relative_to(ROOT)}")
