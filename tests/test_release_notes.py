"""``tools/release_notes.py``: the GitHub release's text is exactly its CHANGELOG.md section."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent

# A released version's heading, as docs/release.md tells to write it.
RELEASE_HEADING = re.compile(r"## \[(?P<version>\d+\.\d+\.\d+\S*)\] - \d{4}-\d{2}-\d{2}")

CHANGELOG = """\
# Changelog

Intro text that belongs to no release.

## [Unreleased]

### Added

- Something not yet released.

## [1.2.0] - 2026-12-01

### Added

- A feature.

### Fixed

- A bug.

## [1.1.0] - 2026-11-01

- The first line of 1.1.0.

[Unreleased]: https://example.invalid/compare/v1.2.0...HEAD
[1.2.0]: https://example.invalid/compare/v1.1.0...v1.2.0
"""


@pytest.fixture(scope="module")
def tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "release_notes", ROOT / "tools" / "release_notes.py"
    )
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("release", ["1.2.0", "v1.2.0"])
def test_a_middle_section_ends_at_the_next_heading(tool: ModuleType, release: str) -> None:
    """The section runs from below its heading to the next release heading, tag or version."""
    body = tool.changelog_section(CHANGELOG, release)
    assert body == "### Added\n\n- A feature.\n\n### Fixed\n\n- A bug."


def test_the_last_section_leaves_out_the_link_definitions(tool: ModuleType) -> None:
    """Keep a Changelog's trailing ``[x]: url`` lines are not part of the last release's notes."""
    assert tool.changelog_section(CHANGELOG, "v1.1.0") == "- The first line of 1.1.0."


def test_unreleased_is_a_section_too(tool: ModuleType) -> None:
    """The release dry run reads the section not yet cut."""
    assert tool.changelog_section(CHANGELOG, "Unreleased") == (
        "### Added\n\n- Something not yet released."
    )


@pytest.mark.parametrize(
    ("changelog", "release", "message"),
    [
        (CHANGELOG, "v9.9.9", r"no '## \[9\.9\.9\]' section"),
        (CHANGELOG, "1.2", r"no '## \[1\.2\]' section"),  # a prefix of 1.2.0 is not 1.2.0
        (CHANGELOG + "\n## [1.2.0]\n\n- again\n", "1.2.0", r"has 2 '## \[1\.2\.0\]' section"),
        ("# Changelog\n\n## [2.0.0] - 2027-01-01\n\n## [1.0.0]\n\n- x\n", "2.0.0", "empty"),
    ],
    ids=["missing", "prefix", "twice", "empty"],
)
def test_an_unusable_section_is_refused(
    tool: ModuleType, changelog: str, release: str, message: str
) -> None:
    """A tag whose section is missing, ambiguous or empty must not publish a release."""
    with pytest.raises(tool.SectionError, match=message):
        tool.changelog_section(changelog, release)


def test_the_command_prints_the_section_or_fails(
    tool: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The command line prints the notes and exits 0, or says why on stderr and exits 1."""
    changelog = tmp_path / "CHANGELOG.md"
    changelog.write_text(CHANGELOG, encoding="utf-8")
    assert tool.main(["v1.1.0", "--changelog", str(changelog)]) == 0
    assert capsys.readouterr().out == "- The first line of 1.1.0.\n"
    assert tool.main(["v3.0.0", "--changelog", str(changelog)]) == 1
    assert capsys.readouterr().err == "release_notes: CHANGELOG.md has no '## [3.0.0]' section\n"


def test_every_heading_of_the_real_changelog_is_a_release_section(tool: ModuleType) -> None:
    """CHANGELOG.md's ``## `` headings are all ones the tool reads, and each release has notes."""
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    headings = re.findall(r"^## .*$", text, flags=re.MULTILINE)
    assert headings[0] == "## [Unreleased]"
    released = [RELEASE_HEADING.fullmatch(heading) for heading in headings[1:]]
    assert all(released), headings
    for match in filter(None, released):
        assert tool.changelog_section(text, f"v{match['version']}")
