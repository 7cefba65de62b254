"""The kept pool (kernels.pool): results in order, errors raised in the caller, idle threads
that use no CPU, a fork while it works, exit while it idles, and the cap from the
environment. Each behaviour is checked in a fresh process where it concerns the process."""

import os
import subprocess
import sys
import textwrap
import threading
import time

import pytest

from conftest import staged


def run_python(code: str, env: dict | None = None, timeout: float = 60) -> str:
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                         text=True, timeout=timeout, env={**os.environ, **(env or {})})
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_results_in_order_and_every_item_once():
    """A pool of 4 threads (whatever the CPUs here): every item once, results in order, and
    the work done on more than one thread."""
    pool = staged("kernels.pool").KeptPool(4)
    seen, threads = [], set()
    lock = threading.Lock()

    def square(x):
        with lock:
            seen.append(x)
            threads.add(threading.current_thread().name)
        time.sleep(0.001)  # long enough for the workers to join
        return x * x

    items = list(range(200))
    assert pool.run_parts(square, items) == [x * x for x in items]
    assert sorted(seen) == items and len(threads) > 1


def test_an_interrupt_stops_the_call_and_frees_its_data():
    """A KeyboardInterrupt in the caller's share reaches the caller, the workers take no
    further item, and no thread keeps the call's items or results once it has returned."""
    import gc
    import weakref

    pool = staged("kernels.pool").KeptPool(4)

    class Item:
        pass

    items = [Item() for _ in range(400)]
    ran = []
    caller = threading.current_thread()

    def work(item):
        ran.append(item)
        if threading.current_thread() is caller and len(ran) > 20:
            raise KeyboardInterrupt
        time.sleep(0.001)
        return Item()

    with pytest.raises(KeyboardInterrupt):
        pool.run_parts(work, items)
    taken = len(ran)
    time.sleep(0.05)
    assert len(ran) == taken < len(items)  # nothing ran after the call returned
    probe = weakref.ref(items[0])
    del items, work
    ran.clear()
    gc.collect()
    assert probe() is None


def test_an_error_is_raised_in_the_caller_and_the_pool_still_works():
    pool = staged("kernels.pool")

    def fail_on_7(x):
        if x == 7:
            raise ValueError("seven")
        return x

    with pytest.raises(ValueError, match="seven"):
        pool.run_parts(fail_on_7, list(range(50)))
    assert pool.run_parts(lambda x: -x, [1, 2, 3]) == [-1, -2, -3]


def test_calls_from_two_threads_and_from_inside_the_pool():
    pool = staged("kernels.pool")
    out = {}

    def nested(x):  # a call from the pool's own work runs in that thread
        return sum(pool.run_parts(lambda y: y + x, [1, 2, 3]))

    def caller(k):
        out[k] = pool.run_parts(nested, list(range(20)))

    threads = [threading.Thread(target=caller, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert all(out[k] == [6 + 3 * x for x in range(20)] for k in range(4))


def test_idle_workers_use_no_cpu():
    code = """
        import time
        from rouge_exact.kernels import pool as rouge_pool
        pool = rouge_pool.kept_pool()
        rouge_pool.run_parts(lambda x: sum(range(20000)), list(range(64)))
        assert pool._started == pool.size - 1 >= 1, pool._started
        time.sleep(0.2)
        start = time.process_time()
        time.sleep(1.0)
        print(time.process_time() - start)
    """
    used = float(run_python(code, env={"ROUGE_METRIC_THREADS": "2"}))
    assert used < 0.05, used


def test_a_fork_while_the_pool_works_gets_a_pool_of_its_own():
    """The child is forked while the parent's workers run; its first call makes a new pool
    (its parent's threads do not exist in it) and finishes."""
    code = """
        import os, threading
        from rouge_exact.kernels import pool as rouge_pool
        parent = rouge_pool.kept_pool()
        started = threading.Event()
        def slow(x):
            started.set()
            s = 0
            for i in range(300000):
                s += i
            return x
        t = threading.Thread(target=lambda: rouge_pool.run_parts(slow, list(range(8))))
        t.start()
        started.wait()
        pid = os.fork()
        if pid == 0:
            ok = rouge_pool.run_parts(lambda x: x + 1, list(range(10))) == list(range(1, 11))
            ok = ok and rouge_pool.kept_pool() is not parent
            os._exit(0 if ok else 3)
        _, status = os.waitpid(pid, 0)
        t.join()
        print(os.waitstatus_to_exitcode(status))
    """
    assert run_python(code, env={"ROUGE_METRIC_THREADS": "2"}).strip() == "0"


def test_exit_while_idle_does_not_wait():
    code = """
        import time
        from rouge_exact.kernels import pool as rouge_pool
        rouge_pool.run_parts(lambda x: x, list(range(16)))
        print(time.monotonic())
    """
    start = time.monotonic()
    run_python(code, env={"ROUGE_METRIC_THREADS": "2"}, timeout=30)
    assert time.monotonic() - start < 20


@pytest.mark.parametrize("cap, expected", [("1", 1), ("2", 2), ("", None), ("x", None)])
def test_the_cap_from_the_environment(cap, expected):
    """ROUGE_METRIC_THREADS caps the pool (and every kernel's threads); an empty or invalid
    value leaves the CPUs this process may use."""
    code = """
        import os
        from rouge_exact.kernels import backend as rouge_backend
        from rouge_exact.kernels import pool as rouge_pool
        cpus = len(os.sched_getaffinity(0))
        print(rouge_pool.kept_pool().size, rouge_backend.THREADS, cpus)
    """
    env = {"ROUGE_METRIC_THREADS": cap, "NUMBA_NUM_THREADS": "", "OMP_NUM_THREADS": ""}
    size, threads, cpus = map(int, run_python(code, env=env).split())
    assert size == threads == (min(expected, cpus) if expected else cpus)


def test_an_interrupt_does_not_wait_for_a_worker_that_is_stuck():
    """A Ctrl-C in the caller's share while a worker is blocked (as on numba's compiler lock,
    which a Ctrl-C landing as a kernel loads can leave taken): the caller gets its
    KeyboardInterrupt after the pool's grace period, not when the worker is freed."""
    rouge_pool = staged("kernels.pool")
    pool = rouge_pool.KeptPool(2)
    caller = threading.current_thread()
    blocked, freed = threading.Event(), threading.Event()

    def work(item):
        if threading.current_thread() is caller:
            assert blocked.wait(10)  # the worker holds the other item
            raise KeyboardInterrupt
        blocked.set()
        freed.wait(30)

    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        pool.run_parts(work, [0, 1])
    took = time.monotonic() - started
    freed.set()
    assert rouge_pool.INTERRUPT_GRACE <= took < rouge_pool.INTERRUPT_GRACE + 5
