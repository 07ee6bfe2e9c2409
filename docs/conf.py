"""Sphinx configuration: furo theme, MyST Markdown pages, API pages from docstrings."""

from __future__ import annotations

from importlib.metadata import version as _version
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sphinx.application import Sphinx

project = "chatparse"
author = "The chatparse developers"
copyright = "2026, The chatparse developers"
release = _version("chatparse")
version = ".".join(release.split(".")[:2])

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.viewcode",
]
source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
exclude_patterns = ["_build"]
myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3

autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_default_options = {"members": True, "show-inheritance": True}
napoleon_google_docstring = True
napoleon_numpy_docstring = False
# No intersphinx: the docs must build offline, as CI does.

html_theme = "furo"
html_title = f"chatparse {release}"


# Napoleon reads the first line of a data or attribute docstring as "type: description", taking
# everything before its first colon for a type. Ours are prose ("The file is not there (any
# more): scan again.") and take their types from annotations, so such docstrings are kept as the
# plain reStructuredText they are: saved before napoleon runs, put back after.
_PLAIN_RST: frozenset[str] = frozenset({"attribute", "data", "property"})
_before_napoleon: dict[str, list[str]] = {}


def _save_plain(
    _app: Sphinx, what: str, name: str, _obj: object, _options: object, lines: list[str]
) -> None:
    if what in _PLAIN_RST:
        _before_napoleon[name] = list(lines)


def _restore_plain(
    _app: Sphinx, what: str, name: str, _obj: object, _options: object, lines: list[str]
) -> None:
    if what in _PLAIN_RST and name in _before_napoleon:
        lines[:] = _before_napoleon.pop(name)


def setup(app: Sphinx) -> None:
    """Wrap napoleon's docstring handler (at the default priority, 500) in the two above."""
    app.connect("autodoc-process-docstring", _save_plain, priority=400)
    app.connect("autodoc-process-docstring", _restore_plain, priority=600)
