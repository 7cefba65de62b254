"""What Python threads that call short compiled kernels side by side pay for the GIL: each of
T threads makes 2,000 calls of a numba nogil kernel of about 1 or 7 us (the size of a small
call's kernels); with no cost, the time per call stays flat as T grows.

    python3 benchmarks/gil.py

Every call takes the GIL to start and to return; a thread coming back from a kernel waits for
whichever thread holds it, and each hand-off wakes a sleeping thread. This bounds any design
that spreads a small batch's kernels over Python threads (rouge_pool): see
docs/performance.md.
"""

import os
import threading
import time

import numba
import numpy as np


@numba.njit(nogil=True)
def kernel(a, n):
    s = 0
    for i in range(n):
        s += a[i & 63] ^ i
    return s


def run(threads: int, calls: int, n: int, a) -> float:
    def worker():
        for _ in range(calls):
            kernel(a, n)

    pool = [threading.Thread(target=worker) for _ in range(threads)]
    start = time.perf_counter()
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    return time.perf_counter() - start


def main() -> None:
    a = np.arange(64)
    kernel(a, 10)
    cpus = len(os.sched_getaffinity(0))
    print(f"# gil.py: {cpus} CPUs usable, load average {os.getloadavg()[0]:.1f}\n")
    print("| threads | one call alone | per call, each thread | slowdown |")
    print("|---|---|---|---|")
    for n in (2_000, 20_000):
        alone = min(run(1, 2000, n, a) for _ in range(3)) / 2000
        for threads in (1, 2, 4, 8, 16):
            if threads <= cpus:
                each = min(run(threads, 2000, n, a) for _ in range(3)) / 2000
                print(f"| {threads} | {alone * 1e6:.2f} us | {each * 1e6:.2f} us | "
                      f"{each / alone:.1f}x |")


if __name__ == "__main__":
    main()
