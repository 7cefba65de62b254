"""ROUGE on Spark and Ray: per-partition states of the one Scorer, merged on the driver.

``score_spark(df, ...)`` and ``score_ray(dataset, ...)`` score each partition into a state
(``Scorer.to_bytes``), merge the states and finalize: exactly what ``compute()`` returns on
the same rows, whatever the partitioning (identical rows meet in one state: both engines
hash-partition the rows by their texts first). With ``use_aggregator=False`` they return the
rows with per-example P, R and F columns.

Workers import the installed ``rouge_exact`` when it holds the driver's sources; otherwise the
sources travel with the task and a worker writes them into a folder of its own (mkdtemp: mode
0700, removed at exit) and imports them under a private package name, without touching
``sys.path``. pyspark and ray are imported only here, lazily. docs/engines.md has the rest.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import importlib.util
import os
import shutil
import sys
import tempfile
import weakref
from pathlib import Path
from typing import Any

from .api import finalize, merge, state_from_bytes
from .options import RougeOptions

_RAY_BLOCKS = 8  # hash partitions of a Ray dataset: states merged on the driver
_STAGED: dict = {}  # source digest -> the scorer.pipeline module that serves it, per worker process
INSTALLED = "rouge_exact"  # the package's import name, looked for on the workers
# the evaluate face, the command and the package's own __init__ (a private copy is a
# namespace of the modules): never imported on a worker
_NOT_SHIPPED = ("__init__.py", "__main__.py", "hf.py", "rouge_metric.py")


def metric_sources(folder=None) -> dict:
    """{path in the package: text} of its modules (those of ``folder``, by default this
    file's package): everything a worker imports, not the evaluate face or the command."""
    here = Path(folder or Path(__file__).resolve().parent)
    return {p.relative_to(here).as_posix(): p.read_text(encoding="utf-8")
            for p in sorted(here.rglob("*.py"))
            if p.parent != here or p.name not in _NOT_SHIPPED
            if p.relative_to(here).parts[0] != "cli"}


def _digest(sources: dict) -> str:
    return hashlib.sha256("".join(f"{k}\0{v}\0" for k, v in sorted(sources.items()))
                          .encode("utf-8")).hexdigest()[:16]


def staged_pipeline(sources: dict):
    """The scorer.pipeline module of these sources in this (worker) process: the installed
    package's if it holds the same sources, else the sources written into a private
    folder of this process (once per process and version)."""
    digest = _digest(sources)
    if digest not in _STAGED:
        _STAGED[digest] = _installed_pipeline(digest) or _private_pipeline(digest, sources)
    return _STAGED[digest]


def _installed_pipeline(digest: str):
    """rouge_exact.scorer.pipeline if the installed package has exactly these sources."""
    try:
        spec = importlib.util.find_spec(INSTALLED)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = list(spec.submodule_search_locations)[0]
    if _digest(metric_sources(folder)) != digest:
        return None
    # (by name: the package a worker has installed, which may not be the driver's)
    return importlib.import_module(f"{INSTALLED}.scorer.pipeline")


def _private_pipeline(digest: str, sources: dict):
    """The sources written into a new folder that only this user can read or write
    (mkdtemp), imported as a package of a name of this process's, removed at exit."""
    folder = tempfile.mkdtemp(prefix="rouge_exact_worker_")
    for name, text in sources.items():
        path = os.path.join(folder, *name.split("/"))
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        with open(path, "x", encoding="utf-8") as f:
            f.write(text)
    package = f"_rouge_exact_worker_{digest}_{os.getpid()}"
    spec = importlib.util.spec_from_loader(package, loader=None, is_package=True)
    assert spec is not None  # (is_package=True: always a spec)
    module = importlib.util.module_from_spec(spec)
    module.__path__ = [folder]  # a namespace of this folder alone: no sys.path entry
    sys.modules[package] = module
    # (by name: a package made here, at run time)
    pipeline = importlib.import_module(f"{package}.scorer.pipeline")
    weakref.finalize(pipeline, shutil.rmtree, folder, True)  # at exit (or if unloaded)
    return pipeline


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


def _checked(prediction_col, references_col, options):
    for name, value in (("prediction_col", prediction_col), ("references_col", references_col)):
        if not isinstance(value, str):
            raise TypeError(f"{name}: got {type(value).__name__}; allowed: a column name (str)")
    opts = RougeOptions.build(**options)
    if opts.use_aggregator and opts.profile.keeps_rows:
        raise ValueError(f"profile: got {opts.profile.name!r}, whose bootstrap depends on the "
                         "order of all rows: it cannot run on partitions; allowed: the "
                         "rouge_score profile (or use_aggregator=False)")
    return opts, opts.as_kwargs()


def _finalize(states: list):
    """The partitions' states merged (api.merge: a balanced tree) and finalized."""
    return finalize(merge(*[state_from_bytes(bytes(s)) for s in states]))


def _pickle_by_value(cloudpickle) -> None:
    """Ship this module's functions by value: a worker may not have the package (or may have
    another version of it); staged_pipeline finds the code it runs."""
    cloudpickle.register_pickle_by_value(sys.modules[__name__])


def score_spark(df: Any, prediction_col: str = "prediction",
                references_col: str = "references", **options: Any) -> Any:
    """compute()'s result for the rows of a Spark DataFrame (mapInPandas per partition, a
    reduce of the states on the driver); with use_aggregator=False, the DataFrame with
    ``<type>_precision``, ``<type>_recall``, ``<type>_fmeasure`` columns added."""
    from pyspark import cloudpickle
    from pyspark.sql import types as T

    opts, kwargs = _checked(prediction_col, references_col, options)
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
    return _finalize([row.state for row in rows])


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


def score_ray(dataset: Any, prediction_col: str = "prediction",
              references_col: str = "references", **options: Any) -> Any:
    """compute()'s result for the rows of a Ray Dataset (map_batches on a callable class,
    whole hash-partitioned blocks, states reduced on the driver); with
    use_aggregator=False, the dataset with per-example P/R/F columns added."""
    from ray import cloudpickle

    opts, kwargs = _checked(prediction_col, references_col, options)
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
    return _finalize([row["state"] for row in states])


def _with_key(prediction_col, references_col, frame):
    """A string key of each row's texts, for the hash shuffle."""
    frame = frame.copy()
    frame["_rouge_key"] = [hashlib.blake2b(repr((p, r if isinstance(r, str) else list(r)))
                                           .encode("utf-8", "surrogatepass"),
                                           digest_size=8).hexdigest()
                           for p, r in zip(frame[prediction_col], frame[references_col])]
    return frame
