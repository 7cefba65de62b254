"""Small batches may run the kernels as plain Python (rouge_kernels.pick): the same numbers as
the compiled kernels, for every type, profile and option that reaches a kernel."""
import types
import warnings

from conftest import staged
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import rouge_kernels as K
from test_kernels import PAIR, batch, text

TWIN = K.pure_python_twin()


@settings(max_examples=100, deadline=None)
@given(pred=text, ref=text)
def test_twin_kernels_equal_compiled(pred, ref):
    tokens, sent_offsets, text_sent_offsets, offsets = batch(pred, ref)
    calls = [("ngram_stats", (tokens, offsets, *PAIR, np.array([1, 2, 3]))),
             ("lcs_stats", (tokens, offsets, *PAIR)),
             ("union_lcs_stats", (tokens, sent_offsets, text_sent_offsets, tokens, offsets,
                                  *PAIR)),
             ("wlcs_stats", (tokens, sent_offsets, text_sent_offsets, tokens, offsets, *PAIR,
                             1.2)),
             ("skip_bigram_stats", (tokens, offsets, *PAIR, 4, True)),
             ("skip_bigram_stats", (tokens, offsets, *PAIR, -1, False))]
    with np.errstate(over="ignore"):
        for name, args in calls:
            assert np.array_equal(getattr(TWIN, name)(*args), getattr(K, name)(*args)), name


def _forced_twin(name, small):
    function = getattr(TWIN, name)

    def run(*args, **kwargs):
        with np.errstate(over="ignore"):
            return function(*args, **kwargs)

    return run


CASES = [
    dict(rouge_types=["rouge1", "rouge2", "rougeL", "rougeLsum"], use_stemmer=True),
    dict(rouge_types=["rougeW-1.2", "rougeS4", "rougeSU4", "rougeS", "rougeSU"],
         multi_ref="average", remove_stopwords=True),
    dict(rouge_types=["rouge1", "rougeL", "rougeW", "rougeSU4"], profile="rouge155",
         use_stemmer=True, length_limit_bytes=300),
    dict(rouge_types=["rouge2", "rougeLsum"], aggregation="micro", multi_ref="best"),
]


@pytest.mark.parametrize("options", CASES)
def test_metric_with_twin_kernels_equals_compiled(metric, metric_module, realsumm, monkeypatch,
                                                  options):
    rows = realsumm[::70]  # 50 rows, 1-4 references each
    kwargs = dict(predictions=[r["prediction"] for r in rows],
                  references=[r["references"] for r in rows], detailed=True, **options)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        compiled = [metric.compute(**kwargs), metric.compute(use_aggregator=False, **kwargs)]
        for name in ("rouge_profiles", "rouge_pipeline", "rouge_aggregate"):
            monkeypatch.setattr(staged(name), "pick", _forced_twin)
        twin = [metric.compute(**kwargs), metric.compute(use_aggregator=False, **kwargs)]
    assert twin == compiled


def test_pick_takes_the_twin_only_for_small_batches_numba_has_not_compiled(monkeypatch):
    not_compiled = types.SimpleNamespace(signatures=[])
    monkeypatch.setitem(K._pure, "seconds", 0.0)
    tokens, _, _, offsets = batch([[1, 2, 3]], [[1, 3]])
    K.lcs_stats(tokens, offsets, *PAIR)  # numba has it now (compiled, or from its cache)
    assert K.pick("lcs_stats", small=True) is K.lcs_stats
    monkeypatch.setitem(K.__dict__, "_lcs_dummy", not_compiled)
    monkeypatch.setitem(K._COMPILED_BY, "lcs_stats", "_lcs_dummy")
    assert K.pick("lcs_stats", small=False) is K.lcs_stats
    chosen = K.pick("lcs_stats", small=True)
    assert chosen is not K.lcs_stats and chosen.__wrapped__ is TWIN.lcs_stats
    assert tuple(chosen(tokens, offsets, *PAIR)[0]) == (2, 3, 2)
    assert K._pure["seconds"] > 0  # the time spent in the twin is counted...
    monkeypatch.setitem(K._pure, "seconds", K.PURE_BUDGET_SECONDS)
    assert K.pick("lcs_stats", small=True) is K.lcs_stats  # ...and bounded
