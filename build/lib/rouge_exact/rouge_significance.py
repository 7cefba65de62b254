"""Paired significance tests for ROUGE: is a system better than a baseline?

Three tests, run on ROUGE's per-example sufficient statistics, with what sacrebleu lacks: the
percentile interval of each system's difference from the baseline, per comparison and
family-wise (Bonferroni), Holm's correction over the systems compared with the baseline, and
a verdict per system, type and measure. docs/significance.md gives their measured
calibration and power.

- ``test="randomization"`` (``DEFAULT_TEST``): approximate randomization as in sacrebleu
  2.6.0's ``_paired_ar_test``: each trial swaps each row between the two systems where
  ``rng.integers(2, (n_samples, n), dtype=bool)`` is true; p = (c + 1) / (n_samples + 1)
  over the trials whose absolute difference exceeds the observed one. The intervals come
  from ``INTERVAL_SAMPLES`` bootstrap resamples drawn next from the same generator, as
  sacrebleu draws its ``n_ar_confidence`` resamples.
- ``test="bootstrap"``: the centred paired bootstrap. The row indices
  ``numpy.random.default_rng(seed).choice(n, (n_samples, n))`` are shared by all systems;
  with D the observed difference and D* the resampled ones, p = (1 + #{|D* - mean D*| >=
  |D|}) / (n_samples + 1), on the same resamples that give the intervals.
- ``test="sacrebleu-bootstrap"``: sacrebleu 2.6.0's ``_paired_bs_test`` (Moses' rule), for
  reproducing published sacrebleu-style numbers: the same draws, p = (c + 1) /
  (n_samples + 1) over the resamples where |D*| - mean |D*| > |D|. It is not calibrated:
  it rejects about 10% of true nulls at 0.05 (docs/significance.md).

What is resampled is a float64[n, k] matrix of statistics per system and ROUGE type: macro
aggregation resamples each example's (P, R, F) and scores their mean (``mean_scores``); micro
aggregation resamples each example's counts (hit, prediction units, reference units) and
scores their sums (``pooled_scores``).

Exactness. Every statistic is split into two integer-valued float64 parts of 26 bits (scaled
per column by a power of two), so every resampled sum is an exact integer in float64 whatever
the order or blocking of the sums; the parts are joined once at the end. The draws are made
in blocks of rows of the index (or swap) matrix so that memory stays bounded, and the blocks
reproduce the one-shot draw exactly (see ``_bootstrap_weights`` and ``_swap_weights``).
"""
import math
from typing import Callable, Iterator, Mapping, Optional

import numpy as np

MEASURES = ("precision", "recall", "fmeasure")
TESTS = ("randomization", "bootstrap", "sacrebleu-bootstrap")
# The one place the default lives (compare(), the CLI and the Space take it from here): the
# calibrated test that needs no resampling assumption. sacrebleu's bootstrap rule rejects
# about twice as many true nulls as it claims (docs/significance.md).
DEFAULT_TEST = "randomization"
DEFAULT_SAMPLES = {"randomization": 10000, "bootstrap": 1000, "sacrebleu-bootstrap": 1000}
# how each test is named in verdicts
TEST_NAMES = {"randomization": "approximate randomization",
              "bootstrap": "centred paired bootstrap",
              "sacrebleu-bootstrap": "sacrebleu's paired bootstrap (not calibrated)"}
# randomization: bootstrap resamples for the intervals (sacrebleu's n_ar_confidence default)
INTERVAL_SAMPLES = 1000
# elements of one block of the index or swap matrix (32 MB as int64)
BLOCK_ELEMENTS = 1 << 22
# each statistic becomes two integer parts below 2^26; a resampled sum of n of them stays
# below n * 2^26, exact in float64 while n < 2^27
_PART_BITS = 26
MAX_ROWS = (1 << (53 - _PART_BITS)) - 1

ScoreOf = Callable[[np.ndarray, int], np.ndarray]


def mean_scores(sums: np.ndarray, n: int) -> np.ndarray:
    """Macro aggregation: the statistics are each example's (P, R, F); the score is their
    mean. sums: float64[..., 3] column sums over n examples; returns float64[..., 3]."""
    return sums / n


def pooled_scores(sums: np.ndarray, n: int, alpha: float = 0.5) -> np.ndarray:
    """Micro aggregation: the statistics are each example's (hit, den_p, den_r); the score is
    P = hit / den_p, R = hit / den_r, F = P R / ((1 - alpha) P + alpha R), 0 where a
    denominator is 0. For alpha = 0.5, F is rouge_score's 2 P R / (P + R). n is unused."""
    hit, den_p, den_r = sums[..., 0], sums[..., 1], sums[..., 2]
    p = _safe_div(hit, den_p)
    r = _safe_div(hit, den_r)
    if alpha == 0.5:
        f = _safe_div(2.0 * p * r, p + r)
    else:
        f = _safe_div(p * r, (1.0 - alpha) * p + alpha * r)
    return np.stack([p, r, f], axis=-1)


def _safe_div(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    out = np.zeros(np.broadcast(num, den).shape, dtype=np.float64)
    np.divide(num, den, out=out, where=den > 0)
    return out


def holm(p_values) -> list:
    """Holm–Bonferroni adjusted p-values, in the order given: the i-th smallest of m becomes
    max over j <= i of min(1, (m - j + 1) p_(j)) (j counted from 1)."""
    values = [float(p) for p in p_values]
    for p in values:
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"p_values must lie in [0, 1]; got {p!r}")
    m = len(values)
    adjusted = [0.0] * m
    running = 0.0
    for rank, index in enumerate(sorted(range(m), key=values.__getitem__)):
        running = max(running, min(1.0, (m - rank) * values[index]))
        adjusted[index] = running
    return adjusted


def paired_test(stats: Mapping[str, Mapping[str, np.ndarray]], baseline: str,
                score_of: ScoreOf = mean_scores, *, test: str = DEFAULT_TEST,
                n_samples: Optional[int] = None, seed: Optional[int] = 12345,
                confidence: float = 0.95) -> dict:
    """Compare every system with the baseline, per ROUGE type and measure.

    stats: {system: {rouge_type: float64[n, k]}}, the per-example statistics, rows aligned
        across systems, the same types for every system. score_of(sums[..., k], n) gives
        (P, R, F) in its last axis: ``mean_scores`` (macro) or ``pooled_scores`` (micro).
    baseline: the system the others are compared with.
    test: one of ``TESTS`` (default ``DEFAULT_TEST``); n_samples: resamples or trials
        (default ``DEFAULT_SAMPLES[test]``); seed: for ``numpy.random.default_rng`` (None:
        fresh entropy); confidence: of the percentile intervals; 1 - confidence is the level
        of the verdicts.

    Returns {system: {rouge_type: {measure: {...}}}}: "score", "low", "high" (the system's
    percentile interval) for every system; the m others also get, as plain floats, "delta",
    "delta_low", "delta_high" (system minus baseline, with its per-comparison interval),
    "delta_low_familywise", "delta_high_familywise" (its Bonferroni interval: percentiles
    (1 - confidence) / (2 m) and 1 - (1 - confidence) / (2 m)), "p_value" (raw, two-sided)
    and "p_value_holm" (Holm over the m systems, per type and measure); and, as str,
    "decision" ("better", "worse" or "no significant difference": Holm's p against
    1 - confidence, the sign of delta) and "verdict" (one readable line: the decision, the
    difference in points with its family-wise interval, the test and Holm's p).
    """
    systems, types, n, k = _check_stats(stats)
    if not isinstance(baseline, str) or baseline not in stats:
        raise ValueError(f"baseline must name one of the systems {systems}; got {baseline!r}")
    if test not in TESTS:
        raise ValueError(f"test must be one of {TESTS}; got {test!r}")
    n_samples = DEFAULT_SAMPLES[test] if n_samples is None else n_samples
    if isinstance(n_samples, bool) or not isinstance(n_samples, (int, np.integer)) \
            or n_samples < 1:
        raise ValueError(f"n_samples must be a positive int (or None); got {n_samples!r}")
    if isinstance(confidence, bool) or not isinstance(confidence, (int, float)) \
            or not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must lie strictly between 0 and 1; got {confidence!r}")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer))
                             or seed < 0):
        raise ValueError(f"seed must be a non-negative int or None; got {seed!r}")

    # [n, systems, types * k]: the same statistic of every system shares one scale
    stacked = np.stack([np.concatenate([np.asarray(stats[s][t], dtype=np.float64)
                                        for t in types], axis=1) for s in systems], axis=1)
    split = _IntegerParts(stacked)
    b = systems.index(baseline)

    def scores(part_sums: np.ndarray) -> np.ndarray:
        """Exact part sums [..., systems * parts] -> scores [..., systems, types, 3]."""
        sums = split.join(part_sums)
        return score_of(sums.reshape(sums.shape[:-1] + (len(types), k)), n)

    totals = split.parts.sum(axis=0)  # exact: integers below 2^53
    observed = scores(totals)
    if np.shape(observed) != (len(systems), len(types), 3):
        raise ValueError(f"score_of must map sums[..., {k}] to scores[..., 3] (P, R, F); "
                         f"got shape {np.shape(observed)} for {len(systems)} systems x "
                         f"{len(types)} types")
    observed_delta = observed - observed[b]
    rng = np.random.default_rng(seed)
    if test == "randomization":
        from_baseline = _resampled_sums(split.parts, _swap_weights(rng, n, n_samples))
        sample_gaps = _swapped_gaps(scores, totals, from_baseline, len(systems), b)
        exceed = sample_gaps > np.abs(observed_delta)
        samples = scores(_resampled_sums(split.parts,
                                         _bootstrap_weights(rng, n, INTERVAL_SAMPLES)))
        deltas = samples - samples[:, b:b + 1]
    else:
        samples = scores(_resampled_sums(split.parts, _bootstrap_weights(rng, n, n_samples)))
        deltas = samples - samples[:, b:b + 1]
        if test == "bootstrap":
            # centred at the resamples' own mean, so that D* - mean D* mimics D under the
            # null; '>=' counts an identical system's every resample (p = 1)
            sample_gaps = np.abs(deltas - deltas.mean(axis=0))
            exceed = sample_gaps >= np.abs(observed_delta)
        else:
            # sacrebleu's (Moses') rule: the absolute differences shifted by their mean
            sample_gaps = np.abs(deltas)
            exceed = sample_gaps - sample_gaps.mean(axis=0) > np.abs(observed_delta)
    p_values = (exceed.sum(axis=0) + 1.0) / (len(exceed) + 1.0)
    if test != "bootstrap":
        # no evidence at all (every resampled difference is 0): p = 1, where the strict
        # count of sacrebleu's two rules would give 1 / (n_samples + 1)
        p_values[~(sample_gaps != 0).any(axis=0)] = 1.0
    others = [i for i in range(len(systems)) if i != b]
    tail = 50.0 * (1.0 - confidence)
    low, high = np.percentile(samples, [tail, 100.0 - tail], axis=0)
    delta_low, delta_high = np.percentile(deltas, [tail, 100.0 - tail], axis=0)
    # Bonferroni: each of the m intervals at 1 - (1 - confidence) / m, so that all m cover
    # their differences together with probability >= confidence
    family_tail = tail / len(others)
    family_low, family_high = np.percentile(deltas, [family_tail, 100.0 - family_tail], axis=0)
    p_holm = np.ones_like(p_values)
    for t in range(len(types)):
        for m in range(3):
            p_holm[others, t, m] = holm(p_values[others, t, m])

    result = {}
    for i, system in enumerate(systems):
        result[system] = {}
        for t, rouge_type in enumerate(types):
            entry = {}
            for m, measure in enumerate(MEASURES):
                cell = {"score": observed[i, t, m], "low": low[i, t, m], "high": high[i, t, m]}
                if i != b:
                    cell.update(delta=observed_delta[i, t, m], delta_low=delta_low[i, t, m],
                                delta_high=delta_high[i, t, m],
                                delta_low_familywise=family_low[i, t, m],
                                delta_high_familywise=family_high[i, t, m],
                                p_value=p_values[i, t, m], p_value_holm=p_holm[i, t, m])
                cell = {key: float(value) for key, value in cell.items()}
                if i != b:
                    cell["decision"] = decision(cell, confidence)
                    cell["verdict"] = verdict(cell, system=system, baseline=baseline,
                                              rouge_type=rouge_type, measure=measure,
                                              test=test, confidence=confidence,
                                              comparisons=len(others))
                entry[measure] = cell
            result[system][rouge_type] = entry
    return result


def level(confidence: float) -> float:
    """The significance level 1 - confidence, rounded to 12 decimals: 1 - 0.95 is
    0.050000000000000044 in float64, which would call p = 0.05 significant."""
    return round(1.0 - confidence, 12)


def decision(cell: Mapping, confidence: float = 0.95) -> str:
    """"better", "worse" or "no significant difference": Holm's p below 1 - confidence (the
    family of all systems compared with the baseline), then the sign of the difference."""
    if cell["p_value_holm"] < level(confidence) and cell["delta"] != 0:
        return "better" if cell["delta"] > 0 else "worse"
    return "no significant difference"


def verdict(cell: Mapping, *, system: str, baseline: str, rouge_type: str, measure: str,
            test: str, confidence: float, comparisons: int) -> str:
    """One line a person can read, e.g. "t5: better than bart on rouge1 F-measure: +1.23
    points (95% family-wise CI [+0.41, +2.05]; approximate randomization, Holm p = 0.0040
    over 2 comparisons)". The interval is the family-wise one, as the decision is Holm's;
    where it and the decision disagree (Holm is less strict than Bonferroni, and the
    randomization test's p does not come from the bootstrap's resamples), the line says so."""
    outcome = decision(cell, confidence)
    phrase = f"{outcome} than {baseline}" if outcome != "no significant difference" \
        else f"no significant difference from {baseline}"
    low, high = cell["delta_low_familywise"], cell["delta_high_familywise"]
    line = (f"{system}: {phrase} on {rouge_type} {_MEASURE_NAMES[measure]}: "
            f"{100 * cell['delta']:+.2f} points ({confidence * 100:g}% family-wise CI "
            f"[{100 * low:+.2f}, {100 * high:+.2f}]; {TEST_NAMES[test]}, Holm p = "
            f"{cell['p_value_holm']:.4f} over {comparisons} "
            f"comparison{'s' if comparisons != 1 else ''})")
    if (outcome != "no significant difference") != (not low <= 0.0 <= high):
        line += "; borderline: the interval and the test disagree"
    return line


def _check_stats(stats) -> tuple:
    """(systems, types, n, k) of a well-formed stats mapping, or a ValueError naming it."""
    if not isinstance(stats, Mapping):
        raise ValueError(f"stats must map system names to {{rouge_type: array}}; "
                         f"got {type(stats).__name__}")
    systems = list(stats)
    if len(systems) < 2:
        raise ValueError(f"stats must hold at least two systems to compare; got {len(systems)}")
    for system in systems:
        if not isinstance(system, str):
            raise ValueError(f"stats: system names must be str; got {system!r} "
                             f"({type(system).__name__})")
        if not isinstance(stats[system], Mapping) or not stats[system]:
            raise ValueError(f"stats[{system!r}] must map rouge types to arrays; "
                             f"got {stats[system]!r:.80}")
    types = list(stats[systems[0]])
    shape = None
    for system in systems:
        if set(stats[system]) != set(types):
            raise ValueError(f"stats: every system needs the same rouge types; "
                             f"{systems[0]!r} has {types}, {system!r} has {list(stats[system])}")
        for rouge_type in types:
            array = np.asarray(stats[system][rouge_type])
            where = f"stats[{system!r}][{rouge_type!r}]"
            if array.ndim != 2 or array.dtype.kind not in "biuf":
                raise ValueError(f"{where} must be a 2-D numeric array (rows x statistics); "
                                 f"got shape {array.shape}, dtype {array.dtype}")
            if shape is not None and array.shape[0] != shape[0]:
                raise ValueError(f"stats: systems of different lengths: {where} has "
                                 f"{array.shape[0]} rows, {systems[0]!r} has {shape[0]}")
            if shape is not None and array.shape[1] != shape[1]:
                raise ValueError(f"{where} has {array.shape[1]} statistics per row; "
                                 f"expected {shape[1]}")
            if not np.isfinite(array).all():
                raise ValueError(f"{where} holds non-finite values (NaN or inf)")
            shape = array.shape
    n, k = shape
    if not 1 <= n <= MAX_ROWS:
        raise ValueError(f"stats must have between 1 and {MAX_ROWS} rows; got {n}")
    return systems, types, n, k


class _IntegerParts:
    """Statistics float64[n, systems, columns] as integer-valued float64 parts whose sums are
    exact. Column c is x = (hi + lo * 2^-26) * 2^-e_c with |hi|, lo < 2^26, e_c chosen from
    the column's largest magnitude over all systems, so that the same statistic of two
    systems can be added part by part (bits below 2^-52 of that magnitude are dropped: under
    2.3e-16 relative). lo parts are kept only for the columns that need them (not for integer
    counts). parts: float64[n, systems * parts per system], system-major."""

    def __init__(self, stacked: np.ndarray):
        n, n_systems, _ = stacked.shape
        largest = np.abs(stacked).max(axis=(0, 1))
        self.exponent = _PART_BITS - np.frexp(np.where(largest > 0, largest, 1.0))[1]
        low = np.ldexp(stacked, self.exponent)
        high = np.floor(low)
        # in place (O(n) memory counts at a million rows): low = floor((x - hi) 2^26), where
        # x - hi is exact
        np.subtract(low, high, out=low)
        np.floor(np.ldexp(low, _PART_BITS, out=low), out=low)
        self.low_columns = np.flatnonzero(low.any(axis=(0, 1)))
        self.n_systems = n_systems
        self.parts = np.concatenate([high, low[:, :, self.low_columns]], axis=2).reshape(
            n, -1)

    def join(self, part_sums: np.ndarray) -> np.ndarray:
        """Exact part sums [..., systems * parts] -> float64 sums [..., systems, columns],
        each rounded once."""
        per_system = part_sums.reshape(part_sums.shape[:-1] + (self.n_systems, -1))
        width = len(self.exponent)
        high = per_system[..., :width].copy()
        high[..., self.low_columns] += np.ldexp(per_system[..., width:], -_PART_BITS)
        return np.ldexp(high, -self.exponent)


def _resampled_sums(parts: np.ndarray, weights: Iterator[np.ndarray]) -> np.ndarray:
    """[samples, parts]: each block of row weights times the parts (exact integer sums)."""
    return np.concatenate([block @ parts for block in weights])


def _bootstrap_weights(rng: np.random.Generator, n: int, n_samples: int) -> Iterator:
    """How often each row is drawn, float64[rows, n], for blocks of rows of
    rng.choice(n, (n_samples, n)). Any blocking draws the same indices as the one-shot call:
    choice draws with the bounded-integer generator, whose 32-bit path (n <= 2^32) takes
    next_uint32 from the bit generator, and PCG64 keeps the unused half of a 64-bit word in
    its own state, not in the call (numpy/random/src/distributions/distributions.c,
    random_bounded_uint64_fill -> buffered_bounded_lemire_uint32, whose buffer is unused)."""
    rows = max(1, BLOCK_ELEMENTS // n)
    for start in range(0, n_samples, rows):
        count = min(rows, n_samples - start)
        drawn = rng.choice(n, (count, n))
        drawn += np.arange(0, count * n, n)[:, None]
        yield np.bincount(drawn.ravel(), minlength=count * n).reshape(count, n).astype(
            np.float64)


def _swap_weights(rng: np.random.Generator, n: int, n_samples: int) -> Iterator:
    """Blocks of rng.integers(2, (n_samples, n), dtype=bool) as float64 (1: the row of the
    first pseudo-system comes from the baseline). The bool generator takes 32 bits at a time
    and keeps the unused ones only within one call (random_bounded_bool_fill's local buffer),
    so every call but the last draws a multiple of 32 values: then the calls consume the
    same 32-bit words, bit for bit, as the one-shot call. (For odd n that is 32 rows a call,
    as bools; they are handed out as float64 a few rows at a time.)"""
    rows = max(1, BLOCK_ELEMENTS // n)
    unit = 32 // math.gcd(n, 32)  # rows per multiple of 32 values
    rows_per_call = -(-rows // unit) * unit
    for start in range(0, n_samples, rows_per_call):
        swaps = rng.integers(2, size=(min(rows_per_call, n_samples - start), n), dtype=bool)
        for first in range(0, len(swaps), rows):
            yield swaps[first:first + rows].astype(np.float64)


def _swapped_gaps(scores: Callable, totals: np.ndarray, from_baseline: np.ndarray,
                  n_systems: int, b: int) -> np.ndarray:
    """|score(first) - score(second)| per trial, system, type and measure, for the
    pseudo-systems of _paired_ar_test: first takes the baseline's row where the swap is 1
    and the system's elsewhere, second the reverse. from_baseline: [trials, systems * parts],
    every system's part sums over the rows where the swap is 1. Exact: every term is an
    integer below 2^53."""
    swapped = from_baseline.reshape(len(from_baseline), n_systems, -1)
    whole = totals.reshape(n_systems, -1)
    base = swapped[:, b:b + 1, :]
    first = base + (whole - swapped)
    second = (whole[b] - base) + swapped
    flat = (len(swapped), -1)
    return np.abs(scores(first.reshape(flat)) - scores(second.reshape(flat)))


_MEASURE_NAMES = {"precision": "precision", "recall": "recall", "fmeasure": "F-measure"}


def format_comparison(result: Mapping, *, measure: str = "fmeasure",
                      confidence: float = 0.95) -> str:
    """One table per ROUGE type in sacrebleu's grid style, then the verdict of each system:
    each system's score with its interval, its difference from the baseline with the
    difference's per-comparison and family-wise intervals, the raw and the Holm p ('*' below
    1 - confidence); scores x 100. result: paired_test's output, or compare()'s (entries that
    are not systems, such as "signature", are printed under the tables)."""
    if measure not in MEASURES:
        raise ValueError(f"measure must be one of {MEASURES}; got {measure!r}")
    systems = [name for name, value in result.items() if isinstance(value, Mapping)]
    if not systems:
        raise ValueError("result holds no systems")
    percent = f"{confidence * 100:g}%"
    header = ["System", f"Score [{percent} CI]", "Delta", "per-comparison CI",
              "family-wise CI", "raw p", "Holm p"]
    compared = len(systems) - 1
    blocks = []
    for rouge_type in result[systems[0]]:
        rows, verdicts = [], []
        for name in systems:
            cell = result[name][rouge_type][measure]
            score = f"{100 * cell['score']:.2f} [{100 * cell['low']:.2f}, " \
                    f"{100 * cell['high']:.2f}]"
            if "delta" not in cell:
                rows.append([f"Baseline: {name}", score, "", "", "", "", ""])
                continue
            rows.append([name, score, f"{100 * cell['delta']:+.2f}",
                         _interval(cell["delta_low"], cell["delta_high"]),
                         _interval(cell["delta_low_familywise"],
                                   cell["delta_high_familywise"]),
                         _marked(cell["p_value"], confidence),
                         _marked(cell["p_value_holm"], confidence)])
            verdicts.append(cell["verdict"])
        title = (f"{rouge_type} {_MEASURE_NAMES[measure]} x 100, {percent} percentile "
                 f"intervals; family-wise: Bonferroni over {compared} comparison"
                 f"{'s' if compared != 1 else ''}; Holm p: adjusted over them")
        blocks.append(title + "\n" + _grid(header, rows) + "".join(
            "\n" + line for line in verdicts))
    notes = [f"{key}: {value}" for key, value in result.items()
             if not isinstance(value, Mapping)]
    return "\n\n".join(blocks) + f"\n* p < {level(confidence):g}" + "".join(
        "\n" + line for line in notes)


def _interval(low: float, high: float) -> str:
    return f"[{100 * low:+.2f}, {100 * high:+.2f}]"


def _marked(p: float, confidence: float) -> str:
    return f"{p:.4f}" + ("*" if p < level(confidence) else " ")


def _grid(header: list, rows: list) -> str:
    """A table ruled like sacrebleu's (tabulate's "grid"): first column right-aligned."""
    widths = [max(len(row[i]) for row in [header] + rows) for i in range(len(header))]

    def line(cells):
        first = cells[0].rjust(widths[0])
        rest = [cell.center(width) for cell, width in zip(cells[1:], widths[1:])]
        return "| " + " | ".join([first] + rest) + " |"

    def rule(char):
        return "+" + "+".join(char * (width + 2) for width in widths) + "+"

    out = [rule("-"), line(header), rule("=")]
    for row in rows:
        out += [line(row), rule("-")]
    return "\n".join(out)
