"""The fixed cost of a call: compute() and the rouge_score drop-in's RougeScorer.score on 1, 8,
64 and 512 pairs, this checkout against other copies of the package, in one process, taking
turns (so that a neighbour's load falls on each alike), medians and spread.

    .venv/bin/python benchmarks/percall.py                        # this checkout alone
    .venv/bin/python benchmarks/percall.py --old /tmp/old         # against a `git archive`
    .venv/bin/python benchmarks/percall.py --old /tmp/old --sizes 1,8 --rounds 31
    .venv/bin/python benchmarks/percall.py --old /tmp/old --rs    # and rouge-score-rs

Workload: scaling.py's (realsumm predictions, words shuffled and dropped, seeded, against their
first reference; rouge1+rouge2+rougeL+rougeLsum, stemmed). A copy is a checkout (its
rouge_exact/ folder; or, before 0.7.0, the checkout's root, whose flat modules were the package)
or a package folder itself. Each copy is imported as a package of its own name (its modules
import each other relatively), and every copy's results are
checked equal before timing. "score" is RougeScorer(...).score(target, prediction) called once
per pair, as people call rouge_score's. --rs adds rouge-score-rs's score_batch (its rayon
pool) as a contender of compute's row.
"""

import argparse
import importlib.util
import os
import statistics
import sys
import time
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

from scaling import TYPES, corpus  # noqa: E402


def package_folder(folder: str) -> str:
    """The package of a checkout (0.7.0 on: its rouge_exact/ folder; before: the root itself,
    its flat modules mapped as the package), or folder when it is a package folder."""
    inner = os.path.join(folder, "rouge_exact")
    return inner if os.path.exists(os.path.join(inner, "__init__.py")) else folder


def load(folder: str, name: str):
    """The package of folder (package_folder), imported under name."""
    folder = package_folder(folder)
    spec = importlib.util.spec_from_file_location(
        name, os.path.join(folder, "__init__.py"), submodule_search_locations=[folder])
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    importlib.import_module(f"{name}.rouge_scorer")
    return module


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--old", action="append", default=[],
                    help="another copy of the package (a folder, or NAME=FOLDER), timed "
                         "against this one")
    ap.add_argument("--sizes", default="1,8,64,512")
    ap.add_argument("--rounds", type=int, default=21)
    ap.add_argument("--what", default="compute,score", help="compute, score or both")
    ap.add_argument("--rs", action="store_true", help="time rouge-score-rs's score_batch too")
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    sizes = [int(n) for n in args.sizes.split(",")]
    rows = corpus(os.path.join(ROOT, "tests", "data", "realsumm.jsonl"), max(sizes))
    P, R = [p for p, _ in rows], [r for _, r in rows]
    copies = {"new": load(ROOT, "rouge_percall_new")}
    for i, old in enumerate(args.old):  # FOLDER, or NAME=FOLDER
        name, _, folder = old.rpartition("=")
        copies[name or f"old{i or ''}"] = load(folder, f"rouge_percall_old{i}")
    calls = {}
    for who, package in copies.items():
        package.compile_kernels(wait=True)
        scorer = sys.modules[f"{package.__name__}.rouge_scorer"].RougeScorer(
            TYPES, use_stemmer=True)
        calls[who, "compute"] = lambda n, package=package: package.compute(
            predictions=P[:n], references=R[:n], rouge_types=TYPES, use_stemmer=True)
        calls[who, "score"] = lambda n, scorer=scorer: [scorer.score(r, p) for p, r in
                                                        zip(P[:n], R[:n])]
    what = args.what.split(",")
    if args.rs:  # (its results have another form: not in the equality check below)
        from rouge_score_rs import rouge_scorer

        rs = rouge_scorer.RougeScorer(TYPES, use_stemmer=True)
        copies["rs"] = None
        calls["rs", "compute"] = lambda n: rs.score_batch(R[:n], P[:n])
        calls["rs", "score"] = lambda n: [rs.score(r, p) for p, r in zip(P[:n], R[:n])]
    for n in sizes:
        for w in what:
            results = [calls[who, w](n) for who in copies if who != "rs"]
            assert all(r == results[0] for r in results), (w, n)
    times: dict = {}
    for round_ in range(args.rounds):
        for n in sizes:
            reps = max(1, 2000 // (4 * n))
            for w in what:
                for who in (list(copies) if round_ % 2 else list(copies)[::-1]):  # either first
                    call = calls[who, w]
                    start = time.perf_counter()
                    for _ in range(reps):
                        call(n)
                    times.setdefault((who, w, n), []).append(
                        (time.perf_counter() - start) / reps / (n if w == "score" else 1))
    print(f"# percall.py: {len(os.sched_getaffinity(0))} CPUs usable, load average "
          f"{os.getloadavg()[0]:.1f}, {args.rounds} rounds; {time.strftime('%Y-%m-%d %H:%M')}\n")
    print("median per call (score: per pair), [25th-75th percentile]; ratio old / new\n")
    print("| call | pairs | " + " | ".join(copies) + " | " +
          " | ".join(f"{who} / new" for who in copies if who != "new") + " |")
    print("|---" * (2 + 2 * len(copies) - 1) + "|")

    def cell(values):
        q = statistics.quantiles(values, n=4)
        return f"{statistics.median(values) * 1e6:.1f} us [{q[0] * 1e6:.1f}-{q[2] * 1e6:.1f}]"

    for w in what:
        for n in sizes:
            m = {who: statistics.median(times[who, w, n]) for who in copies}
            print(f"| {w} | {n} | " + " | ".join(cell(times[who, w, n]) for who in copies)
                  + " | " + " | ".join(f"{m[who] / m['new']:.3f}x" for who in copies
                                       if who != "new") + " |")


if __name__ == "__main__":
    main()
