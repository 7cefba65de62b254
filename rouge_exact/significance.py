"""Paired significance tests for ROUGE: is a system better than a baseline?

``paired_test`` runs one of four tests (``TESTS``) on ROUGE's per-example sufficient
statistics, with what sacrebleu lacks: the percentile interval of each system's difference
from the baseline, per comparison and family-wise (Bonferroni), Holm's correction over the
systems compared with the baseline, and a verdict per system, type and measure.
docs/significance.md says how each test draws and counts, when a comparison has too few
documents, and gives the tests' measured calibration and power.

What is resampled is a float64[n, k] matrix of statistics per system and ROUGE type, scored
by ``mean_scores`` (macro: each example's (P, R, F)) or ``pooled_scores`` (micro: each
example's counts). Every resampled sum is exact (``IntegerParts``), and the draws come in
blocks of rows that reproduce the one-shot draw (``_bootstrap_weights``, ``_swap_weights``).
"""
import math
from collections.abc import Callable, Iterator, Mapping

import numpy as np

from .arithmetic import MEASURES, PART_BITS, IntegerParts

TESTS = ("randomization", "bootstrap", "sacrebleu-bootstrap", "sacrebleu-randomization")
# The one place the default lives (compare(), the CLI and the Space take it from here): the
# calibrated test that needs no resampling assumption. sacrebleu's bootstrap rule rejects
# about twice as many true nulls as it claims, and its randomization rule most true nulls of
# systems that differ on a few documents (docs/significance.md).
DEFAULT_TEST = "randomization"
DEFAULT_SAMPLES = {"randomization": 10000, "bootstrap": 1000, "sacrebleu-bootstrap": 1000,
                   "sacrebleu-randomization": 10000}
# how each test is named in verdicts
TEST_NAMES = {"randomization": "approximate randomization",
              "bootstrap": "centred paired bootstrap",
              "sacrebleu-bootstrap": "sacrebleu's paired bootstrap (not calibrated)",
              "sacrebleu-randomization": "sacrebleu's approximate randomization (ties not "
                                         "counted)"}
# the tests that swap rows between the two systems (the others resample rows)
RANDOMIZATION_TESTS = ("randomization", "sacrebleu-randomization")
# the decisions, in a cell's "decision"
TOO_FEW = "too few documents"
DECISIONS = ("better", "worse", "no significant difference", TOO_FEW)
# randomization: bootstrap resamples for the intervals (sacrebleu's n_ar_confidence default)
INTERVAL_SAMPLES = 1000
# elements of one block of the index or swap matrix (32 MB as int64)
BLOCK_ELEMENTS = 1 << 22
# each statistic becomes two integer parts below 2^26; a resampled sum of n of them stays
# below n * 2^26, exact in float64 while n < 2^27
MAX_ROWS = (1 << (53 - PART_BITS)) - 1

ScoreOf = Callable[[np.ndarray, int], np.ndarray]


def mean_scores(sums: np.ndarray, n: int) -> np.ndarray:
    """Macro aggregation: the statistics are each example's (P, R, F); the score is their
    mean. sums: float64[..., 3] column sums over n examples; returns float64[..., 3]."""
    return sums / n


def pooled_scores(sums: np.ndarray, n: int, alpha: float = 0.5,
                  fscore: Callable | None = None) -> np.ndarray:
    """Micro aggregation: the statistics are each example's (hit, den_p, den_r); the score is
    P = hit / den_p, R = hit / den_r, F = P R / ((1 - alpha) P + alpha R), 0 where a
    denominator is 0. For alpha = 0.5, F is rouge_score's 2 P R / (P + R). ``fscore(P, R)``:
    a profile's own F rule instead (RougeOptions.fscore). n is unused."""
    hit, den_p, den_r = sums[..., 0], sums[..., 1], sums[..., 2]
    p = _safe_div(hit, den_p)
    r = _safe_div(hit, den_r)
    if fscore is not None:
        f = fscore(p, r)
    elif alpha == 0.5:
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
                n_samples: int | None = None, seed: int | None = 12345,
                confidence: float = 0.95, reported: np.ndarray | None = None) -> dict:
    """Compare every system with the baseline, per ROUGE type and measure.

    stats: {system: {rouge_type: float64[n, k]}}, the per-example statistics, rows aligned
        across systems, the same types for every system. score_of(sums[..., k], n) gives
        (P, R, F) in its last axis: ``mean_scores`` (macro) or ``pooled_scores`` (micro).
    baseline: the system the others are compared with.
    test: one of ``TESTS`` (default ``DEFAULT_TEST``); n_samples: resamples or trials
        (default ``DEFAULT_SAMPLES[test]``); seed: for ``numpy.random.default_rng`` (None:
        fresh entropy); confidence: of the percentile intervals; 1 - confidence is the level
        of the verdicts. reported: the scores to report, float64[systems, types, 3] in
        the order of stats (the caller's exact means, as compute() gives them); "score" and
        "delta" are made from them. None: the tests' own observed scores, whose macro mean
        divides a float sum (within an ulp or two of the exact mean). The tests themselves
        always compare the observed difference made as every resampled one is, so that a
        trial that repeats the observed split ties it exactly.

    Returns {system: {rouge_type: {measure: {...}}}}: "score", "low", "high" (the system's
    percentile interval) for every system; the m others also get, as plain floats, "delta",
    "delta_low", "delta_high" (system minus baseline, with its per-comparison interval),
    "delta_low_familywise", "delta_high_familywise" (its Bonferroni interval: percentiles
    (1 - confidence) / (2 m) and 1 - (1 - confidence) / (2 m)), "p_value" (raw, two-sided)
    and "p_value_holm" (Holm over the m systems, per type and measure); as int,
    "documents_differing" (the rows whose statistics of this type differ between the system
    and the baseline) and "documents_needed" (how many the test needs at this confidence; see
    below); and, as str, "decision" (one of ``DECISIONS``: "better", "worse", "no significant
    difference" or "too few documents"; see ``decision``) and "verdict" (one readable line:
    the decision, the difference in points with its family-wise interval, the test and
    Holm's p).

    Too few documents: a comparison whose test cannot give p < 1 - confidence on these
    documents, whatever they hold, is decided "too few documents", with p reported as
    computed. On one document in all, every test: a bootstrap resamples only that document,
    and a randomization test has one row to swap. For the randomization tests, on fewer than
    log2(1 / (1 - confidence)) + 1 documents whose statistics differ (fewer than 6 at 0.95,
    8 at 0.99): on k such documents the 2^k swaps give each |D*| at least twice (a swap and
    its mirror), so the exact p is at least 2 / 2^k. documents_needed is then the least k
    that is not fewer (for the bootstraps 1, or 2 on one document); a system identical to
    the baseline (0 documents differ) is "no significant difference".
    """
    systems, types, n, k = _check_stats(stats)
    n_samples = _check_arguments(stats, systems, baseline, test, n_samples, confidence, seed)
    stacked = _stacked(stats, systems, types)
    split = IntegerParts(stacked)
    b = systems.index(baseline)
    scores = _scorer(split, score_of, len(types), k, n)
    totals = split.parts.sum(axis=0)  # exact: integers below 2^53
    observed = scores(totals)
    _check_scores(observed, k, len(systems), len(types))
    observed_delta = observed - observed[b]
    differing = _documents_differing(stacked, b, len(types), k)
    needed = documents_needed(test, n, confidence)
    rng = np.random.default_rng(seed)
    if test in RANDOMIZATION_TESTS:
        trial_gaps = _trial_gaps(rng, split, scores, totals, n, n_samples, b)
        samples = _bootstrap_scores(rng, split, scores, n, INTERVAL_SAMPLES)
    else:
        trial_gaps, samples = None, _bootstrap_scores(rng, split, scores, n, n_samples)
    deltas = samples - samples[:, b:b + 1]
    exceed, sample_gaps = _exceeding(test, trial_gaps, deltas, np.abs(observed_delta))
    p_values = _p_values(test, exceed, sample_gaps, deltas)
    if reported is not None:
        observed = np.asarray(reported, dtype=np.float64).reshape(observed.shape)
        observed_delta = observed - observed[b]
    others = [i for i in range(len(systems)) if i != b]
    low, high, delta_low, delta_high, family_low, family_high = _intervals(
        samples, deltas, confidence, len(others))
    own = {"score": observed, "low": low, "high": high}
    compared = {"delta": observed_delta, "delta_low": delta_low, "delta_high": delta_high,
                "delta_low_familywise": family_low, "delta_high_familywise": family_high,
                "p_value": p_values, "p_value_holm": _holm_per_cell(p_values, others)}
    context = {"baseline": baseline, "test": test, "confidence": confidence,
               "comparisons": len(others)}
    return _result(systems, types, b, own, compared, differing, needed, context)


def _check_arguments(stats, systems, baseline, test, n_samples, confidence, seed) -> int:
    """Check the arguments but stats, in order; returns n_samples (None: the test's default)."""
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
    return n_samples


def _stacked(stats, systems: list, types: list) -> np.ndarray:
    """The statistics as float64[n, systems, types * k]."""
    # one array, so that the same statistic of every system shares one scale
    return np.stack([np.concatenate([np.asarray(stats[s][t], dtype=np.float64)
                                     for t in types], axis=1) for s in systems], axis=1)


def _scorer(split: "IntegerParts", score_of: ScoreOf, n_types: int, k: int,
            n: int) -> Callable:
    """Exact part sums [..., systems * parts] -> scores [..., systems, types, 3], as a function."""
    def scores(part_sums: np.ndarray) -> np.ndarray:
        sums = split.join(part_sums)
        return score_of(sums.reshape(sums.shape[:-1] + (n_types, k)), n)

    return scores


def _check_scores(observed: np.ndarray, k: int, n_systems: int, n_types: int) -> None:
    """A ValueError where score_of did not give scores[systems, types, 3]."""
    if np.shape(observed) != (n_systems, n_types, 3):
        raise ValueError(f"score_of must map sums[..., {k}] to scores[..., 3] (P, R, F); "
                         f"got shape {np.shape(observed)} for {n_systems} systems x "
                         f"{n_types} types")


def _documents_differing(stacked: np.ndarray, b: int, n_types: int, k: int) -> np.ndarray:
    """[systems, types]: the rows whose statistics of a type differ from the baseline's."""
    n, n_systems, _ = stacked.shape
    return (stacked != stacked[:, b:b + 1]).reshape(n, n_systems, n_types, k).any(
        axis=3).sum(axis=0)


def _trial_gaps(rng: np.random.Generator, split: "IntegerParts", scores: Callable,
                totals: np.ndarray, n: int, n_samples: int, b: int) -> np.ndarray:
    """|D*| of n_samples randomization trials, per trial, system, type and measure."""
    from_baseline = _resampled_sums(split.parts, _swap_weights(rng, n, n_samples))
    return _swapped_gaps(scores, totals, from_baseline, split.n_systems, b)


def _bootstrap_scores(rng: np.random.Generator, split: "IntegerParts", scores: Callable,
                      n: int, count: int) -> np.ndarray:
    """The scores of count bootstrap resamples, [resamples, systems, types, 3]."""
    return scores(_resampled_sums(split.parts, _bootstrap_weights(rng, n, count)))


def _exceeding(test: str, trial_gaps: np.ndarray | None, deltas: np.ndarray,
               observed_gap: np.ndarray) -> tuple:
    """(exceed, sample_gaps): which trials or resamples the test's rule counts against |D|."""
    if test == "randomization":
        # Noreen's count: a trial that ties the observed difference counts (every sum is
        # exact, so a trial that repeats the observed split, or its mirror, ties it
        # exactly); an identical system's every trial ties: p = 1
        return trial_gaps >= observed_gap, trial_gaps
    if test == "sacrebleu-randomization":
        return trial_gaps > observed_gap, trial_gaps  # sacrebleu's strict count
    if test == "bootstrap":
        # centred at the resamples' own mean, so that D* - mean D* mimics D under the
        # null; '>=' counts an identical system's every resample (p = 1)
        sample_gaps = np.abs(deltas - deltas.mean(axis=0))
        return sample_gaps >= observed_gap, sample_gaps
    # sacrebleu's (Moses') rule: the absolute differences shifted by their mean
    sample_gaps = np.abs(deltas)
    return sample_gaps - sample_gaps.mean(axis=0) > observed_gap, sample_gaps


def _p_values(test: str, exceed: np.ndarray, sample_gaps: np.ndarray,
              deltas: np.ndarray) -> np.ndarray:
    """[systems, types, 3]: (c + 1) / (samples + 1), or 1 where the samples hold no spread."""
    p_values = (exceed.sum(axis=0) + 1.0) / (len(exceed) + 1.0)
    if test == "bootstrap":
        # degenerate: every resample's difference is the same (one document, identical
        # systems), so the resamples measure no spread to hold the difference against: p = 1
        # (the centred count would give 1 / (n_samples + 1) to any non-zero difference)
        p_values[(deltas == deltas[:1]).all(axis=0)] = 1.0
    elif test != "randomization":
        # no evidence at all (every resampled difference is 0): p = 1, where the strict
        # count of sacrebleu's two rules would give 1 / (n_samples + 1)
        p_values[~(sample_gaps != 0).any(axis=0)] = 1.0
    return p_values


def _intervals(samples: np.ndarray, deltas: np.ndarray, confidence: float,
               compared: int) -> tuple:
    """(low, high, delta_low, delta_high, family_low, family_high): percentile intervals."""
    tail = 50.0 * (1.0 - confidence)
    low, high = np.percentile(samples, [tail, 100.0 - tail], axis=0)
    delta_low, delta_high = np.percentile(deltas, [tail, 100.0 - tail], axis=0)
    # Bonferroni: each of the m intervals at 1 - (1 - confidence) / m, so that all m cover
    # their differences together with probability >= confidence
    family_tail = tail / compared
    family_low, family_high = np.percentile(deltas, [family_tail, 100.0 - family_tail], axis=0)
    return low, high, delta_low, delta_high, family_low, family_high


def _holm_per_cell(p_values: np.ndarray, others: list) -> np.ndarray:
    """Holm's p over the systems compared with the baseline, per type and measure (1 for it)."""
    p_holm = np.ones_like(p_values)
    for t in range(p_values.shape[1]):
        for m in range(3):
            p_holm[others, t, m] = holm(p_values[others, t, m])
    return p_holm


def _result(systems: list, types: list, b: int, own: dict, compared: dict,
            differing: np.ndarray, needed: int, context: dict) -> dict:
    """paired_test's cells from its arrays [systems, types, 3], named by the cells' keys."""
    result = {}
    for i, system in enumerate(systems):
        result[system] = {}
        for t, rouge_type in enumerate(types):
            entry = {}
            for m, measure in enumerate(MEASURES):
                cell = {key: float(value[i, t, m]) for key, value in own.items()}
                if i != b:
                    cell.update((key, float(value[i, t, m])) for key, value in compared.items())
                    _judge(cell, int(differing[i, t]), needed, system=system,
                           rouge_type=rouge_type, measure=measure, **context)
                entry[measure] = cell
            result[system][rouge_type] = entry
    return result


def _judge(cell: dict, differing: int, needed: int, *, confidence: float, **context) -> None:
    """Add a comparison's document counts, decision and verdict to its cell."""
    cell["documents_differing"] = differing
    cell["documents_needed"] = needed
    cell["decision"] = decision(cell, confidence)
    cell["verdict"] = verdict(cell, confidence=confidence, **context)


def level(confidence: float) -> float:
    """The significance level 1 - confidence, rounded to 12 decimals: 1 - 0.95 is
    0.050000000000000044 in float64, which would call p = 0.05 significant."""
    return round(1.0 - confidence, 12)


def documents_needed(test: str, n: int, confidence: float) -> int:
    """How many documents whose statistics differ between a system and the baseline the test
    needs to be able to give p < 1 - confidence (paired_test's "documents_needed"). The
    randomization tests: the least k that is not fewer than log2(1 / alpha) + 1, alpha =
    ``level(confidence)``, i.e. the least k with 2 / 2^k <= alpha (exact: alpha 2^(k - 1)
    is computed without rounding); 6 at 0.95, 8 at 0.99. The bootstraps: 1, and 2 on one
    document in all (n = 1), more than can differ there: a bootstrap of one document
    resamples only it."""
    if test not in TESTS:
        raise ValueError(f"test must be one of {TESTS}; got {test!r}")
    if test in RANDOMIZATION_TESTS:
        alpha = max(level(confidence), math.ulp(0.0))
        needed = 1
        while math.ldexp(alpha, needed - 1) < 1.0:
            needed += 1
        return needed
    return 2 if n < 2 else 1


def decision(cell: Mapping, confidence: float = 0.95) -> str:
    """One of ``DECISIONS``. "too few documents" where the cell's test cannot reach p below
    1 - confidence on its documents: 0 < "documents_differing" < "documents_needed" (a cell
    without those two keys is never too few); else "better" or "worse" where Holm's p (the
    family of all systems compared with the baseline) is below 1 - confidence and the
    difference is not 0, by its sign; else "no significant difference"."""
    differing = cell.get("documents_differing", 0)
    if 0 < differing < cell.get("documents_needed", 0):
        return TOO_FEW
    if cell["p_value_holm"] < level(confidence) and cell["delta"] != 0:
        return "better" if cell["delta"] > 0 else "worse"
    return "no significant difference"


def verdict(cell: Mapping, *, system: str, baseline: str, rouge_type: str, measure: str,
            test: str, confidence: float, comparisons: int) -> str:
    """One line a person can read, e.g. "t5: better than bart on rouge1 F-measure: +1.23
    points (95% family-wise CI [+0.41, +2.05]; approximate randomization, Holm p = 0.0040
    over 2 comparisons)". The interval is the family-wise one, as the decision is Holm's;
    where it and the decision disagree (Holm is less strict than Bonferroni, and the
    randomization test's p does not come from the bootstrap's resamples), the line says so.
    "too few documents" says how many differ and how many the test needs, e.g. "t5: too few
    documents to compare with bart on rouge1 F-measure: +0.40 points (...); 3 documents
    differ from bart's, and at 0.05 approximate randomization needs 6"."""
    outcome = decision(cell, confidence)
    phrase = {"no significant difference": f"no significant difference from {baseline}",
              TOO_FEW: f"too few documents to compare with {baseline}"}.get(
        outcome, f"{outcome} than {baseline}")
    low, high = cell["delta_low_familywise"], cell["delta_high_familywise"]
    line = (f"{system}: {phrase} on {rouge_type} {_MEASURE_NAMES[measure]}: "
            f"{100 * cell['delta']:+.2f} points ({confidence * 100:g}% family-wise CI "
            f"[{100 * low:+.2f}, {100 * high:+.2f}]; {TEST_NAMES[test]}, Holm p = "
            f"{cell['p_value_holm']:.4f} over {comparisons} "
            f"comparison{'s' if comparisons != 1 else ''})")
    if outcome == TOO_FEW:
        differing, needed = cell["documents_differing"], cell["documents_needed"]
        if test in RANDOMIZATION_TESTS:
            line += (f"; {differing} document{'s' if differing != 1 else ''} "
                     f"differ{'' if differing != 1 else 's'} from {baseline}'s, and at "
                     f"{level(confidence):g} {TEST_NAMES[test].split(' (')[0]} needs {needed}")
        else:
            line += "; one document in all, and a bootstrap needs at least 2"
    elif (outcome != "no significant difference") != (not low <= 0.0 <= high):
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
    1 - confidence; '!' instead where the decision is "too few documents", whatever p is);
    scores x 100. result: paired_test's output, or compare()'s (entries that are not
    systems, such as "signature", are printed under the tables)."""
    if measure not in MEASURES:
        raise ValueError(f"measure must be one of {MEASURES}; got {measure!r}")
    systems = [name for name, value in result.items() if isinstance(value, Mapping)]
    if not systems:
        raise ValueError("result holds no systems")
    percent = f"{confidence * 100:g}%"
    header = ["System", f"Score [{percent} CI]", "Delta", "per-comparison CI",
              "family-wise CI", "raw p", "Holm p"]
    compared = len(systems) - 1
    blocks, too_few = [], False
    for rouge_type in result[systems[0]]:
        rows, verdicts = [], []
        for name in systems:
            cell = result[name][rouge_type][measure]
            score = f"{100 * cell['score']:.2f} [{100 * cell['low']:.2f}, " \
                    f"{100 * cell['high']:.2f}]"
            if "delta" not in cell:
                rows.append([f"Baseline: {name}", score, "", "", "", "", ""])
                continue
            few = cell.get("decision") == TOO_FEW
            too_few = too_few or few
            rows.append([name, score, f"{100 * cell['delta']:+.2f}",
                         _interval(cell["delta_low"], cell["delta_high"]),
                         _interval(cell["delta_low_familywise"],
                                   cell["delta_high_familywise"]),
                         _marked(cell["p_value"], confidence, few),
                         _marked(cell["p_value_holm"], confidence, few)])
            verdicts.append(cell["verdict"])
        title = (f"{rouge_type} {_MEASURE_NAMES[measure]} x 100, {percent} percentile "
                 f"intervals; family-wise: Bonferroni over {compared} comparison"
                 f"{'s' if compared != 1 else ''}; Holm p: adjusted over them")
        blocks.append(title + "\n" + _grid(header, rows) + "".join(
            "\n" + line for line in verdicts))
    notes = [f"{key}: {value}" for key, value in result.items()
             if not isinstance(value, Mapping)]
    if too_few:
        notes.insert(0, f"! too few documents for the test to reach p < {level(confidence):g}, "
                        "whatever they hold: p as computed, no decision (see the verdict)")
    return "\n\n".join(blocks) + f"\n* p < {level(confidence):g}" + "".join(
        "\n" + line for line in notes)


def _interval(low: float, high: float) -> str:
    return f"[{100 * low:+.2f}, {100 * high:+.2f}]"


def _marked(p: float, confidence: float, too_few: bool = False) -> str:
    return f"{p:.4f}" + ("!" if too_few else "*" if p < level(confidence) else " ")


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
