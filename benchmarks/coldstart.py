#!/usr/bin/env python3
"""Cold start of rouge_metric against rouge_score 0.1.2, each measurement in a fresh process.

    python benchmarks/coldstart.py                     # every target, 3 runs, a markdown table
    python benchmarks/coldstart.py --targets empty --sizes 1000 --runs 5

Run it with the project's venv (the package installed, evaluate, rouge-score). Targets:
  empty  fresh caches (a new HF_MODULES_CACHE and ROUGE_METRIC_CACHE_DIR): evaluate.load + the
         first compute() of N realsumm pairs (default types, stemmed), against rouge_score
         (RougeScorer + score() per pair + BootstrapAggregator, as evaluate's rouge runs it)
  wait   fresh caches: evaluate.load, 20 s of pure-Python work, then the first compute() of
         10,000 pairs, against the median of the 3 warm calls after it
  warm   warm caches, a new process: evaluate.load + the first compute() of 10,000 pairs,
         against the median of the 3 warm calls after it (--after S: the first call S seconds
         after evaluate.load)
The parent process uses the standard library only; children alternate (ours, theirs, ...).
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "tests", "data", "realsumm.jsonl")


def _pairs(n):
    with open(DATA, encoding="utf-8") as f:
        rows = [json.loads(line) for line in f]
    return ([rows[i % len(rows)]["prediction"] for i in range(n)],
            [rows[i % len(rows)]["references"][0] for i in range(n)])


def child(spec: dict) -> dict:
    """One measurement (in this fresh process): seconds of what the spec names."""
    predictions, references = _pairs(spec["n"])
    if spec["who"] == "rouge_score":
        start = time.perf_counter()
        from rouge_score import rouge_scorer, scoring
        scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL", "rougeLsum"],
                                          use_stemmer=True)
        aggregator = scoring.BootstrapAggregator()
        for p, r in zip(predictions, references):
            aggregator.add_scores(scorer.score(r, p))
        aggregator.aggregate()
        return {"first": time.perf_counter() - start}
    import evaluate

    start = time.perf_counter()
    metric = evaluate.load(os.path.join(ROOT, "rouge_metric.py"))
    load = time.perf_counter() - start
    if spec["target"] == "wait":
        deadline = time.perf_counter() + 20
        while time.perf_counter() < deadline:  # other work: pure Python, holding the GIL
            sum(i * i for i in range(10_000))
    time.sleep(spec.get("after", 0))
    call = time.perf_counter()
    metric.compute(predictions=predictions, references=references, use_stemmer=True)
    out = {"load": load, "call": time.perf_counter() - call, "first": load + time.perf_counter() - call}
    if spec["target"] != "empty":
        metric.compile_kernels(wait=True)
        warm = []
        for _ in range(3):
            t = time.perf_counter()
            metric.compute(predictions=predictions, references=references, use_stemmer=True)
            warm.append(time.perf_counter() - t)
        out["warm"] = statistics.median(warm)
    return out


def measure(spec: dict, cache: str | None) -> dict:
    env = dict(os.environ)
    with tempfile.TemporaryDirectory() as fresh:
        folder = cache or fresh
        env.update(HF_MODULES_CACHE=os.path.join(folder, "modules"),
                   ROUGE_METRIC_CACHE_DIR=os.path.join(folder, "kernels"))
        done = subprocess.run([sys.executable, __file__, "--child", json.dumps(spec)], env=env,
                              capture_output=True, text=True, check=True)
    return json.loads(done.stdout.splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--child")
    parser.add_argument("--targets", default="empty,wait,warm")
    parser.add_argument("--sizes", default="10,1000,10000,100000")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--after", type=float, default=0.0)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(json.loads(args.child))))
        return
    targets = args.targets.split(",")
    print(f"median of {args.runs} runs, fresh processes; {os.cpu_count()} CPUs\n")
    if "empty" in targets:
        print("| pairs | ours: load + first call (s) | rouge_score (s) | rouge_score / ours |")
        print("|---|---|---|---|")
        for n in map(int, args.sizes.split(",")):
            ours, theirs = [], []
            for _ in range(args.runs):
                ours.append(measure({"who": "ours", "target": "empty", "n": n}, None)["first"])
                theirs.append(measure({"who": "rouge_score", "target": "empty", "n": n},
                                      None)["first"])
            a, b = statistics.median(ours), statistics.median(theirs)
            print(f"| {n:,} | {a:.2f} | {b:.2f} | {b / a:.1f}x |")
        print()
    for target in ("wait", "warm"):
        if target not in targets:
            continue
        with tempfile.TemporaryDirectory() as cache:
            if target == "warm":  # fill the caches once
                subprocess.run([sys.executable, "-m", "rouge_exact", "--compile"],
                               env=dict(os.environ, HF_MODULES_CACHE=os.path.join(cache, "modules"),
                                        ROUGE_METRIC_CACHE_DIR=os.path.join(cache, "kernels")),
                               check=True, capture_output=True)
            runs = [measure({"who": "ours", "target": target, "n": 10_000, "after": args.after},
                            cache if target == "warm" else None) for _ in range(args.runs)]
        first = statistics.median(r["call"] for r in runs)
        warm = statistics.median(r["warm"] for r in runs)
        load = statistics.median(r["load"] for r in runs)
        print(f"{target}: 10,000 pairs: first call {first:.2f} s, warm {warm:.2f} s "
              f"({first / warm:.2f}x, +{first - warm:.2f} s); evaluate.load {load:.2f} s")


if __name__ == "__main__":
    main()
