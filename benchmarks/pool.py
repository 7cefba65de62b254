"""Small calls: the kept pool against a thread pool made per call, and rouge-score-rs, in one
process, taking turns.

    benchmarks/.venv/bin/python benchmarks/pool.py     # 1, 8, 64, 128, 512 pairs; 15 rounds
    benchmarks/.venv/bin/python benchmarks/pool.py --rounds 31
    benchmarks/.venv/bin/python benchmarks/pool.py --code /tmp/old  # another checkout (a
                                                 # `git archive`, 0.7.0 on) as rouge_exact

Workload: scaling.py's (realsumm predictions, words shuffled and dropped, seeded, against their
first reference; rouge1+rouge2+rougeL+rougeLsum, stemmed). Three contenders:

* per-call pool: compute() as it ran before the kept pool, in this process: a
  ThreadPoolExecutor made and joined by each call that spreads work, from 256 pairs;
* kept pool: compute() as it is (kernels.pool, from a few dozen pairs);
* rs: rouge-score-rs's score_batch (its rayon pool).

Each round times every contender at every size (~2,000 pairs' worth of calls each); the
median per call. Before timing, both of ours are checked equal at every size.
"""

import argparse
import importlib.util
import os
import statistics
import sys
import time
import warnings
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from scaling import TYPES, corpus  # noqa: E402

SIZES = (1, 8, 64, 128, 512)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--code", help="import rouge_exact from this checkout, or package folder "
                    "(default: this checkout)")
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    # the folder's modules import each other relatively: they follow
    code = args.code or os.path.dirname(HERE)
    folder = os.path.join(code, "rouge_exact")
    folder = folder if os.path.isdir(folder) else code
    spec = importlib.util.spec_from_file_location(
        "rouge_exact", os.path.join(folder, "__init__.py"), submodule_search_locations=[folder])
    sys.modules["rouge_exact"] = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(sys.modules["rouge_exact"])
    import rouge_exact
    from rouge_exact.scorer import pipeline as pipeline
    from rouge_exact.kernels.backend import pool_worker
    from rouge_score_rs import rouge_scorer

    rouge_exact.compile_kernels(wait=True)
    rows = corpus(os.path.join(os.path.dirname(HERE), "tests", "data", "realsumm.jsonl"),
                  max(SIZES))
    P, R = [p for p, _ in rows], [r for _, r in rows]
    rs = rouge_scorer.RougeScorer(TYPES, use_stemmer=True)
    kept = (pipeline.run_parts, pipeline._PARALLEL_MIN_PAIRS, pipeline._THREAD_CHUNK_MIN)

    def per_call_pool(function, items):  # as before: one level (its threads' kernels stay)
        with ThreadPoolExecutor(pipeline.threads_here(), initializer=pool_worker) as pool:
            return list(pool.map(function, items))

    settings = {"per-call pool": (per_call_pool, 256, 256), "kept pool": kept}

    def ours(name: str, n: int):
        (pipeline.run_parts, pipeline._PARALLEL_MIN_PAIRS,
         pipeline._THREAD_CHUNK_MIN) = settings[name]
        return rouge_exact.compute(predictions=P[:n], references=R[:n], rouge_types=TYPES,
                                   use_stemmer=True)

    for n in SIZES:
        assert ours("per-call pool", n) == ours("kept pool", n), n
    who = [*settings, "rs"]
    times: dict = {}
    for _ in range(args.rounds):
        for n in SIZES:
            reps = max(1, 2000 // (4 * n))
            for name in who:
                start = time.perf_counter()
                for _ in range(reps):
                    rs.score_batch(R[:n], P[:n]) if name == "rs" else ours(name, n)
                times.setdefault((name, n), []).append((time.perf_counter() - start) / reps)
    settings["kept pool"] = kept
    ours("kept pool", 1)
    print(f"# pool.py ({os.path.dirname(rouge_exact.__file__)}): "
          f"{len(os.sched_getaffinity(0))} CPUs usable, load average "
          f"{os.getloadavg()[0]:.1f}, {args.rounds} rounds; {time.strftime('%Y-%m-%d %H:%M')}\n")
    print("| pairs per call | per-call pool | kept pool | rs `score_batch` | rs / per-call | "
          "rs / kept |")
    print("|---|---|---|---|---|---|")
    for n in SIZES:
        m = {name: statistics.median(times[(name, n)]) for name in who}
        print(f"| {n} | {m['per-call pool'] * 1e3:.3f} ms | {m['kept pool'] * 1e3:.3f} ms | "
              f"{m['rs'] * 1e3:.3f} ms | {m['rs'] / m['per-call pool']:.2f}x | "
              f"{m['rs'] / m['kept pool']:.2f}x |")


if __name__ == "__main__":
    main()
