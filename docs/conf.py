"""Sphinx configuration: furo theme, MyST Markdown pages, API pages from docstrings."""

from __future__ import annotations

from importlib.metadata import version as _version

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
