"""Print one release's section of CHANGELOG.md: the text of its GitHub release.

``python tools/release_notes.py v0.1.0`` prints what stands under ``## [0.1.0] - <date>`` up to
the next ``## `` heading, without the heading itself. A leading ``v`` (the tag's form) is
dropped; ``Unreleased`` names the section not yet cut. The release workflow runs it on the tag
being released, so a tag whose changelog section is missing or empty fails before anything is
published.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHANGELOG = ROOT / "CHANGELOG.md"

# Keep a Changelog's release heading: "## [1.2.3] - 2026-12-01" or "## [Unreleased]".
_HEADING = re.compile(r"^## \[(?P<name>[^\]]+)\]", re.MULTILINE)
# The link definitions Keep a Changelog puts at the end ("[1.2.3]: https://..."), not notes.
_LINK_DEFINITION = re.compile(r"^\[[^\]]+\]: \S+\s*$", re.MULTILINE)


class SectionError(Exception):
    """The changelog has no usable section for the requested release."""


def section_name(release: str) -> str:
    """Return the changelog's name for ``release``: a tag ``v1.2.3`` is section ``1.2.3``."""
    return release.removeprefix("v") if re.fullmatch(r"v\d.*", release) else release


def changelog_section(changelog: str, release: str) -> str:
    """Return the body of ``release``'s section of ``changelog``, stripped.

    Raises:
        SectionError: the section is missing, given twice, or has no text.
    """
    name = section_name(release)
    headings = list(_HEADING.finditer(changelog))
    matches = [index for index, heading in enumerate(headings) if heading["name"] == name]
    if len(matches) != 1:
        found = "no" if not matches else f"{len(matches)}"
        raise SectionError(f"CHANGELOG.md has {found} '## [{name}]' section")
    [index] = matches
    start = changelog.index("\n", headings[index].start()) + 1
    end = headings[index + 1].start() if index + 1 < len(headings) else len(changelog)
    body = _LINK_DEFINITION.sub("", changelog[start:end]).strip()
    if not body:
        raise SectionError(f"CHANGELOG.md's '## [{name}]' section is empty")
    return body


def main(argv: list[str] | None = None) -> int:
    """Print the section named on the command line; exit 1 with a message when there is none."""
    parser = argparse.ArgumentParser(description="Print one release's section of CHANGELOG.md.")
    parser.add_argument("release", help="a version, its tag (v1.2.3), or Unreleased")
    parser.add_argument("--changelog", type=Path, default=CHANGELOG, help="default: %(default)s")
    args = parser.parse_args(argv)
    try:
        body = changelog_section(args.changelog.read_text(encoding="utf-8"), args.release)
    except SectionError as exc:
        print(f"release_notes: {exc}", file=sys.stderr)
        return 1
    print(body)
    return 0


if __name__ == "__main__":
    sys.exit(main())
