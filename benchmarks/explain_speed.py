#!/usr/bin/env python3
"""What ``rouge_exact.explain`` costs against one ``compute()`` of the default convention, on
the same 10,000 pairs.

    .venv/bin/python benchmarks/explain_speed.py                 # ~30 s on 2 cores
    .venv/bin/python benchmarks/explain_speed.py --runs 5 --pairs 2000 --json /tmp/e.json

Workloads (both from tests/data/realsumm.jsonl, seeded):
  drawn     --pairs rows drawn with replacement from its 3,500 (random.Random(--seed)), as
            benchmarks/run.py's w10k: rows repeat (explain scores a repeated row once) and
            each article's reference is shared by the 35 systems' summaries.
  distinct  realsumm's rows, then variants (each prediction's sentences rotated and a line
            added): no two pairs alike (benchmarks/peers_speed.py's pairs).

Timed in this process, warm (the kernels loaded and every convention run once on 50 pairs
first): compute() with its defaults (F only), compute(detailed=True) (P, R, F and the
bootstrap interval), and explain() (every convention: P, R, F each). Each figure is the
fastest of --runs calls (the machine's other work only adds). Prints a markdown table: the
seconds and explain's ratio to each compute().
"""

import argparse
import json
import os
import random
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "tests", "data", "realsumm.jsonl")
sys.path.insert(0, ROOT)

from peers_speed import variants  # noqa: E402  (beside this file: every pair distinct)


def realsumm() -> list:
    with open(DATA, encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def drawn(rows: list, n: int, seed: int) -> tuple:
    rng = random.Random(seed)
    picked = [rng.choice(rows) for _ in range(n)]
    return [r["prediction"] for r in picked], [r["references"][0] for r in picked]


def fastest(function, runs: int) -> float:
    from rouge_exact.text.peers import forget_punkt_lines

    best = float("inf")
    for _ in range(runs):
        forget_punkt_lines()  # each call splits its texts with Punkt itself
        start = time.perf_counter()
        function()
        best = min(best, time.perf_counter() - start)
    return best


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pairs", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--seed", type=int, default=20261129)
    parser.add_argument("--json", help="write the figures to this file")
    args = parser.parse_args()

    import rouge_exact
    from rouge_exact.explanation import explain

    rows = realsumm()
    workloads = {"drawn": drawn(rows, args.pairs, args.seed),
                 "distinct": variants(rows, args.pairs)}
    warm = workloads["drawn"][0][:50], workloads["drawn"][1][:50]
    explain(*warm)  # every convention's kernels loaded, Punkt's model read
    rouge_exact.compute(*warm, detailed=True)

    figures = {}
    for name, (predictions, references) in workloads.items():
        conventions = len(explain(predictions[:50], references[:50]).rows)
        plain = fastest(lambda: rouge_exact.compute(predictions, references), args.runs)
        detailed = fastest(lambda: rouge_exact.compute(predictions, references,
                                                       detailed=True), args.runs)
        whole = fastest(lambda: explain(predictions, references), args.runs)
        figures[name] = {"pairs": len(predictions),
                         "distinct_rows": len(set(zip(predictions, references))),
                         "conventions": conventions, "compute_s": plain,
                         "compute_detailed_s": detailed, "explain_s": whole,
                         "ratio": whole / plain, "ratio_detailed": whole / detailed}

    print(f"explain() against compute() on {args.pairs:,} pairs from realsumm "
          f"(fastest of {args.runs}; {os.cpu_count()} CPUs)\n")
    print("| workload | distinct rows | conventions | compute() s | compute(detailed) s "
          "| explain() s | explain / compute() | explain / compute(detailed) |")
    print("|---|---|---|---|---|---|---|---|")
    for name, f in figures.items():
        print(f"| {name} | {f['distinct_rows']:,} | {f['conventions']} | {f['compute_s']:.3f} "
              f"| {f['compute_detailed_s']:.3f} | {f['explain_s']:.3f} | {f['ratio']:.1f}x "
              f"| {f['ratio_detailed']:.1f}x |")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"args": vars(args), "figures": figures}, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
