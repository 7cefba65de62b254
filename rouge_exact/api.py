"""The package's public API: score, compare and merge ROUGE without evaluate.

``compute``, ``compare``, ``partial`` / ``merge`` / ``finalize`` and ``score_spark`` /
``score_ray`` return exactly what the evaluate metric's methods of the same names return: the
metric (rouge_metric.py) is the evaluate face of these functions. Nothing here imports evaluate
or datasets.

    >>> import rouge_exact
    >>> rouge_exact.compute(["the cat sat on the mat"], ["the cat lay on the mat"],
    ...                     rouge_types=["rouge1", "rougeL"])
    {'rouge1': 0.8333333333333334, 'rougeL': 0.8333333333333334}
"""
from __future__ import annotations

import functools
import warnings
from typing import Any
from collections.abc import Mapping, Sequence

import numpy as np

from .kernels.backend import (
    compile_all,
    kernel,
    start,
)
from .options import (
    DEFAULT_SEED,
    RougeOptions,
    RougeWarning,
)
from .scorer.aggregate import (
    corpus_means,
)
from .scorer.pipeline import (
    Scorer,
    not_text,
)
from .significance import (
    DEFAULT_SAMPLES,
    DEFAULT_TEST,
    TESTS,
    mean_scores,
    paired_test,
    pooled_scores,
)
from .text.tokenizers import (
    NotText,
)

# What the API takes: a list, tuple, 1-D numpy array or pandas Series of texts; references,
# one str or a list of str per prediction (or a 2-D numpy array, a row per prediction).
Texts = Sequence[str]
References = Sequence[str | Sequence[str]]

# --------------------------------------------------------------------------------------------
# Inputs: lists of texts, checked before anything is scored or stored


def _as_list(name: str, value: Any, rows: bool = False) -> list:
    """A list of the items of a list, tuple, 1-D numpy array or pandas Series (any index);
    rows=True (the references): a 2-D numpy array too, each row one prediction's references."""
    if isinstance(value, (list, tuple)):
        return list(value)
    ndim = getattr(value, "ndim", 1)
    if type(value).__module__.startswith(("numpy", "pandas")) and hasattr(value, "tolist") \
            and (ndim == 1 or (rows and ndim == 2)):
        return value.tolist()
    arrays = "1-D or 2-D numpy array" if rows else "1-D numpy array"
    shape = f" of {ndim} dimensions" if type(value).__module__.startswith("numpy") else ""
    raise TypeError(f"{name}: got {type(value).__name__}{shape}; allowed: a list, tuple, "
                    f"{arrays} or pandas Series")


def _texts(name: str, values: list) -> list:
    """values, if every item is a str (in C for the common list of str); else a TypeError
    naming the first that is not."""
    if not set(map(type, values)) <= {str}:
        for i, value in enumerate(values):  # a str subclass is fine
            if not isinstance(value, str):
                raise TypeError(f"{name}[{i}]: got {value!r:.80} ({type(value).__name__}); "
                                "allowed: str")
    return values


def _of_system(name: str, error: Exception) -> Exception:
    """compare()'s input error about one system's predictions, saying which system."""
    if isinstance(error, NotText):
        return NotText(f"predictions[{name!r}]: {error.where}", error.bad)
    return type(error)(f"predictions[{name!r}]: {error}")


def check_inputs(predictions: Texts, references: References, allow_empty: bool = False,
                 encodable: bool = True) -> tuple[list, list]:
    """(predictions, references) as lists of str and of str or list of str, or a TypeError /
    ValueError that names the argument. allow_empty: no rows is fine (partial(): an empty
    partition's state is merge's identity). encodable=False: no look for lone surrogates,
    for inputs scored at once (the scorer finds them, named the same way)."""
    for name, value in (("predictions", predictions), ("references", references)):
        if value is None:
            raise TypeError(f"{name}: got None; allowed: a list of strings")
    predictions = _as_list("predictions", predictions)
    references = _as_list("references", references, rows=True)
    if len(predictions) != len(references):
        raise ValueError(f"predictions and references: got {len(predictions)} predictions and "
                         f"{len(references)} references; they must have the same length")
    if len(predictions) == 0 and not allow_empty:
        raise ValueError("predictions: got an empty list; allowed: at least one example "
                         "(or call compute() with no arguments after add/add_batch)")
    predictions = _texts("predictions", predictions)
    if set(map(type, references)) != {str}:  # else one reference each (the common case), in C
        references = _reference_rows(references)
    found = not_text(predictions, references) if encodable else None  # (the scorer looks)
    if found is not None:
        raise found
    return predictions, references


def _reference_rows(references: list) -> list:
    """references, each row a str or a non-empty list of str, all of one kind (lists become
    lists); else a TypeError / ValueError that names the row."""
    shapes = set()
    for i, row in enumerate(references):
        if isinstance(row, str):
            shapes.add("str")
            continue
        try:
            row = _as_list(f"references[{i}]", row)
        except TypeError:
            raise TypeError(f"references[{i}]: got {row!r:.80} ({type(row).__name__}); "
                            "allowed: a str or a list of str") from None
        shapes.add("list")
        if len(row) == 0:
            raise ValueError(f"references[{i}]: got an empty list; allowed: at least one "
                             "reference string per prediction")
        references[i] = _texts(f"references[{i}]", row)
    if len(shapes) > 1:
        raise TypeError("references: got a mix of strings and lists; allowed: all strings "
                        "(one reference each) or all lists of strings")
    return references


# --------------------------------------------------------------------------------------------
# Scoring


def compute(predictions: Texts, references: References, **options: Any) -> dict[str, Any]:
    """ROUGE of the predictions against their references.

    Args:
        predictions: one text per example (sentences separated by ``"\\n"``).
        references: one text, or a list of texts, per example.
        **options: the options of ``rouge_exact.OPTIONS`` (rouge_types, use_stemmer, profile,
            use_aggregator, detailed, ...; the README's table), checked before any work.

    Returns:
        ``{type: F}``; with ``use_aggregator=False`` ``{type: [F per example]}``; with
        ``detailed=True`` ``{type: {"precision"|"recall"|"fmeasure": {"low", "mid", "high"}},
        "signature": str, "count": int}``.

    Raises:
        ValueError, TypeError: a bad option or input, naming the argument.
    """
    opts = RougeOptions.build(**options)
    # a lone surrogate: the scorer finds it as it encodes, named as check_inputs would name it
    predictions, references = check_inputs(predictions, references, encodable=False)
    return score(opts, predictions, references, stacklevel=3)


def score(options: RougeOptions, predictions: list, references: list,
          stacklevel: int = 2) -> dict:
    """compute()'s result for checked options and inputs; the scorer's warnings are raised
    as RougeWarning at ``stacklevel`` (the caller's call)."""
    if len(predictions) == 0:
        raise ValueError("predictions: no examples were given (add/add_batch/compute got "
                         "none); allowed: at least one")
    scorer = Scorer(options)
    scorer.add(predictions, references, rows=False)
    for message in scorer.warnings():
        warnings.warn(message, RougeWarning, stacklevel=stacklevel + 1)
    return scorer.result()


# compare()'s own fields beside its systems, in the order its result has them: a system may
# not take one of these names (it would overwrite the field, or the field it)
RESULT_FIELDS = ("signature", "count")


def _check_system_names(predictions: dict) -> None:
    """compare()'s ValueError naming the argument and the name when a system name is not a
    str or is one of RESULT_FIELDS (the result's own fields, which the system would overwrite)."""
    for name in predictions:
        if not isinstance(name, str):
            raise ValueError(f"predictions: the system name {name!r} is a "
                             f"{type(name).__name__}; allowed: str names")
        if name in RESULT_FIELDS:
            raise ValueError(f"predictions: the system name {name!r} is one of the result's own "
                             f"fields ({', '.join(map(repr, RESULT_FIELDS))}); allowed: any "
                             "other name (rename the system)")


def compare(predictions: Mapping[str, Texts], references: References, *,
            baseline: str | None = None, test: str = DEFAULT_TEST,
            n_samples: int | None = None, seed: int | None = DEFAULT_SEED,
            confidence: float = 0.95, **options: Any) -> dict[str, Any]:
    """Which system is better: paired significance tests of 2+ systems against a baseline on
    ROUGE's per-example statistics: approximate randomization (the default; ties count), the
    centred paired bootstrap, or sacrebleu 2.6.0's rules (test="sacrebleu-bootstrap" or
    "sacrebleu-randomization", for reproducing published numbers: not calibrated;
    docs/significance.md). Gives each system's score and interval, its difference from the
    baseline with per-comparison and family-wise intervals, the two-sided p-value raw and
    Holm-adjusted, the documents that differ from the baseline's and the count the test needs
    (``documents_differing``, ``documents_needed``), and a decision: better, worse, no
    significant difference, or too few documents (the test cannot reach its level on so few).

    Args:
        predictions: ``{system name: [prediction per row]}``, two or more systems, rows
            aligned with ``references`` (as in compute()).
        references: one text, or a list of texts, per row.
        baseline: the system the others are compared with (default: the first).
        test: one of ``TESTS`` (default ``DEFAULT_TEST``).
        n_samples: the test's samples (default: ``DEFAULT_SAMPLES[test]``).
        seed, confidence: the test's seed and the intervals' confidence.
        **options: every compute() option (both profiles, macro and micro).

    Returns:
        ``{system: {type: {"precision"|"recall"|"fmeasure": {...}}}, "signature", "count"}``;
        a system may not be named like one of those fields (``RESULT_FIELDS``): such a name
        is refused (ValueError), never overwritten.
    """
    if not isinstance(predictions, dict):
        raise TypeError(f"predictions: got {type(predictions).__name__}; allowed: a dict "
                        "{system name: list of predictions} of two or more systems")
    if len(predictions) < 2:
        raise ValueError(f"predictions: got {len(predictions)} system(s); allowed: two or "
                         "more systems to compare")
    _check_system_names(predictions)
    baseline = next(iter(predictions)) if baseline is None else baseline
    if baseline not in predictions:
        raise ValueError(f"baseline: got {baseline!r}; allowed: one of the systems "
                         f"{', '.join(map(repr, predictions))}")
    if test not in TESTS:
        raise ValueError(f"test: got {test!r}; allowed: {', '.join(TESTS)}")
    n_samples = DEFAULT_SAMPLES[test] if n_samples is None else n_samples
    opts = RougeOptions.build(**{**options, "n_samples": n_samples, "seed": seed,
                                 "confidence": confidence, "use_aggregator": True,
                                 "detailed": True})
    if opts.use_aggregator is not True or options.get("use_aggregator") is False:
        raise ValueError("use_aggregator: compare() aggregates; allowed: True")
    stats, count, messages = {}, None, []
    for name, rows in predictions.items():
        try:
            rows, refs = check_inputs(rows, references, encodable=False)
        except (TypeError, ValueError) as error:
            raise _of_system(name, error) from None
        scorer = Scorer(opts)
        try:
            batch = scorer.add(rows, refs)  # rows=True: the batch's scores come back
        except NotText as error:  # a lone surrogate, found as it scored
            raise _of_system(name, error) from None
        assert batch is not None
        stats[name] = batch.counts if opts.micro else batch.scores
        count = len(rows)
        messages += [m for m in scorer.warnings() if m not in messages]
    for message in messages:
        warnings.warn(message, RougeWarning, stacklevel=2)
    score_of = functools.partial(pooled_scores, fscore=opts.fscore) if opts.micro \
        else mean_scores
    # macro: each system's score is compute()'s mean (the exact one, or py-rouge's sequential
    # one under its profile; micro's pooled counts are exact)
    reported = None
    if not opts.micro:
        sums_kernel = kernel("exact_column_sums")
        reported = np.array([[corpus_means(opts, np.asarray(columns), sums_kernel)
                              for columns in stats[name].values()] for name in stats])
    result = paired_test(stats, baseline, score_of, test=test, n_samples=opts.n_samples,
                         seed=opts.seed, confidence=opts.confidence, reported=reported)
    fields = {"signature": f"{opts.signature()}|test:{test}|baseline:{baseline}",
              "count": count}  # RESULT_FIELDS, in its order
    result.update(fields)
    return result




# --------------------------------------------------------------------------------------------
# A mergeable state, for engines that score partitions (Spark, Ray, your own)


def partial(predictions: Texts, references: References, **options: Any) -> Scorer:
    """A small, mergeable state of these rows: ``state.merge(other)`` (or ``merge(*states)``),
    ``state.to_bytes()`` / ``state_from_bytes(data)``, and ``finalize(state)``, which returns
    exactly what compute() returns on all the rows. States must hold disjoint examples
    (identical rows in one state: partition by the texts). No rows (an empty partition, as
    Spark and Ray make) give the identity of merge. Under profile py_rouge a state keeps its
    examples' scores and ``a.merge(b)``
    puts b's rows after a's: py-rouge's mean adds them in that order, which is compute()'s
    on the rows in that order (another order may move the last bits); they need not be
    disjoint.

    Args:
        predictions, references: as in compute().
        **options: compute()'s options (aggregated: use_aggregator=False is refused).

    Returns:
        The state (a ``Scorer``).
    """
    opts = RougeOptions.build(**options)
    if not opts.use_aggregator:
        raise ValueError("use_aggregator: got False; partial states aggregate (for "
                         "per-example scores use compute(use_aggregator=False) or the "
                         "engines, which return the rows)")
    if opts.profile.keeps_rows:
        raise ValueError(f"profile: got {opts.profile.name!r}, whose bootstrap depends on "
                         "the order of all rows: its states cannot be merged; allowed: "
                         "the rouge_score profile")
    predictions, references = check_inputs(predictions, references, allow_empty=True,
                                           encodable=False)  # the scorer looks
    state = Scorer(opts)
    if predictions:  # else the empty state: merging it changes nothing
        state.add(predictions, references, rows=False)
    return state


def merge(*states: Scorer) -> Scorer:
    """One state of all these states' examples (``a.merge(b).merge(c)``, in a balanced tree:
    each merge re-sorts the copy-number registers it joins, so log2(states) passes over them,
    not one per state).

    Args:
        *states: one or more states of partial(), merge() or state_from_bytes(), made with
            the same options.

    Returns:
        The merged state.
    """
    if not states:
        raise ValueError("states: got none; allowed: one or more states from partial()")
    for i, state in enumerate(states):
        if not isinstance(state, Scorer):
            raise TypeError(f"states[{i}]: got {type(state).__name__}; allowed: a state from "
                            "partial(), merge() or state_from_bytes()")
    level = list(states)
    while len(level) > 1:
        level = [level[i].merge(level[i + 1]) if i + 1 < len(level) else level[i]
                 for i in range(0, len(level), 2)]
    return level[0]


def state_from_bytes(data: bytes, key: bytes | None = None) -> Scorer:
    """The state that ``state.to_bytes()`` wrote (ValueError if corrupted, or of another
    version of the metric).

    Args:
        data: the bytes of ``state.to_bytes()``.
        key: the key of ``state.to_bytes(key=...)`` (bytes, at least 16 of them): the state
            must be signed with it (HMAC-SHA256); None: a state without a signature.

    Returns:
        The state (a ``Scorer``).
    """
    return Scorer.from_bytes(data, key)


def finalize(state: Scorer) -> dict[str, Any]:
    """compute()'s result (and warnings) for everything in the state.

    Args:
        state: a state of partial(), merge() or state_from_bytes().

    Returns:
        What compute() returns on all the state's rows, with its options.
    """
    if not isinstance(state, Scorer):
        raise TypeError(f"state: got {type(state).__name__}; allowed: a state from "
                        "partial(), merge() or state_from_bytes()")
    if state.aggregate.count == 0:  # only empty partitions: as compute() of no rows
        raise ValueError("state: holds no examples (every partial() it was merged from "
                         "had empty predictions); allowed: a state of at least one "
                         "example")
    for message in state.warnings():
        warnings.warn(message, RougeWarning, stacklevel=2)
    return state.result()


# --------------------------------------------------------------------------------------------
# Kernels


def compile_kernels(wait: bool = False) -> list | None:
    """Compile every kernel into the disk cache (a Docker build step, a Space's start);
    wait=False starts the compile process where the cache lacks kernels and returns at once
    (calls meanwhile run on the numpy twins: the same numbers; a call loads the kernels
    worth loading for its work).

    Args:
        wait: compile (or load from the cache) every kernel into this process before
            returning.

    Returns:
        With wait, (name, seconds, "compiled" or "cached") per kernel (see
        kernels.backend.compile_all); else None.
    """
    if wait:
        return compile_all()
    start()
    return None
