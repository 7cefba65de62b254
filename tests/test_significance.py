"""rouge_significance against sacrebleu 2.6.0's own paired tests, numpy's one-shot draws, a
hand-computed Holm correction, and simulations on realsumm (35 systems x 100 documents).

The per-example statistics come from rouge_score 0.1.2 itself: (P, R, F) from
RougeScorer.score (macro), and (hit, prediction units, reference units) from its tokenizer
and n-gram/LCS functions (micro).
"""
import collections
import json
import math
from fractions import Fraction

import numpy as np
import pytest
from rouge_score import rouge_scorer, scoring
from sacrebleu import significance

import rouge_significance as rs
from conftest import DATA

TYPES = ("rouge1", "rouge2", "rougeL", "rougeLsum")
SEED = 12345


def _micro_counts(scorer, rouge_type: str, reference: str, prediction: str, score) -> tuple:
    """(hit, den_p, den_r) behind rouge_score's score of one pair."""
    tokenize = scorer._tokenizer.tokenize
    if rouge_type == "rougeLsum":
        # rouge_score's own sentence split; its union-LCS hit count is recovered from P
        def units(text):
            return sum(len(tokenize(s)) for s in text.split("\n") if len(s))
        den_p, den_r = units(prediction), units(reference)
        hit = round(score.precision * den_p)
        assert hit == round(score.recall * den_r)
        return hit, den_p, den_r
    ref, pred = tokenize(reference), tokenize(prediction)
    if rouge_type == "rougeL":
        return rouge_scorer._lcs_table(ref, pred)[-1][-1], len(pred), len(ref)
    n = int(rouge_type[5:])
    ref_grams = rouge_scorer._create_ngrams(ref, n)
    pred_grams = rouge_scorer._create_ngrams(pred, n)
    hit = sum(min(count, pred_grams[gram]) for gram, count in ref_grams.items())
    return hit, sum(pred_grams.values()), sum(ref_grams.values())


@pytest.fixture(scope="module")
def realsumm_stats():
    """{"macro"|"micro": {system: {type: float64[100, 3]}}}, rows aligned by document."""
    by_system = collections.defaultdict(dict)
    with open(DATA, encoding="utf-8") as f:
        for line in f:
            row = json.loads(line)
            by_system[row["system"]][row["doc"]] = row
    docs = sorted(next(iter(by_system.values())))
    scorer = rouge_scorer.RougeScorer(list(TYPES))
    out = {"macro": {}, "micro": {}}
    for system in sorted(by_system):
        macro = {t: np.zeros((len(docs), 3)) for t in TYPES}
        micro = {t: np.zeros((len(docs), 3)) for t in TYPES}
        for i, doc in enumerate(docs):
            row = by_system[system][doc]
            (reference,) = row["references"]
            scores = scorer.score(reference, row["prediction"])
            for t in TYPES:
                macro[t][i] = scores[t]
                counts = _micro_counts(scorer, t, reference, row["prediction"], scores[t])
                hit, den_p, den_r = counts
                assert (scores[t].precision, scores[t].recall) == \
                    (hit / max(den_p, 1), hit / max(den_r, 1)), (system, doc, t)
                micro[t][i] = counts
        out["macro"][system], out["micro"][system] = macro, micro
    return out


def _pooled(sums, measure: int) -> float:
    """rouge_score's P, R and F (scoring.fmeasure) of summed counts, in plain Python."""
    hit, den_p, den_r = (float(x) for x in sums[:3])
    p = hit / den_p if den_p > 0 else 0.0
    r = hit / den_r if den_r > 0 else 0.0
    return (p, r, scoring.fmeasure(p, r))[measure]


class _Score:
    def __init__(self, score: float):
        self.score = score


class _ShimMetric:
    """What sacrebleu's paired tests call on a Metric, for one ROUGE measure: the
    'hypotheses' are the rows of per-example statistics, the sufficient statistics."""

    def __init__(self, aggregation: str, measure: int, n: int):
        self.aggregation, self.measure, self.n = aggregation, measure, n

    def _extract_corpus_statistics(self, hypotheses, references):
        return np.asarray(hypotheses, dtype=np.float64)

    def _compute_score_from_stats(self, sums):
        if self.aggregation == "macro":
            return _Score(float(sums[self.measure]) / self.n)
        return _Score(_pooled(sums, self.measure))

    def _aggregate_and_compute(self, stats):
        return self._compute_score_from_stats(np.sum(stats, axis=0))


def _score_of(aggregation: str):
    return rs.mean_scores if aggregation == "macro" else rs.pooled_scores


def _vector_scores(aggregation: str, sums: np.ndarray, n: int) -> np.ndarray:
    """[..., 3] sums -> [..., 3] scores, numpy, for the margins below (not the code tested)."""
    if aggregation == "macro":
        return sums / n
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.where(sums[..., 1] > 0, sums[..., 0] / sums[..., 1], 0.0)
        r = np.where(sums[..., 2] > 0, sums[..., 0] / sums[..., 2], 0.0)
        f = np.where(p + r > 0, 2 * p * r / (p + r), 0.0)
    return np.stack([p, r, f], axis=-1)


def _threshold_margins(aggregation, test, baseline_stats, system_stats, n_samples):
    """For each measure: how close any resampled test statistic comes to the observed one,
    recomputed here in float64 with numpy's one-shot draws (as sacrebleu draws them), and
    how far sacrebleu's float32 sums move those statistics (bootstrap; 0 otherwise)."""
    n = len(baseline_stats)
    rng = np.random.default_rng(SEED)
    observed = abs(_vector_scores(aggregation, system_stats.sum(0), n)
                   - _vector_scores(aggregation, baseline_stats.sum(0), n))
    if test == "bootstrap":
        idx = rng.choice(n, (n_samples, n))

        def statistic(sums_of):
            gaps = np.abs(_vector_scores(aggregation, sums_of(system_stats), n)
                          - _vector_scores(aggregation, sums_of(baseline_stats), n))
            return gaps - gaps.mean(axis=0)

        exact = statistic(lambda rows: rows[idx].sum(1))
        # sacrebleu: float32 copies, summed one sample at a time
        in_float32 = statistic(lambda rows: np.array(
            [sample.sum(0) for sample in rows.astype(np.float32)[idx]], dtype=np.float64))
        moved = np.abs(in_float32 - exact).max(axis=0)
    else:
        swap = rng.integers(2, size=(n_samples, n), dtype=bool)
        first = swap @ baseline_stats + ~swap @ system_stats
        second = ~swap @ baseline_stats + swap @ system_stats
        exact = np.abs(_vector_scores(aggregation, first, n)
                       - _vector_scores(aggregation, second, n))
        moved = np.zeros(3)
    return np.abs(exact - observed).min(axis=0), moved


# How far sacrebleu's arithmetic may move a test statistic. Its bootstrap sums float32
# copies of the statistics: a macro score (mean of 100 float32 values) moves by some
# 1e-7, which the test checks (the largest seen on realsumm is 4.9e-7); micro counts are
# integers below 2^24, exact in float32. Its randomization sums float64 values with BLAS:
# exact for counts, < 1e-13 for macro scores.
_RESOLUTION = {("macro", "bootstrap"): 2.0 ** -20, ("macro", "randomization"): 1e-12,
               ("micro", "bootstrap"): 0.0, ("micro", "randomization"): 0.0}
# sacrebleu calls its score function once per sample in Python: 1,000 randomization trials
# (not its default 10,000) keep the 2 x 2 x 34 x 12 comparisons at ~10 s; the code paths
# are the same for any number.
_SACREBLEU_SAMPLES = {"bootstrap": 1000, "randomization": 1000}


@pytest.mark.parametrize("aggregation", ["macro", "micro"])
@pytest.mark.parametrize("test", ["bootstrap", "randomization"])
def test_p_values_equal_sacrebleus(realsumm_stats, aggregation, test):
    stats = realsumm_stats[aggregation]
    systems = list(stats)
    baseline = systems[0]
    n = len(stats[baseline]["rouge1"])
    n_samples = _SACREBLEU_SAMPLES[test]
    ours = rs.paired_test(stats, baseline, _score_of(aggregation), test=test,
                          n_samples=n_samples, seed=SEED)
    metrics = {(t, m): _ShimMetric(aggregation, m, n) for t in TYPES for m in range(3)}
    sacrebleu_test = significance._paired_bs_test if test == "bootstrap" \
        else significance._paired_ar_test
    baseline_info = {key: (stats[baseline][key[0]],
                           significance.Result(metric._aggregate_and_compute(
                               stats[baseline][key[0]]).score))
                     for key, metric in metrics.items()}
    compared = near = 0
    for system in systems[1:]:
        for t in TYPES:
            # one call per type: sacrebleu's hypotheses are the rows of one statistics matrix
            type_metrics = {key: metric for key, metric in metrics.items() if key[0] == t}
            _, theirs = sacrebleu_test(baseline_info, system, stats[system][t], None,
                                       type_metrics, n_samples=n_samples, seed=SEED)
            margins, moved = _threshold_margins(aggregation, test, stats[baseline][t],
                                                stats[system][t], n_samples)
            assert (moved <= _RESOLUTION[(aggregation, test)]).all()
            for m, measure in enumerate(rs.MEASURES):
                ours_cell = ours[system][t][measure]
                assert ours_cell["score"] == pytest.approx(theirs[(t, m)].score, abs=1e-12)
                # exact arithmetic on both sides (resolution 0): ties are compared too
                if margins[m] < _RESOLUTION[(aggregation, test)]:
                    near += 1
                    continue
                compared += 1
                assert ours_cell["p_value"] == theirs[(t, m)].p_value, (system, t, measure)
    total = (len(systems) - 1) * len(TYPES) * 3
    print(f"{aggregation} {test}: {compared} of {total} p-values equal sacrebleu's, "
          f"{near} within float resolution of the threshold")
    assert compared + near == total and near <= total // 20


def test_blocks_draw_what_one_shot_draws():
    for n in (1, 2, 3, 7, 31, 32, 33, 100, 101):
        for block_elements in (1, 5, 64, 333, 1 << 22):
            for n_samples in (1, 37, 100):
                old = rs.BLOCK_ELEMENTS
                rs.BLOCK_ELEMENTS = block_elements
                try:
                    rng = np.random.default_rng(SEED)
                    counts = np.concatenate(list(rs._bootstrap_weights(rng, n, n_samples)))
                    after_choice = rng.integers(1 << 62, size=4)
                    swaps = np.concatenate(list(rs._swap_weights(rng, n, n_samples)))
                    after_swaps = rng.choice(n, (2, n))
                finally:
                    rs.BLOCK_ELEMENTS = old
                rng = np.random.default_rng(SEED)
                idx = rng.choice(n, (n_samples, n))
                expected = np.stack([np.bincount(row, minlength=n) for row in idx])
                assert np.array_equal(counts, expected), (n, block_elements, n_samples)
                assert np.array_equal(after_choice, rng.integers(1 << 62, size=4))
                expected = rng.integers(2, size=(n_samples, n), dtype=bool)
                assert np.array_equal(swaps, expected), (n, block_elements, n_samples)
                assert np.array_equal(after_swaps, rng.choice(n, (2, n)))


@pytest.mark.parametrize("test", ["bootstrap", "randomization"])
def test_results_do_not_depend_on_blocks(test, monkeypatch):
    rng = np.random.default_rng(3)
    stats = {name: {"rouge1": rng.random((101, 3)), "rouge2": rng.integers(0, 50, (101, 3))}
             for name in ("a", "b", "c")}
    whole = rs.paired_test(stats, "b", test=test, n_samples=70)
    monkeypatch.setattr(rs, "BLOCK_ELEMENTS", 7 * 101)
    assert rs.paired_test(stats, "b", test=test, n_samples=70) == whole


@pytest.mark.parametrize("aggregation", ["macro", "micro"])
@pytest.mark.parametrize("test", ["bootstrap", "randomization"])
def test_scores_and_intervals_against_numpy(realsumm_stats, aggregation, test):
    """Scores: exact means (Fractions) or pooled counts; intervals: numpy's percentiles of
    the resamples of numpy's one-shot draw: for randomization, the 1,000 bootstrap indices
    drawn after the 300 x n swaps, as sacrebleu's _paired_ar_test draws its n_ar_confidence
    resamples."""
    stats = {name: realsumm_stats[aggregation][name] for name in list(
        realsumm_stats[aggregation])[:4]}
    names = list(stats)
    n = 100
    result = rs.paired_test(stats, names[1], _score_of(aggregation), test=test,
                            n_samples=500 if test == "bootstrap" else 300, confidence=0.9)
    rng = np.random.default_rng(SEED)
    if test == "randomization":
        rng.integers(2, size=(300, n), dtype=bool)
    idx = rng.choice(n, (500 if test == "bootstrap" else rs.INTERVAL_SAMPLES, n))
    for t in TYPES:
        base = _vector_scores(aggregation, stats[names[1]][t][idx].sum(1), n)
        for name in names:
            rows = stats[name][t]
            score = [float(sum(Fraction(x) for x in col) / n) for col in rows.T] \
                if aggregation == "macro" else _vector_scores(aggregation, rows.sum(0), n)
            samples = _vector_scores(aggregation, rows[idx].sum(1), n)
            low, high = np.percentile(samples, [5, 95], axis=0)
            delta_low, delta_high = np.percentile(samples - base, [5, 95], axis=0)
            for m, measure in enumerate(rs.MEASURES):
                cell = result[name][t][measure]
                assert cell["score"] == pytest.approx(score[m], abs=3e-16)
                assert (cell["low"], cell["high"]) == pytest.approx((low[m], high[m]), abs=1e-14)
                if name == names[1]:
                    assert set(cell) == {"score", "low", "high"}
                    continue
                assert all(type(v) is float for v in cell.values())
                assert (cell["delta_low"], cell["delta_high"]) == pytest.approx(
                    (delta_low[m], delta_high[m]), abs=1e-14)


def test_holm_by_hand():
    # m = 4: sorted 0.005, 0.01, 0.03, 0.04 -> 4 x 0.005, 3 x 0.01, 2 x 0.03, max(0.06, 0.04)
    p = [Fraction(1, 100), Fraction(4, 100), Fraction(3, 100), Fraction(5, 1000)]
    expected = [Fraction(3, 100), Fraction(6, 100), Fraction(6, 100), Fraction(2, 100)]
    assert rs.holm([float(x) for x in p]) == pytest.approx([float(x) for x in expected],
                                                           rel=1e-15)
    # monotone: 3 x 0.2, then max(0.6, 2 x 0.2), then max(0.6, 0.5); capped at 1
    assert rs.holm([0.5, 0.2, 0.2]) == pytest.approx([0.6, 0.6, 0.6], rel=1e-15)
    assert rs.holm([0.6, 0.9]) == [1.0, 1.0]
    assert rs.holm([]) == []
    assert rs.holm([0.3]) == [0.3]
    with pytest.raises(ValueError, match="p_values"):
        rs.holm([0.1, 1.5])


def test_holm_over_the_compared_systems(realsumm_stats):
    stats = realsumm_stats["macro"]
    result = rs.paired_test(stats, "abs/bart/out", n_samples=200)
    others = [s for s in stats if s != "abs/bart/out"]
    for t in TYPES:
        for measure in rs.MEASURES:
            raw = [result[s][t][measure]["p_value"] for s in others]
            m = len(raw)
            order = sorted(range(m), key=raw.__getitem__)
            by_hand, running = [0.0] * m, Fraction(0)
            for rank, i in enumerate(order):
                running = max(running, min(Fraction(1), (m - rank) * Fraction(raw[i])))
                by_hand[i] = float(running)
            assert [result[s][t][measure]["p_value_holm"] for s in others] == \
                pytest.approx(by_hand, rel=1e-15)


@pytest.mark.parametrize("test", ["bootstrap", "randomization"])
def test_identical_system_has_delta_0_and_p_1(realsumm_stats, test):
    base = realsumm_stats["micro"]["abs/bart/out"]
    stats = {"base": base, "copy": {t: a.copy() for t, a in base.items()},
             "other": realsumm_stats["micro"]["ext/banditsumm/out"]}
    result = rs.paired_test(stats, "base", rs.pooled_scores, test=test, n_samples=300)
    for t in TYPES:
        for measure in rs.MEASURES:
            cell = result["copy"][t][measure]
            assert (cell["delta"], cell["delta_low"], cell["delta_high"]) == (0.0, 0.0, 0.0)
            assert cell["p_value"] == 1.0
            assert cell["score"] == result["base"][t][measure]["score"]


def _null_pair(rng, stats_of_type, names):
    """Two pseudo-systems: each row of two real systems, swapped with probability 1/2."""
    a, b = rng.choice(len(names), 2, replace=False)
    first, second = stats_of_type[names[a]], stats_of_type[names[b]]
    swap = rng.integers(2, size=len(first), dtype=bool)[:, None]
    return np.where(swap, first, second), np.where(swap, second, first)


def _rejections(realsumm_stats, test, n_samples, shift=0.0, trials=1000):
    """Share of `trials` null comparisons (rouge1 F, macro) with p < 0.05, and with the
    interval of the difference excluding 0. shift: added to the second system's scores."""
    stats = {name: s["rouge1"] for name, s in realsumm_stats["macro"].items()}
    names = sorted(stats)
    rng = np.random.default_rng(2024)
    by_p = by_interval = 0
    for _ in range(trials):
        first, second = _null_pair(rng, stats, names)
        cell = rs.paired_test({"x": {"r1": first}, "y": {"r1": second + shift}}, "x",
                              test=test, n_samples=n_samples,
                              seed=int(rng.integers(1 << 31)))["y"]["r1"]["fmeasure"]
        by_p += cell["p_value"] < 0.05
        by_interval += not cell["delta_low"] <= 0.0 <= cell["delta_high"]
    return by_p / trials, by_interval / trials


def _sacrebleu_bootstrap_rate_under_normal_model(trials=4000, n_samples=1000):
    """The rejection rate of sacrebleu's bootstrap p-value at 0.05 when the observed
    difference is N(0, 1) and the resampled ones N(observed, 1) (the bootstrap's normal
    limit): |d_i| - mean |d_i| spreads less than d_i - d when d is near 0, so it rejects
    about twice as often as it should (~0.107)."""
    rng = np.random.default_rng(7)
    observed = rng.normal(size=trials)
    resampled = rng.normal(observed[:, None], 1.0, (trials, n_samples))
    gaps = np.abs(resampled)
    exceed = (gaps - gaps.mean(axis=1, keepdims=True) > np.abs(observed)[:, None]).sum(axis=1)
    return float(np.mean((exceed + 1) / (n_samples + 1) < 0.05))


def test_calibration_under_the_null(realsumm_stats):
    # randomization: 1,000 comparisons x 500 trials; bootstrap: 1,000 x 200 resamples
    # (small counts keep this test at a few seconds; p's resolution is still 1/201)
    ar_p, ar_interval = _rejections(realsumm_stats, "randomization", 500)
    bs_p, bs_interval = _rejections(realsumm_stats, "bootstrap", 200)
    model = _sacrebleu_bootstrap_rate_under_normal_model()
    print(f"null rejection at 0.05: randomization p {ar_p:.3f}; bootstrap interval "
          f"{bs_interval:.3f}, bootstrap p (sacrebleu's) {bs_p:.3f} (normal model {model:.3f})")
    assert 0.035 <= ar_p <= 0.065
    assert 0.035 <= bs_interval <= 0.065
    # sacrebleu's bootstrap p-value (Moses' shift of the absolute differences) is
    # anti-conservative; ours must reproduce it, so it rejects as the normal model predicts
    assert 0.09 <= model <= 0.125
    assert abs(bs_p - model) <= 0.03


def test_power_on_a_planted_difference(realsumm_stats):
    # +0.02 on every example's rouge1 (P, R, F): about one standard error of the difference
    ar_p, _ = _rejections(realsumm_stats, "randomization", 500, shift=0.02, trials=300)
    bs_p, bs_interval = _rejections(realsumm_stats, "bootstrap", 200, shift=0.02, trials=300)
    print(f"power at 0.05, planted +0.02 F: randomization {ar_p:.3f}, bootstrap p {bs_p:.3f}, "
          f"bootstrap interval {bs_interval:.3f}")
    assert min(ar_p, bs_p, bs_interval) >= 0.3


@pytest.mark.parametrize("aggregation", ["macro", "micro"])
def test_interval_of_the_difference_covers(realsumm_stats, aggregation):
    """realsumm's 100 rows as the population: test sets of 100 rows drawn from it; the 95%
    interval of the difference must cover the population's difference 93-97% of the time."""
    stats = {name: s["rouge1"] for name, s in realsumm_stats[aggregation].items()}
    names = sorted(stats)
    score_of = _score_of(aggregation)
    rng = np.random.default_rng(11)
    draws, covered = 800, 0
    for _ in range(draws):
        a, b = rng.choice(len(names), 2, replace=False)
        first, second = stats[names[a]], stats[names[b]]
        truth = (score_of(second.sum(0), 100) - score_of(first.sum(0), 100))[2]
        rows = rng.integers(100, size=100)
        cell = rs.paired_test({"x": {"r1": first[rows]}, "y": {"r1": second[rows]}}, "x",
                              score_of, n_samples=400,
                              seed=int(rng.integers(1 << 31)))["y"]["r1"]["fmeasure"]
        covered += cell["delta_low"] <= truth <= cell["delta_high"]
    print(f"{aggregation} coverage of the population difference: {covered / draws:.3f}")
    assert 0.93 <= covered / draws <= 0.97


def test_defaults():
    rng = np.random.default_rng(0)
    stats = {"a": {"r": rng.random((20, 3))}, "b": {"r": rng.random((20, 3))}}
    assert rs.paired_test(stats, "a") == rs.paired_test(stats, "a", n_samples=1000, seed=SEED)
    assert rs.paired_test(stats, "a", test="randomization") == \
        rs.paired_test(stats, "a", test="randomization", n_samples=10000, seed=SEED)
    p = rs.paired_test(stats, "a", n_samples=9)["b"]["r"]["fmeasure"]["p_value"]
    assert math.isclose(p * 10, round(p * 10))  # (c + 1) / (9 + 1)


@pytest.mark.parametrize("call, argument", [
    (lambda s: rs.paired_test({"a": s["a"], "b": {"r": s["b"]["r"][:-1]}}, "a"), "stats"),
    (lambda s: rs.paired_test({"a": s["a"]}, "a"), "stats"),
    (lambda s: rs.paired_test({}, "a"), "stats"),
    (lambda s: rs.paired_test(s, "zz"), "baseline"),
    (lambda s: rs.paired_test(s, None), "baseline"),
    (lambda s: rs.paired_test({"a": s["a"], 3: s["b"]}, "a"), "stats"),
    (lambda s: rs.paired_test({"a": s["a"], "b": {"other": s["b"]["r"]}}, "a"), "stats"),
    (lambda s: rs.paired_test({"a": s["a"], "b": {"r": s["b"]["r"][:, :2]}}, "a"), "stats"),
    (lambda s: rs.paired_test({"a": s["a"], "b": {"r": np.full((9, 3), np.nan)}}, "a"),
     "stats"),
    (lambda s: rs.paired_test({"a": s["a"], "b": {"r": [1, 2]}}, "a"), "stats"),
    (lambda s: rs.paired_test({"a": {"r": np.zeros((0, 3))}, "b": {"r": np.zeros((0, 3))}},
                              "a"), "stats"),
    (lambda s: rs.paired_test(s, "a", n_samples=0), "n_samples"),
    (lambda s: rs.paired_test(s, "a", n_samples=2.5), "n_samples"),
    (lambda s: rs.paired_test(s, "a", n_samples=True), "n_samples"),
    (lambda s: rs.paired_test(s, "a", confidence=1.0), "confidence"),
    (lambda s: rs.paired_test(s, "a", confidence=0), "confidence"),
    (lambda s: rs.paired_test(s, "a", confidence=float("nan")), "confidence"),
    (lambda s: rs.paired_test(s, "a", test="bs"), "test"),
    (lambda s: rs.paired_test(s, "a", seed=-1), "seed"),
    (lambda s: rs.paired_test(s, "a", seed="1"), "seed"),
    (lambda s: rs.paired_test(s, "a", lambda sums, n: sums[..., :2]), "score_of"),
])
def test_bad_input_names_the_argument(call, argument):
    rng = np.random.default_rng(0)
    stats = {"a": {"r": rng.random((9, 3))}, "b": {"r": rng.random((9, 3))}}
    with pytest.raises(ValueError, match=rf"^{argument}\b"):
        call(stats)


def test_format_comparison_by_hand():
    cell = {"score": 0.5, "low": 0.25, "high": 0.75}
    result = {
        "base": {"rouge1": {m: dict(cell) for m in rs.MEASURES}},
        "new": {"rouge1": {m: dict(cell, score=0.625, delta=0.125, delta_low=-0.0625,
                                  delta_high=0.3125, p_value=0.01, p_value_holm=0.5)
                           for m in rs.MEASURES}},
        "signature": "test:bootstrap",
    }
    assert rs.format_comparison(result) == "\n".join([
        "rouge1 F-measure x 100, 95% percentile intervals",
        "+----------------+----------------------+------------------------+---------+---------+",
        "|         System |    Score [95% CI]    |     Delta [95% CI]     |    p    |  Holm p |",
        "+================+======================+========================+=========+=========+",
        "| Baseline: base | 50.00 [25.00, 75.00] |                        |         |         |",
        "+----------------+----------------------+------------------------+---------+---------+",
        "|            new | 62.50 [25.00, 75.00] | +12.50 [-6.25, +31.25] | 0.0100* | 0.5000  |",
        "+----------------+----------------------+------------------------+---------+---------+",
        "* p < 0.05",
        "signature: test:bootstrap",
    ])
    with pytest.raises(ValueError, match="^measure"):
        rs.format_comparison(result, measure="f1")
