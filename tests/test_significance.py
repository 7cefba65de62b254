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
from conftest import needed  # (an optional test package: a skip with its reason outside CI)
rouge_scorer = needed("rouge_score.rouge_scorer")
scoring = needed("rouge_score.scoring")
significance = needed("sacrebleu.significance")

from rouge_exact import significance as rs
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
    return load_realsumm_stats()


def load_realsumm_stats() -> dict:
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
    recomputed here in float64 with numpy's one-shot draws (as sacrebleu draws them), how far
    sacrebleu's float32 sums move those statistics (bootstrap; 0 otherwise), and how many
    randomization trials equal the observed one in float64 (exact for counts; 0 for the
    bootstrap)."""
    n = len(baseline_stats)
    rng = np.random.default_rng(SEED)
    observed = abs(_vector_scores(aggregation, system_stats.sum(0), n)
                   - _vector_scores(aggregation, baseline_stats.sum(0), n))
    if test == "sacrebleu-bootstrap":
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
        ties = np.zeros(3, dtype=int)
    else:
        swap = rng.integers(2, size=(n_samples, n), dtype=bool)
        first = swap @ baseline_stats + ~swap @ system_stats
        second = ~swap @ baseline_stats + swap @ system_stats
        exact = np.abs(_vector_scores(aggregation, first, n)
                       - _vector_scores(aggregation, second, n))
        moved = np.zeros(3)
        ties = (exact == observed).sum(axis=0)
    return np.abs(exact - observed).min(axis=0), moved, ties


# How far sacrebleu's arithmetic may move a test statistic. Its bootstrap sums float32
# copies of the statistics: a macro score (mean of 100 float32 values) moves by some
# 1e-7, which the test checks (the largest seen on realsumm is 4.9e-7); micro counts are
# integers below 2^24, exact in float32. Its randomization sums float64 values with BLAS:
# exact for counts, < 1e-13 for macro scores.
_RESOLUTION = {("macro", "sacrebleu-bootstrap"): 2.0 ** -20,
               ("macro", "sacrebleu-randomization"): 1e-12, ("macro", "randomization"): 1e-12,
               ("micro", "sacrebleu-bootstrap"): 0.0, ("micro", "sacrebleu-randomization"): 0.0,
               ("micro", "randomization"): 0.0}
# sacrebleu calls its score function once per sample in Python: 1,000 randomization trials
# (not its default 10,000) keep the 2 x 3 x 34 x 12 comparisons at ~10 s each; the code
# paths are the same for any number.
_SACREBLEU_SAMPLES = {"sacrebleu-bootstrap": 1000, "sacrebleu-randomization": 1000,
                      "randomization": 1000}
# what each of ours is compared with: sacrebleu's own function
SACREBLEU_FUNCTIONS = {"sacrebleu-bootstrap": significance._paired_bs_test,
                       "sacrebleu-randomization": significance._paired_ar_test,
                       "randomization": significance._paired_ar_test}


@pytest.mark.parametrize("aggregation", ["macro", "micro"])
@pytest.mark.parametrize("test", ["sacrebleu-bootstrap", "sacrebleu-randomization",
                                  "randomization"])
@pytest.mark.slow
def test_p_values_equal_sacrebleus(realsumm_stats, aggregation, test):
    """sacrebleu's two rules give sacrebleu's p-values, ties included (micro: exact sums on
    both sides). The default randomization draws sacrebleu's trials and counts the ties,
    which sacrebleu leaves out: its p is sacrebleu's where no trial ties the observed
    difference, and (micro) sacrebleu's count plus the trials that tie where some do (micro
    recall: both systems share the reference units, so a trial's difference is a signed sum
    of integer hit differences, which often repeats the observed one). Macro p-values within
    float resolution of a tie are counted, not compared."""
    stats = realsumm_stats[aggregation]
    systems = list(stats)
    baseline = systems[0]
    n = len(stats[baseline]["rouge1"])
    n_samples = _SACREBLEU_SAMPLES[test]
    ours = rs.paired_test(stats, baseline, _score_of(aggregation), test=test,
                          n_samples=n_samples, seed=SEED)
    metrics = {(t, m): _ShimMetric(aggregation, m, n) for t in TYPES for m in range(3)}
    sacrebleu_test = SACREBLEU_FUNCTIONS[test]
    baseline_info = {key: (stats[baseline][key[0]],
                           significance.Result(metric._aggregate_and_compute(
                               stats[baseline][key[0]]).score))
                     for key, metric in metrics.items()}
    compared = near = tied = 0
    for system in systems[1:]:
        for t in TYPES:
            # one call per type: sacrebleu's hypotheses are the rows of one statistics matrix
            type_metrics = {key: metric for key, metric in metrics.items() if key[0] == t}
            _, theirs = sacrebleu_test(baseline_info, system, stats[system][t], None,
                                       type_metrics, n_samples=n_samples, seed=SEED)
            margins, moved, ties = _threshold_margins(aggregation, test, stats[baseline][t],
                                                      stats[system][t], n_samples)
            assert (moved <= _RESOLUTION[(aggregation, test)]).all()
            for m, measure in enumerate(rs.MEASURES):
                ours_cell = ours[system][t][measure]
                assert ours_cell["score"] == pytest.approx(theirs[(t, m)].score, abs=1e-12)
                # exact arithmetic on both sides (resolution 0): ties are compared too
                resolution = _RESOLUTION[(aggregation, test)]
                if margins[m] < resolution or (test == "randomization" and resolution > 0
                                               and margins[m] <= resolution):
                    near += 1
                    continue
                compared += 1
                expected = theirs[(t, m)].p_value
                if test == "randomization" and ties[m]:
                    # micro: sacrebleu's count (c + 1 = its p x (B + 1)) and the trials that
                    # tie the observed difference, counted above in exact float64 sums
                    tied += 1
                    expected = (round(expected * (n_samples + 1)) + ties[m]) / (n_samples + 1)
                assert ours_cell["p_value"] == expected, (system, t, measure)
    total = (len(systems) - 1) * len(TYPES) * 3
    print(f"{aggregation} {test}: {compared} of {total} p-values equal sacrebleu's"
          + (f" ({tied} of them plus the trials that tie)" if test == "randomization" else "")
          + f", {near} within float resolution of the threshold")
    assert compared + near == total and near <= total // 20


# our exact sums against numpy's float64 sums: macro scores differ in their last bits
_PLAIN_RESOLUTION = {"macro": 1e-12, "micro": 0.0}


@pytest.mark.parametrize("aggregation", ["macro", "micro"])
@pytest.mark.slow
def test_centred_bootstrap_equals_a_plain_reimplementation(realsumm_stats, aggregation):
    """test="bootstrap": p = (1 + #{|D* - mean D*| >= |D|}) / (B + 1), recomputed in numpy
    from rouge_score's per-example statistics and the documented one-shot draw
    default_rng(seed).choice(n, (B, n)); 34 systems against the first, 4 types x 3 measures.
    A p-value whose threshold lies within float resolution of a resampled statistic is
    counted, not compared (micro: none, the sums are exact on both sides)."""
    stats = realsumm_stats[aggregation]
    systems = list(stats)
    n, samples = 100, 1000
    ours = rs.paired_test(stats, systems[0], _score_of(aggregation), test="bootstrap",
                          n_samples=samples, seed=SEED)
    idx = np.random.default_rng(SEED).choice(n, (samples, n))
    compared = near = 0
    for t in TYPES:
        base = stats[systems[0]][t]
        base_score = _vector_scores(aggregation, base.sum(0), n)
        base_samples = _vector_scores(aggregation, base[idx].sum(1), n)
        for system in systems[1:]:
            rows = stats[system][t]
            observed = np.abs(_vector_scores(aggregation, rows.sum(0), n) - base_score)
            deltas = _vector_scores(aggregation, rows[idx].sum(1), n) - base_samples
            gaps = np.abs(deltas - deltas.mean(axis=0))
            p = (1 + (gaps >= observed).sum(axis=0)) / (samples + 1)
            margins = np.abs(gaps - observed).min(axis=0)
            for m, measure in enumerate(rs.MEASURES):
                if margins[m] < _PLAIN_RESOLUTION[aggregation]:
                    near += 1
                    continue
                compared += 1
                assert ours[system][t][measure]["p_value"] == p[m], (system, t, measure)
    total = (len(systems) - 1) * len(TYPES) * 3
    print(f"{aggregation}: {compared} of {total} centred-bootstrap p-values equal, {near} "
          f"within float resolution of the threshold")
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


@pytest.mark.parametrize("test", rs.TESTS)
def test_results_do_not_depend_on_blocks(test, monkeypatch):
    rng = np.random.default_rng(3)
    stats = {name: {"rouge1": rng.random((101, 3)), "rouge2": rng.integers(0, 50, (101, 3))}
             for name in ("a", "b", "c")}
    whole = rs.paired_test(stats, "b", test=test, n_samples=70)
    monkeypatch.setattr(rs, "BLOCK_ELEMENTS", 7 * 101)
    assert rs.paired_test(stats, "b", test=test, n_samples=70) == whole


@pytest.mark.parametrize("aggregation", ["macro", "micro"])
@pytest.mark.parametrize("test", rs.TESTS)
def test_scores_and_intervals_against_numpy(realsumm_stats, aggregation, test):
    """Scores: exact means (Fractions) or pooled counts; intervals: numpy's percentiles of
    the resamples of numpy's one-shot draw: for randomization, the 1,000 bootstrap indices
    drawn after the 300 x n swaps, as sacrebleu's _paired_ar_test draws its n_ar_confidence
    resamples. Family-wise: 3 systems against the baseline, so percentiles 5/3 and
    100 - 5/3 at confidence 0.9 (Bonferroni)."""
    stats = {name: realsumm_stats[aggregation][name] for name in list(
        realsumm_stats[aggregation])[:4]}
    names = list(stats)
    n = 100
    bootstraps = test not in rs.RANDOMIZATION_TESTS
    result = rs.paired_test(stats, names[1], _score_of(aggregation), test=test,
                            n_samples=500 if bootstraps else 300, confidence=0.9)
    rng = np.random.default_rng(SEED)
    if not bootstraps:
        rng.integers(2, size=(300, n), dtype=bool)
    idx = rng.choice(n, (500 if bootstraps else rs.INTERVAL_SAMPLES, n))
    for t in TYPES:
        base = _vector_scores(aggregation, stats[names[1]][t][idx].sum(1), n)
        for name in names:
            rows = stats[name][t]
            score = [float(sum(Fraction(x) for x in col) / n) for col in rows.T] \
                if aggregation == "macro" else _vector_scores(aggregation, rows.sum(0), n)
            samples = _vector_scores(aggregation, rows[idx].sum(1), n)
            low, high = np.percentile(samples, [5, 95], axis=0)
            delta_low, delta_high = np.percentile(samples - base, [5, 95], axis=0)
            family = np.percentile(samples - base, [5 / 3, 100 - 5 / 3], axis=0)
            for m, measure in enumerate(rs.MEASURES):
                cell = result[name][t][measure]
                assert cell["score"] == pytest.approx(score[m], abs=3e-16)
                assert (cell["low"], cell["high"]) == pytest.approx((low[m], high[m]), abs=1e-14)
                if name == names[1]:
                    assert set(cell) == {"score", "low", "high"}
                    continue
                assert all(type(v) is float for k, v in cell.items()
                           if k not in ("decision", "verdict", "documents_differing",
                                        "documents_needed"))
                assert type(cell["documents_differing"]) is int
                assert type(cell["documents_needed"]) is int
                assert (cell["delta_low"], cell["delta_high"]) == pytest.approx(
                    (delta_low[m], delta_high[m]), abs=1e-14)
                assert (cell["delta_low_familywise"], cell["delta_high_familywise"]) == \
                    pytest.approx((family[0][m], family[1][m]), abs=1e-14)


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


@pytest.mark.parametrize("test", rs.TESTS)
def test_identical_system_has_delta_0_and_p_1(realsumm_stats, test):
    base = realsumm_stats["micro"]["abs/bart/out"]
    stats = {"base": base, "copy": {t: a.copy() for t, a in base.items()},
             "other": realsumm_stats["micro"]["ext/banditsumm/out"]}
    result = rs.paired_test(stats, "base", rs.pooled_scores, test=test, n_samples=300)
    for t in TYPES:
        for measure in rs.MEASURES:
            cell = result["copy"][t][measure]
            assert (cell["delta"], cell["delta_low"], cell["delta_high"],
                    cell["delta_low_familywise"], cell["delta_high_familywise"]) == (0.0,) * 5
            assert cell["p_value"] == 1.0
            assert cell["decision"] == "no significant difference"
            assert cell["score"] == result["base"][t][measure]["score"]


# Simulations. Each null (or planted difference) is a pair of float64[n, 3] statistics; the
# nulls of a chunk go through ONE paired_test call as its "rouge types" (each type is tested
# on its own columns, so this is the same as one call per pair), sharing that call's draws.


def null_pairs(rng, stats_of_type: dict, count: int) -> tuple:
    """count true nulls: two real systems picked at random, each row swapped between them
    with probability 1/2 (the two are then exchangeable). -> (first, second), each
    float64[count, n, k]."""
    names = sorted(stats_of_type)
    firsts, seconds = [], []
    for _ in range(count):
        a, c = rng.choice(len(names), 2, replace=False)
        x, y = stats_of_type[names[a]], stats_of_type[names[c]]
        swap = rng.integers(2, size=len(x), dtype=bool)[:, None]
        firsts.append(np.where(swap, x, y))
        seconds.append(np.where(swap, y, x))
    return np.stack(firsts), np.stack(seconds)


def degraded_pairs(rng, stats_of_type: dict, count: int, points: float, score_of) -> tuple:
    """count (system, degraded copy) pairs: a real system A, and A with each row replaced,
    with probability q, by the row of a real system C whose F is at least 4 points lower;
    q = points / (F(A) - F(C)) x 100, so the copy's F is lower by `points` in expectation
    (macro: exactly; micro: to first order). -> (first, second) float64[count, n, k]."""
    names = sorted(stats_of_type)
    n = len(stats_of_type[names[0]])
    f = {name: score_of(stats_of_type[name].sum(0), n)[2] for name in names}
    pairs = [(a, c) for a in names for c in names if f[a] - f[c] >= 0.04]
    firsts, seconds = [], []
    for _ in range(count):
        a, c = pairs[rng.integers(len(pairs))]
        replaced = (rng.random(n) < points / 100 / (f[a] - f[c]))[:, None]
        firsts.append(stats_of_type[a])
        seconds.append(np.where(replaced, stats_of_type[c], stats_of_type[a]))
    return np.stack(firsts), np.stack(seconds)


def batched_p_values(first, second, score_of, test: str, n_samples: int, seed: int,
                     chunk: int = 100, confidence: float = 0.95,
                     field: str = "p_value") -> np.ndarray:
    """paired_test's raw p of F (or another field of F's cell: "decision"), second against
    first, for each pair; chunk pairs per call, the call's seed = seed + index of its first
    pair."""
    out = []
    for start in range(0, len(first), chunk):
        keys = [str(i) for i in range(start, min(start + chunk, len(first)))]
        stats = {"x": {key: first[int(key)] for key in keys},
                 "y": {key: second[int(key)] for key in keys}}
        result = rs.paired_test(stats, "x", score_of, test=test, n_samples=n_samples,
                                seed=seed + start, confidence=confidence)
        out += [result["y"][key]["fmeasure"][field] for key in keys]
    return np.array(out)


def _plain_p_values(first, second, aggregation: str, test: str, n_samples: int,
                    seed: int) -> np.ndarray:
    """The four rules from scratch, in float64 numpy, on the documented one-shot draws
    (shared by all pairs): F's p of second against first for each pair."""
    pairs, n, _ = first.shape
    rng = np.random.default_rng(seed)

    def f(sums):
        return _vector_scores(aggregation, sums, n)[..., 2]

    observed = np.abs(f(second.sum(1)) - f(first.sum(1)))

    def weighted(weights, stats):
        """[t, n] weights x [pairs, n, k] rows -> [t, pairs, k] sums (one matrix product)."""
        return (weights @ stats.transpose(1, 0, 2).reshape(n, -1)).reshape(len(weights),
                                                                           pairs, -1)

    if test in ("randomization", "sacrebleu-randomization"):
        swap = rng.integers(2, size=(n_samples, n), dtype=bool).astype(float)
        # sacrebleu's pseudo-systems: a takes first's row where swap is 1, b the rest
        a = weighted(swap, first) + weighted(1 - swap, second)
        b = weighted(1 - swap, first) + weighted(swap, second)
        gaps = np.abs(f(a) - f(b))
        # Noreen's count (ties count), or sacrebleu's (they do not)
        exceed = gaps >= observed if test == "randomization" else gaps > observed
    else:
        idx = rng.choice(n, (n_samples, n))
        counts = np.stack([np.bincount(row, minlength=n) for row in idx]).astype(float)
        deltas = f(weighted(counts, second)) - f(weighted(counts, first))
        if test == "bootstrap":
            exceed = np.abs(deltas - deltas.mean(axis=0)) >= observed
        else:
            exceed = np.abs(deltas) - np.abs(deltas).mean(axis=0) > observed
    return (1 + exceed.sum(axis=0)) / (n_samples + 1)


def _normal_model_rates(trials=4000, n_samples=1000) -> tuple:
    """Rejection rates at 0.05 of the centred rule and of sacrebleu's when the observed
    difference is N(0, 1) and the resampled ones N(observed, 1) (the bootstrap's normal
    limit under the null): the centred rule rejects where |D| > 1.96, sacrebleu's where
    |D| - E|D*| > |D*| - E|D*| for only 5% of the resamples, about |D| > 1.645."""
    rng = np.random.default_rng(7)
    observed = np.abs(rng.normal(size=trials))[:, None]
    resampled = rng.normal(observed, 1.0, (trials, n_samples))
    centred = (np.abs(resampled - resampled.mean(axis=1, keepdims=True)) >= observed).sum(1)
    gaps = np.abs(resampled)
    moses = (gaps - gaps.mean(axis=1, keepdims=True) > observed).sum(axis=1)
    return tuple(float(np.mean((c + 1) / (n_samples + 1) < 0.05)) for c in (centred, moses))


# 1,000 nulls per aggregation (the issue asks for >= 300): a rate's standard deviation is
# then 0.0069 at 0.05 and 0.0097 at 0.105, so [0.025, 0.075] is 3.6 of them around 0.05 and
# [0.075, 0.135] 3 around sacrebleu's rule's 0.105 (the normal model above; 0.101-0.114 in
# the measurements of issue 26).
NULLS = 1000
CALIBRATED = (0.025, 0.075)
SACREBLEU_RULE = (0.075, 0.135)


@pytest.mark.parametrize("aggregation", ["macro", "micro"])
@pytest.mark.slow
def test_calibration_under_the_null(realsumm_stats, aggregation):
    """True nulls from realsumm (rouge1, swapped rows): the default test, the centred
    bootstrap and both randomization rules reject near 0.05 (nearly every document differs,
    so trials do not tie); sacrebleu's bootstrap rule near 0.105. The same nulls through a
    plain reimplementation of each rule give the same rejections."""
    stats = {name: s["rouge1"] for name, s in realsumm_stats[aggregation].items()}
    first, second = null_pairs(np.random.default_rng(2024), stats, NULLS)
    assert rs.DEFAULT_TEST in ("bootstrap", "randomization")
    rates = {}
    for test in rs.TESTS:
        # 1,000 samples or trials: p's resolution is 1/1001
        ours = batched_p_values(first, second, _score_of(aggregation), test, 1000, seed=5)
        plain = np.concatenate([_plain_p_values(first[i:i + 100], second[i:i + 100],
                                                aggregation, test, 1000, seed=5 + i)
                                for i in range(0, NULLS, 100)])
        # exact sums (micro) or within float resolution (macro) of the plain rule: the same
        # decisions at 0.05
        assert ((ours < 0.05) == (plain < 0.05)).mean() >= (1.0 if aggregation == "micro"
                                                             else 0.998)
        rates[test] = float(np.mean(ours < 0.05))
    print(f"{aggregation}: rejection at 0.05 of {NULLS} realsumm nulls: {rates}")
    for test in ("bootstrap", "randomization", "sacrebleu-randomization", rs.DEFAULT_TEST):
        assert CALIBRATED[0] <= rates[test] <= CALIBRATED[1], test
    assert SACREBLEU_RULE[0] <= rates["sacrebleu-bootstrap"] <= SACREBLEU_RULE[1]


def test_calibration_in_the_normal_model():
    centred, moses = _normal_model_rates()
    print(f"normal model, 4,000 nulls: centred {centred:.4f}, sacrebleu's rule {moses:.4f}")
    # sd 0.0034 at 0.05 and 0.0048 at 0.105 over 4,000
    assert 0.04 <= centred <= 0.06
    assert 0.09 <= moses <= 0.12


def test_power_against_a_degraded_copy(realsumm_stats):
    """A system against a copy of itself 2 rouge1 F points worse (rows of a weaker system
    in place of some of its own), macro: the calibrated tests find it most of the time."""
    stats = {name: s["rouge1"] for name, s in realsumm_stats["macro"].items()}
    first, second = degraded_pairs(np.random.default_rng(3), stats, 300, 2.0, rs.mean_scores)
    power = {test: float(np.mean(batched_p_values(first, second, rs.mean_scores, test, 1000,
                                                  seed=9) < 0.05))
             for test in ("bootstrap", "randomization")}
    gaps = 100 * (first[:, :, 2].mean(1) - second[:, :, 2].mean(1))
    print(f"power at 0.05, 300 degraded copies (median gap {np.median(gaps):.2f} points): "
          f"{power}")
    assert 1.5 <= np.median(gaps) <= 2.5
    assert min(power.values()) >= 0.5


@pytest.mark.parametrize("aggregation", ["macro", "micro"])
@pytest.mark.slow
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
                              score_of, test="bootstrap", n_samples=400,
                              seed=int(rng.integers(1 << 31)))["y"]["r1"]["fmeasure"]
        covered += cell["delta_low"] <= truth <= cell["delta_high"]
    print(f"{aggregation} coverage of the population difference: {covered / draws:.3f}")
    assert 0.93 <= covered / draws <= 0.97


def test_defaults():
    rng = np.random.default_rng(0)
    stats = {"a": {"r": rng.random((20, 3))}, "b": {"r": rng.random((20, 3))}}
    assert rs.DEFAULT_TEST == "randomization" and rs.DEFAULT_TEST in rs.TESTS
    assert set(rs.DEFAULT_SAMPLES) == set(rs.TESTS) == set(rs.TEST_NAMES)
    assert rs.paired_test(stats, "a") == \
        rs.paired_test(stats, "a", test="randomization", n_samples=10000, seed=SEED)
    for test in ("bootstrap", "sacrebleu-bootstrap"):
        assert rs.paired_test(stats, "a", test=test) == \
            rs.paired_test(stats, "a", test=test, n_samples=1000, seed=SEED)
    assert rs.paired_test(stats, "a", test="sacrebleu-randomization") == \
        rs.paired_test(stats, "a", test="sacrebleu-randomization", n_samples=10000, seed=SEED)
    assert rs.DECISIONS == ("better", "worse", "no significant difference",
                            "too few documents") and rs.TOO_FEW == rs.DECISIONS[-1]
    p = rs.paired_test(stats, "a", n_samples=9)["b"]["r"]["fmeasure"]["p_value"]
    assert math.isclose(p * 10, round(p * 10))  # (c + 1) / (9 + 1)


def test_small_case_by_hand():
    """Baseline 0 on 4 rows, a = (0, 4, 8, 16)/16, c = (4, 0, 0, 0)/16, 5 bootstrap
    resamples (the documented draw below), confidence 0.9, m = 2 comparisons.
    Resampled means, in sixteenths: a 7, 8, 10, 4, 8 (sorted 4, 7, 8, 8, 10); c 1, 1, 0, 2, 1
    (sorted 0, 1, 1, 1, 2). numpy's linear percentile of 5 values sits at q/100 x 4:
    per comparison (5%, 95%) at 0.2 and 3.8, family-wise (Bonferroni: 2.5%, 97.5%) at 0.1
    and 3.9. a: [4 + 0.2 x 3, 8 + 0.8 x 2] = [4.6, 9.6], family-wise [4.3, 9.8]; c: [0.2,
    1.8], family-wise [0.1, 1.9].
    Centred p: a observes 7, |D* - 7.4| = 0.4, 0.6, 2.6, 3.4, 0.6, none >= 7: p = 1/6; c
    observes 1, |D* - 1| = 0, 0, 1, 1, 0, two >= 1 (ties count): p = 3/6. Holm over the two:
    min(1, 2 x 1/6) = 1/3, then max(1/3, 1/2) = 1/2. sacrebleu's rule: |D*| - mean |D*| > |D|
    never holds, p = 1/6 for both."""
    draws = [[2, 0, 3, 1], [0, 3, 2, 2], [3, 1, 3, 1], [2, 2, 0, 0], [0, 2, 2, 3]]
    assert np.random.default_rng(SEED).choice(4, (5, 4)).tolist() == draws

    def rows(*sixteenths):
        return np.repeat(np.array(sixteenths, dtype=float)[:, None] / 16, 3, axis=1)

    stats = {"base": {"r": rows(0, 0, 0, 0)}, "a": {"r": rows(0, 4, 8, 16)},
             "c": {"r": rows(4, 0, 0, 0)}}
    result = rs.paired_test(stats, "base", test="bootstrap", n_samples=5, seed=SEED,
                            confidence=0.9)
    expected = {"a": (7, 4.6, 9.6, 4.3, 9.8, 1 / 6, 1 / 3), "c": (1, 0.2, 1.8, 0.1, 1.9, 0.5, 0.5)}
    for name, (delta, low, high, fw_low, fw_high, p, p_holm) in expected.items():
        for measure in rs.MEASURES:
            cell = result[name]["r"][measure]
            got = [cell[k] for k in ("delta", "delta_low", "delta_high", "delta_low_familywise",
                                     "delta_high_familywise", "p_value", "p_value_holm")]
            assert got == pytest.approx([delta / 16, low / 16, high / 16, fw_low / 16,
                                         fw_high / 16, p, p_holm], rel=1e-12)
            assert cell["decision"] == "no significant difference"  # Holm p >= 0.1
    moses = rs.paired_test(stats, "base", test="sacrebleu-bootstrap", n_samples=5, seed=SEED,
                           confidence=0.9)
    assert [moses[s]["r"]["fmeasure"]["p_value"] for s in ("a", "c")] == [1 / 6, 1 / 6]


def _cell(**changes) -> dict:
    cell = dict(score=0.625, low=0.5, high=0.75, delta=0.125, delta_low=0.0625,
                delta_high=0.25, delta_low_familywise=-0.03125, delta_high_familywise=0.28125,
                p_value=0.01, p_value_holm=0.04)
    return dict(cell, **changes)


def test_decision_and_verdict():
    assert rs.decision(_cell()) == "better"
    assert rs.decision(_cell(delta=-0.125)) == "worse"
    # the level is 1 - confidence, strictly: p = 0.05 is not below 0.05 (1 - 0.95 is
    # 0.050000000000000044 in float64)
    assert rs.decision(_cell(p_value_holm=0.05)) == "no significant difference"
    assert rs.decision(_cell(p_value_holm=0.05), confidence=0.9) == "better"
    assert rs.decision(_cell(p_value_holm=0.0, delta=0.0)) == "no significant difference"
    # too few documents: 0 < differing < needed, whatever p is; none differ: not too few
    assert rs.decision(_cell(documents_differing=5, documents_needed=6)) == "too few documents"
    assert rs.decision(_cell(documents_differing=5, documents_needed=6, p_value_holm=0.9)) \
        == "too few documents"
    assert rs.decision(_cell(documents_differing=6, documents_needed=6)) == "better"
    assert rs.decision(_cell(documents_differing=0, documents_needed=6, delta=0.0,
                             p_value_holm=1.0)) == "no significant difference"
    kwargs = dict(system="t5", baseline="bart", rouge_type="rouge1", measure="fmeasure",
                  test="randomization", confidence=0.95, comparisons=2)
    # Holm significant, but the Bonferroni interval [-3.125, +28.125] holds 0: said so
    assert rs.verdict(_cell(), **kwargs) == (
        "t5: better than bart on rouge1 F-measure: +12.50 points (95% family-wise CI "
        "[-3.12, +28.12]; approximate randomization, Holm p = 0.0400 over 2 comparisons); "
        "borderline: the interval and the test disagree")
    assert rs.verdict(_cell(delta_low_familywise=0.03125, p_value_holm=0.5),
                      **dict(kwargs, test="bootstrap", comparisons=1)) == (
        "t5: no significant difference from bart on rouge1 F-measure: +12.50 points (95% "
        "family-wise CI [+3.12, +28.12]; centred paired bootstrap, Holm p = 0.5000 over 1 "
        "comparison); borderline: the interval and the test disagree")
    assert rs.verdict(_cell(delta=-0.125, delta_low_familywise=-0.25,
                            delta_high_familywise=-0.0625),
                      **dict(kwargs, test="sacrebleu-bootstrap", measure="recall")) == (
        "t5: worse than bart on rouge1 recall: -12.50 points (95% family-wise CI "
        "[-25.00, -6.25]; sacrebleu's paired bootstrap (not calibrated), Holm p = 0.0400 "
        "over 2 comparisons)")
    # too few documents: how many differ, how many the test needs; no 'borderline' note
    few = _cell(documents_differing=3, documents_needed=6)
    assert rs.verdict(few, **kwargs) == (
        "t5: too few documents to compare with bart on rouge1 F-measure: +12.50 points (95% "
        "family-wise CI [-3.12, +28.12]; approximate randomization, Holm p = 0.0400 over 2 "
        "comparisons); 3 documents differ from bart's, and at 0.05 approximate randomization "
        "needs 6")
    assert rs.verdict(_cell(documents_differing=1, documents_needed=8),
                      **dict(kwargs, test="sacrebleu-randomization", confidence=0.99)) == (
        "t5: too few documents to compare with bart on rouge1 F-measure: +12.50 points (99% "
        "family-wise CI [-3.12, +28.12]; sacrebleu's approximate randomization (ties not "
        "counted), Holm p = 0.0400 over 2 comparisons); 1 document differs from bart's, and "
        "at 0.01 sacrebleu's approximate randomization needs 8")
    assert rs.verdict(_cell(documents_differing=1, documents_needed=2),
                      **dict(kwargs, test="bootstrap", comparisons=1)) == (
        "t5: too few documents to compare with bart on rouge1 F-measure: +12.50 points (95% "
        "family-wise CI [-3.12, +28.12]; centred paired bootstrap, Holm p = 0.0400 over 1 "
        "comparison); one document in all, and a bootstrap needs at least 2")


def test_verdicts_in_the_result(realsumm_stats):
    """Each compared system's cell carries its decision (Holm p against 1 - confidence, the
    sign of delta) and its verdict line; the baseline's carries neither."""
    stats = {name: realsumm_stats["macro"][name] for name in
             ("abs/bart/out", "abs/t5/out_11B", "abs/ptr_generator/out_pointer_gen")}
    result = rs.paired_test(stats, "abs/bart/out", n_samples=1000, confidence=0.9)
    for name in stats:
        for t in TYPES:
            for measure in rs.MEASURES:
                cell = result[name][t][measure]
                if name == "abs/bart/out":
                    assert "verdict" not in cell and "decision" not in cell
                    continue
                significant = cell["p_value_holm"] < 0.1
                assert cell["decision"] == ("no significant difference" if not significant
                                            else "better" if cell["delta"] > 0 else "worse")
                assert cell["verdict"].startswith(f"{name}: ")
                assert " on " + t + " " in cell["verdict"]
                assert "90% family-wise CI" in cell["verdict"]
                assert "approximate randomization, Holm p = " in cell["verdict"]
                assert "over 2 comparisons" in cell["verdict"]
    # the pointer-generator is ~8 F points below bart, t5 within a point of it
    for t in TYPES:
        assert result["abs/ptr_generator/out_pointer_gen"][t]["fmeasure"]["decision"] == "worse"
    assert result["abs/t5/out_11B"]["rouge1"]["fmeasure"]["decision"] == \
        "no significant difference"


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
    (lambda s: rs.paired_test(s, "a", test="paired-bs"), "test"),
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
    new = _cell(delta_low=-0.0625, delta_high=0.3125, delta_low_familywise=-0.125,
                delta_high_familywise=0.375, p_value=0.01, p_value_holm=0.5,
                decision="no significant difference", verdict="new: (its verdict line)")
    result = {
        "base": {"rouge1": {m: dict(cell) for m in rs.MEASURES}},
        "new": {"rouge1": {m: dict(new) for m in rs.MEASURES}},
        "signature": "test:randomization",
    }
    assert rs.format_comparison(result) == "\n".join([
        "rouge1 F-measure x 100, 95% percentile intervals; family-wise: Bonferroni over 1 "
        "comparison; Holm p: adjusted over them",
        "+----------------+----------------------+--------+-------------------+"
        "------------------+---------+---------+",
        "|         System |    Score [95% CI]    | Delta  | per-comparison CI |"
        "  family-wise CI  |  raw p  |  Holm p |",
        "+================+======================+========+===================+"
        "==================+=========+=========+",
        "| Baseline: base | 50.00 [25.00, 75.00] |        |                   |"
        "                  |         |         |",
        "+----------------+----------------------+--------+-------------------+"
        "------------------+---------+---------+",
        "|            new | 62.50 [50.00, 75.00] | +12.50 |  [-6.25, +31.25]  |"
        " [-12.50, +37.50] | 0.0100* | 0.5000  |",
        "+----------------+----------------------+--------+-------------------+"
        "------------------+---------+---------+",
        "new: (its verdict line)",
        "* p < 0.05",
        "signature: test:randomization",
    ])
    # the level follows the confidence: p = 0.01 is not below 0.01
    at_99 = rs.format_comparison(result, confidence=0.99)
    assert "| 0.0100  |" in at_99 and at_99.endswith("* p < 0.01\nsignature: test:randomization")
    assert "99% percentile intervals" in at_99 and "Score [99% CI]" in at_99
    with pytest.raises(ValueError, match="^measure"):
        rs.format_comparison(result, measure="f1")
    # a comparison with too few documents: its p-values are marked '!' (not '*', though the
    # raw p is below 0.05), and a note says what the mark means
    result["new"]["rouge1"]["fmeasure"].update(decision="too few documents",
                                               documents_differing=1, documents_needed=6)
    few = rs.format_comparison(result)
    assert "| 0.0100! | 0.5000! |" in few and "*" not in few.split("\n* p < 0.05")[0]
    assert few.endswith("* p < 0.05\n! too few documents for the test to reach p < 0.05, "
                        "whatever they hold: p as computed, no decision (see the verdict)\n"
                        "signature: test:randomization")
