"""``iter_conversations(workers=N)``: the same conversations as one process, on N processes.

A plugin installed as a real distribution (entry points) gives files that parse, fail, warn,
crash their worker or hang; the pool is tried under each start method the platform has
(``spawn`` is macOS' and Windows' default; chatparse chooses ``fork`` or ``forkserver``).
"""

from __future__ import annotations

import multiprocessing
import operator
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from importlib.resources import files
from pathlib import Path
from typing import Any

import pytest

import chatparse
from chatparse import Host, ParsedConversation, ParseWarning, SkippedSourceWarning, registry
from chatparse import _workers as workers_module
from chatparse._batch import Failure

from conftest import MakeDist

DEMO = Path(str(files("chatparse").joinpath("_demo", "home")))

PLUGIN = """
import os, time, warnings
from pathlib import Path
from chatparse import ConversationMeta, Diagnostics, Message, ParsedConversation, SourceInfo
from chatparse.errors import SkippedSourceWarning

class Crashy:
    name = "crashy"
    display_name = "Crashy"
    parser_version = "1"

    def detect(self, host):
        root = Path(host.home) / "crashy"
        if not root.is_dir():
            return None
        return SourceInfo(source=self.name, display_name=self.display_name, roots=(str(root),))

    def scan(self, source):
        for path in sorted(Path(source.roots[0]).glob("*.txt")):
            stat = path.stat()
            yield ConversationMeta(
                source=self.name, id=path.stem, path=str(path), size=stat.st_size,
                fingerprint=str(stat.st_size),
            )

    def parse(self, meta):
        text = Path(meta.path).read_text()
        if text == "crash":
            os._exit(3)
        if text == "boom":
            raise ValueError("boom in " + meta.id)
        if text == "hang":
            Path(meta.path + ".started").write_text(str(os.getpid()))
            time.sleep(600)
        if text == "warn":
            warnings.warn("passed over something", SkippedSourceWarning)
        lines = text.splitlines()
        return ParsedConversation(
            source=self.name, id=meta.id, meta=meta, parser_version="1",
            messages=[Message(id=str(i), role="user", text=t) for i, t in enumerate(lines)],
            diagnostics=Diagnostics(records_seen=len(lines), records_used=len(lines)),
        )
"""


@pytest.fixture
def crashy(
    make_dist: MakeDist,
    fresh_registry: registry.Registry,  # noqa: ARG001 -- discovers the plugin made here
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> Path:
    """A home with the demo's conversations and the ``crashy`` plugin's, the plugin installed."""
    make_dist("chatparse-crashy", {"crashy": "Crashy"}, PLUGIN)
    # make_dist's site folder; spawned workers start a new interpreter and find it through
    # PYTHONPATH, as they would find a pip-installed plugin in site-packages.
    site = str(tmp_path / "site-packages")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([site, os.environ.get("PYTHONPATH", "")]))
    home = tmp_path / "home"
    shutil.copytree(DEMO, home)
    (home / "crashy").mkdir()
    for n in range(40):
        (home / "crashy" / f"ok{n:02d}.txt").write_text(f"hello {n}\nagain")
    return home


def write(home: Path, name: str, text: str) -> None:
    (home / "crashy" / f"{name}.txt").write_text(text)


def parse_all(home: Path, **options: object) -> list[ParsedConversation]:
    return list(chatparse.iter_conversations(Host(home=home, env={}, platform="linux"), **options))  # type: ignore[arg-type]


@pytest.fixture(params=["spawn", "forkserver", "fork"])
def start_method(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str | None:
    method: str = request.param
    if method not in multiprocessing.get_all_start_methods():
        pytest.skip(f"no {method} on this platform")
    monkeypatch.setattr(workers_module, "START_METHOD", method)
    return method


@pytest.mark.usefixtures("start_method")
def test_the_same_conversations_in_the_same_order(crashy: Path) -> None:
    write(crashy, "boom", "boom")
    write(crashy, "warn", "warn")
    with (
        pytest.warns(ParseWarning, match="boom in boom"),
        pytest.warns(SkippedSourceWarning, match="passed over something"),
    ):
        one = parse_all(crashy)
    with (
        pytest.warns(ParseWarning, match="boom in boom") as caught,
        pytest.warns(SkippedSourceWarning, match="passed over something"),
    ):
        two = parse_all(crashy, workers=2)
    assert [(c.source, c.id) for c in two] == [(c.source, c.id) for c in one]
    assert two == one
    assert {c.source for c in two} >= {
        "claude-code",
        "codex",
        "cursor",
        "trae",
        "copilot",
        "crashy",
    }
    assert len([w for w in caught if w.category is ParseWarning]) == 1


def test_errors_raise_raises_the_workers_exception(crashy: Path) -> None:
    write(crashy, "boom", "boom")
    with pytest.raises(ValueError, match="boom in boom"):
        parse_all(crashy, workers=2, errors="raise")


@pytest.mark.usefixtures("start_method")
def test_a_dead_worker_loses_only_its_conversation(crashy: Path) -> None:
    write(crashy, "crash", "crash")
    with pytest.warns(ParseWarning, match=r"crashy conversation crash .*worker process died"):
        got = parse_all(crashy, workers=2)
    ids = [c.id for c in got if c.source == "crashy"]
    assert ids == [f"ok{n:02d}" for n in range(40)]


@pytest.mark.usefixtures("start_method")
def test_work_done_in_the_workers_sends_back_only_its_result(crashy: Path) -> None:
    """map_conversations(func, workers=2): then's results, in the one-process order."""
    host = Host(home=crashy, env={}, platform="linux")
    keys = list(chatparse.map_conversations(operator.attrgetter("source", "id"), host, workers=2))
    assert keys == [(c.source, c.id) for c in parse_all(crashy)]


def test_work_that_fails_in_a_worker_fails_its_conversation_only(crashy: Path) -> None:
    """An exception in ``then`` is that conversation's failure, as a parse error would be."""
    host = Host(home=crashy, env={}, platform="linux")
    write(crashy, "boom", "boom")
    metas = [meta for meta in chatparse.scan(host) if meta.source == "crashy"]
    # A conversation is not subscriptable: this then raises TypeError in the worker, every time.
    fails: Any = operator.itemgetter("id")
    results = list(workers_module.results_in_workers(metas, 2, fails))
    assert len(results) == len(metas) == 41
    assert all(isinstance(result, Failure) for result in results)
    errors = sorted(
        {result.error.split(":")[0] for result in results if isinstance(result, Failure)}
    )
    assert errors == ["TypeError", "ValueError"]  # then's own, and the parse's of "boom"


def test_workers_zero_means_every_core(crashy: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sizes: list[int] = []
    real = workers_module._Pool.__init__

    def spy(self: object, workers: int, then: object) -> None:
        sizes.append(workers)
        real(self, workers, then)  # type: ignore[arg-type]

    monkeypatch.setattr(workers_module._Pool, "__init__", spy)
    assert parse_all(crashy, workers=0) == parse_all(crashy)
    assert sizes == [os.cpu_count() or 1]


@pytest.mark.parametrize("workers", [-1, 1.5, "2"])
def test_bad_worker_counts_are_refused(crashy: Path, workers: object) -> None:
    with pytest.raises((ValueError, TypeError), match="workers"):
        parse_all(crashy, workers=workers)


def test_batches_hold_small_conversations_together() -> None:
    def metas(sizes: list[int], *, shared: bool = False) -> Iterator[chatparse.ConversationMeta]:
        for n, size in enumerate(sizes):
            path = "/store.db" if shared else f"/{n}"
            yield chatparse.ConversationMeta(
                source="x", id=str(n), path=path, size=size, fingerprint="f"
            )

    small = [len(b) for b in workers_module.batches(metas([10] * 70))]
    assert small == [32, 32, 6]
    big = [len(b) for b in workers_module.batches(metas([10, 9 * 2**20, 10, 10]))]
    assert big == [1, 1, 2]
    one_store = [len(b) for b in workers_module.batches(metas([30 * 2**20] * 40, shared=True))]
    assert one_store == [32, 8]


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to one process is POSIX")
def test_ctrl_c_stops_every_worker(crashy: Path) -> None:
    """A real SIGINT to a real process parsing with two workers leaves no worker behind."""
    write(crashy, "hang", "hang")
    script = textwrap.dedent(
        f"""
        import chatparse
        from chatparse import Host
        host = Host(home={str(crashy)!r}, env={{}}, platform="linux")
        for c in chatparse.iter_conversations(host, workers=2):
            pass
        """
    )
    process = subprocess.Popen([sys.executable, "-c", script], stderr=subprocess.PIPE)
    started = crashy / "crashy" / "hang.txt.started"
    deadline = time.monotonic() + 60
    while not started.exists():
        assert process.poll() is None, process.communicate()[1]
        assert time.monotonic() < deadline, "the hanging conversation never started"
        time.sleep(0.05)
    worker = int(started.read_text())
    process.send_signal(signal.SIGINT)
    _out, err = process.communicate(timeout=60)
    assert process.returncode != 0
    assert b"KeyboardInterrupt" in err
    deadline = time.monotonic() + 10
    while _alive(worker):
        assert time.monotonic() < deadline, f"worker {worker} outlived the run"
        time.sleep(0.05)


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc")
def test_workers_start_with_the_default_signal_handlers(crashy: Path) -> None:
    """A forked worker does not keep its parent's SIGTERM handler (the command line's).

    It would keep the worker alive when the pool is closed.
    """
    write(crashy, "hang", "hang")
    script = textwrap.dedent(
        f"""
        import signal
        import chatparse
        from chatparse import Host
        signal.signal(signal.SIGTERM, lambda signum, frame: None)
        host = Host(home={str(crashy)!r}, env={{}}, platform="linux")
        for c in chatparse.iter_conversations(host, sources=["crashy"], workers=2):
            pass
        """
    )
    # Not a pipe: a worker left behind would hold it open, and reading it would never end.
    errors = crashy / "stderr.txt"
    with errors.open("wb") as stderr:
        process = subprocess.Popen([sys.executable, "-c", script], stderr=stderr)
    started = crashy / "crashy" / "hang.txt.started"
    try:
        deadline = time.monotonic() + 60
        while not started.exists():
            assert process.poll() is None, errors.read_text()
            assert time.monotonic() < deadline, "the hanging conversation never started"
            time.sleep(0.05)
        worker = int(started.read_text())
        status = Path(f"/proc/{worker}/status").read_text()
        caught = int(status.split("SigCgt:")[1].split()[0], 16)  # handled signals, as a mask
        assert not caught & (1 << (signal.SIGTERM - 1))
        assert caught & (1 << (signal.SIGINT - 1))  # Python's own: KeyboardInterrupt
    finally:
        process.send_signal(signal.SIGINT)  # the pool stops its workers
        process.wait(timeout=60)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is dead; it waits only for a parent that is gone too.
    status = Path(f"/proc/{pid}/status")
    return not (status.exists() and "\nState:\tZ" in status.read_text())


@pytest.mark.parametrize(
    "start",
    [
        '_workers.START_METHOD = "spawn"',
        # With a thread running, the pool is started by forkserver, whose server runs this
        # script again: it must not fork its own workers there (and do the job twice).
        "threading.Thread(target=threading.Event().wait, daemon=True).start()",
    ],
    ids=["spawn", "a-thread-runs"],
)
def test_workers_that_cannot_start_say_so_at_once(tmp_path: Path, start: str) -> None:
    """A script without the ``__main__`` guard: one clear error.

    Not a failure per conversation, after a fresh pool for each.
    """
    if "Thread" in start and "forkserver" not in multiprocessing.get_all_start_methods():
        pytest.skip("no forkserver on this platform")
    script = tmp_path / "no_guard.py"
    script.write_text(
        textwrap.dedent(
            f"""
            import threading
            import chatparse
            from chatparse import Host, _workers
            {start}
            host = Host(home={str(DEMO)!r}, env={{}}, platform="linux")
            print("parsed", len(list(chatparse.iter_conversations(host, workers=2))))
            """
        )
    )
    process = subprocess.run(
        [sys.executable, str(script)], capture_output=True, timeout=300, check=False
    )
    assert process.returncode != 0
    assert b"WorkersCannotStartError: worker processes could not start" in process.stderr
    assert b"ParseWarning" not in process.stderr
    assert b"parsed" not in process.stdout


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="threads counted on Linux only")
def test_workers_fork_only_when_no_other_thread_runs() -> None:
    script = textwrap.dedent(
        """
        import threading
        from chatparse import _workers
        print(_workers.start_method())
        release = threading.Event()
        thread = threading.Thread(target=release.wait)
        thread.start()
        print(_workers.start_method())
        release.set()
        thread.join()
        """
    )
    process = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True
    )
    assert process.stdout.split() == ["fork", "forkserver"]


def test_map_conversations_refuses_a_function_that_cannot_reach_the_workers(crashy: Path) -> None:
    host = Host(home=crashy, env={}, platform="linux")
    with pytest.raises(TypeError, match="func must pickle to run in the worker processes"):
        chatparse.map_conversations(lambda c: c.id, host, workers=2)
    # In this process any callable will do.
    here = list(chatparse.map_conversations(lambda c: c.id, host, sources=["crashy"]))
    assert here == [c.id for c in parse_all(crashy) if c.source == "crashy"]
