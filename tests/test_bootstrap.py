"""The default profile's Poisson bootstrap, against textbook references: the Poisson(1)
probabilities, a plain multinomial percentile bootstrap written with numpy, and the binomial
standard error. (Order, chunk and process invariance: test_metric.py, test_distributed.py.)"""
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from conftest import COMPILED, staged

K = COMPILED  # (compiled at the first test that reads a kernel)


def test_weights_follow_poisson_one(metric_module):
    # one row of value 1 and 200,000 samples: sums[b] is that row's weight in sample b
    n_samples = 200_000
    sums, weights = K.poisson_bootstrap_sums(
        np.ones((1, 1), dtype=np.int64), np.array([12345], dtype=np.uint64),
        np.zeros(1, dtype=np.int64), np.uint64(7), n_samples, staged("scorer.aggregate")._POISSON_CDF)
    assert (sums[:, 0] == weights).all()
    frequencies = np.bincount(weights, minlength=8)[:8] / n_samples
    for k in range(8):
        p = math.exp(-1) / math.factorial(k)
        # five standard errors of a frequency estimated from 200,000 draws
        assert abs(frequencies[k] - p) < 5 * math.sqrt(p * (1 - p) / n_samples) + 1e-6, k


def test_occurrences_number_copies_across_batches(metric_module):
    register = staged("scorer.aggregate")._Occurrences()
    keys = lambda *k: np.array(k, dtype=np.uint64)
    assert register.number(keys(5, 3, 5)).tolist() == [0, 0, 1]
    assert register.number(keys(5, 7, 3, 7)).tolist() == [2, 0, 1, 1]
    assert register.number(keys(9)).tolist() == [0]
    assert len(register) == 4  # keys held: runs [3, 5, 7] (merged) and [9]


def test_occurrences_over_many_batches_equal_a_counter(metric_module):
    # many batches make the register merge its runs; the numbers are a running Counter's
    from collections import Counter

    rng = np.random.default_rng(11)
    register, seen = staged("scorer.aggregate")._Occurrences(), Counter()
    for size in rng.integers(1, 300, 200):
        batch = rng.integers(0, 5000, size).astype(np.uint64)
        expected = []
        for key in batch.tolist():
            expected.append(seen[key])
            seen[key] += 1
        assert register.number(batch).tolist() == expected
    # runs of decreasing size: O(log n) of them; a key repeated across batches may sit in
    # several until they merge
    assert len(register.runs) <= int(np.log2(sum(seen.values()))) + 1
    assert len(register) <= len(seen) * len(register.runs)


def _numpy_percentile_bootstrap(values, n_samples, confidence, seed):
    """The textbook bootstrap: resample the rows with replacement, take the percentiles."""
    rng = np.random.default_rng(seed)
    means = values[rng.integers(0, len(values), (n_samples, len(values)))].mean(axis=1)
    tail = 100 * (1 - confidence) / 2
    return np.percentile(means, [tail, 100 - tail])


def test_interval_agrees_with_a_multinomial_bootstrap(metric, realsumm):
    preds = [r["prediction"] for r in realsumm]
    refs = [r["references"][0] for r in realsumm]
    ours = metric.compute(predictions=preds, references=refs, rouge_types=["rouge1", "rougeL"],
                          use_stemmer=True, detailed=True, n_samples=2000)
    per_example = metric.compute(predictions=preds, references=refs, use_stemmer=True,
                                 rouge_types=["rouge1", "rougeL"], use_aggregator=False)
    for t in ("rouge1", "rougeL"):
        values = np.array(per_example[t])
        assert ours[t]["fmeasure"]["mid"] == pytest.approx(values.mean(), abs=1e-15)
        low, high = _numpy_percentile_bootstrap(values, 2000, 0.95, seed=1)
        width = high - low
        # two Monte Carlo estimates of the same bounds: within 15% of the width
        assert abs(ours[t]["fmeasure"]["low"] - low) < 0.15 * width, t
        assert abs(ours[t]["fmeasure"]["high"] - high) < 0.15 * width, t


def test_identical_examples_are_resampled_independently(metric):
    # 60 copies of one perfect example and 60 distinct zero-score ones: the mean is 1/2 and
    # its 95% interval is about +-1.96 * sqrt(1/4 / 120) = +-0.089, as for 120 distinct rows.
    # (Were the copies one resampling unit, the interval would span most of [0, 1].)
    duplicated = (["a b c"] * 60 + [f"x{i}" for i in range(60)],
                  ["a b c"] * 60 + [f"y{i}" for i in range(60)])
    distinct = ([f"a{i}" for i in range(60)] + [f"x{i}" for i in range(60)],
                [f"a{i}" for i in range(60)] + [f"y{i}" for i in range(60)])
    half_widths = []
    for preds, refs in (duplicated, distinct):
        out = metric.compute(predictions=preds, references=refs, rouge_types=["rouge1"],
                             detailed=True, n_samples=4000)["rouge1"]["fmeasure"]
        assert out["mid"] == 0.5
        half_widths.append((out["high"] - out["low"]) / 2)
    for half_width in half_widths:
        assert 0.075 < half_width < 0.105, half_widths


def test_interval_of_one_example_is_its_score(metric):
    out = metric.compute(predictions=["a b c d"], references=["a b x"], rouge_types=["rouge1"],
                         detailed=True)
    f = 2 * (2 / 4) * (2 / 3) / (2 / 4 + 2 / 3)  # 4/7 through rouge_score's float formula
    for key, expected in (("precision", 2 / 4), ("recall", 2 / 3), ("fmeasure", f)):
        assert out["rouge1"][key] == {"low": expected, "mid": expected, "high": expected}


@pytest.mark.parametrize("aggregation", ["macro", "micro"])
def test_mid_is_exact_and_inside_the_interval(metric, realsumm, aggregation):
    rows = realsumm[:500]
    preds = [r["prediction"] for r in rows]
    refs = [r["references"] for r in rows]
    types = ["rouge2", "rougeW-1.2", "rougeSU4"]
    out = metric.compute(predictions=preds, references=refs, rouge_types=types,
                         aggregation=aggregation, detailed=True)
    per_example = metric.compute(predictions=preds, references=refs, rouge_types=types,
                                 use_aggregator=False, detailed=True)
    for t in types:
        for key in ("precision", "recall", "fmeasure"):
            b = out[t][key]
            assert b["low"] <= b["mid"] <= b["high"], (t, key)
            if aggregation == "macro":
                exact = sum(map(Fraction, per_example[t][key])) / len(rows)
                assert b["mid"] == float(exact), (t, key)  # the correctly rounded mean


def _naive_poisson_sums(fixed, keys, occurrences, seed, n_samples, cdf):
    """The kernel's definition, spelled out with Python ints: row i's weight in sample b is
    the Poisson(1) quantile of half b % 2 of splitmix64 output b // 2 + 1 of its stream."""
    mask = 2 ** 64 - 1

    def mix(z):
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
        return z ^ (z >> 31)

    sums = [[0] * fixed.shape[1] for _ in range(n_samples)]
    weights = [0] * n_samples
    for i in range(fixed.shape[0]):
        row_seed = mix(int(keys[i]) ^ mix(int(occurrences[i]) ^ mix(seed)))
        for b in range(n_samples):
            z = mix((row_seed + (b // 2 + 1) * 0x9E3779B97F4A7C15) & mask)
            u = z >> 32 if b % 2 == 0 else z & 0xFFFFFFFF
            w = sum(u >= int(c) for c in cdf)
            weights[b] += w
            for c in range(fixed.shape[1]):
                sums[b][c] += w * int(fixed[i, c])
    return sums, weights


@pytest.mark.parametrize("scale", [2 ** 24, 2 ** 36])
def test_poisson_sums_equal_their_definition(metric_module, scale):
    rng = np.random.default_rng(scale)
    fixed = rng.integers(0, scale, (700, 3))
    keys = rng.integers(0, 2 ** 63, 700).astype(np.uint64)
    occurrences = rng.integers(0, 3, 700)
    cdf = staged("scorer.aggregate")._POISSON_CDF
    sums, weights = K.poisson_bootstrap_sums(fixed, keys, occurrences, np.uint64(99), 9, cdf)
    expected_sums, expected_weights = _naive_poisson_sums(fixed, keys, occurrences, 99, 9, cdf)
    assert sums.tolist() == expected_sums
    assert weights.tolist() == expected_weights


def test_micro_rouge_w_with_huge_weighted_counts(metric, metric_module):
    # ROUGE-W's weighted counts grow like length^(w^2): with w = 3 and 200 tokens they pass
    # 2^63, where integer fixed point would wrap around. The mid must be the pooled ratio and
    # lie inside the interval.
    rng = np.random.default_rng(2)
    words = [f"w{i}" for i in range(30)]
    preds = [" ".join(rng.choice(words, 200)) for _ in range(40)]
    refs = [" ".join(rng.choice(words, 200)) for _ in range(40)]
    kwargs = dict(rouge_types=["rougeW-3"], aggregation="micro")
    out = metric.compute(predictions=preds, references=refs, detailed=True, **kwargs)
    options = staged("options").RougeOptions.build(detailed=True, use_aggregator=False, **kwargs)
    counts = staged("scorer.pipeline").example_scores(options, preds, refs)[0].counts["rougeW-3"]
    assert counts.max() > 2 ** 63
    hit, den_p, den_r = (sum(map(Fraction, counts[:, j].tolist())) for j in range(3))
    recall = out["rougeW-3"]["recall"]
    assert recall["mid"] == float(hit / den_r)
    assert out["rougeW-3"]["precision"]["mid"] == float(hit / den_p)
    for key in ("precision", "recall", "fmeasure"):
        b = out["rougeW-3"][key]
        assert 0 <= b["low"] <= b["mid"] <= b["high"] <= 1, (key, b)


@settings(max_examples=200, deadline=None)
@given(values=st.lists(st.floats(min_value=-1e30, max_value=1e30, allow_nan=False,
                                 allow_infinity=False), min_size=1, max_size=40))
def test_exact_column_sums_are_exact(metric_module, values):
    # both paths (the fast one for multiples of 2^-64, frexp for the rest) give the exact sum
    arithmetic = staged("arithmetic")
    got = arithmetic.in_unit(*arithmetic.exact_sums(np.array(values).reshape(-1, 1)),
                             arithmetic.EXACT_UNIT)[0]
    assert Fraction(got, 2 ** arithmetic.EXACT_UNIT) == sum(map(Fraction, values))


# --------------------------------------------------------------------------------------------
# Exact bounds (issue 11 item 7): each bound is one bootstrap sample's statistic, correctly
# rounded from exact arithmetic; no fixed-point artefacts


def _interval(metric, predictions, references, **kwargs):
    return metric.compute(predictions=predictions, references=references, detailed=True,
                          rouge_types=["rouge1"], **kwargs)["rouge1"]


def test_identical_scores_give_a_point_interval(metric):
    out = _interval(metric, ["the cat sat on the mat"] * 7, ["the cat lay on the mat"] * 7)
    for measure in out.values():
        assert measure["low"] == measure["mid"] == measure["high"]


def test_readme_example_has_no_artefacts(metric):
    out = _interval(metric, ["the cat sat on the mat", "hello there general kenobi"],
                    [["the cat lay on the mat"], ["hello there", "general kenobi says hello"]])
    per_example = metric.compute(
        predictions=["the cat sat on the mat", "hello there general kenobi"],
        references=[["the cat lay on the mat"], ["hello there", "general kenobi says hello"]],
        rouge_types=["rouge1"], use_aggregator=False, detailed=True)["rouge1"]
    for key, measure in out.items():
        lo, hi = min(per_example[key]), max(per_example[key])
        assert lo <= measure["low"] <= measure["mid"] <= measure["high"] <= hi
        a, b = (Fraction(x) for x in per_example[key])
        means = {float((k * a + j * b) / (k + j)) for k in range(16) for j in range(16) if k + j}
        assert measure["low"] in means and measure["high"] in means


words = st.lists(st.sampled_from("a b c d e f".split()), min_size=1, max_size=8).map(" ".join)


@settings(max_examples=40, deadline=None)
@given(texts=st.lists(words, min_size=4, max_size=4), confidence=st.sampled_from([0.5, 0.9, 0.95]),
       seed=st.integers(0, 2 ** 32))
def test_two_example_bounds_are_exact_weighted_means(metric, texts, confidence, seed):
    # a sample weighs example 1 k times and example 2 j times (Poisson weights, at most 15):
    # its statistic is (k a + j b) / (k + j), and each bound must be one of those, correctly
    # rounded, inside [min, max]: no 2^-24 fixed point, never outside [0, 1]
    predictions, references = texts[:2], texts[2:]
    per_example = metric.compute(predictions=predictions, references=references,
                                 rouge_types=["rouge1"], use_aggregator=False,
                                 detailed=True)["rouge1"]
    out = _interval(metric, predictions, references, confidence=confidence, seed=seed,
                    n_samples=200)
    for key, measure in out.items():
        a, b = (Fraction(x) for x in per_example[key])
        means = {float((k * a + j * b) / (k + j)) for k in range(16) for j in range(16) if k + j}
        assert measure["low"] in means and measure["high"] in means
        assert min(a, b) <= measure["low"] <= measure["high"] <= max(a, b)


def test_too_few_samples_for_the_confidence_warn(metric):
    with pytest.warns(Warning, match="n_samples=1 is too few for a 95% interval.*n_samples >= 40"):
        _interval(metric, ["a b", "a"], ["a", "b"], n_samples=1)
