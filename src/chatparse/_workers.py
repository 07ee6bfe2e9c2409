"""``iter_conversations(workers=N)``: the parse spread over N processes of this machine.

Scanning is cheap and stays in this process; parsing is not, and goes to a process pool in
batches of small conversations (one meta per task spends more on the round trip than a small
session takes to parse). Results come back pickled, which costs a fraction of the parse, and are
yielded in scan order, so ``workers=N`` gives the same conversations in the same order as one
process. At most two batches per worker are in flight, so memory stays bounded by those.

What one process does, this does too:

* a conversation that fails is a :class:`~chatparse.errors.ParseWarning` naming it (or, with
  ``errors="raise"``, the worker's exception raised here, or a ``RuntimeError`` carrying its
  text when that exception cannot be pickled);
* warnings raised while parsing in a worker (such as a ``SkippedSourceWarning``) are raised
  again here, with their category and message;
* a worker process that dies (a crash in native code, ``os._exit`` in a plugin) loses only its
  conversation: the batches it held are parsed again one conversation a task in a fresh pool,
  and the one that kills its worker again is reported as failed;
* Ctrl-C, or closing the iterator early, cancels what is queued and stops every worker;
* workers that cannot start at all (under ``spawn``, a script that starts them without an
  ``if __name__ == "__main__":`` guard) raise
  :class:`~chatparse.errors.WorkersCannotStartError`, rather than failing every conversation
  one by one.

What is done with each conversation can be done in the worker too (``then``): the command
line's ``export --workers`` renders there and ``usage --workers`` keeps only the usage, so what
comes back is a fraction of the conversation and costs a fraction to send (see
``docs/scale-out.md``).

Adapters come to the workers through the registry (built-ins and entry points), which works
under every start method (``spawn`` is the default on macOS and Windows). An adapter registered
at run time with :func:`chatparse.register_adapter` exists in this process only: its
conversations are parsed here.
"""

from __future__ import annotations

import multiprocessing
import pickle
import signal
import time
import warnings
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Final, Generic, TypeVar

from attrs import frozen

from chatparse._batch import Failure, iter_results_then, raise_or_warn
from chatparse.errors import WorkersCannotStartError
from chatparse.model import ConversationMeta, ParsedConversation

__all__ = [
    "BATCH_BYTES",
    "BATCH_CONVERSATIONS",
    "START_METHOD",
    "batches",
    "parse_in_workers",
    "results_in_workers",
]

BATCH_CONVERSATIONS: Final = 32
"""The most conversations sent to a worker at once."""
BATCH_BYTES: Final = 8 * 1024 * 1024
"""A batch takes no further file once its files' sizes would add up past this; a larger file
is alone in its batch, with the other conversations it holds."""
START_METHOD: str | None = None
"""The ``multiprocessing`` start method of the pool; ``None`` chooses (see :func:`start_method`)."""

_IN_FLIGHT_PER_WORKER: Final = 2


def start_method() -> str | None:
    """The pool's start method: :data:`START_METHOD` when set, else the safest fast one.

    ``fork`` when this process has no other thread: the workers start with what this process
    has imported already, instead of importing chatparse again each (a fork copies only the
    calling thread, so with another thread running, a lock it held stays locked in the child:
    Python 3.12 warns). Otherwise ``forkserver`` where the platform has it, else its default
    (``spawn``).
    """
    if START_METHOD is not None:
        return START_METHOD
    if _can_fork():
        return "fork"
    return _without_fork()


def _without_fork() -> str | None:
    return "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else None


def _can_fork() -> bool:
    """Whether ``fork`` is safe here: one thread, and not a new process still starting.

    A process of ``spawn`` or ``forkserver`` (the fork server too) runs the calling script as
    it starts; ``multiprocessing`` refuses to start processes from there (the script lacks the
    ``__main__`` guard), but only for its other start methods: with ``fork`` the script's work
    would run again inside that process.
    """
    # The attribute multiprocessing's own check reads (spawn._check_not_importing_main).
    starting = getattr(multiprocessing.current_process(), "_inheriting", False)
    return "fork" in multiprocessing.get_all_start_methods() and _only_thread() and not starting


def _only_thread() -> bool:
    """Whether this process runs one thread, counting native ones (known on Linux only)."""
    return _threads() == 1


def _threads() -> int | None:
    """This process's threads, native ones included; ``None`` where the system does not say."""
    try:
        return sum(1 for _thread in Path("/proc/self/task").iterdir())
    except OSError:
        return None


def _await_ended_threads() -> None:
    """Wait, a second at most, until the threads of a pool just shut down have ended.

    ``Thread.join()`` returns just before the system thread ends, and the next pool should not
    fork while it is still counted.
    """
    deadline = time.monotonic() + 1.0
    while _threads() not in (1, None) and time.monotonic() < deadline:
        time.sleep(0.001)


def _default_signals() -> None:
    """Run in each worker as it starts: the signal handlers of a new interpreter.

    A forked worker inherits this process's; the command line's, which let an export end
    cleanly on SIGTERM, would keep a worker from stopping when the pool is closed.
    """
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)


@frozen
class _Warning:
    """A warning raised in a worker, to raise again in the parent."""

    category: type[Warning]
    message: str


_T = TypeVar("_T")


@frozen
class _Outcome(Generic[_T]):
    """What a worker sends back for one batch: results in meta order, and its warnings."""

    results: tuple[_T | Failure, ...]
    warnings: tuple[_Warning, ...]


def _work(
    metas: Sequence[ConversationMeta], then: Callable[[ParsedConversation], _T]
) -> _Outcome[_T]:
    """Run in the worker: parse a batch and apply ``then``, keeping the warnings raised."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        results = [result for _meta, result in iter_results_then(metas, then)]
    return _Outcome(
        tuple(_picklable(result) for result in results),
        tuple(_Warning(w.category, str(w.message)) for w in caught),
    )


def _picklable(result: _T | Failure) -> _T | Failure:
    if isinstance(result, Failure) and result.exception is not None:
        try:
            pickle.dumps(result.exception)
        except Exception:  # noqa: BLE001 -- any exception that cannot travel is sent as text
            return Failure(result.meta, result.error)
    return result


def batches(metas: Iterable[ConversationMeta]) -> Iterator[list[ConversationMeta]]:
    """``metas`` in order, in batches (:data:`BATCH_CONVERSATIONS`, :data:`BATCH_BYTES`)."""
    batch: list[ConversationMeta] = []
    size = 0
    for meta in metas:
        # A meta's size is its file's. Conversations that share a store (a database) count it
        # once and stay together, so that a batch reads the store once.
        new_store = not batch or batch[-1].path != meta.path
        if new_store and batch and size + (meta.size or 0) > BATCH_BYTES:
            yield batch
            batch, size = [], 0
        if new_store:
            size += meta.size or 0
        batch.append(meta)
        if len(batch) >= BATCH_CONVERSATIONS:
            yield batch
            batch, size = [], 0
    if batch:
        yield batch


def parse_in_workers(
    metas: Iterable[ConversationMeta],
    workers: int,
    *,
    errors: str,
    then: Callable[[ParsedConversation], _T],
) -> Iterator[_T]:
    """``then`` of the conversations of ``metas``, parsed by ``workers`` processes, in order."""
    for result in results_in_workers(metas, workers, then):
        if isinstance(result, Failure):
            raise_or_warn(result, errors)
        else:
            yield result


def results_in_workers(
    metas: Iterable[ConversationMeta],
    workers: int,
    then: Callable[[ParsedConversation], _T],
) -> Iterator[_T | Failure]:
    """``then`` of each meta's conversation, or a :class:`Failure` in its place, in order.

    ``then`` runs in the worker (it must pickle: a module-level function, or a
    :func:`functools.partial` of one); an exception it raises fails that conversation only.
    Warnings raised in the workers are raised again here, as each batch comes back.
    """
    pool: _Pool[_T] = _Pool(workers, then)
    finished = False
    try:
        for outcome in pool.outcomes(batches(metas)):
            for warning in outcome.warnings:
                warnings.warn(warning.message, warning.category, stacklevel=4)
            yield from outcome.results
        finished = True
    finally:
        pool.close(wait=finished)


class _Pool(Generic[_T]):
    """A process pool that survives a worker's death, losing only that worker's conversation."""

    def __init__(self, workers: int, then: Callable[[ParsedConversation], _T]) -> None:
        self.workers = workers
        self.then = then
        self.method = start_method()
        self.executor, self.probe = self._new_executor()

    def _new_executor(self) -> tuple[ProcessPoolExecutor, Future[_Outcome[_T]]]:
        """A pool, started at once, and its first task (an empty batch: ``then`` loaded).

        Started at once, so that a ``fork`` happens right after :func:`start_method` counted
        the threads, before the scan can start one. Every pool of a run starts the same way,
        unless a thread started since makes ``fork`` unsafe.
        """
        method = self.method
        if method == "fork" and START_METHOD is None and not _can_fork():
            method = _without_fork()
        executor = ProcessPoolExecutor(
            max_workers=self.workers,
            mp_context=multiprocessing.get_context(method),
            initializer=_default_signals,
        )
        return executor, executor.submit(_work, [], self.then)

    def outcomes(self, work: Iterator[list[ConversationMeta]]) -> Iterator[_Outcome[_T]]:
        """One outcome per batch of ``work``, in order, with a bounded number in flight."""
        in_flight: deque[tuple[list[ConversationMeta], Future[_Outcome[_T]]]] = deque()
        limit = self.workers * _IN_FLIGHT_PER_WORKER
        pending = iter(work)
        while True:
            while len(in_flight) < limit and (batch := next(pending, None)) is not None:
                try:
                    in_flight.append((batch, self.executor.submit(_work, batch, self.then)))
                except BrokenProcessPool:  # a worker died before its batch's result was asked
                    yield from self._after_a_crash([*(b for b, _f in in_flight), batch])
                    in_flight.clear()
            if not in_flight:
                return
            batch, future = in_flight.popleft()
            try:
                yield future.result()
            except BrokenProcessPool:
                yield from self._after_a_crash([batch, *(b for b, _f in in_flight)])
                in_flight.clear()

    def _after_a_crash(self, suspects: list[list[ConversationMeta]]) -> Iterator[_Outcome[_T]]:
        """Parse again the batches a dead worker took down with it.

        Each batch is tried whole in a fresh pool; one that breaks it again is parsed one
        conversation a task, and the conversation whose worker dies is reported as failed.
        """
        for batch in suspects:
            self._replace_executor()
            self._check_started()
            try:
                yield self.executor.submit(_work, batch, self.then).result()
                continue
            except BrokenProcessPool:
                pass
            for meta in batch:
                self._replace_executor()
                try:
                    yield self.executor.submit(_work, [meta], self.then).result()
                except BrokenProcessPool:
                    yield _Outcome((Failure(meta, "its worker process died"),), ())
        self._replace_executor()

    def _check_started(self) -> None:
        """Raise :class:`~chatparse.errors.WorkersCannotStartError` if a fresh pool is broken.

        Its first task, with nothing else queued, failed: its workers cannot start, or cannot
        load ``then``.
        """
        try:
            self.probe.result()
        except BrokenProcessPool:
            raise WorkersCannotStartError from None

    def _replace_executor(self) -> None:
        # Waited for, so that its threads are gone before the next pool forks.
        self.executor.shutdown(wait=True, cancel_futures=True)
        if self.method == "fork":
            _await_ended_threads()
        self.executor, self.probe = self._new_executor()

    def close(self, *, wait: bool) -> None:
        """Shut the pool down: gracefully after the last batch, else at once.

        At once is on Ctrl-C or when the caller stops iterating early: what is queued is
        cancelled and every worker is stopped, also one busy with a long parse.
        """
        if wait:
            self.executor.shutdown(wait=True)
            return
        terminate = getattr(self.executor, "terminate_workers", None)  # Python 3.14+
        if terminate is not None:
            terminate()
            return
        # Before 3.14 the pool has no way to stop a busy worker: its processes are in
        # _processes, which shutdown() empties, so they are taken first.
        processes = list((getattr(self.executor, "_processes", None) or {}).values())
        self.executor.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            process.terminate()
        for process in processes:
            process.join()
