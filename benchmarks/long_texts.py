"""Time and memory of one long pair written as ONE sentence, for rougeL, rougeLsum and rougeW
(issue 12: memory O(m + n) per pair, time proportional to the DP cells), against
rouge-score-rs on rougeL + rougeLsum when it is installed.

    .venv/bin/python benchmarks/long_texts.py 1000 4000 16000 100000

Each (size, contender, types) runs in a fresh process: a prediction and a reference of N words
drawn (seeded) from the vocabulary of tests/data/realsumm.jsonl, with no newline, so
rougeLsum and rougeW see one N-token sentence each (the worst case for their tables). The
process first scores a 3,000-token pair (so that the compiled kernels are loaded and the
plain-Python tier is not used), then measures the call: wall time and the peak RSS it adds
(ru_maxrss after minus before). Prints one Markdown row per run.
"""
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "tests" / "data" / "realsumm.jsonl"
RUNS = [("ours", ["rougeL"]), ("ours", ["rougeLsum"]), ("ours", ["rougeW"]),
        ("ours", ["rougeL", "rougeLsum"]), ("rouge-score-rs", ["rougeL", "rougeLsum"])]


def texts(n: int) -> tuple:
    import numpy as np

    rows = [json.loads(line) for line in open(DATA, encoding="utf-8")]
    words = " ".join(r["prediction"] for r in rows).split()
    rng = np.random.default_rng(0)
    return " ".join(rng.choice(words, n)), " ".join(rng.choice(words, n))


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def child(n: int, contender: str, types: list) -> None:
    warnings.simplefilter("ignore")
    pred, ref = texts(n)
    warm_pred, warm_ref = texts(3000)
    if contender == "ours":
        import evaluate

        metric = evaluate.load(str(REPO / "rouge_metric.py"))

        def score(p, r):
            return metric.compute(predictions=[p], references=[r], rouge_types=types)
    else:
        from rouge_score_rs import rouge_scorer

        scorer = rouge_scorer.RougeScorer(types)

        def score(p, r):
            return scorer.score_batch([r], [p])
    score(warm_pred, warm_ref)
    before = peak_mb()
    start = time.perf_counter()
    score(pred, ref)
    seconds = time.perf_counter() - start
    peak = peak_mb()
    print(f"| {n:,} | {' + '.join(types)} | {contender} | {seconds:.2f} s | {peak:,.0f} MB | "
          f"{peak - before:,.0f} MB |", flush=True)


def main() -> None:
    if sys.argv[1:2] == ["--child"]:
        child(int(sys.argv[2]), sys.argv[3], sys.argv[4].split(","))
        return
    env = dict(os.environ)
    env.setdefault("HF_MODULES_CACHE", str(Path(tempfile.gettempdir()) / "rouge-long-texts"))
    try:
        import rouge_score_rs  # noqa: F401
        runs = RUNS
    except ImportError:
        print("(rouge-score-rs is not installed: its rows are left out)\n")
        runs = [r for r in RUNS if r[0] == "ours"]
    print("One pair, one sentence per text (no newline), N tokens each:\n")
    print("| tokens per text | types | contender | time | peak RSS | RSS added by the call |\n"
          "|---|---|---|---|---|---|", flush=True)
    for n in sys.argv[1:] or ["1000", "4000", "16000", "100000"]:
        for contender, types in runs:
            done = subprocess.run([sys.executable, __file__, "--child", n, contender,
                                   ",".join(types)], env=env, capture_output=True, text=True)
            if done.returncode == 0:
                print(done.stdout.strip(), flush=True)
            else:  # e.g. rouge-score-rs aborting on a table it cannot allocate
                last = (done.stderr.strip().splitlines() or ["?"])[0][:90]
                print(f"| {int(n):,} | {' + '.join(types)} | {contender} | failed (exit "
                      f"{done.returncode}: {last}) | | |", flush=True)


if __name__ == "__main__":
    main()
