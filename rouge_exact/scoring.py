"""rouge_score 0.1.2's ``scoring`` module: ``Score``, ``AggregateScore``, ``BaseScorer`` and
``BootstrapAggregator``, with the same numbers (docs/rouge_score.md).

    from rouge_exact import rouge_scorer, scoring   # was: from rouge_score import ...

``BootstrapAggregator()`` draws from numpy's global random state exactly as rouge_score's does
(``np.random.choice``, type after type, sample after sample), so that under the same
``np.random.seed(k)`` its intervals are rouge_score's to the last bit; it draws its samples in
blocks and averages them at once, which is faster, not different. ``seed=k`` (an extra) draws
from its own ``np.random.RandomState(k)``, new at each ``aggregate()``: the result is
rouge_score's after ``np.random.seed(k)``, and the global state is left untouched.

rouge_score's ``scoring.fmeasure`` is not here: the F of a precision and a recall is computed
in one place, the scorer's (scorer.pipeline).
"""
from __future__ import annotations

import abc
import collections
from collections.abc import Mapping
from typing import Any
from collections.abc import Callable

import numpy as np

__all__ = ["AggregateScore", "BaseScorer", "BootstrapAggregator", "Score"]

_BLOCK = 1 << 20  # row indices drawn at a time (8 MiB; the rows they gather, 24 MiB for
# Scores): memory stays bounded for any number of scores
_MAX_SEED = 2 ** 32 - 1  # np.random.RandomState's bound


def _integer(name: str, value: Any, low: int, high: int | None = None,
             more: str = "") -> None:
    """A TypeError / ValueError naming the argument unless value is an integer in [low, high]."""
    allowed = f"an integer >= {low}" + (f" and <= {high}" if high is not None else "") + more
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name}: got {value!r} ({type(value).__name__}); allowed: {allowed}")
    if value < low or (high is not None and value > high):
        raise ValueError(f"{name}: got {value!r}; allowed: {allowed}")


class Score(collections.namedtuple("Score", ["precision", "recall", "fmeasure"])):
    """Tuple containing precision, recall, and f-measure values (rouge_score's fields)."""


class AggregateScore(collections.namedtuple("AggregateScore", ["low", "mid", "high"])):
    """Tuple containing confidence intervals for scores."""


class BaseScorer(abc.ABC):
    """Base class for Scorer objects, as rouge_score's."""

    @abc.abstractmethod
    def score(self, target: str, prediction: str) -> dict:
        """A dict mapping each score type to a Score of the prediction against the target."""


class BootstrapAggregator:
    """Aggregates scores to give a bootstrap confidence interval on their mean, as rouge_score
    0.1.2's (see the module's doc for the random state each draws from).

        aggregator = BootstrapAggregator()
        aggregator.add_scores(scorer.score(target, prediction))   # per example
        result = aggregator.aggregate()   # {type: AggregateScore(low, mid, high)}
    """

    def __init__(self, confidence_interval: float = 0.95, n_samples: int = 1000,
                 seed: int | None = None) -> None:
        number = (int, float, np.integer, np.floating)
        if isinstance(confidence_interval, (bool, np.bool_)) or \
                not isinstance(confidence_interval, number):
            raise TypeError(f"confidence_interval: got {confidence_interval!r} "
                            f"({type(confidence_interval).__name__}); allowed: a number in "
                            "[0, 1]")
        if not 0 <= confidence_interval <= 1:  # (NaN too)
            raise ValueError(f"confidence_interval: got {confidence_interval!r}; allowed: a "
                             "number in [0, 1]")
        _integer("n_samples", n_samples, 1)
        if seed is not None:
            _integer("seed", seed, 0, _MAX_SEED, " or None")
        self._n_samples = int(n_samples)
        self._confidence_interval = confidence_interval
        self._seed = None if seed is None else int(seed)
        self._scores: dict[str, list] = collections.defaultdict(list)  # type -> [Score, ...]

    def add_scores(self, scores: Mapping[str, Any]) -> None:
        """Add one example: a dict mapping each score type to its Score (what
        ``RougeScorer.score`` returns)."""
        if not isinstance(scores, Mapping):
            raise TypeError(f"scores: got {type(scores).__name__}; allowed: a dict "
                            "{score type: Score} as RougeScorer.score returns")
        for score_type, score in scores.items():
            if not (isinstance(score, tuple) and hasattr(score, "_fields")):
                raise TypeError(f"scores[{score_type!r}]: got {score!r:.80} "
                                f"({type(score).__name__}); allowed: a Score namedtuple")
        for score_type, score in scores.items():
            self._scores[score_type].append(score)

    def aggregate(self) -> dict[str, AggregateScore]:
        """{score type: AggregateScore(low, mid, high)}: the interval's bounds and the median
        of the bootstrap samples' means, each a Score (the class the scores were added as)."""
        draw = np.random.choice if self._seed is None else \
            np.random.RandomState(self._seed).choice
        result = {}
        for score_type, scores in self._scores.items():  # in rouge_score's order: the draws
            percentiles = self._bootstrap_resample(np.vstack(tuple(scores)), draw)
            low, mid, high = (scores[0].__class__(*percentiles[j, :]) for j in range(3))
            result[score_type] = AggregateScore(low=low, mid=mid, high=high)
        return result

    def _bootstrap_resample(self, matrix: np.ndarray, draw: Callable) -> np.ndarray:
        """rouge_score's resampling: n_samples times, n row indices drawn with replacement and
        the mean of those rows (np.mean on axis 0), then the percentiles of those means. A
        block of samples is drawn in one call (the same stream as one call per sample) and
        averaged in one np.mean (the same sums, row after row: tests/test_compat.py)."""
        n = matrix.shape[0]
        means = np.zeros((self._n_samples, matrix.shape[1]))
        step = max(1, _BLOCK // n)
        for start in range(0, self._n_samples, step):
            stop = min(start + step, self._n_samples)
            rows = draw(n, size=(stop - start, n))
            means[start:stop] = np.mean(matrix[rows], axis=1)
        delta = (1 - self._confidence_interval) / 2
        q = 100 * np.array([delta, 0.5, 1 - delta])
        return np.percentile(means, q, axis=0)
