"""rouge.compare(): the metric's paired tests end to end. The statistics it resamples must be
rouge_score's own per-example statistics (then rouge_significance's parity with sacrebleu,
tests/test_significance.py, carries over), and its errors name the argument."""
import collections
import json
from fractions import Fraction

import numpy as np
import pytest

from rouge_exact import significance as rs
from conftest import DATA
from test_significance import TYPES, realsumm_stats  # noqa: F401 (a fixture)

# systems whose rows carry the same references (realsumm's references differ in preprocessing
# between groups of systems; compare() takes one reference list)
SYSTEMS = ["abs/t5/out_11B", "abs/t5/out_3B", "abs/t5/out_base", "abs/t5/out_small"]


@pytest.fixture(scope="module")
def aligned():
    by_system = collections.defaultdict(dict)
    with open(DATA, encoding="utf-8") as f:
        for line in f:
            row = json.loads(line)
            by_system[row["system"]][row["doc"]] = row
    docs = sorted(by_system[SYSTEMS[0]])
    predictions = {s: [by_system[s][d]["prediction"] for d in docs] for s in SYSTEMS}
    references = [by_system[SYSTEMS[0]][d]["references"] for d in docs]
    assert all(by_system[s][d]["references"] == by_system[SYSTEMS[0]][d]["references"]
               for s in SYSTEMS for d in docs)
    return predictions, references


@pytest.mark.parametrize("aggregation", ["macro", "micro"])
@pytest.mark.parametrize("test", rs.TESTS)
@pytest.mark.slow
def test_compare_equals_the_tests_on_rouge_scores_statistics(metric, aligned, realsumm_stats,
                                                             aggregation, test):
    predictions, references = aligned
    n_samples = 2000 if test in ("randomization", "sacrebleu-randomization") else 1000
    out = metric.compare(predictions=predictions, references=references,
                         rouge_types=list(TYPES), aggregation=aggregation, test=test,
                         n_samples=n_samples, seed=7)
    stats = {s: realsumm_stats[aggregation][s] for s in predictions}
    # macro: each system's score is the exact mean of rouge_score's per-example numbers, as
    # compute() reports it (the tests resample the same statistics either way)
    reported = None if aggregation == "micro" else np.array(
        [[[float(sum(map(Fraction, column)) / len(column)) for column in np.asarray(m).T.tolist()]
          for m in stats[s].values()] for s in stats])
    expected = rs.paired_test(stats, next(iter(predictions)),
                              rs.mean_scores if aggregation == "macro" else rs.pooled_scores,
                              test=test, n_samples=n_samples, seed=7, reported=reported)
    assert {s: out[s] for s in predictions} == expected
    assert out["count"] == len(references)
    assert f"|test:{test}|" in out["signature"] and f"bs:{n_samples}" in out["signature"]
    assert "seed:7" in out["signature"]
    # the verdicts travel with the result, and the table prints them under each type
    table = rs.format_comparison(out)
    for system in SYSTEMS[1:]:
        for t in TYPES:
            line = out[system][t]["fmeasure"]["verdict"]
            assert line.startswith(f"{system}: ") and f"\n{line}\n" in table


@pytest.mark.parametrize("test", rs.TESTS)
def test_identical_system_has_delta_0_and_p_1(metric, aligned, test):
    predictions, references = aligned
    first = next(iter(predictions))
    out = metric.compare(predictions={"a": predictions[first], "b": list(predictions[first])},
                         references=references, rouge_types=["rouge1"], test=test)
    cell = out["b"]["rouge1"]["fmeasure"]
    assert (cell["delta"], cell["delta_low"], cell["delta_high"], cell["delta_low_familywise"],
            cell["delta_high_familywise"], cell["p_value"]) == (0, 0, 0, 0, 0, 1)
    assert cell["decision"] == "no significant difference"
    assert set(out["a"]["rouge1"]["fmeasure"]) == {"score", "low", "high"}


@pytest.mark.parametrize("kwargs, error, match", [
    (dict(predictions={"a": ["x"], "b": ["x", "y"]}), ValueError, r"^predictions\['b'\]"),
    (dict(predictions={"a": ["x"]}), ValueError, "^predictions: got 1 system"),
    (dict(predictions={"a": ["x"], 3: ["x"]}), ValueError, "^predictions: the system name 3"),
    (dict(predictions=[["x"], ["y"]]), TypeError, "^predictions: got list"),
    (dict(predictions={"a": ["x"], "b": ["y"]}, baseline="c"), ValueError, "^baseline: got 'c'"),
    (dict(predictions={"a": ["x"], "b": ["y"]}, test="t"), ValueError, "^test: got 't'"),
    (dict(predictions={"a": ["x"], "b": ["y"]}, rouge_types=["rougeX"]), ValueError,
     "^rouge_types"),
])
def test_bad_input_names_the_argument(metric, kwargs, error, match):
    with pytest.raises(error, match=match):
        metric.compare(**{"references": ["x"], **kwargs})
