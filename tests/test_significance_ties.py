"""Systems that differ on a few documents only: the randomization tests' ties (Noreen's count
for test="randomization", sacrebleu's strict count for test="sacrebleu-randomization"), the
"too few documents" decision, and the bootstrap's degenerate case.

Expected values come from sacrebleu 2.6.0 itself (its _paired_ar_test and _paired_bs_test
through the shim metric of test_significance.py), from counts over numpy's documented one-shot
draws, or from plain arithmetic; never from rouge_significance's own output.
"""
import math

import numpy as np
import pytest
from conftest import needed  # (an optional test package: a skip with its reason outside CI)
significance = needed("sacrebleu.significance")

from rouge_exact import significance as rs
from test_significance import _ShimMetric, _plain_p_values, batched_p_values

SEED = 12345


def _counts(rng, n: int) -> np.ndarray:
    """n rows of micro statistics (hit, prediction units, reference units): integers."""
    den_p = rng.integers(5, 60, n)
    den_r = rng.integers(5, 60, n)
    hit = rng.integers(0, np.minimum(den_p, den_r) + 1)
    return np.stack([hit, den_p, den_r], axis=1).astype(np.float64)


def _near_copy(rng, base: np.ndarray, k: int) -> np.ndarray:
    """base with k random rows replaced by other counts (each row then differs)."""
    system = base.copy()
    for row in rng.choice(len(base), k, replace=False):
        while (system[row] == base[row]).all():
            system[row] = _counts(rng, 1)[0]
    return system


def _sacrebleus_p(test: str, base: np.ndarray, system: np.ndarray, n_samples: int) -> list:
    """sacrebleu's own p of P, R and F (micro) of system against base."""
    n = len(base)
    metrics = {m: _ShimMetric("micro", m, n) for m in range(3)}
    baseline_info = {m: (base, significance.Result(metric._aggregate_and_compute(base).score))
                     for m, metric in metrics.items()}
    function = significance._paired_bs_test if test == "sacrebleu-bootstrap" \
        else significance._paired_ar_test
    _, results = function(baseline_info, "system", system, None, metrics,
                          n_samples=n_samples, seed=SEED)
    return [results[m].p_value for m in range(3)]


def _ours(test: str, base, system, n_samples: int, score_of=rs.pooled_scores,
          confidence: float = 0.95) -> dict:
    return rs.paired_test({"base": {"r": base}, "system": {"r": system}}, "base", score_of,
                          test=test, n_samples=n_samples, seed=SEED,
                          confidence=confidence)["system"]["r"]


# --------------------------------------------------------------------------------------------
# sacrebleu's rules are sacrebleu's where trials tie


@pytest.mark.parametrize("test", ["sacrebleu-randomization", "sacrebleu-bootstrap"])
@pytest.mark.parametrize("n, k", [(1, 1), (2, 1), (40, 1), (40, 2), (40, 3), (40, 5), (40, 8)])
def test_sacrebleu_rules_equal_sacrebleus_on_a_few_differing_documents(test, n, k):
    """Micro counts (exact sums on both sides): every p-value equal to sacrebleu's, where most
    randomization trials tie the observed difference (all of them when k = 1), and on one
    document in all. Their decisions there are "too few documents" (the randomization rule,
    k < 6; either rule on one document)."""
    rng = np.random.default_rng(k * 100 + n)
    base = _counts(rng, n)
    system = _near_copy(rng, base, k)
    n_samples = 1000
    ours = _ours(test, base, system, n_samples)
    theirs = _sacrebleus_p(test, base, system, n_samples)
    assert [ours[m]["p_value"] for m in rs.MEASURES] == theirs
    for measure in rs.MEASURES:
        assert ours[measure]["documents_differing"] == k
        few = n == 1 or (test == "sacrebleu-randomization" and k < 6)
        assert (ours[measure]["decision"] == "too few documents") == few
    if k == 1 and test == "sacrebleu-randomization":
        # every trial ties (swapping the one differing row gives -D), none exceeds
        assert theirs == [1 / (n_samples + 1)] * 3


@pytest.mark.parametrize("k", [1, 2, 3, 5, 8])
def test_ties_count_as_a_plain_reimplementation_counts_them(k):
    """test="randomization" on 200 pairs that differ on k of 30 rows (micro counts, exact
    sums in both): the p-values of a plain numpy reimplementation of Noreen's count
    (|D*| >= |D|, test_significance._plain_p_values) on the same documented draws."""
    rng = np.random.default_rng(k)
    first = np.stack([_counts(rng, 30) for _ in range(200)])
    second = np.stack([_near_copy(rng, rows, k) for rows in first])
    for test in ("randomization", "sacrebleu-randomization"):
        ours = batched_p_values(first, second, rs.pooled_scores, test, 500, seed=3, chunk=200)
        plain = _plain_p_values(first, second, "micro", test, 500, seed=3)
        assert np.array_equal(ours, plain), test
    if k == 1:
        assert (ours == 1 / 501).all() and (plain == 1 / 501).all()  # sacrebleu's, k = 1


# --------------------------------------------------------------------------------------------
# Noreen's count by hand on numpy's documented draw: rng.integers(2, (R, n), dtype=bool)


def _rows(*sixteenths) -> np.ndarray:
    """Macro rows (P, R, F all equal) in sixteenths: exact sums and differences."""
    return np.repeat(np.array(sixteenths, dtype=float)[:, None] / 16, 3, axis=1)


def _swaps(n_samples: int, n: int) -> np.ndarray:
    return np.random.default_rng(SEED).integers(2, size=(n_samples, n), dtype=bool)


@pytest.mark.parametrize("n_samples", [1, 7, 1000])
def test_one_differing_document_ties_every_trial(n_samples):
    """One differing row of 10: a trial either swaps it (D* = -D) or not (D* = D), and
    swapping equal rows changes nothing, so every trial ties: Noreen's c = R, p = (R + 1) /
    (R + 1) = 1; sacrebleu's c = 0, p = 1 / (R + 1). Both decide "too few documents"."""
    base = _rows(3, 1, 4, 1, 5, 9, 2, 6, 5, 3)
    system = base.copy()
    system[4] += 5 / 16
    noreen = _ours("randomization", base, system, n_samples, rs.mean_scores)
    strict = _ours("sacrebleu-randomization", base, system, n_samples, rs.mean_scores)
    for measure in rs.MEASURES:
        assert noreen[measure]["p_value"] == 1.0
        assert strict[measure]["p_value"] == 1 / (n_samples + 1)
        assert noreen[measure]["decision"] == strict[measure]["decision"] == "too few documents"


@pytest.mark.parametrize("gains, ties, exceeds", [
    # D* = (e3 g3 + e7 g7) / n, e = -1 where the row is swapped; the observed D has e = +1
    # same signs, 1 and 3: |D*| = 4 (tie) where rows 3 and 7 swap alike, else 2 (below)
    ((1, 3), "alike", "none"),
    # opposite signs, 1 and -3: |D*| = 2 (tie) where they swap alike, else 4 (above)
    ((1, -3), "alike", "unlike"),
])
def test_two_differing_documents_by_hand(gains, ties, exceeds):
    n, n_samples = 10, 1000
    base = _rows(*[8] * n)
    system = base.copy()
    system[3] += gains[0] / 16
    system[7] += gains[1] / 16
    swaps = _swaps(n_samples, n)
    alike = int((swaps[:, 3] == swaps[:, 7]).sum())
    count = {"alike": alike, "unlike": n_samples - alike, "none": 0}
    noreen = _ours("randomization", base, system, n_samples, rs.mean_scores)
    strict = _ours("sacrebleu-randomization", base, system, n_samples, rs.mean_scores)
    for measure in rs.MEASURES:
        assert noreen[measure]["p_value"] == \
            (count[ties] + count[exceeds] + 1) / (n_samples + 1)
        assert strict[measure]["p_value"] == (count[exceeds] + 1) / (n_samples + 1)
    assert 400 < alike < 600  # about half the trials swap the two rows alike


def test_three_differing_documents_by_hand():
    """Gains 1, 2 and 4 sixteenths: |D*| = |±1 ±2 ±4| / n is 7 only where the three rows
    swap alike (the observed split or its mirror), else 5, 3 or 1: Noreen's c counts those
    trials (about 2 / 2^3 of them), sacrebleu's none."""
    n, n_samples = 12, 4000
    base = _rows(*range(n))
    system = base.copy()
    for row, gain in ((2, 1), (5, 2), (11, 4)):
        system[row] += gain / 16
    swaps = _swaps(n_samples, n)[:, [2, 5, 11]]
    alike = int((swaps.all(axis=1) | ~swaps.any(axis=1)).sum())
    noreen = _ours("randomization", base, system, n_samples, rs.mean_scores)
    strict = _ours("sacrebleu-randomization", base, system, n_samples, rs.mean_scores)
    for measure in rs.MEASURES:
        assert noreen[measure]["p_value"] == (alike + 1) / (n_samples + 1)
        assert strict[measure]["p_value"] == 1 / (n_samples + 1)
    assert abs(alike / n_samples - 0.25) < 4 * math.sqrt(0.25 * 0.75 / n_samples)


# --------------------------------------------------------------------------------------------
# Too few documents


def test_documents_needed_by_hand():
    """Randomization: the least k with 2 / 2^k <= alpha, i.e. not fewer than log2(1 / alpha)
    + 1: alpha 0.05: 2/32 > 0.05 >= 2/64, so 6; 0.01: 2/128 > 0.01 >= 2/256, so 8; 0.1: 5;
    0.0625 = 2/32 exactly: 5; 0.5: 2. The bootstraps: 1, or 2 on one document."""
    for confidence, want in ((0.95, 6), (0.99, 8), (0.9, 5), (0.9375, 5), (0.5, 2)):
        for test in ("randomization", "sacrebleu-randomization"):
            assert rs.documents_needed(test, 100, confidence) == want, confidence
            assert rs.documents_needed(test, 1, confidence) == want
        assert want == math.ceil(math.log2(1 / round(1 - confidence, 12)) + 1)
    for test in ("bootstrap", "sacrebleu-bootstrap"):
        assert rs.documents_needed(test, 100, 0.95) == 1
        assert rs.documents_needed(test, 1, 0.95) == 2
    with pytest.raises(ValueError, match="^test"):
        rs.documents_needed("bs", 100, 0.95)


@pytest.mark.parametrize("confidence, fewest", [(0.95, 6), (0.9, 5), (0.99, 8)])
def test_too_few_documents_follows_the_differing_documents(confidence, fewest):
    """100 rows; the system better by 1 to 6 sixteenths on k of them (distinct gains, so only
    the observed split and its mirror reach |D|: exact p = 2 / 2^k). The randomization tests
    decide "too few documents" for k < fewest, whatever p; the bootstraps never (100
    documents in all). Per type: the rows of that type that differ."""
    rng = np.random.default_rng(0)
    base = rng.integers(0, 16, (100, 3)) / 16
    for k in range(1, fewest + 1):
        system = base.copy()
        system[:k] += np.arange(1, k + 1)[:, None] / 16
        other = base.copy()
        other[:20] += 1 / 16  # another type on which 20 rows differ
        stats = {"base": {"a": base, "b": base}, "system": {"a": system, "b": other}}
        for test in rs.TESTS:
            result = rs.paired_test(stats, "base", test=test, n_samples=20000, seed=SEED,
                                    confidence=confidence)["system"]
            for measure in rs.MEASURES:
                cell, cell_b = result["a"][measure], result["b"][measure]
                assert (cell["documents_differing"], cell_b["documents_differing"]) == (k, 20)
                few = test in rs.RANDOMIZATION_TESTS and k < fewest
                assert (cell["decision"] == "too few documents") == few, (test, k)
                assert cell_b["decision"] != "too few documents"
                if test == "randomization" and k == fewest:
                    # exact p = 2 / 2^k < alpha (0.0078 at 0.99, where 20,000 trials put
                    # c near 156 with sd 12, and p < 0.01 needs c < 200)
                    assert cell["decision"] == "better"


@pytest.mark.parametrize("test", rs.TESTS)
def test_one_document_in_all(test):
    """One document: too few for every test. The randomization tests: Noreen's p = 1 (every
    trial ties), sacrebleu's 1 / (R + 1); the centred bootstrap: every resample is that
    document, so every resampled difference is the observed one: its degenerate case, p = 1
    (its count alone would give 1 / (B + 1)); sacrebleu's bootstrap: 1 / (B + 1), as
    sacrebleu computes it (test_sacrebleu_rules_equal_sacrebleus_on_a_few_differing_documents)."""
    cell = _ours(test, _rows(2), _rows(7), 99, rs.mean_scores)["fmeasure"]
    assert cell["p_value"] == {"randomization": 1.0, "bootstrap": 1.0,
                               "sacrebleu-randomization": 0.01, "sacrebleu-bootstrap": 0.01}[test]
    assert cell["delta"] == 5 / 16 and cell["documents_differing"] == 1
    assert cell["decision"] == "too few documents"
    assert cell["verdict"].startswith("system: too few documents to compare with base on r ")


@pytest.mark.parametrize("test", rs.TESTS)
def test_identical_systems_are_no_significant_difference(test):
    """No row differs: p = 1 and "no significant difference" (not "too few documents"), on
    many rows and on one."""
    rng = np.random.default_rng(1)
    for rows in (rng.random((50, 3)), rng.random((1, 3))):
        cell = _ours(test, rows, rows.copy(), 200, rs.mean_scores)["fmeasure"]
        assert (cell["p_value"], cell["documents_differing"]) == (1.0, 0)
        assert cell["decision"] == "no significant difference"


def test_the_bootstraps_degenerate_case():
    """Every resampled difference the same: here every row of the system is the baseline's
    plus 1/16 (sums of sixteenths: exact), so each resample's difference is 1/16. The centred
    count would find no resample at |D| (p = 1 / (B + 1)); the degenerate case gives p = 1.
    sacrebleu's bootstrap rule keeps sacrebleu's strict count: 1 / (B + 1)."""
    base = _rows(0, 4, 8, 12)
    system = base + 1 / 16
    centred = _ours("bootstrap", base, system, 50, rs.mean_scores)["fmeasure"]
    assert (centred["delta"], centred["p_value"]) == (1 / 16, 1.0)
    assert centred["decision"] == "no significant difference"
    moses = _ours("sacrebleu-bootstrap", base, system, 50, rs.mean_scores)["fmeasure"]
    assert moses["p_value"] == 1 / 51


# --------------------------------------------------------------------------------------------
# Calibration where a few documents differ


def _few_differing_nulls(rng, count: int, k: int, n: int = 100) -> tuple:
    """count true nulls on n rows (macro (P, R, F) in [0, 1)): the two systems share one row
    per document but on k documents, where two different rows are shared out between them at
    random (each way with probability 1/2): exchangeable, so neither is better."""
    firsts, seconds = [], []
    for _ in range(count):
        x = rng.random((n, 3))
        y = rng.random((n, 3))
        differs = np.zeros((n, 1), dtype=bool)
        differs[rng.choice(n, k, replace=False)] = True
        swap = rng.integers(2, size=(n, 1), dtype=bool)
        firsts.append(np.where(differs & swap, y, x))
        seconds.append(np.where(differs & ~swap, y, x))
    return np.stack(firsts), np.stack(seconds)


@pytest.mark.slow
def test_randomization_holds_its_level_where_few_documents_differ():
    """400 nulls per k, 1,000 trials, alpha 0.05: Noreen's count rejects at most 0.05 + 2
    standard errors (0.072) of them for every k, and none for k <= 3 (its exact p is at
    least 2 / 2^k >= 1/4; at k = 5, 1/16, which 1,000 trials can take below 0.05 by chance,
    as the decision's "too few documents" catches); sacrebleu's count rejects every null at k = 1 (p = 1 / 1001) and
    about half at k = 2 (those whose observed |D| is the larger of |g1 + g2| and |g1 - g2|,
    where nothing exceeds it). Both decide "too few documents" for every null at k <= 5."""
    count, bound = 400, 0.05 + 2 * math.sqrt(0.05 * 0.95 / 400)
    rng = np.random.default_rng(2024)
    for k in (1, 2, 3, 5, 6, 8, 20):
        first, second = _few_differing_nulls(rng, count, k)
        rates = {}
        for test in rs.RANDOMIZATION_TESTS:
            p = batched_p_values(first, second, rs.mean_scores, test, 1000, seed=k)
            rates[test] = float(np.mean(p < 0.05))
            decisions = batched_p_values(first, second, rs.mean_scores, test, 1000, seed=k,
                                         field="decision")
            assert ((decisions == "too few documents") == (k < 6)).all(), (test, k)
        print(f"k = {k}: rejections at 0.05 of {count} nulls: {rates}")
        assert rates["randomization"] <= bound, k
        if k <= 3:
            assert rates["randomization"] == 0.0
        if k == 1:
            assert rates["sacrebleu-randomization"] == 1.0
        if k == 2:
            assert 0.4 <= rates["sacrebleu-randomization"] <= 0.6
