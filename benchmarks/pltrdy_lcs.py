"""pltrdy's ROUGE-L (profile="pltrdy": the distinct words on its traceback of the LCS, bit
rows of any length) against the LCS length of the coco and rouge_chinese profiles, on one long
sentence against its reverse: CPU time per call, and the ratio pltrdy / coco.

    .venv/bin/python benchmarks/pltrdy_lcs.py            # 64 to 50,000 words, under a minute
    .venv/bin/python benchmarks/pltrdy_lcs.py --quick    # 64 to 10,000 words, seconds
    .venv/bin/python benchmarks/pltrdy_lcs.py --sizes 1000,30000 --limit 2.5

The sentence: N words drawn (seeded) from the words of tests/data/realsumm.jsonl that are
letters and digits only (no "." for pltrdy to split a sentence at); the reference is the
sentence, the prediction its words in reverse order. One process: the kernels are compiled
(compile_kernels(wait=True)) and each profile scores a small pair before anything is timed.
Each size's calls take turns (pltrdy, coco, rouge_chinese, pltrdy, ...), repeated until each
has run at least --min-cpu seconds or --max-runs times; the table gives the median CPU time of
a call (time.process_time: every thread of the process). Exits 1 if a ratio pltrdy / coco is
over --limit (3).
"""

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "tests" / "data" / "realsumm.jsonl"  # REALSumm, CC BY 4.0: tests/data/DATA.md
PROFILES = ("pltrdy", "coco", "rouge_chinese")
SIZES = (64, 2_000, 5_000, 10_000, 20_000, 50_000)
QUICK = (64, 2_000, 5_000, 10_000)


def vocabulary() -> list:
    """The distinct words of realsumm's predictions that are letters and digits only."""
    with open(DATA, encoding="utf-8") as f:
        words = {w for line in f for w in json.loads(line)["prediction"].split() if w.isalnum()}
    return sorted(words)


def pair(words: list, n: int) -> tuple:
    """(prediction, reference): n seeded words, and the same words reversed."""
    sentence = random.Random(n).choices(words, k=n)
    return " ".join(reversed(sentence)), " ".join(sentence)


def timed(rouge_exact, profile: str, prediction: str, reference: str) -> tuple:
    """(CPU seconds, rougeL F) of one compute() call on the pair."""
    start = time.process_time()
    score = rouge_exact.compute(predictions=[prediction], references=[reference],
                                profile=profile, rouge_types=["rougeL"])["rougeL"]
    return time.process_time() - start, score


def measure(rouge_exact, prediction: str, reference: str, min_cpu: float,
            max_runs: int) -> dict:
    """Median CPU seconds of a call per profile, the profiles taking turns."""
    times: dict = {profile: [] for profile in PROFILES}
    while min(len(t) for t in times.values()) < max_runs:
        for profile in PROFILES:
            times[profile].append(timed(rouge_exact, profile, prediction, reference)[0])
        if min(sum(t) for t in times.values()) >= min_cpu:
            break
    return {profile: (statistics.median(t), len(t)) for profile, t in times.items()}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="sizes up to 10,000 words")
    ap.add_argument("--sizes", help="comma-separated sentence lengths (words)")
    ap.add_argument("--limit", type=float, default=3.0, help="largest ratio pltrdy / coco")
    ap.add_argument("--min-cpu", type=float, default=0.5,
                    help="CPU seconds each profile runs per size, at least (default 0.5)")
    ap.add_argument("--max-runs", type=int, default=200, help="calls per profile and size, "
                                                              "at most (default 200)")
    args = ap.parse_args()
    sizes = ([int(s) for s in args.sizes.split(",")] if args.sizes
             else QUICK if args.quick else SIZES)
    sys.path.insert(0, str(REPO))
    import rouge_exact

    rouge_exact.compile_kernels(wait=True)
    words = vocabulary()
    for profile in PROFILES:  # every kernel loaded, every profile's first-call costs paid
        timed(rouge_exact, profile, *pair(words, 300))
    print("| words | pltrdy | coco | rouge_chinese | pltrdy / coco |")
    print("|---:|---:|---:|---:|---:|")
    worst = 0.0
    for n in sizes:
        prediction, reference = pair(words, n)
        medians = measure(rouge_exact, prediction, reference, args.min_cpu, args.max_runs)
        ratio = medians["pltrdy"][0] / max(medians["coco"][0], 1e-9)
        worst = max(worst, ratio)
        cells = " | ".join(f"{seconds:.4f} s ({runs})" for seconds, runs in medians.values())
        print(f"| {n:,} | {cells} | {ratio:.2f} |", flush=True)
    print(f"\nCPU time per call, median (calls); largest ratio pltrdy / coco: {worst:.2f} "
          f"(limit {args.limit})")
    if worst > args.limit:
        print(f"FAIL: pltrdy's ROUGE-L over {args.limit}x coco's", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
