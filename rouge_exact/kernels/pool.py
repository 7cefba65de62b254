"""The kept pool: worker threads that run the kernels of one call side by side (the kernels
release the GIL), made at the first call that spreads work and kept, as numba's, OpenMP's and
rayon's runtimes keep theirs. ``run_parts(function, items)`` gives the items' results in
order; the caller works too. Per process (a forked child makes its own), daemon threads, no
fork hook, one level only, ``backend.THREADS`` threads; a Ctrl-C stops a call. Also
``ForkSafeLock``, the lock a forked child gets afresh. docs/design.md, "The kept pool", has
the details.
"""

from __future__ import annotations

import itertools
import os
import queue
import threading
import time
from typing import Any
from collections.abc import Callable, Sequence

from .backend import THREADS, one_thread, pool_worker, threads_here


class ForkSafeLock:
    """A lock that a forked child gets afresh (the stem memos', the scorer's, the metric's): a
    lock that another thread of the parent held at the fork would never be released in the
    child (DataLoader workers, num_proc fork). Pickles and deep-copies as a new lock."""

    def __init__(self, factory=threading.Lock):
        self._factory, self._pid, self._lock = factory, os.getpid(), factory()

    def __enter__(self):
        if self._pid != os.getpid():
            self._pid, self._lock = os.getpid(), self._factory()
        return self._lock.__enter__()

    def __exit__(self, *exc):
        return self._lock.__exit__(*exc)

    def __reduce__(self):
        return type(self), (self._factory,)


INTERRUPT_GRACE = 1.0  # seconds an interrupted call waits for the items its workers run


class _Call:
    """One run_parts call: its items, handed out one index at a time to whoever asks (the
    caller and the workers that join), and the results. ``closed`` once the caller has seen
    every index handed out: a worker that dequeues it later does nothing."""

    def __init__(self, function: Callable, items: Sequence):
        self.function = function
        self.items = items
        self.results: list = [None] * len(items)
        self.error: BaseException | None = None
        self.indices = itertools.count()  # (next() on a count is atomic under the GIL)
        self.lock = threading.Lock()
        self.active = 0  # workers inside work()
        self.closed = False
        self.idle = threading.Condition(self.lock)  # notified when active drops to 0

    def work(self) -> None:
        """Run items until none is left (or one has failed: the rest are skipped)."""
        n = len(self.items)
        for i in self.indices:
            if i >= n or self.error is not None:
                return
            try:
                self.results[i] = self.function(self.items[i])
            except BaseException as error:  # noqa: BLE001 - re-raised in the caller
                with self.lock:
                    if self.error is None:
                        self.error = error

    def join_as_worker(self) -> None:
        with self.lock:
            if self.closed:
                return
            self.active += 1
        try:
            self.work()
        finally:
            with self.lock:
                self.active -= 1
                if self.active == 0:
                    self.idle.notify_all()

    def finish(self) -> list:
        """The caller's side, after its own work(): wait for the workers that joined. When
        the call was interrupted (an error that is not an Exception: KeyboardInterrupt), for
        INTERRUPT_GRACE seconds at most: a worker may be blocked on a lock the interrupt left
        held (a Ctrl-C that lands as numba takes its compiler lock to load a kernel leaves it
        taken), and the workers skip the items left anyway."""
        with self.lock:
            self.closed = True
            deadline = None
            while self.active:
                if self.error is None or isinstance(self.error, Exception):
                    self.idle.wait()
                    continue
                deadline = deadline or time.monotonic() + INTERRUPT_GRACE
                if not self.idle.wait(deadline - time.monotonic()):
                    break
            error = self.error
            if isinstance(error, Exception):
                self.error = None  # (an interrupt stays: the workers still running stop)
        if error is not None:
            self.results = None  # (the error's traceback holds this call: free its data now)
            raise error
        return self.results


class KeptPool:
    """size - 1 daemon worker threads, started on demand, fed through one queue."""

    def __init__(self, size: int):
        self.size = size
        self.pid = os.getpid()
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        self._started = 0
        self._lock = threading.Lock()

    def _ensure_workers(self, wanted: int) -> None:
        with self._lock:
            while self._started < min(wanted, self.size - 1):
                thread = threading.Thread(target=self._serve, daemon=True,
                                          name=f"rouge-pool-{self._started}")
                thread.start()
                self._started += 1

    def _serve(self) -> None:
        pool_worker()  # kernels called here stay on this thread (no pool inside the pool)
        while True:
            call = self._queue.get()
            call.join_as_worker()
            del call  # an idle worker keeps no call's items or results alive

    def run_parts(self, function: Callable, items: Sequence) -> list:
        call = _Call(function, items)
        helpers = min(len(items), self.size) - 1
        if helpers > 0:
            self._ensure_workers(helpers)
            for _ in range(helpers):
                self._queue.put(call)
        try:
            with one_thread():
                call.work()
        except BaseException as error:  # a Ctrl-C between items: the workers stop too
            with call.lock:
                call.error = call.error or error
        return call.finish()


_POOL: KeptPool | None = None
_POOL_LOCK = ForkSafeLock()


def kept_pool() -> KeptPool:
    """This process's pool (made on first use; made again in a forked child)."""
    global _POOL
    pool = _POOL
    if pool is not None and pool.pid == os.getpid():
        return pool
    with _POOL_LOCK:
        if _POOL is None or _POOL.pid != os.getpid():
            _POOL = KeptPool(THREADS)
        return _POOL


def run_parts(function: Callable[[Any], Any], items: Sequence) -> list:
    """[function(item) for item in items], the items spread over the kept pool. One item, one
    thread allowed, or a call from inside a pool's work runs in the calling thread."""
    if len(items) < 2 or threads_here() == 1:
        return [function(item) for item in items]
    return kept_pool().run_parts(function, items)
