"""rouge_exact.significance.paired_test: its calibration and power, and its time.

    /work/main/.venv/bin/python benchmarks/significance.py --calibration  # docs/significance.md
    /work/main/.venv/bin/python benchmarks/significance.py --ties --nulls 1000  # few rows differ
    /work/main/.venv/bin/python benchmarks/significance.py            # timing, the workloads below
    /work/main/.venv/bin/python benchmarks/significance.py --runs 7 --sacrebleu
    /work/main/.venv/bin/python benchmarks/significance.py --rows 1000000 --runs 1 --types 1

--calibration: rejection rates of every test (at its default number of samples), macro and
micro, rouge1 F, on NULLS true nulls from realsumm (two real systems, each document's pair
of rows swapped at random: tests/test_significance.py's null_pairs) at 0.01, 0.05 and 0.10;
then the power at 0.05 against a system's degraded copy 0.5, 1 and 2 points worse
(degraded_pairs). The per-example statistics are rouge_score 0.1.2's (load_realsumm_stats).
Seeded: the same command prints the same table.

--ties: rejection rates at 0.05 of every test under nulls where the two systems differ on k
of 100 documents only (k = 1, 2, 3, 5, 6, 8, 20; see ties()), macro rouge1 F, each test at
its default samples; NULLS per k (1,000 in docs/significance.md). Seeded.

Timing (neither flag): 3 systems (realsumm's abs/bart, abs/t5/out_11B, ext/matchsumm) x
ROWS pairs made by resampling realsumm's 100 documents with replacement (seeded), 4 ROUGE
types; the per-example statistics come from rouge_score 0.1.2 (macro: P, R, F; micro: hit
and unit counts), computed before the clock starts. Timed: one paired_test call (all systems and
types at once), after one untimed call in the same process. Each (test, aggregation) runs in
RUNS fresh processes; the table gives the median and the range, and the peak RSS.

--sacrebleu also times sacrebleu 2.6.0's _paired_bs_test / _paired_ar_test on the same
statistics through a shim metric (one metric per type and measure), as a peer: one process,
its first call timed (it spends its time in a Python loop per sample, not in warm-up).
"""
import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "tests" / "data" / "realsumm.jsonl"
SYSTEMS = ["abs/bart/out", "abs/t5/out_11B", "ext/matchsumm/out"]
TYPES = ["rouge1", "rouge2", "rougeL", "rougeLsum"]


def workload(rows: int, n_types: int, aggregation: str) -> dict:
    """{system: {type: float64[rows, 3]}} from rouge_score on realsumm, rows resampled."""
    import numpy as np
    from rouge_score import rouge_scorer

    by_doc = {}
    with open(DATA, encoding="utf-8") as f:
        for line in f:
            row = json.loads(line)
            if row["system"] in SYSTEMS:
                by_doc.setdefault(row["system"], {})[row["doc"]] = row
    docs = sorted(by_doc[SYSTEMS[0]])
    types = TYPES[:n_types]
    scorer = rouge_scorer.RougeScorer(types)
    tokenize = scorer._tokenizer.tokenize
    picked = np.random.default_rng(0).integers(len(docs), size=rows)
    stats = {}
    for system in SYSTEMS:
        per_type = {t: np.zeros((len(docs), 3)) for t in types}
        for i, doc in enumerate(docs):
            row = by_doc[system][doc]
            reference, prediction = row["references"][0], row["prediction"]
            scores = scorer.score(reference, prediction)
            for t in types:
                if aggregation == "macro":
                    per_type[t][i] = scores[t]
                else:  # unit counts from the token lists (rougeLsum: its sentences' tokens)
                    sentences = t == "rougeLsum"
                    den_p = _units(tokenize, prediction, t, sentences)
                    den_r = _units(tokenize, reference, t, sentences)
                    per_type[t][i] = (round(scores[t].precision * den_p), den_p, den_r)
        stats[system] = {t: per_type[t][picked] for t in types}
    return stats


def _units(tokenize, text: str, rouge_type: str, sentences: bool) -> int:
    if sentences:
        return sum(len(tokenize(s)) for s in text.split("\n") if s)
    n = int(rouge_type[5:]) if rouge_type[5:].isdigit() else 1
    return max(len(tokenize(text)) - n + 1, 0)


class _Score:
    def __init__(self, score):
        self.score = score


class _Shim:
    """sacrebleu's Metric interface over rows of statistics, for one type and measure."""

    def __init__(self, score_of, measure: int, n: int):
        self.score_of, self.measure, self.n = score_of, measure, n

    def _extract_corpus_statistics(self, hypotheses, references):
        return hypotheses

    def _compute_score_from_stats(self, sums):
        return _Score(float(self.score_of(sums.astype(float), self.n)[self.measure]))

    def _aggregate_and_compute(self, stats):
        return self._compute_score_from_stats(stats.sum(0))


def child(spec: dict) -> None:
    sys.path.insert(0, str(REPO))
    from rouge_exact import significance as rs

    stats = workload(spec["rows"], spec["types"], spec["aggregation"])
    score_of = rs.mean_scores if spec["aggregation"] == "macro" else rs.pooled_scores
    if spec["who"] == "ours":
        def run():
            rs.paired_test(stats, SYSTEMS[0], score_of, test=spec["test"])
    else:
        from sacrebleu import significance

        n = spec["rows"]
        metrics = {(t, m): _Shim(score_of, m, n) for t in stats[SYSTEMS[0]] for m in range(3)}
        info = {key: (stats[SYSTEMS[0]][key[0]], significance.Result(
            metric._aggregate_and_compute(stats[SYSTEMS[0]][key[0]]).score))
            for key, metric in metrics.items()}
        function = significance._paired_bs_test if spec["test"] == "sacrebleu-bootstrap" \
            else significance._paired_ar_test
        samples = rs.DEFAULT_SAMPLES[spec["test"]]

        def run():
            for system in SYSTEMS[1:]:
                for t in stats[system]:
                    function({k: v for k, v in info.items() if k[0] == t}, system,
                             stats[system][t], None,
                             {k: v for k, v in metrics.items() if k[0] == t},
                             n_samples=samples, seed=12345)
    if spec["who"] == "ours":
        run()  # warm: imports, BLAS threads, page faults
    start = time.perf_counter()
    run()
    seconds = time.perf_counter() - start
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"seconds": seconds, "peak_mb": peak_mb}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=10_000)
    parser.add_argument("--types", type=int, default=4, choices=range(1, 5))
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--sacrebleu", action="store_true", help="time sacrebleu as a peer")
    parser.add_argument("--calibration", action="store_true",
                        help="rejection rates under true nulls, and power (no timing)")
    parser.add_argument("--nulls", type=int, default=2000,
                        help="--calibration: nulls per aggregation; --ties: per k "
                             "(default 2,000)")
    parser.add_argument("--power-pairs", type=int, default=1000,
                        help="--calibration: degraded copies per difference (default 1,000)")
    parser.add_argument("--ties", action="store_true",
                        help="rejection rates under nulls where the systems differ on only "
                             "a few documents (no timing)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(json.loads(args.child))
        return
    if args.ties:
        ties(args.nulls)
        return
    if args.calibration:
        calibration(args.nulls, args.power_pairs)
        return
    contenders = [("ours", "randomization"), ("ours", "bootstrap"),
                  ("ours", "sacrebleu-bootstrap"), ("ours", "sacrebleu-randomization")]
    if args.sacrebleu:
        contenders += [("sacrebleu", "sacrebleu-bootstrap"),
                       ("sacrebleu", "sacrebleu-randomization")]
    print(f"{len(SYSTEMS)} systems x {args.rows:,} rows x {args.types} types; "
          f"{args.runs} fresh processes each; warm call timed\n")
    print("| code | test (samples) | aggregation | median | min-max | peak RSS |\n"
          "|---|---|---|---|---|---|")
    for who, test in contenders:
        for aggregation in ("macro", "micro"):
            spec = {"who": who, "test": test, "aggregation": aggregation, "rows": args.rows,
                    "types": args.types}
            runs = []
            for _ in range(args.runs if who == "ours" else 1):
                out = subprocess.run([sys.executable, __file__, "--child", json.dumps(spec)],
                                     check=True, capture_output=True, text=True,
                                     env=dict(os.environ, PYTHONHASHSEED="0"))
                runs.append(json.loads(out.stdout.strip().splitlines()[-1]))
            times = [r["seconds"] for r in runs]
            name = "rouge_exact.significance" if who == "ours" else "sacrebleu 2.6.0 (shim)"
            print(f"| {name} | {test} ({_samples(test)}) | {aggregation} | "
                  f"{statistics.median(times):.3f} s | {min(times):.3f}-{max(times):.3f} s | "
                  f"{max(r['peak_mb'] for r in runs):,.0f} MB |", flush=True)


def _samples(test: str) -> str:
    sys.path.insert(0, str(REPO))
    from rouge_exact import significance as rs

    return f"{rs.DEFAULT_SAMPLES[test]:,}"


ALPHAS = (0.01, 0.05, 0.10)
POINTS = (0.5, 1.0, 2.0)


def calibration(nulls: int, power_pairs: int) -> None:
    """Markdown tables: rejections under nulls at ALPHAS, and power at 0.05 at POINTS."""
    import numpy as np

    sys.path[:0] = [str(REPO), str(REPO / "tests")]
    from rouge_exact import significance as rs
    from test_significance import (batched_p_values, degraded_pairs, load_realsumm_stats,
                                   null_pairs)

    start = time.perf_counter()
    stats = load_realsumm_stats()
    aggregations = {"macro": rs.mean_scores, "micro": rs.pooled_scores}
    print(f"realsumm, rouge1 F, {len(stats['macro'])} systems x "
          f"{len(next(iter(stats['macro'].values()))['rouge1'])} documents; each test at its "
          f"default samples ({', '.join(f'{t} {rs.DEFAULT_SAMPLES[t]:,}' for t in rs.TESTS)})"
          "\n")
    print(f"Rejections under {nulls:,} true nulls per aggregation (count; 95% Wilson interval "
          "of the rate)\n")
    print("| test | aggregation | " + " | ".join(f"α = {a:.2f}" for a in ALPHAS) + " |")
    print("|---|---|" + "---|" * len(ALPHAS))
    for test in rs.TESTS:
        for name, score_of in aggregations.items():
            of_type = {system: s["rouge1"] for system, s in stats[name].items()}
            first, second = null_pairs(np.random.default_rng(2026), of_type, nulls)
            p = batched_p_values(first, second, score_of, test, rs.DEFAULT_SAMPLES[test],
                                 seed=26)
            print(f"| {test} | {name} | " + " | ".join(_rate(int((p < a).sum()), nulls)
                                                       for a in ALPHAS) + " |", flush=True)
    print(f"\nPower at α = 0.05 against a degraded copy ({power_pairs:,} pairs per "
          "difference; the median of the realised differences in brackets)\n")
    print("| test | aggregation | " + " | ".join(f"{x:g} point{'s' * (x != 1)}"
                                                 for x in POINTS) + " |")
    print("|---|---|" + "---|" * len(POINTS))
    for test in rs.TESTS:
        for name, score_of in aggregations.items():
            of_type = {system: s["rouge1"] for system, s in stats[name].items()}
            cells = []
            for points in POINTS:
                first, second = degraded_pairs(np.random.default_rng(int(points * 10)),
                                               of_type, power_pairs, points, score_of)
                p = batched_p_values(first, second, score_of, test, rs.DEFAULT_SAMPLES[test],
                                     seed=27)
                n = first.shape[1]
                gaps = 100 * (score_of(first.sum(1), n)[:, 2] - score_of(second.sum(1), n)[:, 2])
                cells.append(f"{np.mean(p < 0.05):.3f} ({np.median(gaps):.2f})")
            print(f"| {test} | {name} | " + " | ".join(cells) + " |", flush=True)
    print(f"\n({time.perf_counter() - start:.0f} s)")


DIFFERING = (1, 2, 3, 5, 6, 8, 20)


def ties(count: int, alpha: float = 0.05) -> None:
    """Rejections at alpha under nulls of two systems that differ on k documents of 100 only
    (k in DIFFERING): a real system A, and on k random documents where A's and another real
    system C's rouge1 F differ, A's row and C's shared out between the two systems at random
    (each way with probability 1/2); on the other documents both systems are A. Under this
    null the two systems are exchangeable (which of them got which row is a coin flip), so a
    valid test rejects at most a share alpha of them. Macro rouge1 F, each test of rs.TESTS
    at its default samples, `count` nulls per k, seeded. A cell: the rate of p < alpha (the
    count). Last column: the nulls whose decision is "too few documents" (for the
    randomization tests; the bootstraps decide it on one document in all only). Then, where
    every document differs, how many p-values and decisions the two randomization counts
    give apart on realsumm's systems (micro)."""
    import numpy as np

    sys.path[:0] = [str(REPO), str(REPO / "tests")]
    from rouge_exact import significance as rs
    from test_significance import batched_p_values, load_realsumm_stats

    start = time.perf_counter()
    of_type = {system: s["rouge1"] for system, s in load_realsumm_stats()["macro"].items()}
    names = sorted(of_type)
    rng = np.random.default_rng(1)
    too_few = getattr(rs, "TOO_FEW", None)
    print(f"Rejections (p < {alpha:g}) under {count:,} nulls per k (count)"
          + (f"; {too_few!r}: the nulls so decided, at {alpha:g}" if too_few else "") + "\n")
    print("| documents that differ (k) | " + " | ".join(rs.TESTS)
          + (f" | {too_few!r} |" if too_few else " |"))
    print("|---|" + "---|" * (len(rs.TESTS) + bool(too_few)))
    for k in DIFFERING:
        firsts, seconds = [], []
        for _ in range(count):
            a, c = rng.choice(len(names), 2, replace=False)
            x, y = of_type[names[a]], of_type[names[c]]
            differs = np.zeros((len(x), 1), dtype=bool)
            # (F values that differ in their last bits only, as 0.2 and 0.19999999999999998
            # do, are the same to the tests, which drop bits below 2^-52 of the largest)
            apart = np.flatnonzero(np.abs(x[:, 2] - y[:, 2]) > 1e-9)
            differs[rng.choice(apart, k, replace=False)] = True
            swap = rng.integers(2, size=(len(x), 1), dtype=bool)
            firsts.append(np.where(differs & swap, y, x))
            seconds.append(np.where(differs & ~swap, y, x))
        first, second = np.stack(firsts), np.stack(seconds)
        assert ((first != second).any(axis=2).sum(axis=1) == k).all()
        cells, decided = [], None
        for test in rs.TESTS:
            p = batched_p_values(first, second, rs.mean_scores, test, rs.DEFAULT_SAMPLES[test],
                                 seed=28, confidence=1 - alpha)
            cells.append(f"{np.mean(p < alpha):.3f} ({int((p < alpha).sum())})")
            if too_few and test == rs.DEFAULT_TEST:
                decisions = batched_p_values(first, second, rs.mean_scores, test,
                                             rs.DEFAULT_SAMPLES[test], seed=28,
                                             confidence=1 - alpha, field="decision")
                decided = int((decisions == too_few).sum())
        print(f"| {k} | " + " | ".join(cells)
              + (f" | {decided} of {count} |" if too_few else " |"), flush=True)
    if "sacrebleu-randomization" in rs.TESTS:
        # where every document differs: the two randomization counts on realsumm's systems
        micro = load_realsumm_stats()["micro"]
        first = sorted(micro)[0]
        cells = {test: rs.paired_test(micro, first, rs.pooled_scores, test=test)
                 for test in rs.RANDOMIZATION_TESTS}
        noreen, strict = (cells[test] for test in rs.RANDOMIZATION_TESTS)
        pairs = [(noreen[s][rouge_type][m], strict[s][rouge_type][m])
                 for s in micro if s != first for rouge_type in micro[first]
                 for m in rs.MEASURES]
        gaps = [a["p_value"] - b["p_value"] for a, b in pairs]
        print(f"\nrealsumm, {len(micro) - 1} systems against {first}, micro, every type and "
              f"measure, {rs.DEFAULT_SAMPLES['randomization']:,} trials: "
              f"{sum(g != 0 for g in gaps)} of {len(gaps)} p-values differ between "
              f"randomization and sacrebleu-randomization (ties), by at most {max(gaps):.4f} "
              f"(never the other way: {min(gaps) >= 0}); decisions that differ: "
              f"{sum(a['decision'] != b['decision'] for a, b in pairs)}")
    print(f"\n({time.perf_counter() - start:.0f} s)")


def _rate(count: int, total: int) -> str:
    """count/total as a rate with its 95% Wilson interval."""
    z, rate = 1.959964, count / total
    centre = (rate + z * z / (2 * total)) / (1 + z * z / total)
    half = z / (1 + z * z / total) * (rate * (1 - rate) / total + z * z / (4 * total ** 2)) ** 0.5
    return f"{rate:.3f} ({count}; {centre - half:.3f}-{centre + half:.3f})"


if __name__ == "__main__":
    main()
