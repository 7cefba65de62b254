"""Throughput of the engines: rows/s of compute() in one process, of Spark
local[2] and of a local Ray cluster with 2 CPUs, on rows built from tests/data/realsumm.jsonl
as tests/test_engines.py builds them; the overhead per partition; the size of one state.

    python benchmarks/engines.py [--rows 200000] [--runs 3]

Each engine is timed warm (a first run compiles numba on its workers and is not counted);
medians of --runs. Prints a Markdown table for benchmarks/RESULTS.md.
"""
import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

OPTIONS = dict(rouge_types=["rouge1", "rouge2", "rougeL"], use_stemmer=True, detailed=True,
               n_samples=1000, seed=5)


def build_rows(n):
    import conftest

    realsumm = [json.loads(line) for line in open(conftest.DATA, encoding="utf-8")]
    return conftest.engine_rows(realsumm, n)


def timed(fn, runs):
    fn()  # warm: numba compiled (driver and workers), JVM and actors up
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()

    import conftest

    import rouge_exact

    metric = conftest.load_metric()
    rows = build_rows(args.rows)
    predictions, references = [p for p, _ in rows], [r for _, r in rows]
    table = []

    seconds, expected = timed(lambda: metric.compute(predictions=predictions,
                                                     references=references, **OPTIONS),
                              args.runs)
    table.append(("compute(), one process", seconds))
    state = rouge_exact.partial(predictions=predictions, references=references, **OPTIONS)
    state_bytes = len(state.to_bytes())
    distinct = len(set((p, tuple(r)) for p, r in rows))

    os.environ["PYSPARK_PYTHON"] = sys.executable
    from pyspark.sql import SparkSession

    spark = (SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false")
             .getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    df = spark.createDataFrame(rows, "prediction string, references array<string>").cache()
    df.count()
    spark_times = {}
    for parts in (2, 17):
        part = df.repartition(parts).cache()
        part.count()
        seconds, result = timed(lambda: rouge_exact.score_spark(part, **OPTIONS), args.runs)
        assert result == expected, "Spark differs from compute()"
        spark_times[parts] = seconds
        table.append((f"Spark local[2], {parts} partitions", seconds))
    spark.stop()

    import pandas as pd
    import ray

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    frame = pd.DataFrame({"prediction": predictions, "references": [list(r) for r in references]})
    base = ray.data.from_pandas(frame).materialize()
    ray_times = {}
    for parts in (2, 17):
        dataset = base.repartition(parts).materialize()
        seconds, result = timed(lambda: rouge_exact.score_ray(dataset, **OPTIONS), args.runs)
        assert result == expected, "Ray differs from compute()"
        ray_times[parts] = seconds
        table.append((f"Ray, 2 CPUs, {parts} input blocks", seconds))
    ray.shutdown()

    print(f"{args.rows:,} rows ({distinct:,} distinct), {', '.join(OPTIONS['rouge_types'])}, "
          f"stemming, 1,000 bootstrap samples; medians of {args.runs} warm runs; "
          f"results equal compute() exactly\n")
    print("| how | seconds | rows/s | rows/s per core | vs compute() |")
    print("|---|---|---|---|---|")
    single = table[0][1]
    for name, seconds in table:
        cores = 1 if name.startswith("compute") else 2
        print(f"| {name} | {seconds:.2f} | {args.rows / seconds:,.0f} | "
              f"{args.rows / seconds / cores:,.0f} | {single / seconds:.2f}x |")
    print(f"\noverhead per extra partition: Spark {(spark_times[17] - spark_times[2]) / 15:.3f} s, "
          f"Ray {(ray_times[17] - ray_times[2]) / 15:.3f} s (input partitions; the states are "
          f"merged from a hash shuffle into as many partitions (Spark) or 8 blocks (Ray))")
    print(f"one state: {state_bytes:,} bytes for {args.rows:,} rows "
          f"({(state_bytes - 0) / max(distinct, 1):.1f} bytes per distinct example, "
          "the copy-number register, plus the fixed sums)")


if __name__ == "__main__":
    main()
