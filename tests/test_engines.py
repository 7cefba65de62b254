"""Spark and Ray: 200,000 rows built from tests/data/realsumm.jsonl, scored on Spark local[2]
and on a local Ray cluster of 2 workers, with 1, 3 and 17 input partitions, equal compute()
on the same rows exactly (means, interval bounds, count, signature). Workers never see the
driver's HF_MODULES_CACHE: they import the installed package, whose sources the task carries
(a worker without them writes them into a private folder: tests/test_workers.py).

The engines are optional dependencies; in CI (CI set) a missing one is a failure, not a skip.
"""
import functools
import os
import sys
import tempfile

import pytest

ROWS = int(os.environ.get("ROUGE_ENGINE_ROWS", "20000"))  # 17 partitions of ~1,200 rows
OPTIONS = dict(rouge_types=["rouge1", "rouge2", "rougeL"], use_stemmer=True, detailed=True,
               n_samples=200, seed=5)
# a folder the workers are told is their evaluate modules cache: empty, so a worker that
# tried to import the metric the way the driver did would fail
WORKER_MODULES = tempfile.mkdtemp(prefix="rouge_worker_modules_")


from conftest import engine_rows, needed  # noqa: E402

pytestmark = pytest.mark.slow  # the full tier only: Spark and Ray start their runtimes (~3 minutes)

engine = needed  # requirements-dev.txt has both engines: a failure in CI, not a skip


@pytest.fixture(scope="module")
def rows(realsumm):
    return engine_rows(realsumm, ROWS)


@functools.cache
def _expected(metric, aggregation, n):
    return metric.compute(predictions=[p for p, _ in _ROWS[:n]],
                          references=[r for _, r in _ROWS[:n]], aggregation=aggregation,
                          **OPTIONS)


_ROWS = []


@pytest.fixture(scope="module")
def expected(metric, rows):
    _ROWS[:] = rows
    return lambda aggregation, n=ROWS: _expected(metric, aggregation, n)


@pytest.fixture(scope="module")
def spark():
    engine("pyspark")
    from pyspark.sql import SparkSession

    os.environ["PYSPARK_PYTHON"] = sys.executable
    session = (SparkSession.builder.master("local[2]").appName("rouge_metric tests")
               .config("spark.ui.enabled", "false")
               .config("spark.executorEnv.HF_MODULES_CACHE", WORKER_MODULES)
               .config("spark.executorEnv.PYTHONPATH", "")
               .config("spark.sql.execution.arrow.maxRecordsPerBatch", "2000")
               .getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


@pytest.fixture(scope="module")
def ray_cluster():
    ray = engine("ray")
    # Ray runs its workers at nice 15: under any other CPU load they starve (a loaded run of
    # the suite spent half an hour here); the tests run them at the caller's priority. Ray's
    # processes read the setting when ray.init starts them: this process's env is restored.
    with pytest.MonkeyPatch.context() as env:
        env.setenv("RAY_worker_niceness", os.environ.get("RAY_worker_niceness", "0"))
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False,
                 runtime_env={"env_vars": {"HF_MODULES_CACHE": WORKER_MODULES}})
    yield ray
    ray.shutdown()


@pytest.fixture(scope="module")
def spark_rows(spark, rows):
    return spark.createDataFrame(rows, "prediction string, references array<string>").cache()


@pytest.mark.parametrize("partitions, aggregation",
                         [(1, "macro"), (3, "micro"), (17, "macro")])
def test_spark_equals_compute(metric, spark_rows, expected, partitions, aggregation):
    df = spark_rows.repartition(partitions)
    assert df.rdd.getNumPartitions() == partitions
    result = metric.score_spark(df, aggregation=aggregation, **OPTIONS)
    assert result == expected(aggregation)
    assert result["count"] == ROWS


def test_spark_rows_without_aggregator(metric, spark, rows):
    from rouge_score import rouge_scorer

    head = rows[:300]
    df = spark.createDataFrame([(p, r) for p, r in head],
                               "prediction string, references array<string>").repartition(3)
    out = metric.score_spark(df, rouge_types=["rouge1", "rougeL"], use_stemmer=True,
                             use_aggregator=False).toPandas()
    assert len(out) == len(head)
    scorer = rouge_scorer.RougeScorer(["rouge1", "rougeL"], use_stemmer=True)
    for _, row in out.iterrows():
        want = scorer.score_multi(list(row["references"]), row["prediction"])
        for name in ("rouge1", "rougeL"):
            assert row[f"{name}_precision"] == want[name].precision
            assert row[f"{name}_recall"] == want[name].recall
            assert row[f"{name}_fmeasure"] == want[name].fmeasure


def test_spark_refuses_what_cannot_be_partitioned(metric, spark_rows, spark):
    with pytest.raises(ValueError, match="profile"):
        metric.score_spark(spark_rows, profile="rouge155", detailed=True)
    with pytest.raises(TypeError, match="prediction_col"):
        metric.score_spark(spark_rows, prediction_col=3)
    empty = spark.createDataFrame([], "prediction string, references array<string>")
    with pytest.raises(ValueError, match="predictions"):
        metric.score_spark(empty)


@pytest.fixture(scope="module")
def ray_rows(ray_cluster, rows):
    import pandas as pd

    frame = pd.DataFrame({"prediction": [p for p, _ in rows],
                          "references": [list(r) for _, r in rows]})
    return ray_cluster.data.from_pandas(frame).materialize()


@pytest.mark.parametrize("partitions, aggregation",
                         [(1, "macro"), (3, "micro"), (17, "macro")])
def test_ray_equals_compute(metric, ray_rows, expected, partitions, aggregation):
    dataset = ray_rows.repartition(partitions).materialize()
    assert dataset.num_blocks() == partitions
    result = metric.score_ray(dataset, aggregation=aggregation, **OPTIONS)
    assert result == expected(aggregation)
    assert result["count"] == ROWS


def test_ray_rows_without_aggregator(metric, ray_cluster, rows):
    import pandas as pd
    from rouge_score import rouge_scorer

    head = rows[:300]
    dataset = ray_cluster.data.from_pandas(pd.DataFrame(
        {"prediction": [p for p, _ in head], "references": [list(r) for _, r in head]}))
    out = metric.score_ray(dataset, rouge_types=["rouge1"], use_aggregator=False).to_pandas()
    assert len(out) == len(head)
    scorer = rouge_scorer.RougeScorer(["rouge1"])
    got = sorted(zip(out["prediction"], out["rouge1_fmeasure"]))
    want = sorted((p, scorer.score_multi(r, p)["rouge1"].fmeasure) for p, r in head)
    assert got == want


def test_corrupted_state_from_a_partition_is_refused(metric, rows):
    """What the driver does with each partition's bytes: a damaged one stops the job."""
    state = metric.partial(predictions=[p for p, _ in rows[:50]],
                           references=[r for _, r in rows[:50]], detailed=True)
    data = bytearray(state.to_bytes())
    data[len(data) // 2] ^= 0x10
    with pytest.raises(ValueError, match="corrupted"):
        metric.state_from_bytes(bytes(data))


@pytest.mark.parametrize("example", ["spark_example.py", "ray_example.py"])
def test_readme_engine_examples_run(example, tmp_path):
    """examples/*_example.py, whose excerpts the README shows, run as a user runs them."""
    import subprocess

    engine("pyspark" if example.startswith("spark") else "ray")
    from conftest import REPO

    done = subprocess.run([sys.executable, str(REPO / "examples" / example)], cwd=tmp_path,
                          capture_output=True, text=True, timeout=900,
                          env=dict(os.environ, PYSPARK_PYTHON=sys.executable))
    assert done.returncode == 0, done.stderr[-3000:]
    first = done.stdout.splitlines()[0]
    assert first.endswith(" 8") and "'mid': " in first  # examples/pairs.jsonl has 8 rows


def test_empty_partitions(metric, spark, ray_cluster, rows):
    """5 rows in 17 Spark partitions and 3 rows in Ray's 8 hash blocks: most partitions are
    empty, and their states (count 0) merge into compute()'s result."""
    import pandas as pd

    few = rows[:5]
    want = metric.compute(predictions=[p for p, _ in few], references=[r for _, r in few],
                          **OPTIONS)
    df = spark.createDataFrame(few, "prediction string, references array<string>")
    assert metric.score_spark(df.repartition(17), **OPTIONS) == want
    few = rows[:3]
    want = metric.compute(predictions=[p for p, _ in few], references=[r for _, r in few],
                          **OPTIONS)
    dataset = ray_cluster.data.from_pandas(pd.DataFrame(
        {"prediction": [p for p, _ in few], "references": [list(r) for _, r in few]}))
    assert metric.score_ray(dataset, **OPTIONS) == want
