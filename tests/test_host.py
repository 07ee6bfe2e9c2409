"""Host: where adapters look, per platform, without touching the real machine."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from chatparse.host import Host

HOME = Path("/home/ada")


def test_defaults_describe_this_machine() -> None:
    """Host() is this machine: real home, a snapshot of the environment, this platform."""
    host = Host()
    assert host.home == Path.home()
    assert dict(host.env) == dict(os.environ)
    assert host.platform == (sys.platform if sys.platform in ("darwin", "win32") else "linux")


def test_env_is_a_snapshot_and_hidden_from_repr() -> None:
    """An explicit env is used as given, copied, and never printed."""
    env = {"API_KEY": "hunter2"}
    host = Host(home=HOME, env=env, platform="linux")
    env["API_KEY"] = "changed"
    assert host.getenv("API_KEY") == "hunter2"
    assert "hunter2" not in repr(host)


def test_empty_variable_counts_as_unset() -> None:
    """VAR= is treated like an unset variable."""
    host = Host(home=HOME, env={"XDG_CONFIG_HOME": ""}, platform="linux")
    assert host.getenv("XDG_CONFIG_HOME") is None
    assert host.config_home() == HOME / ".config"


@pytest.mark.parametrize(
    ("platform", "env", "expected"),
    [
        ("linux", {}, HOME / ".config/Cursor/User"),
        pytest.param(
            "linux",
            {"XDG_CONFIG_HOME": "/xdg"},
            Path("/xdg/Cursor/User"),
            marks=pytest.mark.skipif(
                sys.platform == "win32",
                reason="Host checks XDG_CONFIG_HOME with this OS's Path: /xdg has no drive, so"
                " Windows does not call it absolute",
            ),
        ),
        ("linux", {"XDG_CONFIG_HOME": "relative"}, HOME / ".config/Cursor/User"),
        ("freebsd14", {}, HOME / ".config/Cursor/User"),
        ("darwin", {"XDG_CONFIG_HOME": "/xdg"}, HOME / "Library/Application Support/Cursor/User"),
        ("win32", {}, HOME / "AppData/Roaming/Cursor/User"),
        ("win32", {"APPDATA": "/roaming"}, Path("/roaming/Cursor/User")),
    ],
)
def test_vscode_user_dir(platform: str, env: dict[str, str], expected: Path) -> None:
    """VS Code-family user-data dirs follow each platform's convention."""
    assert Host(home=HOME, env=env, platform=platform).vscode_user_dir("Cursor") == expected


def test_unknown_platform_is_linux() -> None:
    """Unix-likes other than macOS are treated as Linux (XDG)."""
    assert Host(home=HOME, env={}, platform="cygwin").platform == "linux"


def test_expand_uses_host_home() -> None:
    """~ expands against the host's home, not the real one."""
    host = Host(home=HOME, env={}, platform="linux")
    assert host.expand("~") == HOME
    assert host.expand("~/.codex") == HOME / ".codex"
    assert host.expand("/abs/path") == Path("/abs/path")


def test_home_without_env_is_an_empty_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Another home is never mixed with this machine's variables; Host() still reads them."""
    monkeypatch.setenv("CODEX_HOME", "/this/machine/codex")
    other = Host(home=HOME)
    assert dict(other.env) == {}
    assert other.getenv("CODEX_HOME") is None
    assert Host().getenv("CODEX_HOME") == "/this/machine/codex"
    assert Host(platform="darwin").getenv("CODEX_HOME") == "/this/machine/codex"
    assert Host(home=HOME, env={"CODEX_HOME": "/x"}).getenv("CODEX_HOME") == "/x"


@pytest.mark.parametrize(
    ("platform", "value", "expected"),
    [
        ("linux", "/srv/api:~/code", (Path("/srv/api"), HOME / "code")),
        ("darwin", "~", (HOME,)),
        ("win32", "/srv/api;~\\code", (Path("/srv/api"), HOME / "code")),
        # On win32 the separator is ";": a ":" is part of a path (as in C:\code).
        ("win32", "/srv/a:b", (Path("/srv/a:b"),)),
        ("linux", "/srv/a;b", (Path("/srv/a;b"),)),
    ],
)
@pytest.mark.skipif(
    sys.platform == "win32",
    reason="the folders are POSIX-absolute: Windows calls /srv/api relative (no drive)",
)
def test_project_folders_split_like_path_on_the_hosts_platform(
    platform: str, value: str, expected: tuple[Path, ...]
) -> None:
    """CHATPARSE_PROJECTS is split by the host's platform separator; ~ is the host's home."""
    host = Host(home=HOME, env={"CHATPARSE_PROJECTS": value}, platform=platform)
    assert host.project_folders() == expected


@pytest.mark.skipif(
    sys.platform == "win32",
    reason="the folders are POSIX-absolute: Windows calls /srv/api relative (no drive)",
)
def test_project_folders_skip_empty_and_relative_entries_and_repeats() -> None:
    """Empty entries, relative paths and a folder named twice are left out; spaces trimmed."""
    value = "::code/app: /srv/api :~other/app:/srv/api:~/code:./here:~/code/:"
    host = Host(home=HOME, env={"CHATPARSE_PROJECTS": value}, platform="linux")
    assert host.project_folders() == (Path("/srv/api"), HOME / "code")


@pytest.mark.parametrize("env", [{}, {"CHATPARSE_PROJECTS": ""}, {"CHATPARSE_PROJECTS": " : "}])
def test_no_project_folders_when_unset_or_empty(env: dict[str, str]) -> None:
    """Unset, empty, or only separators and spaces: no folder, never the working folder."""
    assert Host(home=HOME, env=env, platform="linux").project_folders() == ()


def test_project_folders_come_from_the_hosts_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Another home does not see this machine's CHATPARSE_PROJECTS; this machine's Host does."""
    here = Path.home() / "code"
    monkeypatch.setenv("CHATPARSE_PROJECTS", str(here))
    assert Host().project_folders() == (here,)
    assert Host(home=HOME).project_folders() == ()
