"""ROUGE on Spark and Ray: per-partition states of the one Scorer, merged on the driver.

``score_spark(metric, df, ...)`` and ``score_ray(metric, dataset, ...)`` (the metric's
``score_spark`` / ``score_ray`` call them) score each partition into a state
(``Scorer.to_bytes``), merge the states and finalize: exactly what ``compute()`` returns on
the same rows, whatever the partitioning. A state's bootstrap weights depend on how many
copies of an example came before it, so identical rows must meet in one state: both engines
first hash-partition the rows by their texts (one shuffle). With ``use_aggregator=False`` they
return the rows with per-example precision, recall and F columns instead.

Workers need not have run ``evaluate.load``: the metric's source files travel with the task
(the functions below are pickled by value, with the sources as data) and are staged on the
worker as a package in a temporary folder, once per worker process (numba compiles there once
per machine: its cache sits beside the staged files). pyspark and ray are optional and
imported only here, lazily.
"""

import functools
import hashlib
import importlib
import os
import sys
import tempfile
from pathlib import Path

_RAY_BLOCKS = 8  # hash partitions of a Ray dataset: states merged on the driver
_STAGED = {}  # source hash -> the staged rouge_pipeline module, per worker process


def metric_sources() -> dict:
    """{file name: text} of the metric's modules (the folder of this file)."""
    here = Path(__file__).resolve().parent
    return {p.name: p.read_text(encoding="utf-8") for p in sorted(here.glob("rouge*.py"))
            if p.name not in ("rouge_cli.py", "rouge_metric.py")}


def staged_pipeline(sources: dict):
    """The rouge_pipeline module of these sources, staged as a package in a temporary
    folder named by their hash (so a worker stages and compiles each version once)."""
    digest = hashlib.sha256("".join(f"{k}\0{v}\0" for k, v in sorted(sources.items()))
                            .encode("utf-8")).hexdigest()[:16]
    if digest not in _STAGED:
        package = f"rouge_metric_worker_{digest}"
        root = Path(tempfile.gettempdir()) / "rouge_metric_workers"
        folder = root / package
        if not (folder / "__init__.py").exists():
            folder.mkdir(parents=True, exist_ok=True)
            for name, text in sources.items():
                tmp = folder / f".{name}.{os.getpid()}"
                tmp.write_text(text, encoding="utf-8")
                os.replace(tmp, folder / name)  # atomic: workers may stage at once
            (folder / "__init__.py").write_text("", encoding="utf-8")
        if str(root) not in sys.path:
            sys.path.insert(0, str(root))
        _STAGED[digest] = importlib.import_module(f"{package}.rouge_pipeline")
    return _STAGED[digest]


def _rows(frame, prediction_col: str, references_col: str) -> tuple:
    """(predictions, references) of a pandas DataFrame (references: str or a sequence)."""
    predictions = [str(p) for p in frame[prediction_col].tolist()]
    references = [r if isinstance(r, str) else [str(x) for x in r]
                  for r in frame[references_col].tolist()]
    return predictions, references


def _score_columns(options) -> list:
    return [f"{t.name}_{m}" for t in options.rouge_types
            for m in ("precision", "recall", "fmeasure")]


def _state_of(sources, kwargs, prediction_col, references_col, frames):
    """One state of all the rows of these pandas frames (bytes; empty frames included)."""
    pipeline = staged_pipeline(sources)
    scorer = pipeline.Scorer(pipeline.RougeOptions.build(**kwargs))
    for frame in frames:
        if len(frame):
            scorer.add(*_rows(frame, prediction_col, references_col), rows=False)
    return scorer.to_bytes()


def _with_scores(sources, kwargs, prediction_col, references_col, frame):
    """The frame with per-example P/R/F columns (use_aggregator=False)."""
    pipeline = staged_pipeline(sources)
    options = pipeline.RougeOptions.build(**kwargs)
    frame = frame.copy()
    names = _score_columns(options)
    if len(frame):
        batch, _ = pipeline.example_scores(options, *_rows(frame, prediction_col,
                                                            references_col))
        for t in options.rouge_types:
            for col, measure in enumerate(("precision", "recall", "fmeasure")):
                frame[f"{t.name}_{measure}"] = batch.scores[t.name][:, col]
    else:
        for name in names:
            frame[name] = []
    return frame


def _checked(metric, prediction_col, references_col, options):
    for name, value in (("prediction_col", prediction_col), ("references_col", references_col)):
        if not isinstance(value, str):
            raise TypeError(f"{name}: got {type(value).__name__}; allowed: a column name (str)")
    opts = sys.modules[type(metric).__module__].RougeOptions.build(**options)
    if opts.use_aggregator and opts.profile.keeps_rows:
        raise ValueError(f"profile: got {opts.profile.name!r}, whose bootstrap depends on the "
                         "order of all rows: it cannot run on partitions; allowed: the "
                         "rouge_score profile (or use_aggregator=False)")
    return opts, opts.as_kwargs()


def _finalize(metric, states: list):
    """Merge the partitions' states in a balanced tree (each merge re-sorts the copy-number
    registers it joins: log2(partitions) passes over them, not one per partition)."""
    level = [metric.state_from_bytes(bytes(s)) for s in states]
    while len(level) > 1:
        level = [level[i].merge(level[i + 1]) if i + 1 < len(level) else level[i]
                 for i in range(0, len(level), 2)]
    return metric.finalize(level[0])


def _pickle_by_value(cloudpickle) -> None:
    """Ship this module's functions by value: on a worker, the metric's staged package (an
    evaluate cache folder of the driver) cannot be imported."""
    cloudpickle.register_pickle_by_value(sys.modules[__name__])


def score_spark(metric, df, prediction_col="prediction", references_col="references",
                **options):
    """compute()'s result for the rows of a Spark DataFrame (mapInPandas per partition, a
    reduce of the states on the driver); with use_aggregator=False, the DataFrame with
    ``<type>_precision``, ``<type>_recall``, ``<type>_fmeasure`` columns added."""
    from pyspark import cloudpickle
    from pyspark.sql import types as T

    opts, kwargs = _checked(metric, prediction_col, references_col, options)
    _pickle_by_value(cloudpickle)
    sources = metric_sources()
    columns = [prediction_col, references_col]
    if not opts.use_aggregator:
        schema = T.StructType(df.schema.fields + [T.StructField(name, T.DoubleType())
                                                  for name in _score_columns(opts)])
        work = functools.partial(_with_scores, sources, kwargs, prediction_col, references_col)
        return df.mapInPandas(lambda frames: map(work, frames), schema)
    partitions = max(1, df.rdd.getNumPartitions())
    colocated = df.select(*columns).repartition(partitions, *columns)  # identical rows meet

    def state(frames):
        import pandas as pd

        yield pd.DataFrame({"state": [_state_of(sources, kwargs, prediction_col,
                                                references_col, frames)]})

    rows = colocated.mapInPandas(state, "state binary").collect()
    return _finalize(metric, [row.state for row in rows])


class _RayScorer:
    """Ray Data's callable class: one staged pipeline per actor (numba compiles once)."""

    def __init__(self, sources, kwargs, prediction_col, references_col):
        self.args = (sources, kwargs, prediction_col, references_col)
        staged_pipeline(sources)

    def __call__(self, frame):
        import pandas as pd

        if self.args[1]["use_aggregator"]:
            return pd.DataFrame({"state": [_state_of(*self.args, [frame])]})
        return _with_scores(*self.args, frame)


def score_ray(metric, dataset, prediction_col="prediction", references_col="references",
              **options):
    """compute()'s result for the rows of a Ray Dataset (map_batches on a callable class,
    whole hash-partitioned blocks, states reduced on the driver); with
    use_aggregator=False, the dataset with per-example P/R/F columns added."""
    from ray import cloudpickle

    opts, kwargs = _checked(metric, prediction_col, references_col, options)
    _pickle_by_value(cloudpickle)
    args = (metric_sources(), kwargs, prediction_col, references_col)
    import ray

    # an autoscaling pool from one actor up to one per CPU: a fixed pool holding every CPU
    # would leave none for the tasks that read its input, and wait on them forever
    cpus = max(1, int(ray.cluster_resources().get("CPU", 1)))
    actors = dict(fn_constructor_args=args, batch_format="pandas", concurrency=(1, cpus))
    if not opts.use_aggregator:
        return dataset.map_batches(_RayScorer, **actors)
    # identical rows in one block (a hash shuffle on a key of the texts), a block per batch
    keyed = dataset.map_batches(functools.partial(_with_key, prediction_col, references_col),
                                batch_format="pandas")
    blocks = keyed.repartition(_RAY_BLOCKS, keys=["_rouge_key"])
    states = blocks.map_batches(_RayScorer, batch_size=None, **actors).take_all()
    return _finalize(metric, [row["state"] for row in states])


def _with_key(prediction_col, references_col, frame):
    """A string key of each row's texts, for the hash shuffle."""
    frame = frame.copy()
    frame["_rouge_key"] = [hashlib.blake2b(repr((p, r if isinstance(r, str) else list(r)))
                                           .encode("utf-8", "surrogatepass"),
                                           digest_size=8).hexdigest()
                           for p, r in zip(frame[prediction_col], frame[references_col])]
    return frame
