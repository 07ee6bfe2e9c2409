"""The VS Code-family workspace.json readers: the URI a workspace folder names, and its project."""

from __future__ import annotations

from pathlib import Path

import pytest

from chatparse.adapters import _vscode


def workspace(tmp_path: Path, content: str | None) -> Path:
    folder = tmp_path / "workspaceStorage" / "abc"
    folder.mkdir(parents=True)
    if content is not None:
        (folder / "workspace.json").write_text(content, encoding="utf-8")
    return folder


@pytest.mark.parametrize(
    ("content", "uri"),
    [
        ('{"folder": "file:///home/ada/proj"}', "file:///home/ada/proj"),
        (
            '{\n  "workspace": "file:///home/ada/all.code-workspace"\n}',
            "file:///home/ada/all.code-workspace",
        ),
        (
            '{"other": 1, "folder": "vscode-remote://wsl%2Bubuntu/src"}',
            "vscode-remote://wsl%2Bubuntu/src",
        ),
        ('{"folder": ""}', None),
        ('{"folder": 3}', None),
        ('{"folder": "file:///x"', None),
        ("[1, 2]", None),
        (None, None),
    ],
)
def test_workspace_uri(tmp_path: Path, content: str | None, uri: str | None) -> None:
    """The folder or workspace URI is read; a missing, empty or damaged file gives None."""
    assert _vscode.workspace_uri(workspace(tmp_path, content)) == uri


@pytest.mark.parametrize(
    ("uri", "platform"),
    [
        ("file:///home/ada/proj", "linux"),
        ("file:///c%3A/Users/ada/proj", "win32"),
        ("file:///C:/Users/ada", "win32"),
        ("file://server/share/proj", "win32"),
        ("file:///c", "linux"),
        ("vscode-remote://ssh-remote%2Bbox/c:/x", "linux"),
    ],
)
def test_uri_platform(uri: str, platform: str) -> None:
    """Drive letters and UNC hosts mean a Windows path; everything else reads as POSIX."""
    assert _vscode.uri_platform(uri) == platform


def test_workspace_project_path_infers_the_platform_from_the_uri(tmp_path: Path) -> None:
    """A Windows URI gives a Windows path even on a host read as Linux, unless told otherwise."""
    folder = workspace(tmp_path, '{"folder": "file:///c%3A/Users/ada/my%20proj"}')
    assert _vscode.workspace_project_path(folder) == "c:\\Users\\ada\\my proj"
    assert _vscode.workspace_project_path(folder, "linux") == "/c:/Users/ada/my proj"


def test_workspace_project_path_of_an_empty_window_is_none(tmp_path: Path) -> None:
    """A folder without workspace.json (an empty window, no-workspace) has no project."""
    assert _vscode.workspace_project_path(workspace(tmp_path, None)) is None
