"""Where to look: the home directory, environment and platform an adapter searches.

Adapters never read ``os.environ``, ``Path.home()`` or ``sys.platform`` themselves; they ask a
:class:`Host`. That is what lets one test suite, on one Linux machine, check how every adapter
behaves on macOS and Windows, with any environment, against a fake home directory, and lets a
caller point chatparse at a backup of another machine's home.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Final

from attrs import field, frozen

__all__ = ["PLATFORMS", "PROJECTS_VARIABLE", "Host"]

PLATFORMS: Final = ("darwin", "linux", "win32")
"""The platforms whose directory layouts chatparse knows. Any other ``sys.platform`` value
(``freebsd14``, ``cygwin``) is treated as ``linux``: they follow the XDG conventions."""

PROJECTS_VARIABLE: Final = "CHATPARSE_PROJECTS"
"""chatparse's own variable naming project folders: see :meth:`Host.project_folders`."""


def _platform(value: str | None) -> str:
    name = sys.platform if value is None else value
    return name if name in PLATFORMS else "linux"


def _home(value: str | os.PathLike[str] | None) -> Path:
    return Path.home() if value is None else Path(value)


def _env(value: Mapping[str, str]) -> Mapping[str, str]:
    # A snapshot: a Host describes the machine as it was when the Host was made.
    return MappingProxyType(dict(value))


@frozen(init=False)
class Host:
    """The machine being read: its home directory, environment variables and platform.

    ``Host()`` describes this machine. Pass any of the three to describe another one, such as a
    fake home in a test (``Host(home=tmp, env={}, platform="darwin")``) or a mounted backup.

    Args:
        home: The user's home directory. Default: :meth:`pathlib.Path.home`.
        env: Environment variables, used as given (copied). Default: a snapshot of
            :data:`os.environ` when ``home`` is not given either; an empty environment when
            ``home`` is given, because this machine's variables (``CODEX_HOME``,
            ``XDG_CONFIG_HOME``…) point into this machine's home, never into another one.
        platform: ``"linux"``, ``"darwin"`` or ``"win32"``. Default: :data:`sys.platform`.

    .. versionadded:: 0.1
    """

    home: Path
    # Not in repr: environments hold tokens, and reprs end up in logs and bug reports.
    env: Mapping[str, str] = field(repr=False)
    platform: str

    def __init__(
        self,
        home: str | os.PathLike[str] | None = None,
        env: Mapping[str, str] | None = None,
        platform: str | None = None,
    ) -> None:
        # A hand-written __init__ because the default of ``env`` depends on whether ``home``
        # was given, which a field default cannot see once ``home`` has been converted.
        if env is None:
            env = os.environ if home is None else {}
        self.__attrs_init__(home=_home(home), env=_env(env), platform=_platform(platform))

    def getenv(self, name: str) -> str | None:
        """The variable's value, or ``None`` when it is unset or empty.

        An empty value is treated as unset because that is what shells and tools mean by
        ``VAR=`` (``XDG_CONFIG_HOME=`` must not make paths relative to the working directory).
        """
        value = self.env.get(name)
        return value or None

    def expand(self, path: str | os.PathLike[str]) -> Path:
        """Expand a leading ``~`` against this host's home (not the real one)."""
        text = os.fspath(path)
        if text == "~":
            return self.home
        if text.startswith(("~/", "~\\")):
            return self.home / text[2:]
        return Path(text)

    def config_home(self) -> Path:
        """Where per-user application settings live on this platform.

        Linux: ``$XDG_CONFIG_HOME`` or ``~/.config``; macOS: ``~/Library/Application Support``;
        Windows: ``%APPDATA%`` or ``~/AppData/Roaming``.
        """
        if self.platform == "darwin":
            return self.home / "Library" / "Application Support"
        if self.platform == "win32":
            appdata = self.getenv("APPDATA")
            return Path(appdata) if appdata else self.home / "AppData" / "Roaming"
        xdg = self.getenv("XDG_CONFIG_HOME")
        # The XDG spec says a relative value is invalid and must be ignored.
        if xdg and Path(xdg).is_absolute():
            return Path(xdg)
        return self.home / ".config"

    def vscode_user_dir(self, product: str) -> Path:
        """The ``User`` directory of a VS Code-family editor, such as ``"Cursor"`` or ``"Code"``.

        It holds ``globalStorage/`` and ``workspaceStorage/``. ``product`` is the application's
        data folder name exactly as the editor spells it (``"Code - Insiders"``, ``"Trae CN"``).
        """
        return self.config_home() / product / "User"

    def project_folders(self) -> tuple[Path, ...]:
        """The project folders named in ``$CHATPARSE_PROJECTS``, in its order, each once.

        Some tools keep their history inside each project they ran in, not under the home:
        Aider's ``.aider.chat.history.md``, Crush's ``.crush/crush.db``. Nothing under the home
        lists all those projects, so the user names them in this one variable, read by the
        ``aider`` and ``crush`` adapters (besides the home and, for Crush, its own project list).
        They look in each folder and in each folder directly inside it, so a folder of projects
        (``~/code``) names every project in it.

        The value is a list of folders separated like ``PATH`` on this host's platform: ``;``
        on ``win32``, ``:`` elsewhere (``CHATPARSE_PROJECTS=~/code:/srv/work/api``). Spaces
        around an entry are dropped and a leading ``~`` is expanded against this host's home
        (:meth:`expand`). Empty entries (``a::b``, a trailing ``:``) and relative paths
        (``code/app``, ``~other/app``) are skipped without a warning: a relative path would
        depend on the folder chatparse was started in. ``chatparse doctor`` shows the value
        beside the number of folders taken from it, so a skipped entry can be seen. Whether a
        folder exists is not checked here: the adapters pass over one that is missing.

        Like every variable, it is read from :attr:`env`: a ``Host(home=...)`` given no ``env``
        has none, so name the folders there, ``env={"CHATPARSE_PROJECTS": "/mnt/backup/code"}``.

        .. versionadded:: 0.3
        """
        separator = ";" if self.platform == "win32" else ":"
        entries = (
            entry.strip() for entry in (self.getenv(PROJECTS_VARIABLE) or "").split(separator)
        )
        paths = (self.expand(entry) for entry in entries if entry)
        # dict.fromkeys keeps the first of each folder, in the variable's order.
        return tuple(dict.fromkeys(path for path in paths if path.is_absolute()))
