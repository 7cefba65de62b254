"""Time and peak memory of one long pair, every ROUGE type (issue: long texts).

    .venv/bin/python benchmarks/long_texts.py 1000 4000 16000 100000

Each size runs in a fresh process: a prediction and a reference of N words drawn (seeded) from
the vocabulary of ../shared/data/realsumm.jsonl, with no newline, so rougeLsum and rougeW see
one N-token sentence each (the worst case for their tables). Prints one Markdown row per size.
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
DATA = REPO.parent / "shared" / "data" / "realsumm.jsonl"
TYPES = ["rouge1", "rouge2", "rougeL", "rougeLsum", "rougeW", "rougeS4", "rougeSU4", "rougeS",
         "rougeSU"]


def child(n: int) -> None:
    import evaluate
    import numpy as np

    warnings.simplefilter("ignore")
    rows = [json.loads(line) for line in open(DATA, encoding="utf-8")]
    words = " ".join(r["prediction"] for r in rows).split()
    rng = np.random.default_rng(0)
    pred = " ".join(rng.choice(words, n))
    ref = " ".join(rng.choice(words, n))
    metric = evaluate.load(str(REPO / "rouge_metric.py"))
    metric.compute(predictions=["a b"], references=["a"], rouge_types=TYPES)  # compile
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    start = time.perf_counter()
    metric.compute(predictions=[pred], references=[ref], rouge_types=TYPES)
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"| {n:,} | {seconds:.2f} s | {peak:,.0f} MB | {peak - before:,.0f} MB |")


def main() -> None:
    if sys.argv[1:2] == ["--child"]:
        child(int(sys.argv[2]))
        return
    env = dict(os.environ)
    env.setdefault("HF_MODULES_CACHE", str(Path(tempfile.gettempdir()) / "rouge-long-texts"))
    print(f"All types ({', '.join(TYPES)}), one pair, no sentence breaks:\n")
    print("| tokens per text | time | peak RSS | RSS added by the call |\n|---|---|---|---|")
    for n in sys.argv[1:] or ["1000", "4000", "16000", "100000"]:
        subprocess.run([sys.executable, __file__, "--child", n], env=env, check=True)


if __name__ == "__main__":
    main()
