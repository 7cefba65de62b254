"""Scaling with threads, and the cost of small calls: the metric against rouge-score-rs (and
rouge_score for small calls), in one run, each contender in fresh processes.

    python3 benchmarks/scaling.py                      # 100,000 pairs; threads 1, 2, 4, ... up to
                                                       # the CPUs; batches 1, 8, 64, 512
    python3 benchmarks/scaling.py --pairs 20000 --threads 1,2 --runs 7
    python3 benchmarks/scaling.py --parts emulate      # 1 to 16 threads, emulated (below)

Workload (the one rouge-score-rs's own 16-core figures in docs/performance.md were measured
on): realsumm predictions (tests/data/realsumm.jsonl), a sentence's words shuffled with
probability 0.3 and each word dropped with probability 0.1 (seeded), against their first
reference; rouge1+rouge2+rougeL+rougeLsum, stemmed.

* **Threads.** Ours with NUMBA_NUM_THREADS and OMP_NUM_THREADS set to the count (the metric
  honours both, and the CPU affinity), rs with RAYON_NUM_THREADS. Median of --runs warm calls;
  "CPUs busy" is the process's CPU time over the wall time of those calls.
* **Held GIL.** One thread, the CPU time of the compiled kernels (they release the GIL)
  against the process's: the rest of a call is what one thread does while holding the GIL,
  and bounds the speed-up on k threads at 1 / (held + (1 - held) / k) (Amdahl). CPU time,
  not wall time, so that a neighbour's load does not count; --held-as K scores in the
  chunks that K threads would use.
* **Emulated cores** (--parts emulate; --emulate 1,2,4,8,16). A call's wall time as if the
  machine had that many cores: every compiled-kernel call is recorded (scored serially in the
  chunks that many threads use; the least CPU time of three recordings), then the call is
  replayed on that many threads with each kernel call a sleep of its CPU time (a sleep
  releases the GIL as the kernels do) returning its recorded output, checked equal to the real
  result. The GIL-held Python, the pool and the GIL's hand-offs run for real; memory bandwidth,
  caches and page faults shared by the cores are left out. An estimate where no machine with
  the cores is at hand, not a measurement. (Each replayed thread's Linux timer slack is set to
  1 us, so that a sleep of a few microseconds is not one of 50.)
* **Small calls.** compute() on the first B pairs, warm (all threads); rs's score_batch;
  rouge_score's score() per pair. All three in one process, taking turns (--rounds), so that
  a neighbour's load falls on each alike; the median of every timed call.

Runs in benchmarks/.venv (benchmarks/run.py makes it: the metric's requirements and the
peers), or with --python in another interpreter (benchmarks/device.sh, on a device
machine); the children import this checkout's rouge_exact (its root first on PYTHONPATH). Prints markdown tables; docs/performance.md holds them with the machine.
"""

import argparse
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
VENV_PY = os.path.join(HERE, ".venv", "bin", "python")
PYTHON = VENV_PY  # the children's interpreter (--python)
TYPES = ["rouge1", "rouge2", "rougeL", "rougeLsum"]


def corpus(path: str, n: int, seed: int = 4242) -> list:
    with open(path, encoding="utf-8") as f:
        rows = [json.loads(line) for line in f]
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        row = rng.choice(rows)
        sentences = []
        for sentence in row["prediction"].split("\n"):
            words = sentence.split(" ")
            if rng.random() < 0.3:
                rng.shuffle(words)
            sentences.append(" ".join(w for w in words if rng.random() > 0.1))
        out.append(("\n".join(sentences), row["references"][0]))
    return out


# --- children (run in the venv) ---------------------------------------------------------------

def _scorer(who: str):
    """f(predictions, references) for a contender, loaded and warmed up."""
    if who == "ours":
        import warnings
        warnings.simplefilter("ignore")
        import evaluate
        metric = evaluate.load(os.path.join(ROOT, "rouge_metric.py"))
        metric.compile_kernels(wait=True)
        return lambda p, r: metric.compute(predictions=p, references=r, rouge_types=TYPES,
                                           use_stemmer=True)
    if who == "rs":
        from rouge_score_rs import rouge_scorer
        scorer = rouge_scorer.RougeScorer(TYPES, use_stemmer=True)
        return lambda p, r: scorer.score_batch(r, p)
    from rouge_score import rouge_scorer
    scorer = rouge_scorer.RougeScorer(TYPES, use_stemmer=True)
    return lambda p, r: [scorer.score(b, a) for a, b in zip(p, r)]


def _timed(f, runs: int) -> tuple:
    walls, cpus = [], []
    for _ in range(runs):
        w, c = time.perf_counter(), time.process_time()
        f()
        walls.append(time.perf_counter() - w)
        cpus.append(time.process_time() - c)
    return statistics.median(walls), sum(cpus) / sum(walls)


def _latencies(P: list, R: list, who_all: list, batches: list, rounds: int) -> dict:
    """{who: {batch: median seconds a call}}: every contender in this one process, in turns
    (rounds x batches x contenders, ~0.1 s of calls a turn), so that a neighbour's load falls
    on all of them alike; the median over every timed call."""
    scorers = {who: _scorer(who) for who in who_all}
    for score in scorers.values():
        score(P[:2000], R[:2000])  # warm: kernels loaded, words stemmed once
    times = {(who, b): [] for who in who_all for b in batches}
    for _ in range(rounds):
        for b in batches:
            p, r = P[:b], R[:b]
            for who, score in scorers.items():
                once = max(_timed(lambda: score(p, r), 2)[0], 1e-6)
                for _ in range(max(3, min(1000, int(0.1 / once)))):
                    t = time.perf_counter()
                    score(p, r)
                    times[who, b].append(time.perf_counter() - t)
    return {who: {str(b): statistics.median(times[who, b]) for b in batches} for who in who_all}


def child(spec: dict) -> dict:
    with open(spec["corpus"]) as f:
        pairs = json.load(f)
    P, R = [p for p, _ in pairs], [r for _, r in pairs]
    if spec["task"] == "batches":
        return _latencies(P, R, spec["who"], spec["batches"], spec["rounds"])
    score = _scorer(spec["who"])
    score(P[:2000], R[:2000])  # warm: kernels loaded, words stemmed once
    if spec["task"] == "threads":
        score(P, R)
        wall, busy = _timed(lambda: score(P, R), spec["runs"])
        return {"wall": wall, "busy": busy}
    if spec["task"] == "held":
        from rouge_exact.kernels import backend
        spent = [0.0]

        def timing(function):  # CPU time: a busy neighbour's share of the cores is not ours
            def run(*args, **kwargs):
                t = time.thread_time()
                try:
                    return function(*args, **kwargs)
                finally:
                    spent[0] += time.thread_time() - t
            return run
        for name in list(backend._compiled):
            backend._compiled[name] = timing(backend._compiled[name])
        if spec.get("as_threads", 1) > 1:  # the chunks that many threads would score
            from rouge_exact.scorer import pipeline
            pipeline._CHUNK_EXAMPLES = max(pipeline._THREAD_CHUNK_MIN,
                                           -(-len(P) // (2 * spec["as_threads"])))
        score(P, R)
        spent[0] = 0.0
        start = time.process_time()  # means, not medians: both sides over the same calls
        for _ in range(spec["runs"]):
            score(P, R)
        return {"cpu": (time.process_time() - start) / spec["runs"],
                "kernels": spent[0] / spec["runs"]}
    if spec["task"] == "emulate":
        return _emulated(P, R, score, spec["threads"], spec["runs"])
    raise ValueError(f"task: got {spec['task']!r}")


def _emulated(P: list, R: list, score, threads: int, runs: int) -> dict:
    """A call's wall time as if this machine had `threads` cores. The compiled kernels
    release the GIL, so on enough cores they would all run at once: each kernel call is
    recorded, the call scored serially in the chunks that `threads` threads use (so a
    kernel's CPU time is one thread's; the least of three), then replayed on `threads`
    threads as a sleep of that CPU time (a sleep releases the GIL too) returning the
    recorded output, while everything else (the GIL-held Python, the pool, the GIL's
    hand-offs) runs for real. What it leaves out: memory bandwidth, caches and page faults
    shared by the cores, and the clock."""
    import ctypes
    import ctypes.util

    import numpy as np

    libc = ctypes.CDLL(ctypes.util.find_library("c")) if sys.platform == "linux" else None
    from rouge_exact.kernels import backend, pool
    from rouge_exact.scorer import aggregate, pipeline
    truth = score(P, R)
    # past this machine's CPUs: the thread budget and a kept pool of that many threads
    backend.THREADS = aggregate.THREADS = pool.THREADS = threads
    pool._POOL = None
    kernels, tape = dict(backend._compiled), {}
    run_parts = pipeline.run_parts

    def key(name: str, args: tuple) -> tuple:
        """A kernel call by its inputs (the kernels are pure: equal inputs, equal outputs),
        whichever thread makes it: each array by its shape and a few of its elements."""
        def part(a):
            if isinstance(a, np.ndarray):
                flat = a.reshape(-1)
                picks = flat[::max(1, len(flat) // 8)][:9]
                return (a.shape, flat[:4].tobytes(), flat[-4:].tobytes(), picks.tobytes())
            return a
        return (name, tuple(part(a) for a in args))

    def recorded(name: str, function):
        def run(*args, **kwargs):
            start = time.thread_time()
            out = function(*args, **kwargs)
            seconds = time.thread_time() - start
            at = key(name, args)  # the least of the recordings: a neighbour's load does not count
            tape[at] = (out, min(seconds, tape.get(at, (None, seconds))[1]))
            return out
        return run

    slack = threading.local()

    def replayed(name: str):
        def run(*args, **kwargs):
            out, seconds = tape[key(name, args)]
            if not getattr(slack, "set", False):
                # Linux wakes a sleeping thread up to 50 us late (its timer slack, per thread):
                # far more than a small call's kernels take. 1 us in this benchmark's threads.
                slack.set = True
                if libc is not None:
                    libc.prctl(29, 1000, 0, 0, 0)  # PR_SET_TIMERSLACK
            time.sleep(seconds)
            return out
        return run

    def call():
        if score(P, R) != truth:
            raise AssertionError("the replayed call's result differs from the real one")

    def serially(function, items):  # each item on one thread, as the pool runs them
        with backend.one_thread():
            return [function(x) for x in items]

    pipeline.run_parts = serially  # recorded serially: each kernel's CPU time is one thread's
    backend._compiled.update({name: recorded(name, f) for name, f in kernels.items()})
    cpus = []
    for _ in range(3):
        cpu = time.process_time()
        call()
        cpus.append(time.process_time() - cpu)
    pipeline.run_parts = run_parts
    backend._compiled.update({name: replayed(name) for name in kernels})
    call()
    wall, _ = _timed(call, runs)
    return {"wall": wall, "cpu": min(cpus), "kernels": sum(s for _, s in tape.values())}


# --- parent ------------------------------------------------------------------------------------

def _seconds(x: float) -> str:
    """A duration as the tables print it: ms below a second (small calls), else s."""
    return f"{x * 1e3:.3f} ms" if x < 1.0 else f"{x:.3f} s"


def run_child(spec: dict, env: dict) -> dict:
    # the children import this checkout's rouge_exact (the thin rouge_metric.py imports it);
    # the venv's children see nothing else of the caller's PYTHONPATH; another interpreter
    # (--python: a device machine's, with the carried wheels on PYTHONPATH) keeps it
    venv = os.path.realpath(PYTHON) == os.path.realpath(VENV_PY)
    path = [ROOT] + ([] if venv or not os.environ.get("PYTHONPATH") else
                     [os.environ["PYTHONPATH"]])
    full = {**os.environ, **env, "PYTHONPATH": os.pathsep.join(path)}
    done = subprocess.run([PYTHON, os.path.abspath(__file__), "--child", json.dumps(spec)],
                          env=full, capture_output=True, text=True, timeout=1800)
    if done.returncode != 0:
        sys.exit(f"child {spec['who']} {spec['task']} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def thread_env(who: str, threads: int) -> dict:
    if who == "rs":
        return {"RAYON_NUM_THREADS": str(threads)}
    return {"NUMBA_NUM_THREADS": str(threads), "OMP_NUM_THREADS": str(threads)}


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "--child":
        print(json.dumps(child(json.loads(sys.argv[2]))))
        return
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    default_threads = sorted({t for t in (1, 2, 4, 8, 16, 32, 64) if t <= cpus} | {cpus})
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pairs", type=int, default=100_000)
    ap.add_argument("--threads", default=",".join(map(str, default_threads)))
    ap.add_argument("--batches", default="1,8,64,512")
    ap.add_argument("--runs", type=int, default=3, help="timed calls per process (median)")
    ap.add_argument("--repeats", type=int, default=1,
                    help="processes per contender and thread count, alternating (median)")
    ap.add_argument("--data", default=os.path.join(ROOT, "tests", "data", "realsumm.jsonl"),
                    help="the corpus the pairs are drawn from (default: %(default)s)")
    ap.add_argument("--no-rouge-score", action="store_true", help="skip rouge_score's row")
    ap.add_argument("--rounds", type=int, default=5,
                    help="small calls: turns of every contender and batch size, in one process")
    ap.add_argument("--parts", default="threads,held,batches",
                    help="which tables: threads, held (the GIL-held share), batches, emulate "
                         "(more cores than this machine has, emulated)")
    ap.add_argument("--emulate", default="1,2,4,8,16", help="emulate: the thread counts")
    ap.add_argument("--held-as", type=int, default=1,
                    help="held: score in the chunks that this many threads would (two each)")
    ap.add_argument("--python", default=VENV_PY,
                    help="the children's interpreter (default benchmarks/.venv's; a device "
                         "machine's: benchmarks/device.sh)")
    args = ap.parse_args()
    global PYTHON
    PYTHON = args.python
    if PYTHON == VENV_PY and not os.path.exists(VENV_PY):
        sys.exit("benchmarks/.venv is missing: run python3 benchmarks/run.py --targets none once")
    threads = [int(t) for t in args.threads.split(",")]
    parts = set(args.parts.split(","))
    batches = [int(b) for b in args.batches.split(",")]
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "corpus.json")
        with open(path, "w") as f:
            json.dump(corpus(args.data, args.pairs), f)
        base = {"corpus": path, "runs": args.runs}
        print(f"# scaling.py: {args.pairs:,} pairs, {' + '.join(TYPES)}, stemmed; "
              f"{platform.processor() or platform.machine()}, {cpus} CPUs usable, "
              f"load average {os.getloadavg()[0]:.1f}; {time.strftime('%Y-%m-%d %H:%M')}\n")
        if "threads" in parts:
            print("| threads | ours | CPUs busy | rs `score_batch` | CPUs busy | rs / ours |")
            print("|---|---|---|---|---|---|")
        for t in threads if "threads" in parts else ():
            got = {"ours": [], "rs": []}
            for _ in range(args.repeats):
                for who in ("ours", "rs"):
                    got[who].append(run_child({**base, "who": who, "task": "threads"},
                                              thread_env(who, t)))
            ours = statistics.median(g["wall"] for g in got["ours"])
            rs = statistics.median(g["wall"] for g in got["rs"])
            print(f"| {t} | {ours:.3f} s | {statistics.median(g['busy'] for g in got['ours']):.2f}"
                  f" | {rs:.3f} s | {statistics.median(g['busy'] for g in got['rs']):.2f} | "
                  f"{rs / ours:.2f}x |", flush=True)
        if "held" in parts:
            held = run_child({**base, "who": "ours", "task": "held",
                              "as_threads": args.held_as}, thread_env("ours", 1))
            share = 1.0 - held["kernels"] / held["cpu"]
            bound = ", ".join(f"{k}: {1 / (share + (1 - share) / k):.1f}x" for k in (2, 4, 8, 16))
            chunks = f" in the chunks of {args.held_as} threads" if args.held_as > 1 else ""
            print(f"\nOne thread{chunks}: {held['cpu']:.3f} s of CPU a call, of which "
                  f"{held['kernels']:.3f} s in the compiled kernels (GIL released); {share:.1%} "
                  f"holds the GIL. Amdahl's bound on the speed-up: {bound}.\n")
        if "emulate" in parts:
            print("| threads (emulated) | ours | speed-up | CPU a call, serial | in kernels |")
            print("|---|---|---|---|---|")
            one = None  # the one-thread wall, when it is in the sweep
            for t in (int(t) for t in args.emulate.split(",")):
                got = run_child({**base, "who": "ours", "task": "emulate", "threads": t},
                                thread_env("ours", 1))
                if t == 1:
                    one = got["wall"]
                speed = f"{one / got['wall']:.2f}x" if one else "-"
                print(f"| {t} | {_seconds(got['wall'])} | {speed} | {_seconds(got['cpu'])} | "
                      f"{_seconds(got['kernels'])} |", flush=True)
            print()
        if "batches" not in parts:
            return
        who_all = ["ours", "rs"] + ([] if args.no_rouge_score else ["rouge_score"])
        lat = run_child({**base, "who": who_all, "task": "batches", "batches": batches,
                         "rounds": args.rounds}, {})
        print("| pairs per call | ours | rs `score_batch` | rs / ours |"
              + (" rouge_score | rouge_score / ours |" if "rouge_score" in lat else ""))
        print("|---|---|---|---|" + ("---|---|" if "rouge_score" in lat else ""))
        for b in batches:
            o, r = lat["ours"][str(b)], lat["rs"][str(b)]
            row = f"| {b} | {o * 1e3:.3f} ms | {r * 1e3:.3f} ms | {r / o:.2f}x |"
            if "rouge_score" in lat:
                s = lat["rouge_score"][str(b)]
                row += f" {s * 1e3:.2f} ms | {s / o:.1f}x |"
            print(row)


if __name__ == "__main__":
    main()
