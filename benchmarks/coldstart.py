#!/usr/bin/env python3
"""Cold start of rouge_metric (issue 13): the first call on a fresh machine, against its peers.

    python benchmarks/coldstart.py                  # every target, writes benchmarks/coldstart.json
    python benchmarks/coldstart.py --quick          # fewer runs and sizes (a smoke run)
    python benchmarks/coldstart.py --targets empty,wait --out /tmp/c.json
    python benchmarks/coldstart.py --report benchmarks/coldstart.json   # the markdown tables

Run it with the project's Python (the one with evaluate, rouge-score and, optionally,
rouge-score-rs installed). Every measurement is a fresh child process (this file with
``--child SPEC``); contenders alternate (A B A B ...). "Empty caches" means a new evaluate
module cache (HF_MODULES_CACHE) and a new user cache directory (XDG_CACHE_HOME, where the
compiled kernels go); NUMBA_CACHE_DIR and ROUGE_METRIC_CACHE_DIR are unset. A measurement's
compile process (rouge_warmup) is stopped after the measurement, so none runs into the next.

Targets (--targets):
  empty     evaluate.load + the first compute() (not `import evaluate`), against rouge_score
            0.1.2 (import + RougeScorer + score() per pair + BootstrapAggregator, as evaluate's
            rouge runs it) and rouge-score-rs (import + score_batch + mean), at 10 ... 100,000
            pairs; our default types and rougeW-1.2+rougeS4+rougeSU4 (which rouge_score does
            not have: compared with its default-types time)
  wait      evaluate.load, 20 s of other work in the main thread (pure Python: the worst case
            for a compile thread; the compile process does not share the GIL), then the first
            compute() of 10,000 pairs, against the warm calls after it
  warm      a new process with warm caches: the first compute() against the warm calls
  space     the Space itself: app.py imported (evaluate.load, the demo built, not served), its
            start-up warm-up on a thread as `python app.py` starts it, 30 s later the first
            corpus run (app.rouge_corpus, the Corpus tab's scoring: 1,000 pairs, default
            types, stemming, 1,000 bootstrap samples), against the warm runs after it
  kernels   per-kernel compile time (empty cache) and load time (warm cache), fresh process each
  gil       a pure-Python loop in the main thread, alone and beside a background compile (on a
            thread of the process, and in a separate process)
"""

import argparse
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DATA = os.path.join(os.path.dirname(ROOT), "shared", "data", "realsumm.jsonl")
DEFAULT_TYPES = ["rouge1", "rouge2", "rougeL", "rougeLsum"]
WSU_TYPES = ["rougeW-1.2", "rougeS4", "rougeSU4"]


# ================================================================================================
# Child side


def _pairs(n):
    rows = [json.loads(line) for line in open(DATA, encoding="utf-8")]
    return ([rows[i % len(rows)]["prediction"] for i in range(n)],
            [rows[i % len(rows)]["references"][0] for i in range(n)])


def _stop_compile_processes(warmup):
    for process in warmup._state["processes"]:
        if process.poll() is None:
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except OSError:
                pass
            process.wait()


def _warmup_module(metric):
    import importlib

    return importlib.import_module(type(metric).__module__.rpartition(".")[0] + ".rouge_warmup")


def _busy_python(seconds):
    """Pure-Python work (holds the GIL) for about `seconds`; returns the loop count."""
    end = time.perf_counter() + seconds
    count = 0
    while time.perf_counter() < end:
        total = 0
        for i in range(2000):
            total += i * i
        count += 1
    return count


def child(spec):
    import warnings
    warnings.simplefilter("ignore")
    task = spec["task"]
    out = {}
    if task == "rouge_score":
        preds, refs = _pairs(spec["n"])
        t = time.perf_counter()
        from rouge_score import rouge_scorer, scoring
        scorer = rouge_scorer.RougeScorer(spec["types"], use_stemmer=True)
        aggregator = scoring.BootstrapAggregator()
        for p, r in zip(preds, refs):
            aggregator.add_scores(scorer.score(r, p))
        aggregator.aggregate()
        out["total"] = time.perf_counter() - t
        return out
    if task == "rs":
        preds, refs = _pairs(spec["n"])
        t = time.perf_counter()
        from rouge_score_rs import rouge_scorer
        scorer = rouge_scorer.RougeScorer(spec["types"], use_stemmer=True)
        scores = scorer.score_batch(refs, preds)
        {k: sum(s[k].fmeasure for s in scores) / len(scores) for k in spec["types"]}
        out["total"] = time.perf_counter() - t
        return out
    if task == "kernels":
        return _child_kernels(spec)
    if task == "space":
        return _child_space(spec)
    if task == "gil":
        return _child_gil(spec)
    import evaluate  # not timed: the target excludes it
    preds, refs = _pairs(spec["n"])
    kwargs = dict(rouge_types=spec["types"], use_stemmer=spec.get("stemmer", True))
    t = time.perf_counter()
    metric = evaluate.load(os.path.join(spec["metric_dir"], "rouge_metric.py"))
    out["load"] = time.perf_counter() - t
    warmup = _warmup_module(metric)
    try:
        if task == "wait":
            out["other_work_loops"] = _busy_python(spec["idle"])
        # whether the compile process still runs beside the first call (it takes a core)
        out["compiling_at_first"] = any(p.poll() is None for p in warmup._state["processes"])
        t = time.perf_counter()
        metric.compute(predictions=preds, references=refs, **kwargs)
        out["first"] = time.perf_counter() - t
        out["total"] = out["load"] + out["first"]
        out["ready_after_first"] = [warmup.ready(n) for n in warmup.kernels_for(spec["types"])]
        if spec.get("warm_calls"):
            _stop_compile_processes(warmup) if task != "warm" else None
            warm = []
            for _ in range(spec["warm_calls"]):
                warmup.warm_up(spec["types"])  # warm means compiled: load or compile now
                t = time.perf_counter()
                metric.compute(predictions=preds, references=refs, **kwargs)
                warm.append(time.perf_counter() - t)
            out["warm"] = statistics.median(warm)
    finally:
        _stop_compile_processes(warmup)
    return out


def _child_space(spec):
    """The Space's first corpus run, spec['idle'] seconds after app.py's start-up."""
    import importlib
    import threading

    preds, refs = _pairs(spec["n"])
    sys.path.insert(0, spec["metric_dir"])
    t = time.perf_counter()
    app = importlib.import_module("app")
    out = {"load": time.perf_counter() - t}
    warmup = _warmup_module(app.metric)
    try:
        threading.Thread(target=app._warm_up, daemon=True).start()  # as `python app.py`
        time.sleep(spec["idle"])

        def run():
            start = time.perf_counter()
            app.rouge_corpus(preds, refs, rouge_types=spec["types"], use_stemmer=True)
            return time.perf_counter() - start

        out["first"] = run()
        out["total"] = out["load"] + out["first"]
        out["ready_after_first"] = [warmup.ready(n) for n in warmup.kernels_for(spec["types"])]
        out["warm"] = statistics.median([run() for _ in range(spec["warm_calls"])])
    finally:
        _stop_compile_processes(warmup)
    return out


def _child_kernels(spec):
    """Per-kernel first-call time of rouge_kernels.py in spec['metric_dir'] (imported as a
    plain module), in a process whose cache is spec['cache'] (empty: compile; full: load)."""
    import importlib
    sys.path.insert(0, spec["metric_dir"])
    t = time.perf_counter()
    import numba  # noqa: F401
    import_numba = time.perf_counter() - t
    kernels = importlib.import_module("rouge_kernels")
    try:
        warmup = importlib.import_module("rouge_warmup")
    except ImportError:  # before this change: borrow the calls from this branch's module
        sys.path.insert(0, ROOT)
        warmup = importlib.import_module("rouge_warmup")
        warmup.attach(kernels)
    calls = warmup._tiny_calls()
    out = {"import_numba": import_numba}
    for name in spec["names"]:
        t = time.perf_counter()
        calls[name]()
        out[name] = time.perf_counter() - t
    return out


def _child_gil(spec):
    """The main thread's pure-Python throughput while a compile runs beside it."""
    import importlib
    sys.path.insert(0, spec["metric_dir"])
    kernels = importlib.import_module("rouge_kernels")
    warmup = importlib.import_module("rouge_warmup")
    names = warmup.kernels_for(DEFAULT_TYPES)
    if spec["mode"] == "thread":
        warmup._start_thread(names)
    elif spec["mode"] == "process":
        warmup._start_compile_process(names)
    time.sleep(0.5)  # the thread waits for a quiet moment; let it start
    loops = _busy_python(spec["seconds"])
    busy = spec["mode"] == "none" or warmup._state["thread"] is not None or any(
        p.poll() is None for p in warmup._state["processes"])
    _stop_compile_processes(warmup)
    return {"loops_per_s": loops / spec["seconds"], "compile_still_running": busy,
            "kernels": kernels.__name__}


# ================================================================================================
# Parent side


def _environment(cache_root, keep=False):
    env = {k: v for k, v in os.environ.items()
           if k not in ("NUMBA_CACHE_DIR", "ROUGE_METRIC_CACHE_DIR", "HF_MODULES_CACHE",
                        "ROUGE_METRIC_BACKGROUND_COMPILE")}
    env.update(HF_MODULES_CACHE=os.path.join(cache_root, "modules"),
               XDG_CACHE_HOME=os.path.join(cache_root, "user_cache"),
               HF_EVALUATE_OFFLINE="1", HF_HUB_OFFLINE="1", PYTHONWARNINGS="ignore")
    return env


def run_child(spec, cache_root=None, env_extra=None, timeout=7200):
    fresh = cache_root is None
    cache_root = cache_root or tempfile.mkdtemp(prefix="coldstart-")
    env = _environment(cache_root)
    env.update(env_extra or {})
    try:
        done = subprocess.run([sys.executable, os.path.abspath(__file__), "--child",
                               json.dumps(spec)], env=env, capture_output=True, text=True,
                              timeout=timeout)
        if done.returncode != 0:
            raise RuntimeError(done.stderr[-3000:])
        return json.loads(done.stdout.strip().splitlines()[-1])
    finally:
        if fresh:
            shutil.rmtree(cache_root, ignore_errors=True)


def _load():
    try:
        return os.getloadavg()[0]
    except OSError:
        return None


def _has(module):
    import importlib.util
    return importlib.util.find_spec(module) is not None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--child")
    parser.add_argument("--targets", default="kernels,gil,empty,wait,warm,space")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--sizes", default="10,100,1000,10000,100000")
    parser.add_argument("--big-runs", type=int, default=3, help="runs at 100,000 pairs (ours)")
    parser.add_argument("--peer-big-runs", type=int, default=1,
                        help="rouge_score runs at 100,000 pairs (~7 min each)")
    parser.add_argument("--metric-dir", default=ROOT)
    parser.add_argument("--before-dir", help="a checkout before this change, for 'kernels'")
    parser.add_argument("--contenders", default="ours,rouge_score,rs",
                        help="who runs in the empty target (rs: when rouge_score_rs imports)")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--out", default=os.path.join(HERE, "coldstart.json"))
    parser.add_argument("--report", help="print the markdown tables of a results file")
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(json.loads(args.child))))
        return
    if args.report:
        print(report(json.load(open(args.report))))
        return
    if args.quick:
        args.runs, args.sizes, args.big_runs, args.peer_big_runs = 2, "10,1000,10000", 1, 0
    sizes = [int(s) for s in args.sizes.split(",")]
    targets = args.targets.split(",")
    results = {"started": time.strftime("%Y-%m-%d %H:%M:%S"), "cpus": os.cpu_count(),
               "load_before": _load(), "runs": args.runs, "rows": []}

    def record(target, label, n, value, **extra):
        results["rows"].append(dict(target=target, label=label, n=n, loadavg=_load(),
                                    **value, **extra))
        with open(args.out, "w") as f:
            json.dump(results, f, indent=1)
        print(target, label, n, {k: round(v, 3) if isinstance(v, float) else v
                                 for k, v in value.items()}, flush=True)

    metric_dir = os.path.abspath(args.metric_dir)
    if "kernels" in targets:
        names = ["scan_stem_tokens", "dense_ids", "stem_table_insert", "porter_stem_codes",
                 "ngram_stats", "lcs_stats", "union_lcs_stats", "wlcs_stats",
                 "skip_bigram_stats", "poisson_bootstrap_sums"]
        dirs = [("after", metric_dir)] + ([("before", args.before_dir)] if args.before_dir
                                          else [])
        for _ in range(max(3, args.runs - 2)):
            for label, directory in dirs:
                cache = tempfile.mkdtemp(prefix="coldstart-kernels-")
                spec = dict(task="kernels", metric_dir=os.path.abspath(directory), names=names)
                # at the optimisation level the compile process uses (rouge_warmup)
                env = {"NUMBA_CACHE_DIR": os.path.join(cache, "numba"), "NUMBA_OPT": "1"}
                try:
                    record("kernels", label + " compile", 0, run_child(spec, cache, env))
                    record("kernels", label + " load", 0, run_child(spec, cache, env))
                finally:
                    shutil.rmtree(cache, ignore_errors=True)
    if "gil" in targets:
        for _ in range(args.runs):
            for mode in ("none", "thread", "process"):
                record("gil", mode, 0, run_child(dict(task="gil", metric_dir=metric_dir,
                                                      mode=mode, seconds=8.0)))
    if "empty" in targets:
        contenders = args.contenders.split(",")
        ours = [(DEFAULT_TYPES, "ours default"), (WSU_TYPES, "ours W+S+SU")] \
            if "ours" in contenders else []
        peers = [(task, label) for task, label in (("rouge_score", "rouge_score"),
                                                   ("rs", "rouge-score-rs"))
                 if task in contenders and (task != "rs" or _has("rouge_score_rs"))]
        for n in sizes:
            big = n >= 100_000
            for i in range(args.big_runs if big else args.runs):
                for types, label in ours:
                    record("empty", label, n, run_child(dict(task="ours", n=n, types=types,
                                                             metric_dir=metric_dir)))
                for task, label in peers:
                    if big and i >= (args.peer_big_runs if task == "rouge_score" else args.runs):
                        continue
                    record("empty", label, n, run_child(dict(task=task, n=n,
                                                             types=DEFAULT_TYPES)))
    if "wait" in targets:
        for _ in range(args.runs):
            for types, label in ((DEFAULT_TYPES, "default"), (WSU_TYPES, "W+S+SU")):
                record("wait", label, 10_000, run_child(dict(
                    task="wait", n=10_000, types=types, idle=20.0, warm_calls=3,
                    metric_dir=metric_dir)))
    if "warm" in targets:
        cache = tempfile.mkdtemp(prefix="coldstart-warm-")
        try:
            for types in (DEFAULT_TYPES, WSU_TYPES):  # fill the caches once
                run_child(dict(task="ours", n=10, types=types, warm_calls=1,
                               metric_dir=metric_dir), cache)
            for _ in range(args.runs):
                for types, label in ((DEFAULT_TYPES, "default"), (WSU_TYPES, "W+S+SU")):
                    for stemmer in (True, False):
                        record("warm", "%s, stemmer=%s" % (label, stemmer), 10_000, run_child(
                            dict(task="warm", n=10_000, types=types, stemmer=stemmer,
                                 warm_calls=3, metric_dir=metric_dir), cache))
        finally:
            shutil.rmtree(cache, ignore_errors=True)
    if "space" in targets:
        for _ in range(args.runs):
            record("space", "default", 1000, run_child(dict(
                task="space", n=1000, types=DEFAULT_TYPES, idle=30.0, warm_calls=3,
                metric_dir=metric_dir)))
    results["finished"] = time.strftime("%Y-%m-%d %H:%M:%S")
    results["load_after"] = _load()
    with open(args.out, "w") as f:
        json.dump(results, f, indent=1)
    print(report(results))


# ================================================================================================
# Report


def _median(rows, key):
    values = [r[key] for r in rows if key in r]
    return statistics.median(values) if values else None


def report(results):
    rows = results["rows"]
    loads = [r["loadavg"] for r in rows if r.get("loadavg") is not None]
    lines = ["Machine: %s CPUs; 1-minute load average during the run: median %.1f, max %.1f "
             "(other jobs shared the cores). Medians of fresh processes; `n` = runs."
             % (results.get("cpus"), statistics.median(loads) if loads else float("nan"),
                max(loads) if loads else float("nan")), ""]

    def pick(target, label, n=None):
        return [r for r in rows if r["target"] == target and r["label"] == label
                and (n is None or r["n"] == n)]

    sizes = sorted({r["n"] for r in rows if r["target"] == "empty"})
    if sizes:
        lines += ["**Empty caches**: `evaluate.load` + first `compute()` (s), with stemming; "
                  "rouge_score and rouge-score-rs compute the default types (they have no "
                  "W/S/SU).", "",
                  "| pairs | ours default | ours W+S+SU | rouge_score 0.1.2 | rouge-score-rs | "
                  "rouge_score / ours default | rouge_score / ours W+S+SU |",
                  "|---|---|---|---|---|---|---|"]
        for n in sizes:
            cells = []
            for label in ("ours default", "ours W+S+SU", "rouge_score", "rouge-score-rs"):
                got = pick("empty", label, n)
                cells.append((_median(got, "total"), len(got)))
            text = ["%.2f (n=%d)" % c if c[0] is not None else "-" for c in cells]
            if cells[2][0] is None and pick("empty", "rouge_score", n // 10):
                # not run (minutes per run): 10x its time at a tenth of the pairs (it scores
                # pair by pair, so its time is linear in the pairs)
                cells[2] = (10 * _median(pick("empty", "rouge_score", n // 10), "total"), 0)
                text[2] = "~%.0f (10 x %s pairs)" % (cells[2][0], "{:,}".format(n // 10))
            ratio = ["%.1fx" % (cells[2][0] / c[0]) if c[0] and cells[2][0] else "-"
                     for c in cells[:2]]
            lines.append("| %s | %s |" % ("{:,}".format(n), " | ".join(text + ratio)))
        lines.append("")
    for target, title in (("wait", "**Load, 20 s of other work (pure Python in the main "
                                   "thread), first `compute()` of 10,000 pairs** (s)"),
                          ("warm", "**New process, warm caches: first `compute()` of 10,000 "
                                   "pairs** (s)"),
                          ("space", "**The Space: app.py's start-up warm-up, then 30 s later "
                                    "the first corpus run (1,000 pairs, stemming, 1,000 "
                                    "bootstrap samples)** (s)")):
        labels = sorted({r["label"] for r in rows if r["target"] == target})
        if not labels:
            continue
        lines += [title, "", "| case | load | first | warm | first / warm | first - warm | n |",
                  "|---|---|---|---|---|---|---|"]
        for label in labels:
            got = pick(target, label)
            first, warm, load = _median(got, "first"), _median(got, "warm"), _median(got, "load")
            ratios = [r["first"] / r["warm"] for r in got if "warm" in r]
            diffs = [r["first"] - r["warm"] for r in got if "warm" in r]
            lines.append("| %s | %.2f | %.3f | %.3f | %.2fx | %+.3f | %d |" % (
                label, load, first, warm, statistics.median(ratios), statistics.median(diffs),
                len(got)))
        lines.append("")
    kernel_rows = [r for r in rows if r["target"] == "kernels"]
    if kernel_rows:
        labels = sorted({r["label"] for r in kernel_rows})
        names = [k for k in kernel_rows[0] if k not in ("target", "label", "n", "loadavg")]
        lines += ["**Per kernel**: first call in a fresh process (s): compile with an empty "
                  "numba cache, load with a warm one", "",
                  "| kernel | " + " | ".join(labels) + " |", "|---|" + "---|" * len(labels)]
        for name in names:
            lines.append("| %s | %s |" % (name, " | ".join(
                "%.3f" % _median(pick("kernels", label), name) for label in labels)))
        lines.append("")
    gil = [r for r in rows if r["target"] == "gil"]
    if gil:
        alone = _median(pick("gil", "none"), "loops_per_s")
        lines += ["**GIL contention**: the main thread's pure-Python loop rate beside a "
                  "background compile (8 s)", "", "| compile | loops/s | vs alone |",
                  "|---|---|---|"]
        for mode in ("none", "thread", "process"):
            rate = _median(pick("gil", mode), "loops_per_s")
            lines.append("| %s | %.0f | %.2f |" % (mode, rate, rate / alone))
        lines.append("")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
