#!/usr/bin/env python3
"""The constants of kernels.backend's cost model (worth_compiling), measured here.

    python benchmarks/cost_model.py             # 5 fresh processes a figure, 1,000 pairs
    python benchmarks/cost_model.py --runs 3 --pairs 500

Run it with the project's venv. It measures, each in fresh processes (medians):
  * `import numba` after numpy (NUMBA_IMPORT_SECONDS);
  * each kernel's load from a warm cache as the first kernel of a process, numba imported
    (LOAD_SECONDS: kernels.backend.start((name,)), the compiled copy's import included);
  * what starting the compile process on an empty cache adds to a process (SPAWN_SECONDS: a
    fresh process that makes the cache folder and calls kernels.backend.start(), then ends as
    a run does, against one that only makes the folder; whole processes, in turns: the start
    itself returns in a few ms, but the process pays more by its end);
and, in one process on the numpy twins (ROUGE_METRIC_BACKEND=numpy, one thread), each twin's
seconds per item (the total size of a run's array arguments) over calls on realsumm's pairs
that use every kernel with a twin (TWIN_SECONDS_PER_ITEM: total seconds / total items).
It prints the constants to paste into rouge_exact/kernels/backend.py. The kernel cache is
ROUGE_METRIC_CACHE_DIR's (compiled first where it lacks kernels).
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "tests", "data", "realsumm.jsonl")

_NUMBA = """
import time, numpy
began = time.perf_counter()
import numba
print(time.perf_counter() - began)
"""

_LOAD = """
import sys, time, numba
from rouge_exact.kernels import backend
began = time.perf_counter()
backend.start((sys.argv[1],))
took = time.perf_counter() - began
assert sys.argv[1] in backend.resolve([sys.argv[1]], "numba")
print(took)
"""

_FOLDER = "from rouge_exact.kernels import backend; backend._folder(); print(0)"
_SPAWN = "from rouge_exact.kernels import backend; backend._folder(); backend.start(); print(0)"

_TWINS = """
import json, sys, threading, time
from rouge_exact.kernels import backend, twins, twins_sets
import rouge_exact

spent, items, depth = {}, {}, threading.local()


def timed(name, function):
    def run(*args, **kwargs):
        outer = not getattr(depth, "n", 0)  # a twin calling another: counted in the outer
        depth.n = getattr(depth, "n", 0) + 1
        began = time.perf_counter()
        try:
            return function(*args, **kwargs)
        finally:
            depth.n -= 1
            if outer:
                spent[name] = spent.get(name, 0.0) + time.perf_counter() - began
                size = sum(a.size for a in args if hasattr(a, "size") and hasattr(a, "shape"))
                items[name] = items.get(name, 0) + size
    return run


for name in backend.KERNELS:
    for module in (twins, twins_sets):  # (where kernels.backend finds a twin)
        if hasattr(module, name):
            setattr(module, name, timed(name, getattr(module, name)))
rows = [json.loads(line) for line in open(sys.argv[1])][:int(sys.argv[2])]
preds, refs = [r["prediction"] for r in rows], [r["references"] for r in rows]
calls = [dict(rouge_types=["rouge1", "rouge2", "rougeL", "rougeLsum", "rougeW", "rougeSU4"],
              use_stemmer=True, detailed=True, n_samples=100),
         dict(rouge_types=["rouge1", "rougeL"], profile="rouge155", use_stemmer=True),
         dict(rouge_types=["rouge1"], profile="rouge155", remove_stopwords=True),
         dict(rouge_types=["rouge1", "rougeL"], profile="pltrdy", detailed=True),  # (sets)
         dict(rouge_types=["rouge1", "rougeL"])]  # (unstemmed: the plain scanner)
for options in calls:
    rouge_exact.compute(predictions=preds, references=refs, **options)
print(json.dumps({name: [spent[name], items[name]] for name in spent}))
"""


def _run(code, *args, **env) -> str:
    done = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                          env=dict(os.environ, **env), timeout=600)
    if done.returncode:
        raise SystemExit(done.stderr[-3000:])
    return done.stdout.strip().splitlines()[-1]


def _median(runs, code, *args, **env) -> float:
    return statistics.median(float(_run(code, *args, **env)) for _ in range(runs))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="fresh processes a figure")
    parser.add_argument("--pairs", type=int, default=1000, help="realsumm pairs for the twins")
    args = parser.parse_args()
    env = {k: v for k, v in os.environ.items() if k != "ROUGE_METRIC_BACKEND"}
    os.environ.clear()
    os.environ.update(env)
    _run("import rouge_exact; rouge_exact.compile_kernels(wait=True); print(0)")
    from rouge_exact.kernels import backend

    numba = _median(args.runs, _NUMBA)
    loads = {name: _median(args.runs, _LOAD, name) for name in backend.KERNELS}
    folder, spawned = [], []
    for _ in range(2 * args.runs + 1):  # (more runs: a difference of two noisy medians)
        for code, times in ((_FOLDER, folder), (_SPAWN, spawned)):
            empty = tempfile.mkdtemp()
            try:
                began = time.perf_counter()
                _run(code, ROUGE_METRIC_CACHE_DIR=empty)
                times.append(time.perf_counter() - began)
            finally:
                shutil.rmtree(empty, ignore_errors=True)
    spawns = [max(0.0, statistics.median(spawned) - statistics.median(folder))]
    twins = json.loads(_run(_TWINS, DATA, str(args.pairs), ROUGE_METRIC_BACKEND="numpy",
                            ROUGE_METRIC_THREADS="1"))
    per_item = {name: seconds / count for name, (seconds, count) in twins.items() if count}
    print(f"# benchmarks/cost_model.py --runs {args.runs} --pairs {args.pairs} "
          f"({os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f})")
    print(f"NUMBA_IMPORT_SECONDS = {numba:.3f}")
    print("LOAD_SECONDS = {" + ", ".join(f'"{k}": {v:.4f}' for k, v in loads.items()) + "}")
    print(f"LOAD_SECONDS_DEFAULT = {max(loads.values()):.4f}")
    print(f"SPAWN_SECONDS = {statistics.median(spawns):.4f}")
    print("TWIN_SECONDS_PER_ITEM = {" + ", ".join(
        f'"{k}": {v:.3g}' for k, v in sorted(per_item.items())) + "}")
    print(f"TWIN_SECONDS_PER_ITEM_DEFAULT = {max(per_item.values()):.3g}")
    for name, (seconds, count) in sorted(twins.items()):
        print(f"#   {name:24s} {seconds:8.3f} s over {count:>12,} items")


if __name__ == "__main__":
    main()
