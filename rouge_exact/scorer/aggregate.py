"""Aggregation: from per-example scores (or counts) to the corpus score and its interval.

``Aggregate.add`` takes the per-example statistics of a batch (``ScoredExamples``), in any
order and chunking; ``Aggregate.result`` formats compute()'s output.

* The mean is an exact sum (Python ints in units of 2^-64 while every value added is a
  multiple of it below 2^40, the common case; else, and in a state, of 2^-1130), rounded
  once at the end.
* The default profile's interval is a Poisson bootstrap kept as sums per sample: each example
  enters each sample w ~ Poisson(1) times, w drawn from the example's own texts (its key), the
  seed and its copy number, so the numbers do not depend on the order, the chunks or the
  processes the examples came from. It keeps no rows.
* The rouge155 profile keeps the rows: ROUGE-1.5.5's bootstrap draws rows by index; the
  py_rouge profile too, in input order: its mean adds them left to right (py-rouge's).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ..kernels.backend import (
    THREADS,
    kernel,
)
from ..options import (
    RougeOptions,
)
from ..kernels.pool import (
    run_parts,
)
from ..arithmetic import (
    EXACT_UNIT,
    FAST_UNIT,
    LIMB_BITS,
    LIMBS,
    MEASURES,
    SCORE_BITS,
    IntegerParts,
    exact_means,
    exact_sums,
    in_unit,
    joined,
    limbs,
    safe_div,
)




@dataclass
class InputNotes:
    """What the input looked like, for the warnings: counted per batch, summed over batches
    (and over merged states), then warned about once (scorer.notes.input_warnings)."""

    texts: int = 0
    tokenless_letters: int = 0  # texts with letters but no tokens: a script the tokenizer drops
    tokenless_symbols: int = 0  # texts with only punctuation/symbols (visible), no tokens
    texts_with_newline: int = 0
    multi_sentence_texts: int = 0  # texts the rule-based splitter would split (no newline)
    tokenless_w_references: int = 0  # ROUGE-W pairs whose reference has no tokens
    segmenter_fallbacks: int = 0  # lang: texts the segmenter found no tokens in (text.lang)
    # the misconfigurations that show in the texts (scorer.notes says how each is counted)
    predictions: int = 0  # the examples: the other texts are references
    ptb_predictions: int = 0  # texts ending with their punctuation split off ("word ."),
    ptb_references: int = 0  # as Penn Treebank tokenizers write them
    tagged_predictions: int = 0  # texts holding sentence tags (<q>, <n>, <t>, </t>)
    tagged_references: int = 0
    tag_q_texts: int = 0  # texts holding each tag (either side)
    tag_n_texts: int = 0
    tag_t_texts: int = 0  # <t> or </t>
    long_predictions: int = 0  # predictions of more than twice their longest reference's tokens
    spaced_period_texts: int = 0  # with multi_sentence_texts: a text holds " . " (a flag)
    # a script of the tokenless texts with letters, for a hint (not in saved states: a state
    # saved here must load in another process of this version)
    tokenless_script: str = ""

    def add(self, other: InputNotes) -> None:
        mine, theirs = self.__dict__, other.__dict__
        for name in NOTE_COUNTS:
            mine[name] += theirs[name]
        a, b = self.tokenless_script, other.tokenless_script
        # the least non-empty: merging in any order agrees
        self.tokenless_script = min(a, b) if a and b else a or b


# every field but the script hint is a count (the hint is never saved in a state)
NOTE_COUNTS = tuple(name for name in InputNotes.__dataclass_fields__
                    if name != "tokenless_script")


class ScoredExamples(NamedTuple):
    """What aggregation needs from a batch of examples: two float64[N, types, 3] arrays,
    types in ``names``' order (the options' rouge_types), as example_statistics makes them;
    ``scores``/``counts`` give them per type."""

    names: tuple  # the type names, in the arrays' order
    score_array: np.ndarray  # float64[N, types, 3] per-example (P, R, F)
    count_array: np.ndarray  # float64[N, types, 3] the counts behind them (hit, den_p, den_r)
    keys: np.ndarray | None  # uint64[N] row keys for the bootstrap (None: not needed)

    @property
    def scores(self) -> dict:
        """{type: float64[N, 3]} per-example (P, R, F)."""
        return {name: self.score_array[:, j] for j, name in enumerate(self.names)}

    @property
    def counts(self) -> dict:
        """{type: float64[N, 3]} per-example (hit, den_p, den_r)."""
        return {name: self.count_array[:, j] for j, name in enumerate(self.names)}


def _perl_interval(sorted_samples: np.ndarray, confidence: float):
    """ROUGE-1.5.5's interval (SPEC §6): both bounds interpolate with the upper fraction."""
    b = len(sorted_samples)
    percent = round(confidence * 100.0, 10)  # -c, as typed
    delta = b * ((100.0 - percent) / 2.0) / 100.0  # the script's operations, in its order
    ua = int(b - delta - 1)
    la = int(delta)
    frac = (b - delta - 1) - ua

    def at(i):
        return float(sorted_samples[i]) if 0 <= i < b else 0.0

    lower = at(la) + (at(la + 1) - at(la)) * frac
    upper = at(ua) + (at(ua + 1) - at(ua)) * frac
    return lower, upper


def perl_aggregate(options: RougeOptions, scores: dict, counts: dict) -> dict:
    """ROUGE-1.5.5's aggregation (SPEC §6) over every row in input order: its bootstrap draws
    row indices, sums the drawn rows in draw order and reports the mean of the sample means.
    {type: {"precision"|"recall"|"fmeasure": (low, mid, high)}}, rounded to 5 decimals. The
    draws depend on the row count alone and each column is summed on its own, so the keys
    may be any names: explain passes the types of several conventions at once (one pass of
    draws for all; each column's sums, in draw order, are what a pass of its own gives)."""
    names = list(scores)
    micro = options.micro
    matrix = np.concatenate([counts[k] if micro else scores[k] for k in names], axis=1)
    # -t 0 divides each sample by N, -t 1 keeps the sums
    bootstrap = kernel("perl_bootstrap_means")
    bounds = np.linspace(0, options.n_samples, THREADS + 1).astype(np.int64)
    samples = np.concatenate(run_parts(
        lambda lo_hi: bootstrap(matrix, int(lo_hi[1] - lo_hi[0]), not micro, int(lo_hi[0])),
        list(zip(bounds[:-1], bounds[1:]))))
    out = {}
    for t_index, name in enumerate(names):
        block = samples[:, 3 * t_index:3 * t_index + 3]
        if micro:
            p, r = _pr_from_sums(block)
            block = np.stack([p, r, options.fscore(p, r)], axis=1)
        entry = {}
        for col, key in enumerate(MEASURES):
            ordered = np.sort(block[:, col])
            mean = float(np.cumsum(ordered)[-1] / len(ordered))  # Perl's sequential sum
            low, high = _perl_interval(ordered, options.confidence)
            entry[key] = tuple(float("%.5f" % v) for v in (low, mean, high))
        out[name] = entry
    return out


def pooled_scores(options: RougeOptions, hit: int, den_p: int, den_r: int) -> tuple:
    """Micro (P, R, F) of exact integer count sums (in any one unit): each ratio one correctly
    rounded division, 0 where its denominator is."""
    p, r = (hit / den_p if den_p else 0.0), (hit / den_r if den_r else 0.0)
    return p, r, float(options.fscore(np.array([p]), np.array([r]))[0])


def _pr_from_sums(block):
    """Corpus P and R from summed (hit, den_p, den_r). ROUGE-1.5.5's -t 1 applies no f^-1 to
    ROUGE-W; the rouge_score profile does the same, so that both profiles agree."""
    return safe_div(block[:, 0], block[:, 1]), safe_div(block[:, 0], block[:, 2])


def wants_poisson_bootstrap(options: RougeOptions) -> bool:
    return options.use_aggregator and options.detailed and options.profile.bootstrap == "poisson"


_SEQUENTIAL_ROWS = 1 << 16  # rows added at a time by sequential_means (bounds its copy)


def sequential_means(matrix: np.ndarray) -> np.ndarray:
    """py-rouge's corpus mean of each column of float64[N, C] (rows: the examples in input
    order): 0.0 plus each value in turn, left to right, divided by N. (np.cumsum adds in
    that order; np.sum adds pairwise, which can differ in the last bits.)"""
    total = np.zeros(matrix.shape[1], dtype=np.float64)
    for lo in range(0, len(matrix), _SEQUENTIAL_ROWS):
        chunk = np.array(matrix[lo:lo + _SEQUENTIAL_ROWS], dtype=np.float64)
        chunk[0] = total + chunk[0]  # (from 0.0: -0.0 is not carried, as in py-rouge)
        total = np.cumsum(chunk, axis=0)[-1]
    return total / len(matrix)


def corpus_means(options: RougeOptions, matrix: np.ndarray, parts_of=None) -> np.ndarray:
    """The corpus score (macro) of each column of the examples' scores float64[N, C], as the
    profile takes it: the exact mean rounded once, or py-rouge's sequential mean."""
    if options.profile.corpus_mean == "sequential":
        return sequential_means(matrix)
    return exact_means(matrix, parts_of)


# 2^32 * P(Poisson(1) <= k), k = 0..15 (P(> 15) < 1e-13)
_POISSON_CDF = np.array([math.floor(2.0 ** 32 * math.fsum(math.exp(-1) / math.factorial(j)
                                                          for j in range(k + 1)))
                         for k in range(16)], dtype=np.uint64)
_BOOTSTRAP_MIN_ROWS_PER_THREAD = 1_000



class _Occurrences:
    """How many times each row key was seen before: the k-th copy of an example draws its
    bootstrap weights with occurrence k, so identical examples get independent weights (as
    distinct test items should) while the weights stay a function of the multiset of rows.
    uint64 keys and uint32 counts, 12 bytes a key, in sorted runs of decreasing size that
    merge like a binary counter: O(log n) runs, O(n log n) work in all. Distinct examples are
    held once each; a key that repeats across batches may sit in several runs until they
    merge."""

    def __init__(self):
        self.runs = []  # (sorted unique keys, counts)

    def __len__(self) -> int:
        return sum(len(keys) for keys, _ in self.runs)

    def compact(self) -> tuple:
        """(sorted unique keys, counts) of the whole register, as one run."""
        if not self.runs:
            return np.zeros(0, dtype=np.uint64), np.zeros(0, dtype=np.uint32)
        keys, inverse = np.unique(np.concatenate([k for k, _ in self.runs]), return_inverse=True)
        counts = np.zeros(len(keys), dtype=np.uint32)
        np.add.at(counts, inverse, np.concatenate([c for _, c in self.runs]))
        self.runs = [(keys, counts)]
        return keys, counts

    def number(self, keys: np.ndarray) -> np.ndarray:
        """The occurrence index of each key (0 for its first copy), counting these too."""
        order = np.argsort(keys, kind="stable")
        unique, first, copies = np.unique(keys[order], return_index=True, return_counts=True)
        before = np.zeros(len(unique), dtype=np.int64)
        for run_keys, run_counts in self.runs:
            at = np.minimum(np.searchsorted(run_keys, unique), len(run_keys) - 1)
            known = run_keys[at] == unique
            before[known] += run_counts[at[known]]
        occurrences = np.empty(len(keys), dtype=np.int64)
        occurrences[order] = (np.arange(len(keys)) - np.repeat(first, copies)
                              + np.repeat(before, copies))
        self.runs.append((unique, copies.astype(np.uint32)))
        while len(self.runs) > 1 and len(self.runs[-1][0]) >= len(self.runs[-2][0]):
            (k2, c2), (k1, c1) = self.runs.pop(), self.runs.pop()
            merged_keys, inverse = np.unique(np.concatenate([k1, k2]), return_inverse=True)
            merged_counts = np.zeros(len(merged_keys), dtype=np.uint32)
            np.add.at(merged_counts, inverse, np.concatenate([c1, c2]))
            self.runs.append((merged_keys, merged_counts))
        return occurrences


# A sum of rounded values (F = P R / (...) of rounded P and R, ROUGE-W's f^-1, micro ROUGE-W's
# float sample sums) may pass its bound by rounding: by this much, relative, and no more.
_ROUNDING_BITS = 20
_MAX_DRAWS = len(_POISSON_CDF)  # the most times the bootstrap draws one example into a sample
_DOUBLE_BITS = 1024  # every finite double is below 2^1024


def _at_most(value: int, bound: int) -> bool:
    """value <= bound, up to rounding (2^-_ROUNDING_BITS of bound), in exact integers."""
    return value << _ROUNDING_BITS <= bound * ((1 << _ROUNDING_BITS) + 1)


def _in_units(value: int) -> str:
    """An exact sum (in units of 2^-EXACT_UNIT) for a message: as a number, or its size."""
    try:
        return f"{value / (1 << EXACT_UNIT):.10g}"
    except OverflowError:
        return f"{'-' if value < 0 else ''}about 2^{value.bit_length() - EXACT_UNIT}"


def _check_sums(aggregate: Aggregate, exact: list, count: int) -> None:
    """The exact sums against the count (see Aggregate.from_arrays)."""
    unit = EXACT_UNIT
    if aggregate._micro:  # each den (columns 1 and 2 of a type) first, then each hit
        measures = ("hit", "den_p", "den_r")
        bounds = [(i, count << (unit + _DOUBLE_BITS), f"count x 2^{_DOUBLE_BITS} (count "
                   "finite doubles)") for i in range(len(exact)) if i % 3]
        bounds += [(i, min(exact[i + 1], exact[i + 2]), "its den_p and den_r sums, "
                    f"{_in_units(min(exact[i + 1], exact[i + 2]))} (P and R are at most 1)")
                   for i in range(0, len(exact), 3)]
    else:
        measures = MEASURES
        bounds = [(i, count << unit, f"the count, {count} (a score is at most 1)")
                  for i in range(len(exact))]
    for i, bound, what in bounds:
        if exact[i] < 0 or not _at_most(exact[i], bound):
            t, m = divmod(i, 3)
            raise ValueError(f"data: corrupted state (exact[{i}], the {aggregate.names[t]} "
                             f"{measures[m]} sum: got {_in_units(exact[i])}; allowed: 0 to "
                             f"{what})")


def _check_samples(aggregate: Aggregate, sums: np.ndarray, weights: np.ndarray,
                   count: int) -> None:
    """The bootstrap samples: each a sum of its weight's (P, R, F) scores (macro, as 19-bit
    limbs, integers) or (hit, den_p, den_r) counts (micro), see Aggregate.from_arrays."""
    if np.any(weights < 0) or np.any(weights > _MAX_DRAWS * count):
        raise ValueError(f"data: corrupted state (sample_weights: allowed: 0 to "
                         f"{_MAX_DRAWS} * count = {_MAX_DRAWS * count})")
    # a weighted kind's (micro ROUGE-W's) counts are floats; every other sum is of integers
    floats = aggregate._micro and any(t.spec.weighted for t in aggregate.options.rouge_types)
    if not np.all(np.isfinite(sums)) or np.any(sums < 0) or \
            not floats and np.any(sums != np.floor(sums)) or np.any(sums[weights == 0]):
        raise ValueError("data: corrupted state (sample_sums: allowed: finite non-negative "
                         f"{'numbers' if floats else 'integers'}, 0 in a sample of weight 0)")
    slack = 1.0 + 2.0 ** -_ROUNDING_BITS
    if aggregate._micro:
        hit, den_p, den_r = (sums[:, m::3] for m in range(3))
        ok = np.all(hit <= den_p * slack) and np.all(hit <= den_r * slack)
        what = "hit sums at most the den_p and den_r sums"
    else:  # the limbs joined (in floats: a relative error far below the slack)
        scale = 2.0 ** (LIMB_BITS * np.arange(LIMBS))
        scores = sums.reshape(len(sums), -1, LIMBS) @ scale
        ok = np.all(scores <= weights[:, None] * 2.0 ** SCORE_BITS * slack)
        what = "sums of at most 1 per draw"
    if not ok:
        raise ValueError(f"data: corrupted state (sample_sums: allowed: {what})")


def _poisson_sums(fixed: np.ndarray, keys: np.ndarray, occurrences: np.ndarray, seed: int,
                  n_samples: int) -> tuple:
    """poisson_bootstrap_sums over row ranges on the thread pool, summed."""
    n = len(keys)
    parts = max(1, min(THREADS, n // _BOOTSTRAP_MIN_ROWS_PER_THREAD))
    bounds = np.linspace(0, n, parts + 1).astype(np.int64)
    seed64 = np.uint64(seed % 2 ** 64)

    bootstrap = kernel("poisson_bootstrap_sums")

    def run(span):
        lo, hi = span
        return bootstrap(fixed[lo:hi], keys[lo:hi], occurrences[lo:hi], seed64, n_samples,
                         _POISSON_CDF)

    spans = list(zip(bounds[:-1].tolist(), bounds[1:].tolist()))
    if parts == 1:
        return run(spans[0])
    results = run_parts(run, spans)
    return sum(r[0] for r in results), sum(r[1] for r in results)


class Aggregate:
    """The aggregation of everything added (``add`` per batch, in any order and chunking),
    formatted by ``result()``.

    Under the default profile it keeps no rows: exact column sums give the mean, and the
    bootstrap is a Poisson bootstrap kept as sums per sample (each example enters each sample
    w ~ Poisson(1) times, w drawn from the example's own texts, the seed and its copy number),
    summed as exact integers, so that the numbers do not depend on the order, the chunks or
    the processes the examples came from (micro ROUGE-W's weighted counts are not integers:
    its interval can move in the last bits with the order). What grows is the copy-number
    register, 12 bytes per distinct example. Per-example rows are kept only when they are the
    output (use_aggregator=False), under the rouge155 profile (its bootstrap draws rows by
    index, in input order) and under py_rouge (its mean adds them in input order; they merge
    in order)."""

    def __init__(self, options: RougeOptions):
        self.options = options
        self.names = [t.name for t in options.rouge_types]
        self.count = 0
        self._rows = []  # ScoredExamples, when the rows themselves are needed
        # py-rouge's mean: its rows in input order (the bootstrap is drawn from them too)
        self._sequential = options.use_aggregator and \
            options.profile.corpus_mean == "sequential"
        self._keep_rows = not options.use_aggregator or options.profile.keeps_rows or \
            self._sequential
        self._micro = options.micro
        width = 3 * len(self.names)
        # exact column sums in units of 2^-_unit: 2^-64 while every batch was the common
        # case (exact_sums), 2^-EXACT_UNIT from the first that was not (and in a state)
        self._exact = [0] * width
        self._unit = FAST_UNIT
        self._bootstrap = wants_poisson_bootstrap(options) and not self._keep_rows
        if self._bootstrap:
            self._occurrences = _Occurrences()
            limbs = 1 if self._micro else LIMBS
            self._sample_sums = np.zeros((options.n_samples, width * limbs), dtype=np.float64)
            self._sample_weights = np.zeros(options.n_samples, dtype=np.int64)

    def _matrix(self, batch: ScoredExamples) -> np.ndarray:
        """float64[N, 3 * types]: type t's (P, R, F) (or counts) in columns 3t..3t + 2."""
        array = batch.count_array if self._micro else batch.score_array
        return array.reshape(len(array), -1)

    def column_sums(self, batch: ScoredExamples, sums_kernel=None) -> tuple | None:
        """What add() sums of a batch, apart from the state (None where rows are kept): a
        pool worker computes it, so that add(batch, sums) under the scorer's lock only adds
        integers. sums_kernel: exact_column_sums, when the caller has resolved it."""
        return None if self._keep_rows else exact_sums(
            self._matrix(batch), sums_kernel or kernel("exact_column_sums"))

    def add(self, batch: ScoredExamples, sums: tuple | None = None) -> None:
        """Add a batch (sums: column_sums(batch), when already computed)."""
        rows = len(batch.score_array)
        self.count += rows
        if self._keep_rows:
            self._rows.append(batch)
            return
        sums, unit = self.column_sums(batch) if sums is None else sums
        if self.count == rows:  # the first rows: their sums are the sums (compute()'s one batch)
            self._exact, self._unit = sums, unit
        else:
            if unit != self._unit:  # the finer unit holds both exactly
                wanted = max(unit, self._unit)
                self._exact = in_unit(self._exact, self._unit, wanted)
                sums, self._unit = in_unit(sums, unit, wanted), wanted
            self._exact = [a + b for a, b in zip(self._exact, sums)]
        if self._bootstrap:
            matrix = self._matrix(batch)
            fixed = matrix if self._micro else limbs(matrix)
            sample_sums, weights = _poisson_sums(fixed, batch.keys,
                                                 self._occurrences.number(batch.keys),
                                                 self.options.seed, self.options.n_samples)
            self._sample_sums += sample_sums
            self._sample_weights += weights

    def merge(self, other: Aggregate) -> Aggregate:
        """The aggregate of both (neither is changed). Exact and order-free, provided no
        example (the same prediction and references) was added to both: an example's
        bootstrap weights depend on how many copies came before it, which two separate
        aggregates cannot know (ValueError then: put identical rows in one partition)."""
        if self._sequential and other._sequential:  # (the same options: Scorer.merge checks)
            merged = Aggregate(self.options)
            merged.count = self.count + other.count
            merged._rows = self._rows + other._rows  # self's rows, then other's
            return merged
        if self._keep_rows or other._keep_rows:
            raise ValueError("state: aggregates that keep rows (use_aggregator=False, or the "
                             "rouge155 profile, whose bootstrap depends on row order) cannot "
                             "be merged; allowed: the default profile with use_aggregator=True")
        merged = Aggregate(self.options)
        merged.count = self.count + other.count
        merged._unit = max(self._unit, other._unit)
        merged._exact = [a + b for a, b in zip(in_unit(self._exact, self._unit, merged._unit),
                                               in_unit(other._exact, other._unit,
                                                        merged._unit))]
        if self._bootstrap:
            mine, theirs = self._occurrences.compact(), other._occurrences.compact()
            shared = np.intersect1d(mine[0], theirs[0], assume_unique=True)
            if len(shared):
                raise ValueError(
                    f"state: {len(shared)} example(s) (identical prediction and references) "
                    "were scored in both states; their bootstrap weights depend on how many "
                    "copies came before, so the states cannot be merged exactly. Allowed: "
                    "states of disjoint examples: partition the rows by their texts (the "
                    "engines do: score_spark/score_ray hash-partition by the text columns)")
            merged._occurrences.runs = [mine, theirs]
            merged._occurrences.compact()
            merged._sample_sums = self._sample_sums + other._sample_sums
            merged._sample_weights = self._sample_weights + other._sample_weights
        return merged

    def arrays(self) -> dict:
        """What the state holds besides the options: exact sums and count (ints) and, with
        the bootstrap, its sample sums, sample weights and the copy-number register."""
        if self._sequential:  # the rows, and their exact sums (from_arrays checks them)
            matrix = self._score_matrix()
            out = {"count": self.count, "exact": in_unit(*exact_sums(matrix), EXACT_UNIT),
                   "rows": matrix}
            if wants_poisson_bootstrap(self.options):
                out["row_keys"] = np.concatenate([b.keys for b in self._rows]) if self._rows \
                    else np.zeros(0, dtype=np.uint64)
            return out
        out = {"count": self.count, "exact": in_unit(self._exact, self._unit, EXACT_UNIT)}
        if self._bootstrap:
            keys, counts = self._occurrences.compact()
            out.update(sample_sums=self._sample_sums, sample_weights=self._sample_weights,
                       keys=keys, copies=counts)
        return out

    @classmethod
    def from_arrays(cls, options: RougeOptions, data: dict) -> Aggregate:
        """The inverse of ``arrays``, checked (a state file is an input, and its hash is no
        key: Scorer.from_bytes): ValueError naming the field that is inconsistent or out of
        bounds. Every sum is non-negative; macro: each P, R and F sum is at most the count
        (a score is at most 1); micro: each hit sum is at most its den_p and den_r sums
        (P, R <= 1), which are sums of count finite doubles. Each bootstrap sample likewise,
        with its weight (the draws it holds: at most 16 per example) for the count."""
        aggregate = cls(options)
        if aggregate._keep_rows and not aggregate._sequential:
            raise ValueError("data: these options keep rows (use_aggregator=False or the "
                             "rouge155 profile); allowed: the default profile, aggregated")
        count, exact = data.get("count"), data.get("exact")
        if type(count) is not int or not 0 <= count < 2 ** 63:
            raise ValueError(f"data: corrupted state (count: got {count!r:.40}; allowed: an "
                             "integer from 0 to 2^63 - 1)")
        if not isinstance(exact, list) or len(exact) != len(aggregate._exact) or \
                not all(type(v) is int for v in exact):
            got = f"a list of {len(exact)}" if isinstance(exact, list) else repr(exact)
            raise ValueError(f"data: corrupted state (exact: got {got:.40}; "
                             f"allowed: {len(aggregate._exact)} integers, 3 per type)")
        if aggregate._sequential:
            aggregate._rows_from_arrays(count, exact, data)
            return aggregate
        _check_sums(aggregate, exact, count)
        aggregate.count, aggregate._exact, aggregate._unit = count, exact, EXACT_UNIT
        given = sorted(set(data) - {"count", "exact"})
        want = sorted(("sample_sums", "sample_weights", "keys", "copies")
                      if aggregate._bootstrap else ())
        if given != want:
            raise ValueError(f"data: corrupted state (arrays: got {given}; allowed: {want} "
                             "for these options)")
        if aggregate._bootstrap:
            for name, shape, dtype in (
                    ("sample_sums", aggregate._sample_sums.shape, np.float64),
                    ("sample_weights", aggregate._sample_weights.shape, np.int64)):
                array = data[name]
                if array.shape != shape or array.dtype != dtype:
                    raise ValueError(f"data: corrupted state ({name}: got {array.dtype} of "
                                     f"shape {array.shape}; allowed: {np.dtype(dtype)} of "
                                     f"shape {shape})")
            keys, copies = data["keys"], data["copies"]
            if not (keys.dtype == np.uint64 and copies.dtype == np.uint32
                    and keys.shape == copies.shape and keys.ndim == 1
                    and np.all(keys[1:] > keys[:-1]) and np.all(copies > 0)
                    and int(copies.sum(dtype=np.int64)) == count):
                raise ValueError("data: corrupted state (keys and copies, the copy-number "
                                 "register: allowed: sorted unique uint64 keys and uint32 "
                                 "copies > 0 that sum to count)")
            sums, weights = data["sample_sums"], data["sample_weights"]
            _check_samples(aggregate, sums, weights, count)
            aggregate._sample_sums, aggregate._sample_weights = sums.copy(), weights.copy()
            aggregate._occurrences.runs = [(keys.copy(), copies.copy())] if len(keys) else []
        return aggregate

    def _rows_from_arrays(self, count: int, exact: list, data: dict) -> None:
        """from_arrays' part for a state of rows (py_rouge's): the rows' scores, finite (with
        signed counts py-rouge's scores may leave [0, 1]), whose exact sums are the state's
        exact sums, and with the bootstrap a key per row."""
        given = sorted(set(data) - {"count", "exact"})
        want = sorted(("rows", "row_keys") if wants_poisson_bootstrap(self.options)
                      else ("rows",))
        if given != want:
            raise ValueError(f"data: corrupted state (arrays: got {given}; allowed: {want} "
                             "for these options)")
        rows, width = data["rows"], len(exact)
        if rows.dtype != np.float64 or rows.shape != (count, width):
            raise ValueError(f"data: corrupted state (rows: got {rows.dtype} of shape "
                             f"{rows.shape}; allowed: float64 of shape {(count, width)})")
        if not np.all(np.isfinite(rows)) or in_unit(*exact_sums(rows), EXACT_UNIT) != exact:
            raise ValueError("data: corrupted state (rows: allowed: finite scores whose exact "
                             "sums are the state's exact sums)")
        keys = data.get("row_keys")
        if keys is not None and (keys.dtype != np.uint64 or keys.shape != (count,)):
            raise ValueError(f"data: corrupted state (row_keys: got {keys.dtype} of shape "
                             f"{keys.shape}; allowed: uint64 of shape {(count,)})")
        self.count = count
        if count:
            scores = rows.reshape(count, -1, 3).copy()
            # (the counts behind the scores are not kept: the mean and the bootstrap are of
            # the scores, and micro aggregation is not the profile's)
            self._rows = [ScoredExamples(tuple(self.names), scores, np.zeros_like(scores),
                                         None if keys is None else keys.copy())]

    def _score_matrix(self) -> np.ndarray:
        """float64[count, 3 * types] of the kept rows' scores, in the order added."""
        if not self._rows:
            return np.zeros((0, 3 * len(self.names)), dtype=np.float64)
        return np.concatenate([b.score_array for b in self._rows]).reshape(self.count, -1)

    def _sequential_aggregate(self) -> dict:
        """_aggregate()'s result for a profile of sequential means (py_rouge's): the mid is
        py-rouge's mean of the rows in input order; the bounds are order statistics of a
        Poisson bootstrap drawn from the rows (each example w ~ Poisson(1) times, w from its
        own key, the seed and its copy number, as _aggregate's), its sums exact up to 2^23
        rows: each score as integer parts scaled per column (arithmetic.IntegerParts), since
        py-rouge's scores may be negative or above 1."""
        options = self.options
        matrix = self._score_matrix()
        mid = sequential_means(matrix)
        low = high = mid
        if wants_poisson_bootstrap(options):
            keys = np.concatenate([b.keys for b in self._rows])
            parts = IntegerParts(matrix[:, None, :])
            sums, weights = _poisson_sums(parts.parts, keys, _Occurrences().number(keys),
                                          options.seed, options.n_samples)
            used = weights > 0
            if used.any():
                samples = parts.join(sums[used])[:, 0, :] / weights[used][:, None]
                tail = 100.0 * (1.0 - options.confidence) / 2.0
                low = np.percentile(samples, tail, axis=0, method="lower")
                high = np.percentile(samples, 100.0 - tail, axis=0, method="higher")
        return {name: {key: (float(low[c]), float(mid[c]), float(high[c]))
                       for c, key in enumerate(MEASURES, start=3 * j)}
                for j, name in enumerate(self.names)}

    def rows(self) -> tuple:
        """({type: float64[N, 3]} scores, counts) of the kept rows, in the order added."""
        return tuple({name: array[:, j] for j, name in enumerate(self.names)} for array in (
            np.concatenate([getattr(b, part) for b in self._rows])
            for part in ("score_array", "count_array")))

    def result(self) -> dict:
        """The output dict of compute()."""
        options = self.options
        if self.count == 0:
            raise ValueError("predictions: no examples were given (add/add_batch/compute got "
                             "none); allowed: at least one")
        if not options.use_aggregator:
            scores, _ = self.rows()
            if not options.detailed:
                return {name: s[:, 2].tolist() for name, s in scores.items()}
            out = {name: {"precision": s[:, 0].tolist(), "recall": s[:, 1].tolist(),
                          "fmeasure": s[:, 2].tolist()} for name, s in scores.items()}
        else:
            if self._sequential:
                agg = self._sequential_aggregate()
            elif not options.detailed and not options.profile.keeps_rows and not self._micro:
                return self._mean_fmeasures()
            else:
                agg = perl_aggregate(options, *self.rows()) \
                    if options.profile.keeps_rows else self._aggregate()
            if not options.detailed:
                return {name: entry["fmeasure"][1] for name, entry in agg.items()}
            out = {name: {key: dict(zip(("low", "mid", "high"), bounds)) for key, bounds in
                          entry.items()} for name, entry in agg.items()}
        out["signature"] = options.signature()
        out["count"] = self.count
        return out

    def _mean_fmeasures(self) -> dict:
        """{type: mean F} (macro): what _aggregate()'s mids give for F, without the rest."""
        units = self.count << self._unit
        return {name: self._exact[3 * j + 2] / units for j, name in enumerate(self.names)}

    def _aggregate(self) -> dict:
        """{type: {"precision"|"recall"|"fmeasure": (low, mid, high)}} (low = high = mid
        without the bootstrap). The bounds are order statistics of the samples (the lower
        and the upper percentile rank, no interpolation): each is one sample's statistic."""
        options = self.options
        tail = 100.0 * (1.0 - options.confidence) / 2.0
        used = self._bootstrap and self._sample_weights > 0  # a sample that drew nothing
        samples = self._sample_scores(used) if self._bootstrap and used.any() else None
        out = {}
        for t_index, name in enumerate(self.names):
            cols = slice(3 * t_index, 3 * t_index + 3)
            mid = self._scores(self._exact[cols], self.count << self._unit)
            low = high = mid
            if samples is not None:
                low = np.percentile(samples[:, cols], tail, axis=0, method="lower")
                high = np.percentile(samples[:, cols], 100.0 - tail, axis=0, method="higher")
            out[name] = {key: (float(low[col]), float(mid[col]), float(high[col]))
                         for col, key in enumerate(MEASURES)}
        return out

    def _sample_scores(self, used: np.ndarray) -> np.ndarray:
        """float64[samples, 3 * types]: each used sample's (P, R, F) per type, correctly
        rounded from its exact sums (macro: one division of Python ints; micro: of the
        float64 count sums, exact integers)."""
        if self._micro:
            sums = self._sample_sums[used]
            return np.concatenate([self._scores(sums[:, c:c + 3], None)
                                   for c in range(0, sums.shape[1], 3)], axis=1)
        return np.array([[total / (int(weight) << SCORE_BITS) for total in joined(row)]
                         for row, weight in zip(self._sample_sums[used],
                                                self._sample_weights[used])])

    def _scores(self, sums, units) -> np.ndarray:
        """(P, R, F) from the column sums of one type (rows: samples, or one row of Python
        ints, divided exactly): macro: sums of (P, R, F) over units; micro: sums of (hit,
        den_p, den_r)."""
        if isinstance(sums, list):  # exact Python ints: a / b is correctly rounded
            if self._micro:
                return pooled_scores(self.options, *sums)
            a, b, c = sums
            return a / units, b / units, c / units
        p, r = _pr_from_sums(sums)
        return np.stack([p, r, self.options.fscore(p, r)], axis=1)
