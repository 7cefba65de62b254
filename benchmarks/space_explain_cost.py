#!/usr/bin/env python3
"""The Space's estimate of its Which ROUGE? tab (space.limits.check_explain_budget: explain
and one walk) against what they take, on inputs that stress each part of the estimate.

    .venv/bin/python benchmarks/space_explain_cost.py            # ~3 minutes on 2 cores
    .venv/bin/python benchmarks/space_explain_cost.py --only zh realsumm

Each input is first costed as the Space costs it (the budget lifted, so that every input gets
an estimate), then run as the tab runs it, warm (every convention run once on 3 pairs first):
explain() of the four default types, then its walk from rouge_score to rouge155 with -m
showing as many examples per step as space.limits.walk_examples allows, each run with the
stems of the words and Punkt's sentences unknown (the process's memos of them emptied). Prints a markdown
table: the estimate, the wall time and the process's CPU time (both cores), the fastest of
--runs, and whether the Space (10 s) accepts the input. An estimate must not be below what
the input takes: a row where it is is marked "UNDER".
"""

import argparse
import json
import math
import os
import random
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
DATA = os.path.join(ROOT, "tests", "data", "realsumm.jsonl")
TYPES = ["rouge1", "rouge2", "rougeL", "rougeLsum"]


def inputs(rng: random.Random) -> dict:
    rows = [json.loads(line) for line in open(DATA, encoding="utf-8")]
    by_doc: dict = {}
    for row in rows:
        by_doc.setdefault(row["doc"], []).append(row["prediction"])

    def realsumm(n, refs=1):
        return ([r["prediction"] for r in rows[:n]],
                [[r["references"][0]] + [p for p in by_doc[r["doc"]]
                                         if p != r["prediction"]][:refs - 1] for r in rows[:n]])

    def pairs(n, make):
        return [make() for _ in range(n)], [make() for _ in range(n)]

    def words(vocab, count, lines=1):
        per = count // lines
        return "\n".join(" ".join(rng.choice(vocab) for _ in range(per)) for _ in range(lines))

    short = [f"w{k}" for k in range(3000)]
    letters = "abcdefghijklmnopqrstuvwxyz"
    fresh = ["".join(rng.choice(letters) for _ in range(rng.randint(4, 9)))
             for _ in range(100_000)]
    long_words = ["".join(rng.choice(letters) for _ in range(rng.randint(16, 24)))
                  for _ in range(100_000)]
    zh = "警方周二逮捕了两名男子他们涉嫌闯入市博物馆两名男子周二被捕博物馆没有丢失贵重物品"
    return {
        "realsumm, 10 pairs": realsumm(10),
        "realsumm, 300 pairs": realsumm(300),
        "realsumm, 3,500 pairs": realsumm(3500),
        "realsumm, 2,000 pairs, 3 references": realsumm(2000, 3),
        "4 pairs of 5,000 tokens, one line": pairs(4, lambda: words(short, 5000)),
        "4 pairs of 5,000 tokens, 200 lines": pairs(4, lambda: words(short, 5000, 200)),
        "5,000 pairs of 8 tokens": pairs(5000, lambda: words(fresh[:500], 8)),
        "1,000 pairs of 100 fresh short words": pairs(1000, lambda: words(fresh, 100)),
        "1,000 pairs of 100 fresh 16-24 letter words": pairs(1000, lambda: words(long_words, 100)),
        "1,000 pairs of 100 16-24 letter words of 1,000": pairs(
            1000, lambda: words(long_words[:1000], 100)),
        "1,000 pairs of 300 Chinese characters": pairs(
            1000, lambda: "".join(rng.choice(zh) for _ in range(300))),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--only", nargs="*", default=None,
                        help="run the inputs whose name contains one of these")
    args = parser.parse_args()

    import rouge_exact
    from rouge_exact.text import peers, tokenizers
    from space import limits
    from space.options import build_options
    from space.scoring import WALK_FROM, WALK_TO

    budget = limits.CPU_BUDGET_SECONDS
    rouge_exact.explain(["the cat sat. on the mat"] * 3, ["the cat lay. on a mat"] * 3)
    print("| input | characters | estimate (s) | explain + walk: wall (s) | CPU (s) | "
          "examples a step | the Space |")
    print("|---|---:|---:|---:|---:|---:|---|")
    for name, (predictions, references) in inputs(random.Random(args.seed)).items():
        if args.only and not any(o in name for o in args.only):
            continue
        references = [[r] if isinstance(r, str) else r for r in references]
        limits.CPU_BUDGET_SECONDS = math.inf  # an estimate for every input
        try:
            _, estimate = limits.check_explain_budget(build_options(TYPES), predictions,
                                                      references, "local")
        finally:
            limits.CPU_BUDGET_SECONDS = budget
        examples = limits.walk_examples(predictions, references, budget - estimate)
        walls, cpus = [], []
        for _ in range(args.runs):
            # a visitor's texts are new to the Space: each run stems their words and splits
            # them with Punkt afresh (the process's memos, kept across calls, emptied)
            tokenizers._STEM_MEMOS.clear()
            peers.forget_punkt_lines()
            wall, cpu = time.perf_counter(), time.process_time()
            explained = rouge_exact.explain(predictions, references, rouge_types=TYPES)
            explained.walk(WALK_FROM, WALK_TO, examples=examples)
            walls.append(time.perf_counter() - wall)
            cpus.append(time.process_time() - cpu)
        chars = sum(map(len, predictions)) + sum(len(r) for refs in references for r in refs)
        verdict = "accepts" if estimate <= budget else "refuses"
        if estimate < min(walls):
            verdict += " UNDER"
        print(f"| {name} | {chars:,} | {estimate:.2f} | {min(walls):.2f} | {min(cpus):.2f} | "
              f"{examples} | {verdict} |", flush=True)


if __name__ == "__main__":
    main()
