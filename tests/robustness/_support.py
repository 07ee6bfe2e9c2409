"""Shared helpers: fixture cases copied into a temporary home, run through an adapter, checked."""

from __future__ import annotations

import os
import shutil
import traceback
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Final

import chatparse
from chatparse.errors import SkippedSourceWarning
from chatparse.host import Host
from chatparse.model import ParsedConversation
from chatparse.serialize import from_dict, to_dict
from chatparse.testing import Case, check_conversation, load_cases, materialize

__all__ = [
    "ADAPTERS",
    "FIXTURES",
    "budget",
    "case_home",
    "cases_of",
    "check_all",
    "open_to_all",
    "run_adapter",
    "where_modes_apply",
]

FIXTURES: Final = Path(__file__).resolve().parents[2] / "fixtures"
ADAPTERS: Final = (
    "aider",
    "amp",
    "antigravity",
    "claude-code",
    "cline",
    "codex",
    "continue",
    "copilot",
    "copilot-cli",
    "crush",
    "cursor",
    "cursor-cli",
    "factory-droid",
    "gemini-cli",
    "goose",
    "grok-build",
    "hermes",
    "kilo-code",
    "kimi",
    "kiro",
    "mistral-vibe",
    "oh-my-pi",
    "openclaw",
    "opencode",
    "openhands",
    "pi",
    "qwen-code",
    "roo-code",
    "trae",
    "windsurf",
    "zed",
)
FUZZ_ENV: Final = "CHATPARSE_FUZZ_EXAMPLES"


def budget(default: int) -> int:
    """The number of examples to try: ``default``, or ``$CHATPARSE_FUZZ_EXAMPLES`` when set."""
    value = os.environ.get(FUZZ_ENV, "")
    return int(value) if value.strip() else default


def cases_of(adapter: str) -> tuple[Case, ...]:
    """Every runnable fixture case of ``adapter``."""
    return tuple(case for case in load_cases(FIXTURES, adapter=adapter) if case.problem is None)


@contextmanager
def case_home(case: Case, workdir: Path) -> Iterator[Path]:
    """Copy ``case``'s home into ``workdir/home`` and materialize its databases for the block."""
    home = workdir / "home"
    shutil.copytree(case.home_dir, home, symlinks=True)
    with materialize(home):
        yield home


def host_for(case: Case, home: Path) -> Host:
    """The host the case describes, rooted at ``home``."""
    return Host(home=home, env=case.host_env(home), platform=case.platform)


def run_adapter(case: Case, home: Path, *, quiet: bool = True) -> list[ParsedConversation]:
    """Detect, scan and parse every conversation of ``case``'s adapter in ``home``.

    ``quiet``: a store or folder passed over with a ``SkippedSourceWarning`` is part of some
    cases (a damaged database); tests about something else let it pass.
    """
    with warnings.catch_warnings():
        if quiet:
            warnings.simplefilter("ignore", SkippedSourceWarning)
        adapter = chatparse.get_adapter(case.adapter)
        found = adapter.detect(host_for(case, home))
        if found is None:
            return []
        return [adapter.parse(meta) for meta in list(adapter.scan(found))]


def check_all(conversations: list[ParsedConversation]) -> None:
    """Assert every invariant the kit knows, and the two the issue names, for each conversation."""
    for conversation in conversations:
        assert conversation.diagnostics.balanced, conversation.diagnostics
        assert from_dict(ParsedConversation, to_dict(conversation)) == conversation
        assert check_conversation(conversation) == []


NOBODY: Final = 65534
"""The unprivileged user and group that a root test process becomes to meet file modes."""


def open_to_all(home: Path) -> None:
    """Let any user read the tree under ``home``, before a test sets the modes it is about.

    A temporary directory is private to its owner, and :func:`where_modes_apply` may run its
    check as ``nobody``: then only the modes the test sets afterwards should deny access.
    """
    if os.geteuid() != 0:
        return
    for folder in [home, *home.parents]:
        if folder.stat().st_uid == 0 and folder != Path(folder.anchor):
            folder.chmod(folder.stat().st_mode | 0o555)
    for path in home.rglob("*"):
        if not path.is_symlink():
            path.chmod(path.stat().st_mode | (0o555 if path.is_dir() else 0o444))


def where_modes_apply(check: Callable[[], None]) -> None:
    """Run ``check`` as a user that file modes apply to, so an unreadable file is unreadable.

    Root reads any file whatever its mode, which would make every unreadable-file test pass
    without proving anything; so as root, ``check`` runs in a forked child that became
    ``nobody`` (call :func:`open_to_all` first). Everything ``check`` imports must already be
    imported: the child may not be able to read the interpreter's own files. A failure in the
    child fails the test with its traceback.
    """
    if os.geteuid() != 0:
        check()
        return
    read_end, write_end = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover -- runs in the child, reported through the pipe
        os.close(read_end)
        try:
            os.setgroups([])
            os.setgid(NOBODY)
            os.setuid(NOBODY)
            check()
        except BaseException:  # noqa: BLE001 -- everything is reported to the parent
            report = traceback.format_exc().encode()
        else:
            report = b"ok"
        os.write(write_end, report)
        os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as pipe:
        report = pipe.read()
    os.waitpid(child, 0)
    assert report == b"ok", report.decode(errors="replace")
