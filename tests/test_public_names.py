"""A plugin author's view uses public names only: the adapter-writing page and the toy plugin.

``docs/writing-adapters.md`` (its text, its code blocks and the files it includes) and
``tests/plugin_pkg`` (an adapter written as an outsider would) must not reach any ``_``-prefixed
chatparse module or name: what they show is what plugin authors copy, and a private name may
change in any release.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

REPO = Path(__file__).resolve().parents[1]
PAGE = REPO / "docs" / "writing-adapters.md"
PLUGIN = REPO / "tests" / "plugin_pkg"
TOY_ADAPTER = PLUGIN / "src" / "chatparse_toy" / "__init__.py"

# A dotted chatparse path with a part that starts with one underscore (dunders are public).
PRIVATE_PATH = re.compile(r"\bchatparse(?:\.\w+)*\._(?!_)\w*")
INCLUDE = "{literalinclude}"


def is_private(name: str) -> bool:
    """Whether a name, or any part of a dotted one, is private (``_x``, not ``__x__``)."""
    return any(part.startswith("_") and not part.startswith("__") for part in name.split("."))


def is_chatparse(module: str | None) -> bool:
    """Whether ``module`` is chatparse or one of its modules."""
    return module is not None and (module == "chatparse" or module.startswith("chatparse."))


def private_chatparse_names(source: str, filename: str = "<code>") -> list[str]:
    """Every private chatparse module or name that Python ``source`` imports or reaches.

    Imports (``from chatparse.x import _y``, ``import chatparse._x``), attributes of a name bound
    to chatparse (``chatparse.adapter._construct``), and dotted paths in strings or comments.
    """
    tree = ast.parse(source, filename)
    imported, bound = chatparse_imports(tree)
    reached = [
        f"{ast.unparse(node.value)}.{node.attr}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute) and is_private(node.attr) and root_name(node) in bound
    ]
    written = [match.group() for match in PRIVATE_PATH.finditer(source)]
    return sorted({*imported, *reached, *written})


def chatparse_imports(tree: ast.AST) -> tuple[list[str], set[str]]:
    """The private chatparse names imported, and every local name bound to a chatparse one."""
    private: list[str] = []
    bound: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in (a for a in node.names if is_chatparse(a.name)):
                private += [alias.name] if is_private(alias.name) else []
                bound.add(alias.asname or alias.name.split(".")[0])
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and is_chatparse(node.module):
            module = str(node.module)
            names = [f"{module}.{alias.name}" for alias in node.names if is_private(alias.name)]
            private += [module] if is_private(module) else names
            bound.update(alias.asname or alias.name for alias in node.names)
    return private, bound


def root_name(node: ast.Attribute) -> str | None:
    """``a`` for ``a.b.c``; ``None`` when the chain starts with a call or a subscript."""
    base = node.value
    while isinstance(base, ast.Attribute):
        base = base.value
    return base.id if isinstance(base, ast.Name) else None


def included_files(page: Path) -> list[Path]:
    """The files the page pulls in with ``literalinclude``, resolved from the page's folder."""
    fences = MarkdownIt().parse(page.read_text(encoding="utf-8"))
    return [
        (page.parent / token.info.removeprefix(INCLUDE).strip()).resolve()
        for token in fences
        if token.type == "fence" and token.info.startswith(INCLUDE)
    ]


def python_blocks(page: Path) -> list[str]:
    """The page's Python code blocks, wherever they are nested."""
    tokens = MarkdownIt().parse(page.read_text(encoding="utf-8"))
    return [t.content for t in tokens if t.type == "fence" and t.info.strip() in {"python", "py"}]


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (
            "from chatparse.adapter._construct import fast_constructor",
            ["chatparse.adapter._construct"],
        ),
        ("from chatparse.adapter import _Span", ["chatparse.adapter._Span"]),
        ("from chatparse import _api as api", ["chatparse._api"]),
        ("import chatparse.adapters._vscode", ["chatparse.adapters._vscode"]),
        ("import chatparse\nchatparse.adapter._construct", ["chatparse.adapter._construct"]),
        ("from chatparse import adapter as kit\nkit._HOMES", ["kit._HOMES"]),
        ("import importlib\nimportlib.import_module('chatparse._names')", ["chatparse._names"]),
        ("from chatparse.adapter import Ledger, build_conversation", []),
        ("import chatparse\nchatparse.__version__", []),
        ("from chatparse import Message\nclass A:\n    _own = 1\nA()._own", []),
    ],
)
def test_the_check_finds_private_names(source: str, expected: list[str]) -> None:
    """Private chatparse names are found however they are reached; public and own ones pass."""
    assert private_chatparse_names(source) == sorted(expected)


def test_the_page_includes_the_toy_adapter() -> None:
    """The page shows the tested adapter itself, so it cannot drift from it."""
    included = included_files(PAGE)
    assert TOY_ADAPTER in included
    assert all(path.is_file() for path in included), included


def test_the_page_names_no_private_chatparse_name() -> None:
    """No private chatparse path anywhere in the page's text."""
    assert PRIVATE_PATH.findall(PAGE.read_text(encoding="utf-8")) == []


def test_the_page_code_blocks_use_public_names() -> None:
    """Every Python block of the page parses, and reaches only public chatparse names."""
    blocks = python_blocks(PAGE)
    assert blocks, "the page has no Python block: was it rewritten without examples?"
    for number, block in enumerate(blocks, start=1):
        assert private_chatparse_names(block, f"{PAGE.name} block {number}") == [], block


def test_included_files_and_the_plugin_use_public_names() -> None:
    """Every file the page includes, and all of the toy plugin, use public names only."""
    files = {*included_files(PAGE), *PLUGIN.rglob("*.py")}
    files = {path for path in files if "build" not in path.relative_to(REPO).parts}
    problems = {}
    for path in sorted(files):
        text = path.read_text(encoding="utf-8")
        found = (
            private_chatparse_names(text, str(path))
            if path.suffix == ".py"
            else PRIVATE_PATH.findall(text)
        )
        if found:
            problems[str(path.relative_to(REPO))] = found
    assert problems == {}
