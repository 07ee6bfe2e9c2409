"""The VS Code-family helpers: user dirs per platform, workspace folders, workspace URIs."""

from __future__ import annotations

from pathlib import Path

import pytest

from chatparse.adapters import _vscode
from chatparse.host import Host


@pytest.mark.parametrize(
    ("uri", "platform", "expected"),
    [
        ("file:///home/ada/my%20proj", "linux", "/home/ada/my proj"),
        ("file:///Users/ada/proj", "darwin", "/Users/ada/proj"),
        ("file:///c%3A/Users/ada/proj", "win32", "c:\\Users\\ada\\proj"),
        ("file://server/share/proj", "win32", "\\\\server\\share\\proj"),
        (
            "vscode-remote://ssh-remote%2Bbox/src/app",
            "linux",
            "vscode-remote://ssh-remote%2Bbox/src/app",
        ),
        ("file:///home/ada/proj/", "linux", "/home/ada/proj"),
    ],
)
def test_uri_to_project_path(uri: str, platform: str, expected: str) -> None:
    """File URIs become native paths (keeping the leading slash); other schemes stay verbatim."""
    assert _vscode.uri_to_project_path(uri, platform) == expected


def test_existing_user_dirs_in_order_and_deduplicated(tmp_path: Path) -> None:
    """Only existing User dirs are returned, products first, then remote-server dirs."""
    host = Host(home=tmp_path, env={}, platform="darwin")
    support = tmp_path / "Library" / "Application Support"
    (support / "Code - Insiders" / "User").mkdir(parents=True)
    (support / "Code" / "User").mkdir(parents=True)
    (tmp_path / ".vscode-server" / "data" / "User").mkdir(parents=True)
    found = _vscode.existing_user_dirs(
        host, ["Code", "VSCodium", "Code - Insiders", "Code"], server_dirs=[".vscode-server"]
    )
    assert found == [
        support / "Code" / "User",
        support / "Code - Insiders" / "User",
        tmp_path / ".vscode-server" / "data" / "User",
    ]


def test_workspace_dirs_sorted_and_only_folders(tmp_path: Path) -> None:
    """Workspace folders come back sorted by id; stray files and a missing storage are fine."""
    assert list(_vscode.workspace_dirs(tmp_path)) == []
    storage = tmp_path / "workspaceStorage"
    for name in ("b2", "a1"):
        (storage / name).mkdir(parents=True)
    (storage / "stray.txt").write_text("x", encoding="utf-8")
    assert [p.name for p in _vscode.workspace_dirs(tmp_path)] == ["a1", "b2"]
