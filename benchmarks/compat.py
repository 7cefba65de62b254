"""rouge_exact.rouge_scorer (the rouge_score drop-in, docs/rouge_score.md) against its peers,
in one process, warm, on REALSumm pairs (tests/data/realsumm.jsonl):

* ``RougeScorer.score()`` per pair: rouge_score 0.1.2's against ours (target: ours >= 20x);
* ``score_batch()`` at 512, 4,096 and 100,000 pairs: ours against rouge-score-rs's, where it
  is installed (``pip install rouge-score-rs``; target: ours at least as fast from 512 on).

Warm: the kernels compiled and loaded, and every contender has scored the very pairs once
(our Porter memo then knows their words, as it does a corpus' words after its first pass).
Contenders take turns (A B A B ...), each after a gc.collect(); each figure is the median of
the turns, each ratio the ratio of two medians of this run. Every result is checked equal to
rouge_score's (score) or rouge-score-rs's (score_batch) before it is timed.

    ROUGE_METRIC_CACHE_DIR=/tmp/compat_kernels .venv/bin/python benchmarks/compat.py
    .venv/bin/python benchmarks/compat.py --repeats 3 --sizes 512,4096   # quicker
"""
import argparse
import gc
import json
import os
import statistics
import time

from rouge_score import rouge_scorer as rs_scorer

import rouge_exact
from rouge_exact import rouge_scorer as ex_scorer

try:
    from rouge_score_rs import rouge_scorer as rsrs_scorer
except ImportError:
    rsrs_scorer = None

DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests",
                    "data", "realsumm.jsonl")
TYPES = ["rouge1", "rouge2", "rougeL", "rougeLsum"]
CONFIGS = [(TYPES, False), (TYPES, True), (["rouge1"], False), (["rougeL"], True)]


def load_pairs(n: int) -> list:
    """n (target, prediction) pairs: the 3,500 rows, then the rows again with the prediction's
    sentences rotated by the round (new pairs, the same words)."""
    with open(DATA, encoding="utf-8") as f:
        rows = [json.loads(line) for line in f]
    pairs = []
    for i in range(n):
        row = rows[i % len(rows)]
        turn = i // len(rows)
        sentences = row["prediction"].split("\n")
        k = turn % len(sentences)
        pairs.append((row["references"][0], "\n".join(sentences[k:] + sentences[:k])))
    return pairs


def turns(contenders: dict, repeats: int) -> dict:
    """{name: median seconds} of the contenders called in turn, repeats times each."""
    times = {name: [] for name in contenders}
    for _ in range(repeats):
        for name, run in contenders.items():
            gc.collect()  # the previous turn's garbage is not this turn's cost
            start = time.perf_counter()
            run()
            times[name].append(time.perf_counter() - start)
    return {name: statistics.median(t) for name, t in times.items()}


def per_pair(args, pairs: list) -> None:
    print(f"score() per pair, warm, {args.pairs} pairs, median of {args.repeats} turns")
    print(f"{'types':<34} {'stem':<5} {'rouge_score':>12} {'ours':>9} {'ratio':>7}")
    pairs = pairs[:args.pairs]
    for types, stem in CONFIGS:
        theirs = rs_scorer.RougeScorer(types, use_stemmer=stem)
        ours = ex_scorer.RougeScorer(types, use_stemmer=stem)
        want = [theirs.score(t, p) for t, p in pairs]  # also the warm-up pass
        assert [ours.score(t, p) for t, p in pairs] == want, "differs from rouge_score"
        median = turns({"theirs": lambda: [theirs.score(t, p) for t, p in pairs],
                        "ours": lambda: [ours.score(t, p) for t, p in pairs]}, args.repeats)
        a, b = (median[k] / len(pairs) * 1e6 for k in ("theirs", "ours"))
        print(f"{'+'.join(types):<34} {str(stem):<5} {a:>10.0f}us {b:>7.1f}us {a / b:>6.1f}x")


def batches(args, pairs: list) -> None:
    if rsrs_scorer is None:
        print("\nscore_batch: rouge-score-rs is not installed (pip install rouge-score-rs); "
              "only rouge_score was compared")
        return
    print(f"\nscore_batch(), warm, median of {args.repeats} turns (rouge-score-rs: "
          f"RAYON_NUM_THREADS={os.environ.get('RAYON_NUM_THREADS', 'unset: all cores')})")
    print(f"{'pairs':>8} {'stem':<5} {'rouge-score-rs':>15} {'ours':>10} {'rs / ours':>10}")
    for size in args.sizes:
        chunk = pairs[:size]
        targets, predictions = [t for t, _ in chunk], [p for _, p in chunk]
        for stem in (False, True):
            theirs = rsrs_scorer.RougeScorer(TYPES, use_stemmer=stem)
            ours = ex_scorer.RougeScorer(TYPES, use_stemmer=stem)
            want = theirs.score_batch(targets, predictions)  # also the warm-up pass
            assert ours.score_batch(targets, predictions) == want, "differs from rouge-score-rs"
            median = turns({"theirs": lambda: theirs.score_batch(targets, predictions),
                            "ours": lambda: ours.score_batch(targets, predictions)},
                           args.repeats)
            print(f"{size:>8} {str(stem):<5} {median['theirs'] * 1e3:>13.1f}ms "
                  f"{median['ours'] * 1e3:>8.1f}ms {median['theirs'] / median['ours']:>9.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=5, help="turns per contender")
    parser.add_argument("--pairs", type=int, default=500, help="pairs of the score() timing")
    parser.add_argument("--sizes", type=lambda s: [int(x) for x in s.split(",")],
                        default=[512, 4096, 100_000], help="score_batch sizes, comma-separated")
    args = parser.parse_args()
    rouge_exact.compile_kernels(wait=True)
    pairs = load_pairs(max([args.pairs, *args.sizes]))
    print(f"rouge_exact {rouge_exact.__version__}, {os.cpu_count()} CPUs, load average "
          f"{os.getloadavg()[0]:.2f} at the start")
    per_pair(args, pairs)
    batches(args, pairs)
    print(f"load average {os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()
